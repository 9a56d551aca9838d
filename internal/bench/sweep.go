package bench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/workload"
)

// SweepLabel is the label of target label run with n clients in a concurrency sweep: "pebble@8".
func SweepLabel(label string, n int) string { return label + "@" + strconv.Itoa(n) }

// RateLabel is the label of target label run at a fixed rate in a sweep of rates:
// "postgres@r2000" (a fraction keeps its digits: "pebble@r0.5").
func RateLabel(label string, rate float64) string {
	return label + "@r" + strconv.FormatFloat(rate, 'f', -1, 64)
}

// validateSweep refuses a sweep the run cannot do: a workload without a client count, counts
// that are not increasing, a split run (a sweep's counts are this host's clients), a prepare
// (it only loads), --reuse of data whose shape a count decides.
func validateSweep(cfg Config) error {
	sw := cfg.Sweep
	if sw == nil {
		return nil
	}
	name := cfg.Workload.Name()
	if sw.Rates != nil {
		return validateRates(cfg)
	}
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

// validateRates refuses a sweep of rates the run cannot do: fewer than two rates, rates that
// do not increase, no fixed rate, a split run or a prepare, a workload that cannot run its steps
// again on data loaded once.
func validateRates(cfg Config) error {
	rs := cfg.Sweep.Rates
	switch {
	case len(rs) < 2:
		return UsageError{errors.New("--rate: a sweep needs two or more rates")}
	case cfg.Pace == nil:
		return UsageError{errors.New("a sweep of rates needs the run's --rate")}
	case cfg.Shard != nil:
		return UsageError{errors.New("--rate with a list (a sweep) does not go with --shard: give each shard one rate")}
	case cfg.Prepare:
		return UsageError{errors.New("--rate with a list (a sweep) does not go with prepare: prepare loads once, then give the list to run --reuse")}
	}
	for i := 1; i < len(rs); i++ {
		if rs[i] <= rs[i-1] {
			return UsageError{fmt.Errorf("--rate %g after %g: the rates of a sweep must increase", rs[i], rs[i-1])}
		}
	}
	if _, ok := cfg.Workload.(workload.Reuser); !ok {
		return UsageError{fmt.Errorf("workload %s cannot run a sweep on data loaded once", cfg.Workload.Name())}
	}
	return nil
}

// sweepPoint is one point of a sweep: the target's label at it, and what the run sets for it.
type sweepPoint struct {
	label   string
	clients int
	rate    float64
}

// points returns the sweep's points for target label, in order.
func points(sw *results.Sweep, label string) []sweepPoint {
	var out []sweepPoint
	for _, n := range sw.Counts {
		out = append(out, sweepPoint{label: SweepLabel(label, n), clients: n})
	}
	for _, r := range sw.Rates {
		out = append(out, sweepPoint{label: RateLabel(label, r), rate: r})
	}
	return out
}

// runSweep runs a sweep on data loaded once: the workload's load steps, recorded under base,
// then its other steps once per count, each count recorded as its own target
// (SweepLabel(base.Label, count)), in increasing order of counts. Steps in skip do not run.
func runSweep(ctx context.Context, cfg Config, base results.Target, run workload.Run, skip map[string]bool, setup runner.Setup, dir string, out sink) error {
	conc, _ := cfg.Workload.(workload.Concurrent)
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
	for _, p := range points(cfg.Sweep, base.Label) {
		t := base
		t.Label, t.Of, t.Clients, t.Rate, t.Check = p.label, base.Label, p.clients, p.rate, ""
		if p.clients > 0 {
			if err := conc.SetClients(p.clients); err != nil {
				return UsageError{err}
			}
		}
		c := cfg
		if p.rate > 0 {
			pace := *cfg.Pace
			pace.Rate = p.rate
			c.Pace = &pace
		}
		if err := out.opened(t); err != nil {
			return err
		}
		if p.clients > 0 {
			out.event("%s: %d clients (--%s)", t.Label, p.clients, cfg.Sweep.Flag)
		} else {
			out.event("%s: a fixed rate of %g per second (--rate)", t.Label, p.rate)
		}
		s := setup
		s.Label = t.Label
		for _, name := range steps {
			if skip[name] || slices.Contains(loads, name) {
				continue
			}
			if err := runStep(ctx, c, t.Label, run, s, name, dir, out); err != nil || ctx.Err() != nil {
				return err
			}
		}
	}
	return nil
}
