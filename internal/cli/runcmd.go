package cli

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rumbench/rumbench/internal/check"
	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/textwrap"
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
	clusters                        []string
	readFrom                        string
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
	rates                           rateFlags
	faults                          faultFlags
	checkExprs                      []check.Expr
	file, replay                    string
	shardFlags                      shardFlags
	metrics                         metricsFlags
	// command is the command's path after "rumbench": "run", "run ycsb", "prepare sysbench".
	command  string
	spec     workload.Spec       // the command's workload
	cmdFlags *pflag.FlagSet      // the command's flags, the workload's included
	def      workload.Definition // the workload's flags
	// sweep is the workload's client-count flag, which takes a list (a concurrency sweep); nil
	// for a workload without one.
	sweep *countList
	// given are the values of the flags a memory profile sets, as the command line left them.
	given struct {
		cacheMB     int64
		memoryLimit string
	}
	// adopted are the flags run --reuse took from the data's preparation ("--name=value"),
	// which an engine worker is given too.
	adopted []string
}

// defaultWorkload runs when the command line names no workload (rumbench run).
const defaultWorkload = "insert"

// runOnlyFlags are the run command's flags that rumbench prepare does not take: a recipe and its
// scale (runs of their own), --reuse (prepare loads), --repeat and the shard flags (refused with
// a preparation), the settling wait and warm-up of the measured steps (prepare runs only load
// steps) and --keep-data (prepare keeps the data).
var runOnlyFlags = append([]string{"recipe", "scale", "reuse", "repeat", "keep-data", "warmup-secs", "cleanup-wait-secs",
	"shard", "group", "barrier-timeout-secs"}, append(rateFlagNames, faultFlagNames...)...)

// newRunCmd is rumbench run: the default workload's run, with one subcommand per registered
// workload (rumbench run ycsb), each with the shared flags and its workload's own.
func newRunCmd(env *Env) *cobra.Command { return newRunTree(env, false) }

// newPrepareCmd is rumbench prepare: the run command's flags, running only the workload's load
// steps and keeping the data for later runs with --reuse; a subcommand per workload, as run.
func newPrepareCmd(env *Env) *cobra.Command { return newRunTree(env, true) }

// newRunTree makes rumbench run, or with prepare rumbench prepare: the command itself runs the
// default workload; a subcommand of each registered workload's name runs that one. An argument
// that names no workload is refused in one line that lists them.
func newRunTree(env *Env, prepare bool) *cobra.Command {
	parent, _ := newRunFlags(env, "", prepare)
	parent.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return unknownWorkload(args[0])
		}
		return nil
	}
	for _, name := range workload.Names() {
		sub, _ := newRunFlags(env, name, prepare)
		parent.AddCommand(sub)
	}
	return parent
}

// unknownWorkload is the usage error for a workload name that is not registered.
func unknownWorkload(name string) error {
	return usagef("unknown workload %q (valid: %s)", input.Short(name), strings.Join(workload.Names(), ", "))
}

// newRunFlags makes the command of workload name ("": rumbench run or prepare itself, which
// runs defaultWorkload) and returns the flags it parses into; prepare makes prepare's, without
// runOnlyFlags. An engine worker and a recipe's check parse a command line with it (parseRun).
// name must be registered or "".
func newRunFlags(env *Env, name string, prepare bool) (*cobra.Command, *runFlags) {
	f := &runFlags{prepare: prepare, command: "run"}
	if prepare {
		f.command = "prepare"
	}
	spec, _ := workload.Lookup(cmp.Or(name, defaultWorkload))
	f.spec, f.def = spec, spec.New()
	cmd := &cobra.Command{RunE: func(cmd *cobra.Command, args []string) error { return runRun(cmd, env, f) }}
	cmd.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usagef("unexpected argument %q (see rumbench %s --help)", input.Short(args[0]), f.command)
		}
		return nil
	}
	if name == "" {
		cmd.Use = f.command + " [WORKLOAD]"
		cmd.Short, cmd.Long = commandHelp(prepare)
	} else {
		f.command += " " + name
		cmd.Use, cmd.Short, cmd.Long = name, shortDescription(spec.Description), workloadHelp(spec, prepare)
	}
	// Every flag is made in fl; the command takes those that apply to it.
	fl := pflag.NewFlagSet(f.command, pflag.ContinueOnError)
	addSharedFlags(fl, f)
	fl.Lookup("profile").Usage = fmt.Sprintf("scale profile of --workload %s: %s", spec.Name, strings.Join(spec.Profiles, ", "))
	fl.AddFlagSet(f.def.Flags())
	f.sweep = sweepFlag(spec, f.def.Flags())
	if prepare {
		fl.Lookup("replay").Usage = "prepare the data of the run in this directory, from the run file it holds (" + RunFileName + "; the flags prepare does not take left out)"
	}
	fl.VisitAll(func(x *pflag.Flag) {
		if !prepare || !slices.Contains(runOnlyFlags, x.Name) {
			cmd.Flags().AddFlag(x)
		}
	})
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return flagError(f, err) })
	f.cmdFlags = cmd.Flags()
	return cmd, f
}

