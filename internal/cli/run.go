package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rumbench/rumbench/internal/bench"
	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/report"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/syncacct"
	"github.com/rumbench/rumbench/internal/workload"
	"github.com/rumbench/rumbench/internal/workload/insert"
)

// profile is a named scale of the insert benchmark (per client).
type profile struct {
	rows, writes          int64
	querySecs, cleanupSec float64
}

// profiles: quick finishes the 3 default engines in about 2 minutes on 2 cores; standard is the
// reference's per-client sizes (load 10M, l.i1 16M + l.i2 4M, 1800 s query steps, the
// reference's settling wait after the cleanup).
var profiles = map[string]profile{
	"quick":    {rows: 200_000, writes: 50_000, querySecs: 5, cleanupSec: 0},
	"small":    {rows: 2_000_000, writes: 1_000_000, querySecs: 60, cleanupSec: 10},
	"standard": {rows: 10_000_000, writes: 20_000_000, querySecs: 1800, cleanupSec: -1},
}

var profileNames = []string{"quick", "small", "standard"}

// runFlags are the run command's flags.
type runFlags struct {
	workload, engines, steps, profile string
	rows, writes                      int64
	querySecs, warmupSecs, cleanupSec float64
	clients, rowsPerCommit            int
	deletePerInsert                   bool
	engineOpts, serverConfigs         []string
	dsn, serverBin                    string
	cacheMB                           int64
	sync, fresh, keepData, quiet      bool
	syscalls                          bool
	fsyncLatency                      time.Duration
	out, dataDir, label, cpuProfile   string
	store                             string
	seed                              uint64
	sb                                sysbenchFlags
}

