package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/rumbench/rumbench/internal/bench"
	"github.com/rumbench/rumbench/internal/live"
	"github.com/rumbench/rumbench/internal/results"
)

// metricsFlags are the flags of run's live metrics endpoint.
type metricsFlags struct {
	listen string
	any    bool
}

func (m *metricsFlags) add(fl *pflag.FlagSet) {
	fl.StringVar(&m.listen, "metrics-listen", "", "serve the run's live metrics at http://ADDR/metrics in the OpenMetrics format while it runs, for a Prometheus server to scrape (HOST:PORT; 127.0.0.1:0 picks a free port and prints it; docs/live.md)")
	fl.BoolVar(&m.any, "metrics-listen-any", false, "allow --metrics-listen on an address beyond this host (every interface, or a non-loopback address)")
}

// check refuses an address the endpoint would not listen on, before anything starts.
func (m *metricsFlags) check() error {
	if m.listen == "" {
		if m.any {
			return usagef("--metrics-listen-any goes with --metrics-listen ADDR")
		}
		return nil
	}
	if err := live.CheckAddr("--metrics-listen", m.listen, m.any); err != nil {
		return usageError{err}
	}
	return nil
}

// metricsEndpoint is a run's live metrics endpoint: its registry, fed by the run's samples
// and step records, and the listener that serves it.
type metricsEndpoint struct {
	reg *live.Registry
	ln  *live.Listener
	run live.Run
}

// startMetrics listens on --metrics-listen and wires cfg's callbacks to the registry; nil
// without the flag. The listen address is said on env.Stderr, also under --quiet: it is how a
// scraper finds the run.
func startMetrics(env *Env, m *metricsFlags, cfg *bench.Config) (*metricsEndpoint, error) {
	if m.listen == "" {
		return nil, nil
	}
	run := live.Run{ID: cfg.RunID, Label: cfg.Label, Workload: cfg.Workload.Name(), Version: bench.Version}
	if cfg.Shard != nil {
		run.Shard = live.ShardName(cfg.Shard.Index, cfg.Shard.Count)
	}
	reg := live.NewRegistry(run)
	ln, err := live.Listen("--metrics-listen", m.listen, m.any, live.Handler(reg))
	if err != nil {
		return nil, usageError{err}
	}
	fmt.Fprintf(env.Stderr, "rumbench: metrics at %s\n", ln.URL(live.Path))
	e := &metricsEndpoint{reg: reg, ln: ln, run: run}
	cfg.OnSample = reg.Observe
	onStep := cfg.OnStep
	cfg.OnStep = func(s results.Step) {
		reg.StepDone(&s)
		if onStep != nil {
			onStep(s)
		}
	}
	return e, nil
}

// started names the run by its directory once it is made: the run's id is its name (a "-2" is
// added when the id was taken).
func (e *metricsEndpoint) started(dir string) {
	if e != nil {
		e.run.ID = filepath.Base(dir)
		e.reg.SetRun(e.run)
	}
}

// stop waits, when a scraper has been reading the endpoint, for its scrape of the run's final
// counts (live.Registry.AwaitScrape; not after ctx ends), then closes the endpoint.
func (e *metricsEndpoint) stop(ctx context.Context, env *Env) {
	if e == nil {
		return
	}
	if d, ok := e.reg.AwaitScrape(ctx); !ok && e.reg.Scrapes() > 0 && ctx.Err() == nil {
		fmt.Fprintf(env.Stderr, "rumbench: warning: metrics: no scrape came within %.0fs of the run's end: the scraper may lack its last counts\n", d.Seconds())
	}
	e.ln.Close()
}