// commandHelp is the short and long help of rumbench run, or with prepare rumbench prepare.
func commandHelp(prepare bool) (string, string) {
	if !prepare {
		return "Run a workload on one or more engines and print the comparison tables",
			`Run a workload on each engine in turn and print one table per step with a row per engine.
Results go to <out>/<run-id>/ (run.json, steps.json, intervals.jsonl).

"rumbench run WORKLOAD" runs one of the workloads below with its own flags ("rumbench run
WORKLOAD --help" lists them); "rumbench run --workload WORKLOAD" is an alias of it. With no
workload and no flags: the quick profile of the insert benchmark (all steps) on pebble, rocksdb,
wiredtiger and sqlite (bbolt in place of an engine this binary was built without). The flags
below are the shared ones and the insert benchmark's. "rumbench metrics" explains every column
of the tables.`
	}
	return "Load a workload's data once and keep it for later runs (rumbench run --reuse)",
		`Run only the load steps of the workload (the insert benchmark's l.i0 and l.x, sysbench's load
and create-index, YCSB's load, LinkBench's load, TPC-C's load) on each engine and keep the data:
in the engine's data directory (--data-dir), or on the server given with --dsn. The database
records what was loaded (workload, profile, sizes, seed, engine options); "rumbench run --reuse"
skips the load and runs the other steps on it, as often as wanted, with the data's profile and
sizes unless given otherwise, which it refuses. --fresh drops an earlier preparation first (on a
--dsn server: the workload's tables only). The flags are those of rumbench run but those of its
measured steps and of recipes, repeats and shards; a run file (-f, --replay) may hold these:
prepare leaves them out. "rumbench prepare WORKLOAD" prepares one of the workloads below
("rumbench prepare --workload WORKLOAD" is an alias of it); with none, the insert benchmark.`
}

// workloadHelp is the long help of the run (or prepare) subcommand of workload spec: what the
// workload is, its profiles and steps, its client-count flag, how to run it.
func workloadHelp(spec workload.Spec, prepare bool) string {
	steps := strings.Join(spec.Steps, ", ")
	if len(steps) > 70 {
		steps = fmt.Sprintf("%d, %s, ... (rumbench workloads %s lists them)", len(spec.Steps), strings.Join(spec.Steps[:3], ", "), spec.Name)
	}
	text, command := fmt.Sprintf("%s: %s.\n\n", spec.Name, spec.Description), "run"
	if prepare {
		command = "prepare"
		text += fmt.Sprintf(`Run only the load steps of %[1]s on each engine and keep the data for "rumbench run %[1]s
--reuse" (rumbench prepare --help says more).`, spec.Name)
	} else {
		text += fmt.Sprintf(`Run %s on each engine in turn and print one table per step with a row per engine;
results go to <out>/<run-id>/.`, spec.Name)
	}
	text += fmt.Sprintf(" Profiles: %s (--profile; %s is the default). Steps: %s.", strings.Join(spec.Profiles, ", "), spec.Profiles[0], steps)
	if spec.Clients != "" {
		text += fmt.Sprintf(" --%s takes a list: 1,2,4,8 sweeps the counts, each a target of the run (docs/scaling.md).", spec.Clients)
	}
	text += fmt.Sprintf(` The flags are the shared ones and %[1]s's own; "rumbench %[2]s --workload %[1]s" is the same command.`, spec.Name, command)
	return textwrap.Fill(text, 100)
}

