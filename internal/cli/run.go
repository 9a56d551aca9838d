package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rumbench/rumbench/internal/bench"
	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/redact"
	"github.com/rumbench/rumbench/internal/report"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/store"
	"github.com/rumbench/rumbench/internal/syncacct"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/textwrap"
	"github.com/rumbench/rumbench/internal/workload"
)

// maxSecs bounds a duration flag in seconds: a week, far below where it overflows a
// time.Duration (about 292 years, past which a step would end at once).
const maxSecs = 7 * 24 * 3600

// checkNumbers refuses a floating-point flag given as NaN or ±Inf, and a duration in seconds (a
// flag named *-secs) that is negative (--cleanup-wait-secs takes -1 for the reference's formula)
// or longer than maxSecs, the workload's flags included.
func checkNumbers(cmd *cobra.Command) error {
	var bad error
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if bad != nil || fl.Value.Type() != "float64" {
			return
		}
		v, err := strconv.ParseFloat(fl.Value.String(), 64)
		switch {
		case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
			bad = usagef("--%s %s: must be a finite number", fl.Name, fl.Value.String())
		case strings.HasSuffix(fl.Name, "-secs") && v < 0 && !(fl.Name == "cleanup-wait-secs" && v == -1):
			bad = usagef("--%s %s: must be >= 0 seconds", fl.Name, fl.Value.String())
		case strings.HasSuffix(fl.Name, "-secs") && v > maxSecs:
			bad = usagef("--%s %s: must be at most %d seconds (a week)", fl.Name, fl.Value.String(), maxSecs)
		}
	})
	return bad
}

// buildConfig turns the flags into the workload and bench configurations, or a usage error. ctx
// bounds what it runs (a --server-bin directory's programs asked for their version): its end is
// an interrupt (errors.Is finds errInterrupted).
func buildConfig(ctx context.Context, cmd *cobra.Command, env *Env, f *runFlags) (bench.Config, error) {
	if err := checkNumbers(cmd); err != nil {
		return bench.Config{}, err
	}
	if f.workload != f.spec.Name {
		// --workload reached the parser of another workload's command (not through Main's
		// workloadFirst, which makes it the command).
		return bench.Config{}, usagef("--workload %s: rumbench %s runs %s: name one workload", input.Short(f.workload), f.command, f.spec.Name)
	}
	if err := f.spec.CheckProfile(f.profile); err != nil {
		return bench.Config{}, usageError{err}
	}
	f.cacheMBSet = cmd.Flags().Changed("cache-mb")
	if p, ok := memoryProfiles[f.profile]; ok {
		// A memory profile's cache and cap, unless given.
		if !f.cacheMBSet {
			f.cacheMB, f.cacheMBSet = p.cacheMB, true
		}
		if !cmd.Flags().Changed("memory-limit") {
			f.memoryLimit = p.limit
		}
	}
	shared := workload.Shared{Profile: f.profile, Seed: f.seed}
	var err error
	if shared.Memory, shared.Columns, err = runLimits(f); err != nil {
		return bench.Config{}, err
	}
	if cmd.Flags().Changed("warmup-secs") {
		shared.WarmupSecs = &f.warmupSecs
	}
	if cmd.Flags().Changed("cleanup-wait-secs") {
		shared.CleanupWaitSecs = &f.cleanupSec
	}
	if err := f.rates.parse(cmd.Flags().Changed); err != nil {
		return bench.Config{}, err
	}
	if rs := f.rates.rates; rs != nil {
		shared.Rate = rs[len(rs)-1]
	}
	wl, err := f.def.Build(shared)
	if err != nil {
		return bench.Config{}, usageError{err}
	}
	return buildBenchConfig(ctx, env, f, wl)
}

// serverEngines returns the names of the engines on a database server, sorted.
func serverEngines() []string {
	var names []string
	for _, n := range engine.Names() {
		if s, _ := engine.Lookup(n); s.Server {
			names = append(names, n)
		}
	}
	return names
}

