package cli

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/table"
)

// Bounds of the fault schedule.
const (
	maxFaults   = 16
	maxFaultAt  = 24 * time.Hour
	maxFaultFor = time.Hour
)

// faultKinds are the kinds --fault takes; those that last take +DURATION.
var faultKinds = []string{"kill", "restart", "stop", "sever", "kill-primary"}

// faultFlags are the run's failure flags: --fault (a schedule) and --tolerate-errors.
type faultFlags struct {
	faults   []string
	tolerate string
}

// faultFlagNames are the flags of faultFlags: a preparation takes none (it only loads).
var faultFlagNames = []string{"fault", "tolerate-errors"}

func (f *faultFlags) add(fl *pflag.FlagSet) {
	fl.StringArrayVar(&f.faults, "fault", nil, "inject a fault into every measured step (not the loads) at a time from its start, and measure the outage: kill@30s (SIGKILL the managed server, then start it on the same data), restart@30s (a clean shutdown and start), stop@30s+10s (SIGSTOP it for 10 s, then SIGCONT), sever@30s+5s (cut every client connection and refuse new ones for 5 s); on a --cluster, kill-primary@30s (a failover: the primary killed and left down, a replica promoted) and :NODE after a kind to aim it at one server (kill@30s:node2, stop@30s+5s:replica1); repeat the flag for several; clients reconnect and go on (docs/failures.md)")
	fl.StringVar(&f.tolerate, "tolerate-errors", "", "error classes the clients go on through, counted, instead of failing the run: a list of connection, timeout, conflict, constraint, other, or any (every class but connection); with --fault, connection and timeout are implied")
}

var faultSpec = regexp.MustCompile(`^([a-z-]+)@([0-9.]+[a-z]+)(?:\+([0-9.]+[a-z]+))?(?::([a-z0-9]+))?$`)

// build returns the fault schedule and the tolerated classes, or a usage error of one line.
// engines are the run's engines, dsn says whether the server is the user's (--dsn).
func (f *faultFlags) build(engines []string, dsn bool, clusters []string) ([]runner.Fault, runner.Tolerance, error) {
	tol, err := parseTolerance(f.tolerate)
	if err != nil {
		return nil, 0, err
	}
	if len(f.faults) > maxFaults {
		return nil, 0, usagef("--fault: at most %d faults (got %d)", maxFaults, len(f.faults))
	}
	var faults []runner.Fault
	for _, text := range f.faults {
		ft, err := parseFault(text)
		if err != nil {
			return nil, 0, err
		}
		if err := checkFaultNode(text, ft, clusters); err != nil {
			return nil, 0, err
		}
		if dsn && ft.Kind != "sever" {
			return nil, 0, usagef("--fault %s: a server given with --dsn is the user's to %s; rumbench can only sever its own connections (sever@T+D), and measures what its clients see of the rest (--tolerate-errors connection)", input.Short(text), ft.Kind)
		}
		faults = append(faults, ft)
	}
	for _, e := range engines {
		s, _ := engine.Lookup(e)
		switch {
		case len(faults) > 0 && !s.Faults:
			return nil, 0, usagef("--fault: engine %s takes no faults (engines that do: %s)", e, strings.Join(faultEngines(), ", "))
		case tol.Has(table.ClassConnection) && s.Server && !s.Faults:
			return nil, 0, usagef("--tolerate-errors connection: engine %s's sessions do not reconnect (engines whose do: %s)", e, strings.Join(faultEngines(), ", "))
		}
	}
	return faults, tol, nil
}

// parseFault parses one --fault: KIND@AT, or KIND@AT+FOR for the kinds that last.
func parseFault(text string) (runner.Fault, error) {
	m := faultSpec.FindStringSubmatch(text)
	if m == nil {
		return runner.Fault{}, usagef("--fault %q: not KIND@TIME or KIND@TIME+DURATION (e.g. kill@30s, stop@30s+10s; kinds: %s)", input.Short(text), strings.Join(faultKinds, ", "))
	}
	ft := runner.Fault{Kind: m[1], Node: m[4]}
	if !slices.Contains(faultKinds, ft.Kind) {
		return ft, usagef("--fault %q: no fault kind %q (valid: %s)", input.Short(text), input.Short(ft.Kind), strings.Join(faultKinds, ", "))
	}
	var err error
	if ft.At, err = time.ParseDuration(m[2]); err != nil || ft.At < 0 || ft.At > maxFaultAt {
		return ft, usagef("--fault %q: the time %q must be a duration from 0 to %v (e.g. 30s)", input.Short(text), input.Short(m[2]), maxFaultAt)
	}
	lasts := ft.Kind == "stop" || ft.Kind == "sever"
	if ft.Node != "" && (ft.Kind == "sever" || ft.Kind == "kill-primary") {
		return ft, usagef("--fault %q: a %s aims at no node (%s@%s)", input.Short(text), ft.Kind, ft.Kind, m[2])
	}
	switch {
	case lasts && m[3] == "":
		return ft, usagef("--fault %q: a %s lasts: give its duration, %s@%s+10s", input.Short(text), ft.Kind, ft.Kind, m[2])
	case !lasts && m[3] != "":
		return ft, usagef("--fault %q: a %s takes no duration (%s@%s)", input.Short(text), ft.Kind, ft.Kind, m[2])
	case lasts:
		if ft.For, err = time.ParseDuration(m[3]); err != nil || ft.For <= 0 || ft.For > maxFaultFor {
			return ft, usagef("--fault %q: the duration %q must be above 0 and at most %v", input.Short(text), input.Short(m[3]), maxFaultFor)
		}
	}
	return ft, nil
}

// parseTolerance parses --tolerate-errors.
func parseTolerance(text string) (runner.Tolerance, error) {
	var t runner.Tolerance
	if text == "" {
		return t, nil
	}
	for _, name := range strings.Split(text, ",") {
		if name == "any" {
			for c := table.ClassTimeout; c < table.NumErrorClasses; c++ {
				t = t.With(c)
			}
			continue
		}
		c, ok := table.ParseErrorClass(name)
		if !ok {
			return 0, usagef("--tolerate-errors %q: no error class %q (valid: %s, any)", input.Short(text), input.Short(name), strings.Join(table.ErrorClassNames(), ", "))
		}
		t = t.With(c)
	}
	return t, nil
}

// faultEngines returns the engines that take --fault, sorted.
func faultEngines() []string {
	var names []string
	for _, n := range engine.Names() {
		if s, _ := engine.Lookup(n); s.Faults {
			names = append(names, n)
		}
	}
	return names
}

// checkFaultNode refuses a cluster fault without a cluster, and a node no --cluster has.
func checkFaultNode(text string, ft runner.Fault, clusters []string) error {
	if ft.Node == "" && ft.Kind != "kill-primary" {
		return nil
	}
	if len(clusters) == 0 {
		return usagef("--fault %q: a node or a failover needs a --cluster", input.Short(text))
	}
	for _, v := range clusters {
		c, err := engine.ParseCluster(v)
		if err != nil {
			return usagef("%v", err)
		}
		nodes := c.Nodes()
		switch {
		case ft.Kind == "kill-primary" && c.Galera > 0:
			return usagef("--fault %q: a Galera cluster has no primary to fail over from (kill@T:nodeN)", input.Short(text))
		case ft.Node != "" && !slices.Contains(nodes, ft.Node):
			return usagef("--fault %q: --cluster %s has no node %q (valid: %s)", input.Short(text), c, ft.Node, strings.Join(nodes, ", "))
		}
	}
	return nil
}
