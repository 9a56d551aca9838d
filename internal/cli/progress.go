package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rumbench/rumbench/internal/metric"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/table"
)

// progress shows the run's progress on stderr: a live line on a terminal, one line per interval
// otherwise, nothing with --quiet.
type progress struct {
	w          interface{ Write([]byte) (int, error) }
	tty, quiet bool
	open       bool // a live line is on screen
}

// progressTick is the sampling interval of a run, s: the progress shows each interval at its
// own length, and leaves out those shorter than half of it (a step's last moments: their
// rates over a few milliseconds say nothing), which the intervals file keeps.
const progressTick = 1.0

func (p *progress) tick(iv *results.Interval) {
	if p.quiet || iv.Secs < progressTick/2 {
		return
	}
	line := progressLine(iv)
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K"+line)
		p.open = true
		return
	}
	fmt.Fprintln(p.w, line)
}

// progressLine renders an interval: the headline rate under the workload's name for it, the
// role rates that are not zero, the largest response time per kind that ran, then the system
// figures, each under its catalog name.
func progressLine(iv *results.Interval) string {
	var b strings.Builder
	name := iv.RateName
	if name == "" {
		name = "rate"
	}
	if iv.Settle {
		// The step's settling: no operations, the deferred writes they caused.
		fmt.Fprintf(&b, "%-8s %-7s %6.0fs  settling %.1fs", iv.Target, iv.Step, iv.T, iv.Secs)
		for _, n := range []string{"wMB/s", "cpu%", "db_MB"} {
			v, _ := metric.MustGet(n).Interval(iv)
			fmt.Fprintf(&b, "  %s %.1f", n, v)
		}
		return b.String()
	}
	if iv.Secs > progressTick*1.05 || iv.Secs < progressTick*0.95 {
		// A partial interval (a step's last, or the warm-up's): its time is said.
		fmt.Fprintf(&b, "%-8s %-7s %6.1fs (over %.1fs)  %s %8.0f", iv.Target, iv.Step, iv.T, iv.Secs, name, iv.Rate)
	} else {
		fmt.Fprintf(&b, "%-8s %-7s %6.0fs  %s %8.0f", iv.Target, iv.Step, iv.T, name, iv.Rate)
	}
	counted := map[string]bool{} // roles the headline rate counts
	for _, k := range iv.Kinds {
		counted[k.Role] = counted[k.Role] || slices.Contains(iv.RateKinds, k.Name)
	}
	for _, r := range []struct{ name, role string }{{"ips", results.RoleWrite}, {"dps", results.RoleDelete}, {"qps", results.RoleRead}} {
		if v, _ := metric.MustGet(r.name).Interval(iv); v > 0 && !counted[r.role] {
			fmt.Fprintf(&b, "  %s %8.0f", r.name, v)
		}
	}
	for _, f := range iv.Faults {
		fmt.Fprintf(&b, "  FAULT %s", f) // injected in the interval (--fault)
	}
	if iv.Failed > 0 {
		fmt.Fprintf(&b, "  failed %d", iv.Failed)
	}
	if iv.LagSecs > 0 {
		// Behind a fixed rate's schedule (--rate): how far, and the operations due.
		fmt.Fprintf(&b, "  lag_s %.3f backlog %d", iv.LagSecs, iv.Backlog)
	}
	if iv.ReplLagBytes > 0 || iv.ReplLagSecs > 0 {
		// A cluster's standby furthest behind (--cluster).
		fmt.Fprintf(&b, "  repl_lag %.0fKB %.3fs", float64(iv.ReplLagBytes)/1024, iv.ReplLagSecs)
	}
	if iv.FlowPaused > 0 || iv.CertFailures > 0 {
		fmt.Fprintf(&b, "  flow_paused %.1f%% cert_fail %d", iv.FlowPaused*100, iv.CertFailures)
	}
	sep := "  max_ms"
	for _, k := range iv.Kinds {
		if k.Ops > 0 || k.MaxUs > 0 {
			fmt.Fprintf(&b, "%s %s %.1f", sep, k.Name, k.MaxUs/1e3)
			sep = ","
		}
	}
	for _, n := range []string{"rMB/s", "wMB/s", "cpu%", "db_MB"} {
		v, _ := metric.MustGet(n).Interval(iv)
		fmt.Fprintf(&b, "  %s %.1f", n, v)
	}
	return b.String()
}