// buildBenchConfig makes the run's configuration around workload wl: the flags parsed into what
// bench.Config holds (engines and their options, targets, the settle mode, the memory cap, the
// checks); the bounds of each setting are bench.Validate's.
func buildBenchConfig(ctx context.Context, env *Env, f *runFlags, wl workload.Workload) (bench.Config, error) {
	settle, err := runner.ParseSettleMode(f.settle)
	if err != nil {
		return bench.Config{}, usageError{err}
	}
	engines, err := splitList("--engine", f.engines)
	if err != nil {
		return bench.Config{}, err
	}
	for _, e := range engines {
		if _, ok := engine.Lookup(e); !ok {
			return bench.Config{}, usagef("unknown engine %q (valid: %s)", input.Short(e), strings.Join(engine.Names(), ", "))
		}
	}
	opts, err := parseEngineOpts(f.engineOpts, engines)
	if err != nil {
		return bench.Config{}, err
	}
	targets, err := buildTargets(ctx, f, engines, opts)
	if err != nil {
		return bench.Config{}, err
	}
	limit, err := memoryLimit(f)
	if err != nil {
		return bench.Config{}, err
	}
	if f.checkExprs, err = f.checks.parse(); err != nil {
		return bench.Config{}, err
	}
	if err := f.metrics.check(); err != nil {
		return bench.Config{}, err
	}
	runs := bench.RunSteps(bench.Config{Workload: wl, Prepare: f.prepare, Reuse: f.reuse})
	for _, e := range f.checkExprs {
		if e.Step != "" && !slices.Contains(runs, e.Step) {
			return bench.Config{}, usagef("--check %q: step %q is not one this run runs (valid: %s)", input.Short(e.Text), input.Short(e.Step), strings.Join(runs, ", "))
		}
	}
	label := cmp.Or(f.label, f.workload)
	engineCache, _ := engineCaches(f, engines, wl, limit)
	sweep, targets, err := sweepTargets(f, targets)
	if err != nil {
		return bench.Config{}, err
	}
	pace, rates, slo, err := f.rates.build(f.cmdFlags.Changed, f.seed, wl)
	if err != nil {
		return bench.Config{}, err
	}
	faults, tolerate, err := f.faults.build(engines, f.dsn != "", f.clusters)
	if err != nil {
		return bench.Config{}, err
	}
	if rs, err := rateSweep(f, rates); err != nil {
		return bench.Config{}, err
	} else if rs != nil {
		sweep = rs
	}
	return bench.Config{
		Sweep: sweep, Pace: pace, SLO: slo, Faults: faults, Tolerate: tolerate,
		Workload: wl, Targets: targets, CacheMB: f.cacheMB, EngineCacheBytes: engineCache, Sync: f.sync,
		DataDir: f.dataDir, Fresh: f.fresh, KeepData: f.keepData, Out: f.out, Label: label,
		RunID:       env.Now().UTC().Format("20060102T150405Z") + "-" + label,
		SyncAcct:    syncacct.Config{Enabled: f.syscalls || f.fsyncLatency > 0, Latency: f.fsyncLatency},
		PSSEvery:    time.Duration(f.pssEverySecs * float64(time.Second)),
		Settle:      settle,
		MemoryLimit: limit, Cold: f.cold, ReadaheadKB: f.readaheadKB, Args: append(slices.Clone(env.Args), f.adopted...), Repeat: f.repeat,
		Prepare: f.prepare, Reuse: f.reuse, Profile: f.profile,
		Command: append([]string{"rumbench"}, redact.Args(env.Args)...),
		Private: strings.Contains(f.store, "://") || slices.ContainsFunc(targets, func(t results.Target) bool { return t.Engine.Options["dsn"] != "" }),
		// What the fields do not hold: the flags as given (the others are recorded from the
		// fields, bench.Config.Settings).
		Settings: map[string]any{"server_configs": f.serverConfigs, "warmup_secs": f.warmupSecs},
	}, nil
}