// shortDescription is a workload's description as a line of the commands' list: up to its first
// colon, at most 100 characters.
func shortDescription(desc string) string {
	if head, _, ok := strings.Cut(desc, ": "); ok {
		desc = head
	}
	if len(desc) > 100 {
		cut := strings.LastIndexByte(desc[:97], ' ')
		desc = desc[:max(cut, 0)] + "..."
	}
	return desc
}

// addSharedFlags declares the flags every workload's run and prepare take, bound to f.
func addSharedFlags(fl *pflag.FlagSet, f *runFlags) {
	fl.StringVar(&f.workload, "workload", f.spec.Name, "workload to run ("+strings.Join(workload.Names(), ", ")+"), an alias of the word after the command: rumbench run --workload NAME is rumbench run NAME")
	fl.StringVar(&f.engines, "engine", defaultEngines(), "comma-separated engines to run in turn (see rumbench engines)")
	fl.StringVar(&f.profile, "profile", "quick", "scale profile")
	fl.Float64Var(&f.cleanupSec, "cleanup-wait-secs", 0, "settling wait after the cleanup before the measured steps, -1 for the workload's reference formula (default from --profile)")
	fl.Float64Var(&f.warmupSecs, "warmup-secs", 0, "seconds at the start of each measured step excluded from its figures (default from --profile)")
	fl.StringArrayVar(&f.engineOpts, "engine-opt", nil, "engine option key=value or engine.key=value (repeatable; see rumbench engines)")
	fl.StringArrayVar(&f.serverConfigs, "server-config", nil, "server config file (postgresql.conf or my.cnf fragment; for mongo, key=value client settings such as j=false) or a directory of them; repeat for a configuration matrix: each server engine runs once per file")
	fl.StringVar(&f.dsn, "dsn", "", "use the running server at this URL/DSN instead of a private instance (one server engine only); a comma-separated list of servers is a cluster of the user's: sessions spread over them (docs/clusters.md)")
	fl.StringArrayVar(&f.clusters, "cluster", nil, "run on a cluster rumbench starts on 127.0.0.1: "+engine.ClusterSyntax+"; repeat for one target per cluster (docs/clusters.md)")
	fl.StringVar(&f.readFrom, "read-from", "", "with a cluster: primary (default) or replicas, where read-only statements outside a transaction go")
	fl.StringArrayVar(&f.serverBins, "server-bin", nil, "directory of the server binaries (default: discovered); repeat it, or give a comma-separated list, to compare releases: one target per directory, labelled by the version the server reports (postgres-16.4) or LABEL=DIR")
	fl.Int64Var(&f.cacheMB, "cache-mb", 64, "cache size in MiB for every engine; when not given, the engines a profile sizes for its regime get their own (docs/engine-settings.md), the others this")
	fl.BoolVar(&f.sync, "sync", true, "sync on commit (--sync=false to turn off)")
	fl.BoolVar(&f.fresh, "fresh", false, "empty a non-empty engine data directory instead of refusing it; on a --dsn server, drop the workload's tables (rumbench's own, and only those) before loading")
	fl.BoolVar(&f.reuse, "reuse", false, "run on the data rumbench prepare loaded (same --data-dir, or --dsn): the load steps are skipped; the data's profile and sizes are taken unless given, and a size given otherwise is refused")
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
	fl.StringVar(&f.memoryLimit, "memory-limit", "", "cap each engine's memory and the page cache of its files at SIZE (e.g. 512M, 2G) with a memory cgroup, or none (default from --profile: none); the engine's cache and buffers get half of it (a server three quarters), an embedded engine's Go heap a quarter; needs root or a delegated cgroup")
	fl.BoolVar(&f.cold, "cold", false, "evict the engine's data files from the page cache before each step")
	fl.IntVar(&f.repeat, "repeat", 1, "run every target this many times, interleaved (A B A B ...); tables show each figure's median and its confidence interval (6 or more give 95%)")
	f.checks.add(fl)
	f.rates.add(fl)
	f.faults.add(fl)
	fl.StringVarP(&f.file, "file", "f", "", "run file: a YAML mapping of these flags' long names to values (docs/usage.md: Using rumbench in CI); the command line's flags override it")
	fl.StringVar(&f.replay, "replay", "", "run again the run in this directory, from the run file it holds ("+RunFileName+")")
	f.shardFlags.add(fl)
	f.metrics.add(fl)
	fl.IntVar(&f.readaheadKB, "readahead-kb", 0, "set the data device's readahead to this many KiB for the run, restored after (root; 0: leave it)")
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

// namedWorkload returns the workload a run or prepare command line (args[0] the command) names,
// and whether it names one: the word after the command (rumbench run ycsb), else the last
// --workload NAME before a "--" (the alias). The workload chooses the command, and so the flags
// the command line is parsed with: the alias, a flag, is found before any flag is parsed.
func namedWorkload(args []string) (string, bool) {
	if len(args) > 1 && !strings.HasPrefix(args[1], "-") {
		return args[1], true
	}
	name, named := "", false
	scanFlags(args, []string{"--workload"}, "", func(_, v string) (bool, error) {
		name, named = v, true
		return true, nil
	})
	return name, named
}

// workloadFirst returns a run or prepare command line with the alias --workload NAME turned into
// the word after the command ("run --workload ycsb --threads 4" is "run ycsb --threads 4"), which
// cobra takes for the workload's subcommand; other command lines are returned as they are. A
// workload that is not registered, and a command line that names two, are refused. cobra picks
// the subcommand, and so the flags it parses, before it parses any: the alias, a flag, is found
// here.
func workloadFirst(args []string) ([]string, error) {
	if len(args) == 0 || (args[0] != "run" && args[0] != "prepare") {
		return args, nil
	}
	var alias []string
	rest, err := scanFlags(args, []string{"--workload"}, " (a workload: "+strings.Join(workload.Names(), ", ")+")", func(_, v string) (bool, error) {
		alias = append(alias, v)
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	word, named := namedWorkload(rest) // the word only: rest holds no --workload
	if len(alias) > 0 {
		name := alias[len(alias)-1]
		switch {
		case named && word != name:
			return nil, usagef("rumbench %s %s and --workload %s: name one workload", args[0], input.Short(word), input.Short(name))
		case !named:
			rest = append([]string{args[0], name}, rest[1:]...)
		}
		word, named = name, true
	}
	if _, ok := workload.Lookup(word); named && !ok {
		return nil, unknownWorkload(word)
	}
	return rest, nil
}

// parseRun parses a run or prepare command line (args[0] the command, a run file expanded) with
// the command of the workload it names (the default's when none), as Main would, and returns
// the command and its flags. A recipe's check and an engine worker take a command line so.
func parseRun(env *Env, args []string) (*cobra.Command, *runFlags, error) {
	args, err := workloadFirst(args)
	if err != nil {
		return nil, nil, err
	}
	name, flags := "", args[1:]
	if w, named := namedWorkload(args); named {
		name, flags = w, args[2:]
	}
	cmd, f := newRunFlags(env, name, args[0] == "prepare")
	if err := f.cmdFlags.Parse(flags); err != nil {
		return nil, nil, flagError(f, err)
	}
	if rest := f.cmdFlags.Args(); len(rest) > 0 {
		return nil, nil, usagef("unexpected argument %q (see rumbench %s --help)", input.Short(rest[0]), f.command)
	}
	return cmd, f, nil
}

// flagError turns an unknown flag that belongs to another workload into one line naming the
// workload(s) it belongs to, and one that only rumbench run takes into a line saying so.
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
	if f.prepare {
		if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok && slices.Contains(runOnlyFlags, name) {
			return usagef("--%s applies to rumbench run, not prepare (see rumbench %s --help)", name, f.command)
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
		return usageError{fmt.Errorf("%v (see rumbench %s --help)", err, f.command)}
	}
	return usagef("--%s applies to --workload %s, not %s (see rumbench workloads %s)", name, strings.Join(owners, " or "), f.spec.Name, owners[0])
}
