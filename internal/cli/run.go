package cli

import (
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
	"github.com/rumbench/rumbench/internal/check"
	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/metric"
	"github.com/rumbench/rumbench/internal/redact"
	"github.com/rumbench/rumbench/internal/report"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/store"
	"github.com/rumbench/rumbench/internal/syncacct"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
)

// runFlags are the run command's shared flags: those of every workload. A workload's own flags
// belong to its definition (workload.Definition.Flags).
type runFlags struct {
	workload, engines, profile      string
	warmupSecs, cleanupSec          float64
	pssEverySecs                    float64
	settle                          string
	engineOpts, serverConfigs       []string
	dsn                             string
	serverBins                      []string
	cacheMB                         int64
	cacheMBSet                      bool // --cache-mb given (or set by a memory profile): every engine takes it
	sync, fresh, keepData, quiet    bool
	wide                            bool
	syscalls                        bool
	fsyncLatency                    time.Duration
	out, dataDir, label, cpuProfile string
	store                           string
	seed                            uint64
	memoryLimit                     string
	cold                            bool
	readaheadKB                     int
	repeat                          int
	prepare, reuse                  bool
	checks                          checkFlags
	checkExprs                      []check.Expr
	file, replay                    string
	shardFlags                      shardFlags
	cmdFlags                        *pflag.FlagSet      // the command's flags, the workload's included
	def                             workload.Definition // the chosen workload's flags, nil for an unknown name
	// sweep is the workload's client-count flag, which takes a list (a concurrency sweep); nil
	// for a workload without one.
	sweep *countList
}

// defaultWorkload runs when --workload is not given.
const defaultWorkload = "insert"

func newRunCmd(env *Env) *cobra.Command {
	cmd, _ := newRunFlags(env)
	return cmd
}

// newPrepareCmd is rumbench prepare: the run command's flags, running only the workload's load
// steps and keeping the data for later runs with --reuse.
func newPrepareCmd(env *Env) *cobra.Command {
	cmd, f := newRunFlags(env)
	f.prepare = true
	cmd.Use = "prepare"
	cmd.Short = "Load a workload's data once and keep it for later runs (rumbench run --reuse)"
	cmd.Long = `Run only the load steps of the workload (the insert benchmark's l.i0 and l.x, sysbench's load
and create-index, YCSB's load, LinkBench's load) on each engine and keep the data: in the engine's
data directory (--data-dir), or on the server given with --dsn. The database records what was
loaded (workload, sizes, seed, engine options); "rumbench run --reuse" with the same flags skips
the load and runs the other steps on it, as often as wanted, and refuses data prepared with other
settings. --fresh drops an earlier preparation first (on a --dsn server: the workload's tables
only). The flags are those of rumbench run.`
	return cmd
}