// buildTargets makes the run's targets: one per engine, and for server engines one per
// --server-config file (labelled engine:file).
func buildTargets(ctx context.Context, f *runFlags, engines []string, opts map[string]map[string]string) ([]results.Target, error) {
	configs, err := expandConfigs(f.serverConfigs)
	if err != nil {
		return nil, err
	}
	var servers []string
	for _, e := range engines {
		if s, _ := engine.Lookup(e); s.Server {
			servers = append(servers, e)
		}
	}
	releases, err := serverReleases(f.serverBins)
	if err != nil {
		return nil, err
	}
	if (f.dsn != "" || len(releases) > 0 || len(configs) > 0) && len(servers) == 0 {
		return nil, usagef("--dsn, --server-config and --server-bin need a server engine in --engine (%s)", strings.Join(serverEngines(), ", "))
	}
	clientConfig := false
	if len(servers) == 1 {
		s, _ := engine.Lookup(servers[0])
		clientConfig = s.ClientConfig
	}
	if f.dsn != "" && (len(servers) != 1 || (len(configs) > 0 && !clientConfig)) {
		return nil, usagef("--dsn takes exactly one server engine in --engine and no --server-config (got %s)", strings.Join(servers, ","))
	}
	if len(releases) > 1 && len(servers) > 1 {
		return nil, usagef("several --server-bin directories (releases) take one server engine in --engine (got %s)", strings.Join(servers, ","))
	}
	if f.dsn != "" && len(releases) > 0 {
		return nil, usagef("--dsn and --server-bin exclude each other: a --dsn server runs its own binaries")
	}
	var targets []results.Target
	for _, e := range engines {
		s, _ := engine.Lookup(e)
		base := map[string]string{}
		for k, v := range opts[e] {
			base[k] = v
		}
		if !s.Server {
			targets = append(targets, results.Target{Label: e, Engine: table.Info{Name: e, Options: base}})
			continue
		}
		if f.dsn != "" {
			base["dsn"] = f.dsn
		}
		if f.readFrom != "" {
			base["read_from"] = f.readFrom
		}
		bins, err := releaseTargets(ctx, s, releases)
		if err != nil {
			return nil, err
		}
		for _, rel := range bins {
			withBin := maps.Clone(base)
			if rel.dir != "" {
				withBin["server_bin"] = rel.dir
			}
			label := e
			if rel.label != "" {
				label = rel.label
			}
			if len(configs) == 0 {
				targets = append(targets, results.Target{Label: label, Engine: table.Info{Name: e, Options: withBin}})
				continue
			}
			for _, c := range configs {
				o := maps.Clone(withBin)
				o["server_config"] = c
				targets = append(targets, results.Target{Label: label + ":" + filepath.Base(c), Engine: table.Info{Name: e, Options: o}})
			}
		}
	}
	if targets, err = clusterTargets(f, targets); err != nil {
		return nil, err
	}
	if len(targets) > maxTargets {
		return nil, usagef("%d targets (engines × --server-config files × --server-bin releases): at most %d", len(targets), maxTargets)
	}
	seen := map[string]bool{}
	for _, t := range targets {
		if seen[t.Label] {
			// Two --server-config files of one name: the label names the target's data directory.
			return nil, usagef("two targets are both %s: give the --server-config files different names", t.Label)
		}
		seen[t.Label] = true
	}
	return targets, nil
}

// maxTargets bounds the targets of a run (before a concurrency sweep multiplies them).
const maxTargets = 100

