package bench

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/workload"
)

// SweepLabel is the label of target label run with n clients in a concurrency sweep: "pebble@8".
func SweepLabel(label string, n int) string { return label + "@" + strconv.Itoa(n) }

// validateSweep refuses a sweep the run cannot do: a workload without a client count, counts
// that are not increasing, a split run (a sweep's counts are this host's clients), a prepare
// (it only loads), --reuse of data whose shape a count decides.
func validateSweep(cfg Config) error {
	sw := cfg.Sweep
	if sw == nil {
		return nil
	}
	name := cfg.Workload.Name()
	if _, ok := cfg.Workload.(workload.Concurrent); !ok {
		return UsageError{fmt.Errorf("workload %s has no client count to sweep", name)}
	}
	if len(sw.Counts) < 2 {
		return UsageError{fmt.Errorf("--%s: a sweep needs two or more counts", sw.Flag)}
	}
	for i := 1; i < len(sw.Counts); i++ {
		if sw.Counts[i] <= sw.Counts[i-1] {
			return UsageError{fmt.Errorf("--%s %v: the counts of a sweep must increase", sw.Flag, sw.Counts)}
		}
	}
	switch {
	case cfg.Shard != nil:
		return UsageError{fmt.Errorf("--%s with a list (a sweep) does not go with --shard: give each shard one count", sw.Flag)}
	case cfg.Prepare:
		return UsageError{fmt.Errorf("--%s with a list (a sweep) does not go with prepare: prepare loads once, then give the list to run --reuse", sw.Flag)}
	case cfg.Reuse && !sw.LoadOnce:
		return UsageError{fmt.Errorf("--%s with a list (a sweep) does not go with --reuse for workload %s: each count loads its own data", sw.Flag, name)}
	}
	if sw.LoadOnce {
		if _, ok := cfg.Workload.(workload.Reuser); !ok {
			return UsageError{fmt.Errorf("workload %s cannot run a sweep on data loaded once", name)}
		}
	}
	return nil
}

// runSweep runs a sweep on data loaded once: the workload's load steps, recorded under base,
// then its other steps once per count, each count recorded as its own target
// (SweepLabel(base.Label, count)), in increasing order of counts. Steps in skip do not run.
func runSweep(ctx context.Context, cfg Config, base results.Target, run workload.Run, skip map[string]bool, setup runner.Setup, dir string, out sink) error {
	conc := cfg.Workload.(workload.Concurrent)
	loads := cfg.Workload.(workload.Reuser).LoadSteps()
	steps := cfg.Workload.Steps()
	for _, name := range steps {
		if skip[name] || !slices.Contains(loads, name) {
			continue
		}
		if err := runStep(ctx, cfg, base.Label, run, setup, name, dir, out); err != nil || ctx.Err() != nil {
			return err
		}
	}
	for _, n := range cfg.Sweep.Counts {
		if err := conc.SetClients(n); err != nil {
			return UsageError{err}
		}
		t := base
		t.Label, t.Of, t.Clients, t.Check = SweepLabel(base.Label, n), base.Label, n, ""
		if err := out.opened(t); err != nil {
			return err
		}
		out.event("%s: %d clients (--%s)", t.Label, n, cfg.Sweep.Flag)
		s := setup
		s.Label = t.Label
		for _, name := range steps {
			if skip[name] || slices.Contains(loads, name) {
				continue
			}
			if err := runStep(ctx, cfg, t.Label, run, s, name, dir, out); err != nil || ctx.Err() != nil {
				return err
			}
		}
	}
	return nil
}