// newRunFlags makes the run command and returns the flags it parses into (an engine worker
// parses the coordinator's arguments with it).
func newRunFlags(env *Env) (*cobra.Command, *runFlags) {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run a workload on one or more engines and print the comparison tables",
		Long: `Run a workload on each engine in turn and print one table per step with a row per engine.
Results go to <out>/<run-id>/ (run.json, steps.json, intervals.jsonl).

With no flags: the quick profile of the insert benchmark (all steps) on pebble, rocksdb,
wiredtiger and sqlite (bbolt in place of an engine this binary was built without).
The flags below are the shared ones and those of the chosen workload (--workload, default
insert); "rumbench run --workload NAME --help" or "rumbench workloads NAME" shows another's.
"rumbench metrics" explains every column of the tables.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runRun(cmd, env, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.workload, "workload", defaultWorkload, "workload to run ("+strings.Join(workload.Names(), ", ")+")")
	fl.StringVar(&f.engines, "engine", defaultEngines(), "comma-separated engines to run in turn (see rumbench engines)")
	fl.StringVar(&f.profile, "profile", "quick", "scale profile: quick, small, standard, iobound (see rumbench workloads NAME)")
	fl.Float64Var(&f.cleanupSec, "cleanup-wait-secs", 0, "settling wait after the cleanup before the measured steps, -1 for the workload's reference formula (default from --profile)")
	fl.Float64Var(&f.warmupSecs, "warmup-secs", 0, "seconds at the start of each measured step excluded from its figures (default from --profile)")
	fl.StringArrayVar(&f.engineOpts, "engine-opt", nil, "engine option key=value or engine.key=value (repeatable; see rumbench engines)")
	fl.StringArrayVar(&f.serverConfigs, "server-config", nil, "server config file (postgresql.conf or my.cnf fragment; for mongo, key=value client settings such as j=false) or a directory of them; repeat for a configuration matrix: each server engine runs once per file")
	fl.StringVar(&f.dsn, "dsn", "", "use the running server at this URL/DSN instead of a private instance (one server engine only)")
	fl.StringArrayVar(&f.serverBins, "server-bin", nil, "directory of the server binaries (default: discovered); repeat it, or give a comma-separated list, to compare releases: one target per directory, labelled by the version the server reports (postgres-16.4) or LABEL=DIR")
	fl.Int64Var(&f.cacheMB, "cache-mb", 64, "cache size in MiB for every engine; when not given, the engines a profile sizes for its regime get their own (docs/engine-settings.md), the others this")
	fl.BoolVar(&f.sync, "sync", true, "sync on commit (--sync=false to turn off)")
	fl.BoolVar(&f.fresh, "fresh", false, "empty a non-empty engine data directory instead of refusing it; on a --dsn server, drop the workload's tables (rumbench's own, and only those) before loading")
	fl.BoolVar(&f.reuse, "reuse", false, "run on the data rumbench prepare loaded (same --data-dir, or --dsn): the load steps are skipped, and data prepared with other settings is refused")
	fl.BoolVar(&f.keepData, "keep-data", false, "keep each engine's data directory after its steps")
	fl.StringVar(&f.out, "out", "results", "results directory")
	fl.StringVar(&f.dataDir, "data-dir", "rumbench-data", "data directory; each engine gets a subdirectory")
	fl.StringVar(&f.label, "label", "", "label added to the run id (default the workload name)")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress output")
	fl.BoolVar(&f.wide, "wide", false, "print every figure in the step tables, not the brief view (rumbench report RUN --wide prints them later; csv and json hold them all)")
	fl.Uint64Var(&f.seed, "seed", 3221223452, "random seed for data and query keys")
	fl.StringVar(&f.store, "store", "", "results store the run is recorded in: a SQLite file, a postgres:// URL, or none (default <out>/rumbench.db)")
	fl.StringVar(&f.cpuProfile, "cpuprofile", "", "write a Go CPU profile of the whole run to this file")
	fl.BoolVar(&f.syscalls, "syscalls", false, "count syncs and bytes written per file class (log, data, other) and report syncs per commit")
	fl.String("recipe", "", "run a recipe, a published report reproduced: a name of rumbench recipes or a recipe file (its parts run one after the other; then its tables and findings)")
	fl.String("scale", "quick", "a recipe's scale: quick (minutes) or full (the report's sizes)")
	fl.StringVar(&f.settle, "settle", "auto", "bring each write step's deferred engine work (memtable flush, checkpoint) and the file system's dirty pages to disk inside the step: auto (steps shorter than 10 minutes), on or off")
	fl.Float64Var(&f.pssEverySecs, "pss-every-secs", 0, "also read a managed server's PSS every this many seconds (0: at each step's start and end only; reading it walks the server's page tables)")
	fl.DurationVar(&f.fsyncLatency, "fsync-latency", 0, "sleep this long in every sync call of the engine (emulated slow fsync, e.g. 2ms); implies --syscalls")
	fl.StringVar(&f.memoryLimit, "memory-limit", "", "cap each engine's memory and the page cache of its files at SIZE (e.g. 512M, 2G) with a memory cgroup, or none (default from --profile: none); the engine's cache and buffers get half of it, an embedded engine's Go heap a quarter; needs root or a delegated cgroup")
	fl.BoolVar(&f.cold, "cold", false, "evict the engine's data files from the page cache before each step")
	fl.IntVar(&f.repeat, "repeat", 1, "run every target this many times, interleaved (A B A B ...); tables show each figure's median and its confidence interval (6 or more give 95%)")
	f.checks.add(fl)
	fl.StringVarP(&f.file, "file", "f", "", "run file: a YAML mapping of these flags' long names to values (docs/usage.md: Using rumbench in CI); the command line's flags override it")
	fl.StringVar(&f.replay, "replay", "", "run again the run in this directory, from the run file it holds ("+RunFileName+")")
	f.shardFlags.add(fl)
	fl.IntVar(&f.readaheadKB, "readahead-kb", 0, "set the data device's readahead to this many KiB for the run, restored after (root; 0: leave it)")
	// The chosen workload's own flags: the workload is named on the command line, so it is
	// known before the arguments are parsed.
	if spec, ok := workload.Lookup(chosenWorkload(env.Args)); ok {
		f.def = spec.New()
		fl.AddFlagSet(f.def.Flags())
		f.sweep = sweepFlag(spec, f.def.Flags())
	}
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return flagError(f, err) })
	f.cmdFlags = fl
	return cmd, f
}

// defaultEngines is the default --engine: two LSMs (pebble, rocksdb) and two B-trees (wiredtiger,
// sqlite), those of them this binary has; bbolt stands in for a missing one.
func defaultEngines() string {
	var out []string
	missing := false
	for _, e := range []string{"pebble", "rocksdb", "wiredtiger", "sqlite"} {
		if s, ok := engine.Lookup(e); ok && s.Unavailable == "" {
			out = append(out, e)
		} else {
			missing = true
		}
	}
	if missing {
		out = append(out, "bbolt")
	}
	return strings.Join(out, ",")
}

// chosenWorkload returns the value of --workload in args (the default when absent).
func chosenWorkload(args []string) string {
	for i, a := range args {
		if a == "--" {
			break
		}
		if v, ok := strings.CutPrefix(a, "--workload="); ok {
			return v
		}
		if a == "--workload" && i+1 < len(args) {
			return args[i+1]
		}
	}
	return defaultWorkload
}

// flagError turns an unknown flag that belongs to another workload into one line naming the
// workload(s) it belongs to.
func flagError(f *runFlags, err error) error {
	msg := err.Error()
	lookup := func(fs *pflag.FlagSet) bool { return false }
	name, ok := strings.CutPrefix(msg, "unknown flag: --")
	if ok {
		lookup = func(fs *pflag.FlagSet) bool { return fs.Lookup(name) != nil }
	} else if rest, short := strings.CutPrefix(msg, "unknown shorthand flag: '"); short && len(rest) > 1 {
		letter := rest[:1]
		lookup = func(fs *pflag.FlagSet) bool {
			if fl := fs.ShorthandLookup(letter); fl != nil {
				name = fl.Name + " (-" + letter + ")"
				return true
			}
			return false
		}
	}
	var owners []string
	for _, w := range workload.Names() {
		spec, _ := workload.Lookup(w)
		if lookup(spec.New().Flags()) {
			owners = append(owners, w)
		}
	}
	if len(owners) == 0 {
		return usageError{fmt.Errorf("%v (see rumbench run --help)", err)}
	}
	return usagef("--%s applies to --workload %s, not %s (see rumbench workloads %s)", name, strings.Join(owners, " or "), f.workload, owners[0])
}

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

// buildConfig turns the flags into the workload and bench configurations, or a usage error.
func buildConfig(cmd *cobra.Command, env *Env, f *runFlags) (bench.Config, error) {
	if err := checkNumbers(cmd); err != nil {
		return bench.Config{}, err
	}
	spec, ok := workload.Lookup(f.workload)
	if !ok || f.def == nil {
		return bench.Config{}, usagef("unknown workload %q (valid: %s)", input.Short(f.workload), strings.Join(workload.Names(), ", "))
	}
	if !slices.Contains(spec.Profiles, f.profile) {
		return bench.Config{}, usagef("unknown profile %q (valid: %s)", input.Short(f.profile), strings.Join(spec.Profiles, ", "))
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
	wl, err := f.def.Build(shared)
	if err != nil {
		return bench.Config{}, usageError{err}
	}
	return buildBenchConfig(env, f, wl)
}

// sqlEngines returns the names of the engines that run SQL text, sorted.
func sqlEngines() []string {
	var names []string
	for _, n := range engine.Names() {
		if s, _ := engine.Lookup(n); s.SQL {
			names = append(names, n)
		}
	}
	return names
}

// maxCacheMB bounds --cache-mb: 16 TiB, more than any host has, far below where the size in
// bytes overflows.
const maxCacheMB = 16 << 20

// buildBenchConfig makes the run's configuration around workload wl.
func buildBenchConfig(env *Env, f *runFlags, wl workload.Workload) (bench.Config, error) {
	settle, err := runner.ParseSettleMode(f.settle)
	if err != nil {
		return bench.Config{}, usageError{err}
	}
	engines, err := splitList("--engine", f.engines)
	if err != nil {
		return bench.Config{}, err
	}
	ws, _ := workload.Lookup(f.workload)
	for _, e := range engines {
		s, ok := engine.Lookup(e)
		if !ok {
			return bench.Config{}, usagef("unknown engine %q (valid: %s)", input.Short(e), strings.Join(engine.Names(), ", "))
		}
		if ws.NeedsSQL && !s.SQL {
			return bench.Config{}, usagef("engine %s runs no SQL text, which the %s workload runs (valid: %s)", e, f.workload, strings.Join(sqlEngines(), ", "))
		}
	}
	opts, err := parseEngineOpts(f.engineOpts, engines)
	if err != nil {
		return bench.Config{}, err
	}
	targets, err := buildTargets(f, engines, opts)
	if err != nil {
		return bench.Config{}, err
	}
	if f.cacheMB < 1 || f.cacheMB > maxCacheMB {
		return bench.Config{}, usagef("--cache-mb %d: must be 1..%d (16 TiB)", f.cacheMB, maxCacheMB)
	}
	if f.warmupSecs < 0 {
		return bench.Config{}, usagef("--warmup-secs %g: must be >= 0", f.warmupSecs)
	}
	if f.fsyncLatency < 0 || f.fsyncLatency > 10*time.Second {
		return bench.Config{}, usagef("--fsync-latency %v: must be between 0 and 10s", f.fsyncLatency)
	}
	acct := syncacct.Config{Enabled: f.syscalls || f.fsyncLatency > 0, Latency: f.fsyncLatency}
	limit, err := memoryLimit(f)
	if err != nil {
		return bench.Config{}, err
	}
	if f.readaheadKB < 0 || f.readaheadKB > 1<<20 {
		return bench.Config{}, usagef("--readahead-kb %d: must be between 0 and 1048576 (0: leave it)", f.readaheadKB)
	}
	if f.repeat < 1 || f.repeat > 1000 {
		return bench.Config{}, usagef("--repeat %d: must be 1..1000", f.repeat)
	}
	if f.checkExprs, err = f.checks.parse(); err != nil {
		return bench.Config{}, err
	}
	for _, e := range f.checkExprs {
		if e.Step != "" && !slices.Contains(wl.Steps(), e.Step) {
			return bench.Config{}, usagef("--check %q: step %q is not one this run runs (valid: %s)", input.Short(e.Text), input.Short(e.Step), strings.Join(wl.Steps(), ", "))
		}
	}
	for _, d := range []struct{ flag, dir string }{{"--out", f.out}, {"--data-dir", f.dataDir}} {
		if err := writableDir(d.dir); err != nil {
			return bench.Config{}, usagef("%s %s: %v", d.flag, input.Short(d.dir), err)
		}
	}
	label := f.label
	if label == "" {
		label = f.workload
	}
	// The label is part of the run id, the run directory's name.
	if err := input.CheckName(label); err != nil {
		return bench.Config{}, usagef("--label %q: %v (it names the run directory)", input.Short(label), err)
	}
	engineCache, regime := engineCaches(f, engines, wl, limit)
	sweep, targets, err := sweepTargets(f, targets)
	if err != nil {
		return bench.Config{}, err
	}
	return bench.Config{
		Sweep:    sweep,
		Workload: wl, Targets: targets, CacheBytes: f.cacheMB << 20, EngineCacheBytes: engineCache, Sync: f.sync,
		DataDir: f.dataDir, Fresh: f.fresh, KeepData: f.keepData, Out: f.out, Label: label,
		RunID:       env.Now().UTC().Format("20060102T150405Z") + "-" + label,
		SyncAcct:    acct,
		PSSEvery:    time.Duration(f.pssEverySecs * float64(time.Second)),
		Settle:      settle,
		MemoryLimit: limit, Cold: f.cold, ReadaheadKB: f.readaheadKB, Args: env.Args, Repeat: f.repeat,
		Prepare: f.prepare, Reuse: f.reuse,
		Command: append([]string{"rumbench"}, redact.Args(env.Args)...),
		Private: strings.Contains(f.store, "://") || slices.ContainsFunc(targets, func(t results.Target) bool { return t.Engine.Options["dsn"] != "" }),
		Settings: map[string]any{
			"profile": f.profile, "engines": engines, "server_configs": f.serverConfigs, "dsn": f.dsn != "", "cache_mb": f.cacheMB, "sync": f.sync,
			"data_dir": f.dataDir, "out": f.out, "warmup_secs": f.warmupSecs, "tick_secs": 1,
			"syscalls": acct.Enabled, "fsync_latency_us": f.fsyncLatency.Microseconds(), "pss_every_secs": f.pssEverySecs,
			"memory_limit_bytes": limit, "cold": f.cold, "readahead_kb": f.readaheadKB, "repeat": f.repeat,
			"prepare": f.prepare, "reuse": f.reuse, "settle": settle.String(),
			"regime": regime, "engine_cache_mb": cacheMBs(engineCache),
		},
	}, nil
}

// buildTargets makes the run's targets: one per engine, and for server engines one per
// --server-config file (labelled engine:file).
func buildTargets(f *runFlags, engines []string, opts map[string]map[string]string) ([]results.Target, error) {
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
		return nil, usagef("--dsn, --server-config and --server-bin need a server engine in --engine (postgres, mysql, myrocks, mongo)")
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
		bins, err := releaseTargets(s, releases)
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

// writableDir checks, leaving nothing behind, that dir is a directory this process can create
// files in, or that it can be created: a directory is made and removed in it, or in its nearest
// existing ancestor.
func writableDir(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := input.CheckPath(abs); err != nil {
		return err
	}
	for p := abs; ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) && p != filepath.Dir(p) {
			continue
		}
		if err != nil {
			if p == abs {
				return input.Reason(err) // the path is long: the caller echoes it cut
			}
			return fmt.Errorf("%s: %v", input.Short(p), input.Reason(err))
		}
		if !st.IsDir() {
			if p == abs {
				return errors.New("is a file, not a directory")
			}
			return fmt.Errorf("%s is a file, not a directory", input.Short(p))
		}
		probe, err := os.MkdirTemp(p, ".rumbench-probe-")
		if err != nil {
			err = errors.Unwrap(err) // the cause, without the probe's name
			if p == abs {
				return fmt.Errorf("not writable: %v", err)
			}
			return fmt.Errorf("cannot be created: %s is not writable: %v", input.Short(p), err)
		}
		return os.Remove(probe)
	}
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

func runRun(cmd *cobra.Command, env *Env, f *runFlags) error {
	cfg, err := buildConfig(cmd, env, f)
	if err != nil {
		return err
	}
	storeAt, err := storeSpec(f.store, f.out, true)
	if err != nil {
		return err
	}
	if err := applyShard(env, f, &cfg, storeAt); err != nil {
		return err
	}
	if f.cpuProfile != "" {
		pf, err := os.Create(f.cpuProfile)
		if err != nil {
			return usagef("--cpuprofile: %v", err)
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if err := bench.Validate(cfg); err != nil {
		return err
	}
	prog := &progress{w: env.Stderr, tty: env.StderrTTY, quiet: f.quiet}
	cfg.OnTick, cfg.OnStep, cfg.OnEvent = prog.tick, prog.step, prog.event
	if wr, ok := cfg.Workload.(workload.Warner); ok {
		for _, line := range wr.Warnings() {
			fmt.Fprintf(env.Stderr, "rumbench: warning: %s\n", line)
		}
	}
	if !f.quiet {
		fmt.Fprintf(env.Stderr, "rumbench: %s on %s, profile %s: %s\n", cfg.Workload.Name(), targetLabels(cfg.Targets),
			f.profile, cfg.Workload.Summary())
		if cfg.Shard != nil {
			fmt.Fprintf(env.Stderr, "rumbench: shard %d/%d of group %s: %s\n", cfg.Shard.Index, cfg.Shard.Count, cfg.Shard.Group, cfg.Shard.Part)
		}
		for _, line := range sweepBanner(cfg.Sweep, runtime.NumCPU()) {
			fmt.Fprintln(env.Stderr, "rumbench: "+line)
		}
	}
	envCtx, cancel := env.Context()
	defer cancel()
	ctx, cancelCause := context.WithCancelCause(envCtx)
	defer cancelCause(nil)
	shard, err := joinGroup(ctx, env, &cfg, storeAt, time.Duration(f.shardFlags.barrierTimeout*float64(time.Second)))
	if err != nil {
		return err
	}
	if shard != nil {
		shard.watch(ctx, cancelCause)
	}
	// Recorded as running at its start, so a run whose process is killed is found in the
	// store (and marked abandoned there); recorded again, whole, at its end. A store that
	// cannot be written is said then, once the run directory is written (a full --out is
	// the run's failure, said in one line, not the store's).
	cfg.OnStart = func(dir string) {
		writeRunFile(env, cmd.Flags(), dir, filepath.Base(dir), cfg.Private)
		if err := recordStarted(ctx, storeAt, dir); err != nil {
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
	if out == nil {
		return runErr
	}
	if env.OnRunDir != nil {
		env.OnRunDir(out.Dir)
	}
	var werr bench.WriteError
	recordRun(ctx, env, storeAt, out.Dir, f.quiet, !errors.As(runErr, &werr))
	if len(out.Steps) > 0 {
		fmt.Fprintln(env.Stdout)
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
		if err := report.WriteScaling(env.Stdout, []*results.Run{{Dir: out.Dir, Manifest: out.Manifest, Steps: out.Steps}}); err != nil {
			return err
		}
		if err := report.WriteSummary(env.Stdout, []*results.Run{{Dir: out.Dir, Manifest: out.Manifest, Steps: out.Steps}}); err != nil {
			return err
		}
		fmt.Fprintln(env.Stdout, report.MetricsHint)
		if !f.wide {
			fmt.Fprintln(env.Stdout, report.WideHint)
		}
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
		if err := runChecks(env.Stdout, f.checkExprs, seriesOfRuns([]*results.Run{run}), 0, f.checks.junit, out.Manifest.RunID); err != nil {
			if reportErr != nil {
				fmt.Fprintf(env.Stderr, "rumbench: %v\n", reportErr)
			}
			return err
		}
	}
	if runErr != nil {
		if reportErr != nil {
			fmt.Fprintf(env.Stderr, "rumbench: %v\n", reportErr)
		}
		return runErr
	}
	if reportErr != nil {
		return reportErr
	}
	if out.Interrupted {
		return errInterrupted
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

func targetLabels(ts []results.Target) string {
	labels := make([]string, len(ts))
	for i, t := range ts {
		labels[i] = t.Label
	}
	return strings.Join(labels, ",")
}

// progress shows the run's progress on stderr: a live line on a terminal, one line per interval
// otherwise, nothing with --quiet.
type progress struct {
	w          interface{ Write([]byte) (int, error) }
	tty, quiet bool
	open       bool // a live line is on screen
}

func (p *progress) tick(iv *results.Interval) {
	if p.quiet {
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
	fmt.Fprintf(&b, "%-8s %-7s %6.0fs  %s %8.0f", iv.Target, iv.Step, iv.T, name, iv.Rate)
	counted := map[string]bool{} // roles the headline rate counts
	for _, k := range iv.Kinds {
		counted[k.Role] = counted[k.Role] || slices.Contains(iv.RateKinds, k.Name)
	}
	for _, r := range []struct{ name, role string }{{"ips", results.RoleWrite}, {"dps", results.RoleDelete}, {"qps", results.RoleRead}} {
		if v, _ := metric.MustGet(r.name).Interval(iv); v > 0 && !counted[r.role] {
			fmt.Fprintf(&b, "  %s %8.0f", r.name, v)
		}
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
	fmt.Fprintf(p.w, "%-8s %-7s done: %s, %.1fs, %s %.0f%s\n", s.Target, s.Step, s.Status, s.Secs, name, s.Rate, settled)
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