// expandConfigs returns the absolute paths of the --server-config files, a directory standing for
// the regular files in it (sorted).
func expandConfigs(vals []string) ([]string, error) {
	var out []string
	for _, v := range vals {
		abs, err := filepath.Abs(v)
		if err != nil {
			return nil, usagef("--server-config %q: %v", input.Short(v), err)
		}
		st, err := os.Stat(abs)
		if err != nil {
			return nil, usagef("--server-config %q: no such file or directory", input.Short(v))
		}
		if !st.IsDir() {
			if err := configFile(abs); err != nil {
				return nil, usagef("--server-config %q: %v", input.Short(v), err)
			}
			out = append(out, abs)
			continue
		}
		entries, err := os.ReadDir(abs)
		if err != nil {
			return nil, usagef("--server-config %q: %v", input.Short(v), err)
		}
		n := len(out)
		for _, e := range entries {
			if e.Type().IsRegular() {
				file := filepath.Join(abs, e.Name())
				if err := configFile(file); err != nil {
					return nil, usagef("--server-config %q: %s: %v", input.Short(v), input.Short(e.Name()), err)
				}
				out = append(out, file)
			}
		}
		if len(out) == n {
			return nil, usagef("--server-config %q: the directory holds no files", input.Short(v))
		}
	}
	return out, nil
}

// configFile checks a --server-config file: a readable regular file of at most
// input.MaxFileBytes whose name can be part of its target's label, which names the target's
// data directory (engine_name) and goes in reports.
func configFile(file string) error {
	f, err := input.Open(file, input.MaxFileBytes)
	if err != nil {
		return err
	}
	f.Close()
	if err := input.CheckName(filepath.Base(file)); err != nil {
		return fmt.Errorf("its name: %v (it names the target and its data directory)", err)
	}
	return nil
}

// splitList splits a comma-separated flag value, refusing empty items and duplicates.
func splitList(flag, v string) ([]string, error) {
	out, err := workload.SplitList(flag, v)
	if err != nil {
		return nil, usageError{err}
	}
	return out, nil
}

// parseEngineOpts parses --engine-opt values: key=value applies to every engine,
// engine.key=value to one.
func parseEngineOpts(vals []string, engines []string) (map[string]map[string]string, error) {
	opts := map[string]map[string]string{}
	for _, e := range engines {
		opts[e] = map[string]string{}
	}
	for _, v := range vals {
		k, val, ok := strings.Cut(v, "=")
		if !ok || k == "" {
			return nil, usagef("--engine-opt %q: want key=value or engine.key=value", input.Short(v))
		}
		if k == "server_config" || strings.HasSuffix(k, ".server_config") {
			// A file the engine reads: the checks of --server-config's files but the name's.
			f, err := input.Open(val, input.MaxFileBytes)
			if err != nil {
				return nil, usagef("--engine-opt %q: %v", input.Short(v), err)
			}
			f.Close()
		}
		if eng, key, scoped := strings.Cut(k, "."); scoped {
			if _, sel := opts[eng]; !sel {
				return nil, usagef("--engine-opt %q: engine %s is not in --engine (%s)", input.Short(v), input.Short(eng), strings.Join(engines, ","))
			}
			opts[eng][key] = val
			continue
		}
		for _, e := range engines {
			opts[e][k] = val
		}
	}
	return opts, nil
}

// startable is a run checked as far as it can be before anything starts or is written.
type startable struct {
	cfg bench.Config
	// storeAt is the store the run is recorded in; took says what --reuse took from the
	// preparation ("" without); notes are the lines the banner adds (workload.Unloaded).
	storeAt, took string
	notes         []string
}

// checkStart builds a run's configuration from its parsed flags and checks it as far as it can
// be before anything starts or is written (--reuse's preparation taken, bench.Validate,
// workload.Unloaded), or returns the error the input gives (an interrupt, when ctx ends). A
// recipe checks each part's run with it before the first part runs.
func checkStart(ctx context.Context, cmd *cobra.Command, env *Env, f *runFlags) (startable, error) {
	f.given.cacheMB, f.given.memoryLimit = f.cacheMB, f.memoryLimit
	cfg, err := buildConfig(ctx, cmd, env, f)
	if err != nil {
		return startable{}, err
	}
	st := startable{}
	if f.reuse {
		if cfg, st.took, err = takePreparation(ctx, cmd, env, f, cfg); err != nil {
			return startable{}, err
		}
	}
	if st.storeAt, err = storeSpec(f.store, f.out, true); err != nil {
		return startable{}, err
	}
	if err := applyShard(env, f, &cfg, st.storeAt); err != nil {
		return startable{}, err
	}
	if err := bench.Validate(cfg); err != nil {
		return startable{}, err
	}
	if st.notes, err = unloaded(cfg); err != nil {
		return startable{}, err
	}
	st.cfg = cfg
	return st, nil
}