func (p *progress) step(s results.Step) {
	if p.quiet {
		return
	}
	p.endLine()
	name := s.RateName
	if name == "" {
		name = "rate"
	}
	settled := ""
	if s.Settled != "" {
		settled = fmt.Sprintf(" (then %.1fs settling: %s)", s.SettleSecs, s.Settled)
	}
	kept := ""
	if sc := s.Schedule; sc != nil && !sc.Met {
		kept = fmt.Sprintf("; behind its rate: %.0f of %.0f per second started, %.1f ms late on average", sc.Achieved, sc.Offered, sc.LagMeanMs)
	}
	fmt.Fprintf(p.w, "%-8s %-7s done: %s, %.1fs, %s %.0f%s%s\n", s.Target, s.Step, s.Status, s.Secs, name, s.Rate, settled, kept)
	for _, f := range s.Faults {
		fmt.Fprintf(p.w, "%-8s %-7s %s\n", s.Target, s.Step, faultLine(&f))
	}
	for _, class := range table.ErrorClassNames() {
		if n := s.Errors[class]; n > 0 {
			fmt.Fprintf(p.w, "%-8s %-7s %d operations failed with %s errors, the first: %s\n", s.Target, s.Step, n, class, s.FirstErrors[class])
		}
	}
	if a := s.AckCheck; a != nil {
		fmt.Fprintf(p.w, "%-8s %-7s acknowledged writes: %s\n", s.Target, s.Step, ackLine(a))
	}
}

// faultLine says what a fault did, in one line.
func faultLine(f *results.Fault) string {
	var b strings.Builder
	name := f.Kind
	if f.Node != "" {
		name += ":" + f.Node
	}
	fmt.Fprintf(&b, "fault %s at %.1fs: ", name, f.AtSecs)
	if f.Error != "" {
		fmt.Fprintf(&b, "%s; ", f.Error)
	}
	fmt.Fprintf(&b, "unavailable %.2fs", f.UnavailSecs)
	switch {
	case f.RecoverSecs != nil:
		fmt.Fprintf(&b, ", back to 90%% of %.0f/s after %.1fs (p99 %.0f µs meanwhile)", f.BaselineRate, *f.RecoverSecs, f.RecoveryP99Us)
	case f.Unrecovered:
		fmt.Fprintf(&b, ", not back to 90%% of %.0f/s by the step's end", f.BaselineRate)
	default:
		b.WriteString(", recovery not measured (no interval before the fault)")
	}
	fmt.Fprintf(&b, "; %d operations failed, %d of unknown outcome", f.Failed, f.Unknown)
	switch {
	case f.ServerReadySecs > 0 && f.Kind == "kill-primary":
		fmt.Fprintf(&b, "; a standby promoted took writes %.2fs after the kill", f.ServerReadySecs)
	case f.ServerReadySecs > 0 && f.Node != "":
		fmt.Fprintf(&b, "; %s was back (a Galera node: synced) %.2fs after its start", f.Node, f.ServerReadySecs)
	case f.ServerReadySecs > 0:
		fmt.Fprintf(&b, "; the server accepted connections %.2fs after its start", f.ServerReadySecs)
	}
	return b.String()
}

// ackLine says what the check of the acknowledged writes found, in one line.
func ackLine(a *results.AckCheck) string {
	if !a.Checked {
		return fmt.Sprintf("%d, %d of unknown outcome; %s", a.Acknowledged, a.Unknown, a.How)
	}
	if a.Lost == 0 {
		return fmt.Sprintf("none lost (%s)", a.How)
	}
	return fmt.Sprintf("%d LOST of %d (%s)", a.Lost, a.Acknowledged, a.How)
}

func (p *progress) event(format string, args ...any) {
	if p.quiet {
		return
	}
	p.endLine()
	fmt.Fprintf(p.w, format+"\n", args...)
}

func (p *progress) endLine() {
	if p.open {
		fmt.Fprintln(p.w)
		p.open = false
	}
}