func newRunCmd(env *Env) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run a workload on one or more engines and print the comparison tables",
		Long: `Run a workload on each engine in turn and print one table per step with a row per engine.
Results go to <out>/<run-id>/ (run.json, steps.json, intervals.jsonl).

With no flags: the quick profile of the insert benchmark (all steps) on pebble, sqlite and bbolt.
Sizes (--rows, --writes) are per client; each client has its own table.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runRun(cmd, env, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.workload, "workload", "insert", "workload to run ("+strings.Join(workload.Names(), ", ")+")")
	fl.StringVar(&f.engines, "engine", "pebble,sqlite,bbolt", "comma-separated engines to run in turn (see rumbench engines)")
	fl.StringVar(&f.steps, "steps", "", "comma-separated steps to run (default all: "+strings.Join(insert.StepNames, ",")+")")
	fl.StringVar(&f.profile, "profile", "quick", "scale profile: "+strings.Join(profileNames, ", "))
	fl.Int64Var(&f.rows, "rows", 0, "rows each client loads in l.i0 (default from --profile)")
	fl.Int64Var(&f.writes, "writes", 0, "rows each client inserts in l.i1 (4/5) and l.i2 (1/5) (default from --profile)")
	fl.Float64Var(&f.querySecs, "query-secs", 0, "seconds per query step (default from --profile)")
	fl.Float64Var(&f.cleanupSec, "cleanup-wait-secs", 0, "settling wait after the cleanup before the query steps, -1 for the reference's 60 s + 1 s per million rows (default from --profile)")
	fl.Float64Var(&f.warmupSecs, "warmup-secs", 0, "seconds at the start of each query step excluded from its figures")
	fl.IntVar(&f.clients, "clients", 1, "clients, each with its own table, writer and query thread")
	fl.IntVar(&f.rowsPerCommit, "rows-per-commit", 0, "rows per insert transaction for every step (default per step: l.i0 100, l.i1 50, l.i2 5, queries 50)")
	fl.BoolVar(&f.deletePerInsert, "delete-per-insert", false, "delete as many of the oldest rows as each batch inserts (constant table size)")
	fl.StringArrayVar(&f.engineOpts, "engine-opt", nil, "engine option key=value or engine.key=value (repeatable; see rumbench engines)")
	fl.StringArrayVar(&f.serverConfigs, "server-config", nil, "server config file (postgresql.conf or my.cnf fragment) or a directory of them; repeat for a configuration matrix: each server engine runs once per file")
	fl.StringVar(&f.dsn, "dsn", "", "use the running server at this URL/DSN instead of a private instance (one server engine only)")
	fl.StringVar(&f.serverBin, "server-bin", "", "directory of the server binaries (default: discovered)")
	fl.Int64Var(&f.cacheMB, "cache-mb", 64, "cache size in MiB, the same for every engine")
	fl.BoolVar(&f.sync, "sync", true, "sync on commit (--sync=false to turn off)")
	fl.BoolVar(&f.fresh, "fresh", false, "empty a non-empty engine data directory instead of refusing it")
	fl.BoolVar(&f.keepData, "keep-data", false, "keep each engine's data directory after its steps")
	fl.StringVar(&f.out, "out", "results", "results directory")
	fl.StringVar(&f.dataDir, "data-dir", "rumbench-data", "data directory; each engine gets a subdirectory")
	fl.StringVar(&f.label, "label", "", "label added to the run id (default the workload name)")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress output")
	fl.Uint64Var(&f.seed, "seed", 3221223452, "random seed for data and query keys")
	fl.StringVar(&f.store, "store", "", "results store the run is recorded in: a SQLite file, a postgres:// URL, or none (default <out>/rumbench.db)")
	fl.StringVar(&f.cpuProfile, "cpuprofile", "", "write a Go CPU profile of the whole run to this file")
	fl.BoolVar(&f.syscalls, "syscalls", false, "count syncs and bytes written per file class (log, data, other) and report syncs per commit")
	fl.DurationVar(&f.fsyncLatency, "fsync-latency", 0, "sleep this long in every sync call of the engine (emulated slow fsync, e.g. 2ms); implies --syscalls")
	addSysbenchFlags(fl, &f.sb)
	return cmd
}

// buildConfig turns the flags into the workload and bench configurations, or a usage error.
func buildConfig(cmd *cobra.Command, env *Env, f *runFlags) (bench.Config, error) {
	if _, ok := workload.Lookup(f.workload); !ok {
		return bench.Config{}, usagef("unknown workload %q (valid: %s)", f.workload, strings.Join(workload.Names(), ", "))
	}
	if err := refuseOtherFlags(cmd, f.workload); err != nil {
		return bench.Config{}, err
	}
	var wl workload.Workload
	var err error
	if f.workload == "sysbench" {
		wl, err = buildSysbench(cmd, f)
	} else {
		wl, err = buildInsert(cmd, f)
	}
	if err != nil {
		return bench.Config{}, err
	}
	return buildBenchConfig(env, f, wl)
}

// buildInsert makes the insert benchmark from the flags and the profile.
func buildInsert(cmd *cobra.Command, f *runFlags) (workload.Workload, error) {
	p, ok := profiles[f.profile]
	if !ok {
		return nil, usagef("unknown profile %q (valid: %s)", f.profile, strings.Join(profileNames, ", "))
	}
	changed := cmd.Flags().Changed
	ic := insert.Config{Clients: f.clients, Rows: p.rows, Writes: p.writes, QuerySecs: p.querySecs,
		CleanupWaitSecs: p.cleanupSec, RowsPerCommit: f.rowsPerCommit, DeletePerInsert: f.deletePerInsert, Seed: f.seed}
	if changed("rows") {
		ic.Rows = f.rows
	}
	if changed("writes") {
		ic.Writes = f.writes
	}
	if changed("query-secs") {
		ic.QuerySecs = f.querySecs
	}
	if changed("cleanup-wait-secs") {
		ic.CleanupWaitSecs = f.cleanupSec
	}
	if f.steps != "" {
		var err error
		if ic.Steps, err = splitList("--steps", f.steps); err != nil {
			return nil, err
		}
	}
	wl, err := insert.New(ic)
	if err != nil {
		return nil, usageError{err}
	}
	return wl, nil
}

// buildBenchConfig makes the run's configuration around workload wl.
func buildBenchConfig(env *Env, f *runFlags, wl workload.Workload) (bench.Config, error) {
	engines, err := splitList("--engine", f.engines)
	if err != nil {
		return bench.Config{}, err
	}
	for _, e := range engines {
		if _, ok := engine.Lookup(e); !ok {
			return bench.Config{}, usagef("unknown engine %q (valid: %s)", e, strings.Join(engine.Names(), ", "))
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
	if f.cacheMB < 1 {
		return bench.Config{}, usagef("--cache-mb %d: must be at least 1", f.cacheMB)
	}
	if f.warmupSecs < 0 {
		return bench.Config{}, usagef("--warmup-secs %g: must be >= 0", f.warmupSecs)
	}
	if f.fsyncLatency < 0 || f.fsyncLatency > 10*time.Second {
		return bench.Config{}, usagef("--fsync-latency %v: must be between 0 and 10s", f.fsyncLatency)
	}
	acct := syncacct.Config{Enabled: f.syscalls || f.fsyncLatency > 0, Latency: f.fsyncLatency}
	label := f.label
	if label == "" {
		label = f.workload
	}
	if strings.ContainsAny(label, "/\\ ") {
		return bench.Config{}, usagef("--label %q: must not contain spaces or slashes", label)
	}
	return bench.Config{
		Workload: wl, Targets: targets, CacheBytes: f.cacheMB << 20, Sync: f.sync,
		DataDir: f.dataDir, Fresh: f.fresh, KeepData: f.keepData, Out: f.out, Label: label,
		RunID:    env.Now().UTC().Format("20060102T150405Z") + "-" + label,
		Warmup:   insertWarmup(f),
		SyncAcct: acct,
		Command:  append([]string{"rumbench"}, env.Args...),
		Settings: map[string]any{
			"profile": f.profile, "engines": engines, "server_configs": f.serverConfigs, "dsn": f.dsn != "", "cache_mb": f.cacheMB, "sync": f.sync,
			"data_dir": f.dataDir, "out": f.out, "warmup_secs": f.warmupSecs, "tick_secs": 1,
			"syscalls": acct.Enabled, "fsync_latency_us": f.fsyncLatency.Microseconds(),
		},
	}, nil
}

// insertWarmup is the warm-up of the insert benchmark's query steps (sysbench keeps its own).
func insertWarmup(f *runFlags) time.Duration {
	if f.workload != "insert" {
		return 0
	}
	return time.Duration(f.warmupSecs * float64(time.Second))
}

// buildTargets makes the run's targets: one per engine, and for server engines one per
// --server-config file (labelled engine:file).
func buildTargets(f *runFlags, engines []string, opts map[string]map[string]string) ([]bench.Target, error) {
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
	if (f.dsn != "" || f.serverBin != "" || len(configs) > 0) && len(servers) == 0 {
		return nil, usagef("--dsn, --server-config and --server-bin need a server engine in --engine (postgres, mysql, myrocks)")
	}
	if f.dsn != "" && (len(servers) != 1 || len(configs) > 0) {
		return nil, usagef("--dsn takes exactly one server engine in --engine and no --server-config (got %s)", strings.Join(servers, ","))
	}
	var targets []bench.Target
	for _, e := range engines {
		s, _ := engine.Lookup(e)
		base := map[string]string{}
		for k, v := range opts[e] {
			base[k] = v
		}
		if !s.Server {
			targets = append(targets, bench.Target{Label: e, Engine: e, Options: base})
			continue
		}
		if f.dsn != "" {
			base["dsn"] = f.dsn
		}
		if f.serverBin != "" {
			base["server_bin"] = f.serverBin
		}
		if len(configs) == 0 {
			targets = append(targets, bench.Target{Label: e, Engine: e, Options: base})
			continue
		}
		for _, c := range configs {
			o := map[string]string{"server_config": c}
			for k, v := range base {
				o[k] = v
			}
			targets = append(targets, bench.Target{Label: e + ":" + filepath.Base(c), Engine: e, Options: o})
		}
	}
	return targets, nil
}

// expandConfigs returns the absolute paths of the --server-config files, a directory standing for
// the regular files in it (sorted).
func expandConfigs(vals []string) ([]string, error) {
	var out []string
	for _, v := range vals {
		abs, err := filepath.Abs(v)
		if err != nil {
			return nil, usagef("--server-config %q: %v", v, err)
		}
		st, err := os.Stat(abs)
		if err != nil {
			return nil, usagef("--server-config %q: no such file or directory", v)
		}
		if !st.IsDir() {
			out = append(out, abs)
			continue
		}
		entries, err := os.ReadDir(abs)
		if err != nil {
			return nil, usagef("--server-config %q: %v", v, err)
		}
		n := len(out)
		for _, e := range entries {
			if e.Type().IsRegular() {
				out = append(out, filepath.Join(abs, e.Name()))
			}
		}
		if len(out) == n {
			return nil, usagef("--server-config %q: the directory holds no files", v)
		}
	}
	return out, nil
}

// splitList splits a comma-separated flag value, refusing empty items and duplicates.
func splitList(flag, v string) ([]string, error) {
	var out []string
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			return nil, usagef("%s %q: empty item in the comma-separated list", flag, v)
		}
		for _, o := range out {
			if o == s {
				return nil, usagef("%s %q: %s is listed twice", flag, v, s)
			}
		}
		out = append(out, s)
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
			return nil, usagef("--engine-opt %q: want key=value or engine.key=value", v)
		}
		if eng, key, scoped := strings.Cut(k, "."); scoped {
			if _, sel := opts[eng]; !sel {
				return nil, usagef("--engine-opt %q: engine %s is not in --engine (%s)", v, eng, strings.Join(engines, ","))
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
	if !f.quiet {
		fmt.Fprintf(env.Stderr, "rumbench: %s on %s, profile %s: %s\n", cfg.Workload.Name(), targetLabels(cfg.Targets),
			f.profile, describe(cfg.Workload.Config()))
	}
	ctx, cancel := env.Context()
	defer cancel()
	probeStore(ctx, env, storeAt)
	out, runErr := bench.Run(ctx, cfg)
	if out == nil {
		return runErr
	}
	recordRun(ctx, env, storeAt, out.Dir, f.quiet)
	if len(out.Steps) > 0 {
		fmt.Fprintln(env.Stdout)
		var plain, tests []results.Step
		for _, s := range out.Steps {
			if report.IsSysbench(&s) {
				tests = append(tests, s)
			} else {
				plain = append(plain, s)
			}
		}
		if err := report.Text(env.Stdout, plain); err != nil {
			return err
		}
		if len(plain) > 0 && len(tests) > 0 {
			fmt.Fprintln(env.Stdout)
		}
		if err := report.Sysbench(env.Stdout, tests); err != nil {
			return err
		}
		fmt.Fprintln(env.Stdout)
	}
	for _, t := range out.Manifest.Targets {
		if t.Check != "" {
			fmt.Fprintf(env.Stdout, "invariants %s: %s\n", t.Label, t.Check)
		}
	}
	if path, err := writeRunReport(out.Dir); err != nil {
		fmt.Fprintf(env.Stderr, "rumbench: report.html: %v\n", err)
	} else {
		fmt.Fprintf(env.Stdout, "report: %s\n", path)
	}
	fmt.Fprintf(env.Stdout, "results: %s\n", out.Dir)
	if runErr != nil {
		return runErr
	}
	if out.Interrupted {
		return errInterrupted
	}
	return nil
}

func targetLabels(ts []bench.Target) string {
	labels := make([]string, len(ts))
	for i, t := range ts {
		labels[i] = t.Label
	}
	return strings.Join(labels, ",")
}

// describe renders the effective workload configuration in one line, keys sorted.
func describe(cfg map[string]any) string {
	keys := []string{"clients", "rows", "writes", "query_secs", "rows_per_commit", "delete_per_insert", "steps",
		"tables", "table_size", "threads", "read_secs", "write_secs", "warmup_secs", "events", "rand_type", "prepared", "pre", "tests", "seed"}
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		v, ok := cfg[k]
		if !ok {
			continue
		}
		if list, isList := v.([]string); isList && k == "tests" {
			v = fmt.Sprintf("%d", len(list))
		}
		parts = append(parts, fmt.Sprintf("%s=%v", k, v))
	}
	return strings.Join(parts, " ")
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
	line := fmt.Sprintf("%-8s %-7s %6.0fs  ips %8.0f  dps %8.0f  qps %8.0f  max_ms i %7.1f q %7.1f  wMB/s %6.1f  cpu %3.0f%%  db_MB %7.1f",
		iv.Target, iv.Step, iv.T, iv.IPS, iv.DPS, iv.QPS, iv.MaxInsertUs/1e3, iv.MaxQueryUs/1e3, iv.WriteMBPerSec, iv.HostCPUPct, float64(iv.DBBytes)/(1<<20))
	if iv.IPS == 0 && iv.DPS == 0 && iv.QPS > 0 {
		// A step of queries or statements alone (sysbench tests): no insert or delete columns.
		line = fmt.Sprintf("%-8s %-7s %6.0fs  qps %8.0f  max_ms %7.1f  rMB/s %6.1f  wMB/s %6.1f  cpu %3.0f%%  db_MB %7.1f",
			iv.Target, iv.Step, iv.T, iv.QPS, iv.MaxQueryUs/1e3, iv.ReadMBPerSec, iv.WriteMBPerSec, iv.HostCPUPct, float64(iv.DBBytes)/(1<<20))
	}
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K"+line)
		p.open = true
		return
	}
	fmt.Fprintln(p.w, line)
}

func (p *progress) step(s results.Step) {
	if p.quiet {
		return
	}
	p.endLine()
	fmt.Fprintf(p.w, "%-8s %-7s done: %s, %.1fs, rate %.0f/s\n", s.Target, s.Step, s.Status, s.Secs, s.Rate)
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