// runRun is rumbench run and prepare: start (the run built and checked, checkStart; the CPU
// profile; what the run says before it starts), run (execute) and present (tables, summary,
// report, checks, and the error the run ends with).
func runRun(cmd *cobra.Command, env *Env, f *runFlags) error {
	// The run's context, cancelled by an interrupt, from the start: what the checks run (a
	// server program's --version) stops at Ctrl-C too.
	envCtx, cancel := env.Context()
	defer cancel()
	start, err := checkStart(envCtx, cmd, env, f)
	if err != nil {
		return err
	}
	if envCtx.Err() != nil {
		return interruptedBefore{"while the run's input was checked"}
	}
	stopProfile, err := startCPUProfile(f.cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	announce(env, f, &start)
	ctx, cancelCause := context.WithCancelCause(envCtx)
	defer cancelCause(nil)
	out, runErr := execute(ctx, cancelCause, cmd, env, f, start)
	if out == nil {
		return runErr
	}
	return present(ctx, env, f, start.storeAt, out, runErr)
}

// startCPUProfile starts the Go CPU profile of the whole run that --cpuprofile asks for (path;
// "" for none) and returns what stops it and closes its file.
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	pf, err := os.Create(path)
	if err != nil {
		return nil, usagef("--cpuprofile: %v", err)
	}
	if err := pprof.StartCPUProfile(pf); err != nil {
		pf.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		pf.Close()
	}, nil
}

// announce sends the run's progress to stderr (st.cfg's callbacks) and says what the run says
// before it starts: the workload's warnings, then, unless --quiet, what --reuse took from the
// preparation, the banner, the shard's part and the concurrency sweep.
func announce(env *Env, f *runFlags, st *startable) {
	cfg := &st.cfg
	prog := &progress{w: env.Stderr, tty: env.StderrTTY, quiet: f.quiet}
	cfg.OnTick, cfg.OnStep, cfg.OnEvent = prog.tick, prog.step, prog.event
	if wr, ok := cfg.Workload.(workload.Warner); ok {
		for _, line := range wr.Warnings() {
			fmt.Fprintf(env.Stderr, "rumbench: warning: %s\n", line)
		}
	}
	if f.quiet {
		return
	}
	if st.took != "" {
		fmt.Fprintln(env.Stderr, "rumbench: "+st.took)
	}
	fmt.Fprintln(env.Stderr, banner(*cfg, f.profile, st.notes))
	if cfg.Shard != nil {
		fmt.Fprintf(env.Stderr, "rumbench: shard %d/%d of group %s: %s\n", cfg.Shard.Index, cfg.Shard.Count, cfg.Shard.Group, cfg.Shard.Part)
	}
	for _, line := range append(rateBanner(cfg.Pace, cfg.Sweep, cfg.SLO), sweepBanner(cfg.Sweep, runtime.NumCPU())...) {
		fmt.Fprintln(env.Stderr, "rumbench: "+line)
	}
}

