package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rumbench/rumbench/internal/bench"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/workload"
)

// maxSweepCounts bounds the counts of one sweep.
const maxSweepCounts = 32

// countList is a workload's client-count flag that also takes a list of counts (a concurrency
// sweep): the workload's own flag gets the largest, so its sizes and memory are checked for it.
type countList struct {
	name   string
	inner  pflag.Value
	counts []int // nil for one count
}

// sweepFlag wraps the workload's client-count flag (spec.Clients) in fs so that it takes a list;
// nil when the workload has none.
func sweepFlag(spec workload.Spec, fs *pflag.FlagSet) *countList {
	fl := fs.Lookup(spec.Clients)
	if spec.Clients == "" || fl == nil {
		return nil
	}
	c := &countList{name: fl.Name, inner: fl.Value}
	fl.Value = c
	fl.Usage += "; a list such as 1,2,4,8 sweeps the counts, each a target of the run (docs/scaling.md)"
	return c
}

// String renders the list, or the one count.
func (c *countList) String() string {
	if len(c.counts) == 0 {
		return c.inner.String()
	}
	return joinInts(c.counts)
}

// Type is the wrapped flag's.
func (c *countList) Type() string { return c.inner.Type() }

// Set takes one count, or an increasing list of at most maxSweepCounts counts of at least 1.
func (c *countList) Set(v string) error {
	if !strings.Contains(v, ",") {
		c.counts = nil
		return c.inner.Set(v)
	}
	items, err := workload.SplitList("--"+c.name, v)
	if err != nil {
		return err
	}
	if len(items) > maxSweepCounts {
		return fmt.Errorf("%d counts: a sweep takes at most %d", len(items), maxSweepCounts)
	}
	var counts []int
	for _, it := range items {
		n, err := strconv.Atoi(it)
		if err != nil || n < 1 {
			return fmt.Errorf("%q is not a count: want whole numbers >= 1, increasing (e.g. 1,2,4,8)", it)
		}
		if len(counts) > 0 && n <= counts[len(counts)-1] {
			return fmt.Errorf("%d after %d: the counts must increase (e.g. 1,2,4,8)", n, counts[len(counts)-1])
		}
		counts = append(counts, n)
	}
	if err := c.inner.Set(strconv.Itoa(counts[len(counts)-1])); err != nil {
		return err
	}
	c.counts = counts
	return nil
}

// sweepTargets returns the run's sweep (nil without a list of counts) and its targets: those
// given, or, for a workload whose count shapes its data, each of them once per count
// ("pebble@4"), in increasing order of counts.
func sweepTargets(f *runFlags, targets []results.Target) (*results.Sweep, []results.Target, error) {
	if f.sweep == nil || len(f.sweep.counts) == 0 {
		return nil, targets, nil
	}
	if f.shardFlags.shard != "" {
		return nil, nil, usagef("--%s with a list (a sweep) does not go with --shard: give each shard one count", f.sweep.name)
	}
	spec, _ := workload.Lookup(f.workload)
	sw := &results.Sweep{Flag: f.sweep.name, Counts: f.sweep.counts, LoadOnce: !spec.ClientsShapeData}
	if sw.LoadOnce {
		return sw, targets, nil
	}
	var out []results.Target
	for _, t := range targets {
		for _, n := range sw.Counts {
			c := t
			c.Label, c.Of, c.Clients = bench.SweepLabel(t.Label, n), t.Label, n
			out = append(out, c)
		}
	}
	return sw, out, nil
}

// sweepBanner says, for the run's banner, what a sweep runs and where its counts exceed what a
// host of cpus CPUs can drive; nil without a sweep.
func sweepBanner(sw *results.Sweep, cpus int) []string {
	if sw == nil || len(sw.Counts) == 0 {
		return nil
	}
	how := "each engine loads its data once, then runs the other steps at each count on it"
	if !sw.LoadOnce {
		how = "each count loads its own data (the count shapes it)"
	}
	lines := []string{fmt.Sprintf("concurrency sweep: --%s %s: %s", sw.Flag, joinInts(sw.Counts), how)}
	top := sw.Counts[len(sw.Counts)-1]
	if limit := runner.MaxWorkersPerCPU * cpus; top > limit {
		lines = append(lines, fmt.Sprintf("warning: counts above %d are more clients than this host's %d CPUs can drive (%d per CPU): their steps are marked degraded", limit, cpus, runner.MaxWorkersPerCPU))
	} else if top > cpus {
		lines = append(lines, fmt.Sprintf("note: counts above %d share this host's %d CPUs with each other (and with an embedded engine or a managed server): a knee there may be the host's, not the engine's", cpus, cpus))
	}
	return lines
}

// joinInts renders ns as "1,2,4".
func joinInts(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ",")
}