// execute runs the checked run st in ctx, which cancelCause cancels when another shard of the
// run's group fails: it joins the group (a shard), records the run in the store as running
// once its directory holds run.json (with its run file), runs it, and leaves the group saying
// how it ended. A nil outcome is a run that did not start; a failed shard's stop is the run's
// error.
func execute(ctx context.Context, cancelCause context.CancelCauseFunc, cmd *cobra.Command, env *Env, f *runFlags, st startable) (*bench.Outcome, error) {
	cfg := st.cfg
	metrics, err := startMetrics(env, &f.metrics, &cfg)
	if err != nil {
		return nil, err
	}
	defer metrics.stop(ctx, env)
	shard, err := joinGroup(ctx, env, &cfg, st.storeAt, time.Duration(f.shardFlags.barrierTimeout*float64(time.Second)))
	if err != nil {
		return nil, err
	}
	if shard != nil {
		shard.watch(ctx, cancelCause)
	}
	// Recorded as running at its start, so a run whose process is killed is found in the
	// store (and marked abandoned there); recorded again, whole, at its end. A store that
	// cannot be written is said then, once the run directory is written (a full --out is
	// the run's failure, said in one line, not the store's).
	cfg.OnStart = func(dir string) {
		metrics.started(dir)
		writeRunFile(env, cmd.Flags(), dir, filepath.Base(dir), cfg.Private)
		if err := recordStarted(ctx, st.storeAt, dir); err != nil {
			fmt.Fprintf(env.Stderr, "rumbench: warning: %v; the run goes on (rumbench runs import records its directory later)\n", err)
		}
		if shard != nil {
			shard.started(ctx, dir)
		}
	}
	out, runErr := bench.Run(ctx, cfg)
	var failed *store.FailedError
	if errors.As(context.Cause(ctx), &failed) && runErr == nil {
		runErr = failed // another shard failed: this one stopped, keeping what it measured
	}
	if shard != nil {
		why := runErr
		if why == nil && out != nil && out.Interrupted {
			why = errInterrupted
		}
		shard.finish(ctx, why)
	}
	return out, runErr
}

// present records the finished run in the store (storeAt) and prints it: the tables, each
// target's invariant check, the HTML report's and the run directory's paths, then the checks
// (--check) of a run that ended well. It returns the error the run ends with: the run's
// failure or a failed check, else a report that could not be written (said on stderr beside
// the other), else the interrupt.
func present(ctx context.Context, env *Env, f *runFlags, storeAt string, out *bench.Outcome, runErr error) error {
	if env.OnRunDir != nil {
		env.OnRunDir(out.Dir)
	}
	var werr bench.WriteError
	recordRun(ctx, env, storeAt, out.Dir, f.quiet, !errors.As(runErr, &werr))
	if err := printTables(env, f, out); err != nil {
		return err
	}
	for _, t := range out.Manifest.Targets {
		if t.Check != "" {
			fmt.Fprintf(env.Stdout, "invariants %s: %s\n", t.Label, t.Check)
		}
	}
	path, reportErr := writeRunReport(out.Dir)
	if reportErr == nil {
		fmt.Fprintf(env.Stdout, "report: %s\n", path)
	}
	fmt.Fprintf(env.Stdout, "results: %s\n", out.Dir)
	if runErr == nil && !out.Interrupted {
		run := &results.Run{Dir: out.Dir, Manifest: out.Manifest, Steps: out.Steps}
		runErr = runChecks(env.Stdout, f.checkExprs, seriesOfRuns([]*results.Run{run}), 0, f.checks.junit, out.Manifest.RunID)
	}
	switch {
	case runErr != nil:
		if reportErr != nil {
			fmt.Fprintf(env.Stderr, "rumbench: %v\n", reportErr)
		}
		return runErr
	case reportErr != nil:
		return reportErr
	case out.Interrupted:
		return errInterrupted
	}
	return nil
}

// printTables prints a run's step tables (a table per step, then the step groups'), its scaling
// tables and its summary, then the hints to the metrics and the wide view; nothing for a run
// that measured no step.
func printTables(env *Env, f *runFlags, out *bench.Outcome) error {
	if len(out.Steps) == 0 {
		return nil
	}
	if !f.quiet {
		// Between the progress lines and the tables on a terminal; stdout starts with a table.
		fmt.Fprintln(env.Stderr)
	}
	if err := report.Text(env.Stdout, out.Steps, viewOf(f.wide)); err != nil {
		return err
	}
	grouped := slices.ContainsFunc(out.Steps, func(s results.Step) bool { return s.Group != "" })
	ungrouped := slices.ContainsFunc(out.Steps, func(s results.Step) bool { return s.Group == "" })
	if grouped && ungrouped {
		fmt.Fprintln(env.Stdout)
	}
	if err := report.Groups(env.Stdout, out.Steps, out.Manifest.Groups, viewOf(f.wide)); err != nil {
		return err
	}
	if !grouped {
		fmt.Fprintln(env.Stdout)
	}
	runs := []*results.Run{{Dir: out.Dir, Manifest: out.Manifest, Steps: out.Steps}}
	if err := report.WriteScaling(env.Stdout, runs); err != nil {
		return err
	}
	if err := report.WriteSummary(env.Stdout, runs); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, report.MetricsHint)
	if !f.wide {
		fmt.Fprintln(env.Stdout, report.WideHint)
	}
	return nil
}

// writeRunFile writes the run's resolved run file into its directory; a failure is a warning
// (the run's figures do not depend on it).
func writeRunFile(env *Env, fs *pflag.FlagSet, dir, runID string, private bool) {
	data, err := resolvedRunFile(fs, runID)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, RunFileName), data, results.FileMode(private))
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "rumbench: warning: %s not written: %v\n", RunFileName, err)
	}
}

// banner is what a run says before it starts, in lines that fit textwrap.Width: the workload,
// targets, profile and the steps that run, then the settings that matter to them (set in), then
// notes on what the steps will find.
func banner(cfg bench.Config, profile string, notes []string) string {
	steps := bench.RunSteps(cfg)
	shown := strings.Join(steps, ",")
	if len(shown) > 70 && len(steps) > 4 {
		shown = fmt.Sprintf("%s,...,%s (%d steps)", strings.Join(steps[:3], ","), steps[len(steps)-1], len(steps))
	}
	w := textwrap.Width
	lines := []string{
		textwrap.Indented(fmt.Sprintf("rumbench: %s on %s, profile %s, steps %s:", cfg.Workload.Name(), targetLabels(cfg.Targets), profile, shown), w, 2),
		"  " + textwrap.Indented(workload.Banner(cfg.Workload.Settings(), steps), w-2, 2),
	}
	for _, n := range notes {
		lines = append(lines, textwrap.Indented("rumbench: note: "+n, w, 2))
	}
	return strings.Join(lines, "\n")
}

// unloaded asks the workload what its steps find where nothing loads their data (a run that
// loads its own: not --reuse, not prepare): a note for the banner, or a refusal before anything
// starts naming the targets that start empty.
func unloaded(cfg bench.Config) ([]string, error) {
	u, ok := cfg.Workload.(workload.Unloaded)
	if !ok || cfg.Reuse || cfg.Prepare {
		return nil, nil
	}
	var fresh, external []string
	for _, t := range cfg.Targets {
		if t.Engine.Options["dsn"] != "" {
			external = append(external, t.Label)
		} else {
			fresh = append(fresh, t.Label)
		}
	}
	var notes []string
	for _, c := range []struct {
		labels []string
		fresh  bool
	}{{fresh, true}, {external, false}} {
		if len(c.labels) == 0 {
			continue
		}
		line, refuse := u.Unloaded(c.fresh)
		switch {
		case refuse:
			return nil, usagef("%s: the database starts empty: %s", strings.Join(c.labels, ","), line)
		case line != "" && !slices.Contains(notes, line):
			notes = append(notes, line)
		}
	}
	return notes, nil
}

func targetLabels(ts []results.Target) string {
	labels := make([]string, len(ts))
	for i, t := range ts {
		labels[i] = t.Label
	}
	return strings.Join(labels, ",")
}
