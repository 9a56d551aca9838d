// Package script runs script files in pgbench's format on every SQL engine: the user's own
// statement mix, unchanged from pgbench, with rumbench's per-operation figures. The language
// (package pgscript) is pgbench's: SQL commands with :variables bound as parameters (pgbench -M
// prepared), \set with pgbench's expressions and random functions, \sleep, \if/\elif/\else/
// \endif, \gset and \aset. pgbench's three built-in scripts (tpcb-like, simple-update,
// select-only) come with its four tables, created and loaded as pgbench -i does.
//
// Steps:
//
//	init   pgbench -i: create pgbench_branches, pgbench_tellers, pgbench_accounts and
//	       pgbench_history, load scale branches, 10·scale tellers and 100,000·scale accounts in
//	       batches, add the primary keys (on by default with a built-in, off for files only)
//	run    --clients clients each run a script chosen by weight per transaction, its commands
//	       in order, for the run's duration; per-script and per-statement latency
//
// Checks: with the built-ins, the tpcb-like balance invariant (sum of account balances = sum of
// history deltas, and = branch and teller sums when tpcb-like is the only writer) and the
// row counts; a script's own checks ("-- rumbench check: QUERY -> EXPECTED" lines).
package script

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/workload"
	"github.com/rumbench/rumbench/internal/workload/script/pgscript"
)

// Step names.
const (
	StepInit = "init"
	StepRun  = "run"
)

// Steps are every step in run order.
var Steps = []string{StepInit, StepRun}

var steps = []workload.StepDecl{{Name: StepInit, Load: true}, {Name: StepRun}}

var profileNames = []string{"quick", "small", "standard"}

// Bounds of the configuration.
const (
	// MaxScripts bounds the scripts of a run (--script and --builtin together).
	MaxScripts = 32
	// MaxWeight bounds a script's weight.
	MaxWeight = 1_000_000
	// MaxScale bounds --scale-factor: 100,000 accounts per unit, 10 billion rows at most.
	MaxScale = 100_000
	// MaxClients bounds --clients.
	MaxClients = 1024
	// MaxTries bounds --max-tries.
	MaxTries = 1000
	// MaxHistograms bounds operation kinds × clients: each client keeps a latency histogram
	// (about 19 KB) per kind (one per script, one per statement, and failures), so this is
	// about 600 MB.
	MaxHistograms = 32768
)

// MaxDefines bounds --define.
const MaxDefines = 100

// Config is the workload's configuration: one field per setting, then what the workload's
// Build derives from them.
type Config struct {
	Files, Builtins, Defines []string
	Scale                    int64
	Clients, Jobs, MaxTries  int
	RunSecs                  float64
	Init                     bool

	// WarmupSecs run before RunSecs, unmeasured (--warmup-secs; 0 by default, as pgbench has
	// none).
	WarmupSecs float64
	// Scripts are the scripts with their weights: the built-ins, then the files, in the order
	// given.
	Scripts []Weighted
	// Sets are the --define variables that a script uses, with their slots (a name no script
	// uses has none and is left out).
	Sets []Set
}

var runStep = []string{StepRun}

// settings are the workload's: pgbench's flags. The scale factor shapes the data the init step
// loads; the others shape only the run.
var settings = workload.Params[Config]{
	workload.Strings(func(c *Config) *[]string { return &c.Files }, workload.List{Name: "script", Runtime: true, Steps: runStep,
		MaxItems: MaxScripts, Show: "-",
		Help: "a pgbench script file, with an optional weight: FILE[@WEIGHT] (repeatable; pgbench -f)"}),
	workload.Strings(func(c *Config) *[]string { return &c.Builtins }, workload.List{Name: "builtin", Runtime: true, Steps: runStep,
		MaxItems: MaxScripts, Show: "-",
		Help: "a pgbench built-in script: tpcb-like, simple-update or select-only, with an optional weight NAME[@WEIGHT] (repeatable; pgbench -b; default tpcb-like when no --script is given)"}),
	// The bounds are checked by Check, whose refusal says "want 1 to N".
	workload.Int(func(c *Config) *int64 { return &c.Scale }, workload.Number[int64]{Name: "scale-factor", Show: "scale",
		Help:     "pgbench's scale factor (-s; --scale is the recipes' flag): a branch, 10 tellers and 100,000 accounts per unit, and :scale",
		Profiles: map[string]int64{"quick": 1, "small": 10, "standard": 100}, Min: math.MinInt64, Max: math.MaxInt64,
		Check: func(v int64) error {
			if v < 1 || v > MaxScale {
				return fmt.Errorf("want 1 to %d", MaxScale)
			}
			return nil
		}}),
	workload.Int(func(c *Config) *int { return &c.Clients }, workload.Number[int]{Name: "clients", Runtime: true, Steps: runStep,
		Help: "concurrent clients, each on its own session (pgbench -c)", Default: 1, Min: 1, Max: MaxClients}),
	workload.Int(func(c *Config) *int { return &c.Jobs }, workload.Number[int]{Name: "jobs", Runtime: true, Steps: runStep,
		Help: "threads the clients share, each running its share of the clients on one poll of their connections (pgbench -j; postgres and mysql with io=raw); 0, the default: a thread per client",
		Zero: "a thread per client", Min: 1, Max: MaxClients}),
	workload.Int(func(c *Config) *int { return &c.MaxTries }, workload.Number[int]{Name: "max-tries", Runtime: true, Steps: runStep,
		Help:    "tries of a transaction that meets a serialization failure or deadlock before it counts as failed (pgbench --max-tries)",
		Default: 1, Min: 1, Max: MaxTries}),
	workload.Float(func(c *Config) *float64 { return &c.RunSecs }, workload.Number[float64]{Name: "run-secs", Unit: "s", Runtime: true, Steps: runStep,
		Help:     "seconds the run step lasts (pgbench -T)",
		Profiles: map[string]float64{"quick": 10, "small": 60, "standard": 300}, Min: 0.001, Max: 7 * 24 * 3600}),
	workload.Strings(func(c *Config) *[]string { return &c.Defines }, workload.List{Name: "define", Key: "defines", Runtime: true, Steps: runStep,
		MaxItems: MaxDefines, MaxLen: pgscript.MaxLineBytes + 65,
		Help: "set a variable for every client before its first script: NAME=VALUE (repeatable; pgbench -D)"}),
	workload.Bool(func(c *Config) *bool { return &c.Init }, workload.Switch{Name: "init", Runtime: true,
		Help: "create and load pgbench's four tables first (pgbench -i; default on with a built-in, off for --script files only)"}),
}

// newDefinition is the workload's definition, its flags bound to their defaults.
func newDefinition() workload.Definition {
	return workload.Define(workload.Shape[Config]{Name: "script", Settings: settings, Steps: steps, Pick: pickSteps,
		Validate: validate, RecordRun: runRecord, Shown: shown, NoShards: true, Build: newWorkload})
}

func init() {
	workload.Register(workload.Spec{
		Name:        "script",
		Description: "pgbench-compatible scripts (--script FILE[@W], --builtin tpcb-like|simple-update|select-only) on every SQL engine: TPS, latency per script and per statement",
		Steps:       Steps,
		Profiles:    profileNames,
		Rates: []workload.Rate{
			{Name: "ips", Unit: "rows/s", Meaning: "rows loaded per second (init)"},
			{Name: "tps", Unit: "transactions/s", Meaning: "script runs (transactions) per second, as pgbench's tps (run)"},
		},
		Headline: []string{"run:tcpu_us/op", "run:wKB/op"},
		NeedsSQL: true,
		New:      newDefinition,
	})
}

// initRuns says whether the init step runs: as --init says, else when a built-in is given or no
// script file is (pgbench's tables are then the scripts').
func initRuns(b *workload.Base[Config]) bool {
	if b.Given("init") {
		return b.Cfg.Init
	}
	return len(b.Cfg.Builtins) > 0 || len(b.Cfg.Files) == 0
}

// pickSteps is the run step, after the init step when it runs.
func pickSteps(b *workload.Base[Config]) ([]string, error) {
	if initRuns(b) {
		return Steps, nil
	}
	return []string{StepRun}, nil
}

// validate refuses more scripts than MaxScripts, --script and --builtin together.
func validate(c *Config) error {
	if n := len(c.Files) + len(c.Builtins); n > MaxScripts {
		return fmt.Errorf("%d scripts: at most %d (--script and --builtin together)", n, MaxScripts)
	}
	return nil
}

// runRecord is what the run's record holds besides the settings: the scripts (FILE@WEIGHT,
// builtin:NAME@WEIGHT), the scale factor by its former name and the warm-up.
func runRecord(b *workload.Base[Config]) map[string]any {
	c := &b.Cfg
	var scripts []string
	for _, s := range c.Scripts {
		scripts = append(scripts, fmt.Sprintf("%s@%d", s.Source, s.Weight))
	}
	return map[string]any{"scripts": scripts, "scale": c.Scale, "warmup_secs": c.WarmupSecs}
}

// shown is what the banner shows besides the settings: the scripts by their labels, and the
// warm-up.
func shown(c *Config) []workload.Setting {
	var scripts []string
	for _, s := range c.Scripts {
		scripts = append(scripts, fmt.Sprintf("%s@%d", s.Label, s.Weight))
	}
	return []workload.Setting{workload.Show("scripts", strings.Join(scripts, ",")).For(StepRun),
		workload.Show("warmup_secs", c.WarmupSecs).For(StepRun)}
}

// Set is a variable every client starts with.
type Set struct {
	Slot  int
	Value pgscript.Value
}

// Weighted is a parsed script and its weight.
type Weighted struct {
	Script  *pgscript.Script
	Weight  int
	Builtin string // the built-in's name, "" for a file
	Label   string // the script's name in operation kinds (snake_case)
	Source  string // the file's path or "builtin:NAME"
}

// Workload is the configured script workload.
type Workload struct {
	*workload.Base[Config]
	names *pgscript.Names
}

// newWorkload reads the scripts and checks what they need (weights, threads, histograms,
// variables) and the --define variables.
func newWorkload(b *workload.Base[Config], sh workload.Shared) (workload.Workload, error) {
	c := &b.Cfg
	if sh.Rate > 0 && c.Jobs > 0 && c.Jobs < c.Clients {
		// A thread of several clients runs them a step at a time: the run's schedule paces
		// clients, one to a thread.
		return nil, fmt.Errorf("--rate with --jobs %d below --clients %d: a fixed rate paces each client on a thread of its own; give --jobs 0 or %d", c.Jobs, c.Clients, c.Clients)
	}
	c.Init, c.WarmupSecs = initRuns(b), b.WarmupSecs(0)
	names := pgscript.NewNames()
	var err error
	if c.Scripts, err = readScripts(c.Builtins, c.Files, names); err != nil {
		return nil, err
	}
	if err := checkScripts(c); err != nil {
		return nil, err
	}
	if c.Sets, err = readDefines(c.Defines, names); err != nil {
		return nil, err
	}
	if err := checkVariables(c.Scripts, c.Defines, names); err != nil {
		return nil, err
	}
	return &Workload{Base: b, names: names}, nil
}

// readScripts parses the built-ins (tpcb-like when neither a built-in nor a file is given), then
// the files, each with its weight.
func readScripts(builtins, files []string, names *pgscript.Names) ([]Weighted, error) {
	if len(builtins) == 0 && len(files) == 0 {
		builtins = []string{"tpcb-like"}
	}
	var out []Weighted
	labels := map[string]bool{}
	for _, b := range builtins {
		name, w, err := splitWeight("--builtin", b)
		if err != nil {
			return nil, err
		}
		src, ok := builtinScripts[name]
		if !ok {
			return nil, fmt.Errorf("--builtin %q: valid are %s", input.Short(name), strings.Join(BuiltinNames, ", "))
		}
		sc, err := pgscript.Parse(name, src, names)
		if err != nil {
			return nil, err
		}
		out = append(out, Weighted{Script: sc, Weight: w, Builtin: name, Label: label(name, labels), Source: "builtin:" + name})
	}
	for _, f := range files {
		path, w, err := splitWeight("--script", f)
		if err != nil {
			return nil, err
		}
		sc, err := readScript(path, names)
		if err != nil {
			return nil, err
		}
		base := filepath.Base(path)
		out = append(out, Weighted{Script: sc, Weight: w, Label: label(strings.TrimSuffix(base, filepath.Ext(base)), labels), Source: path})
	}
	return out, nil
}

// readScript reads and parses the script file at path (a regular file of at most
// pgscript.MaxScriptBytes).
func readScript(path string, names *pgscript.Names) (*pgscript.Script, error) {
	if err := input.CheckPath(path); err != nil {
		return nil, fmt.Errorf("--script %q: %v", input.Short(path), err)
	}
	data, err := input.ReadFile(path, pgscript.MaxScriptBytes)
	if err != nil {
		return nil, fmt.Errorf("--script %q: %v", input.Short(path), err)
	}
	sc, err := pgscript.Parse(filepath.Base(path), string(data), names)
	if err != nil {
		return nil, fmt.Errorf("--script: %v", err)
	}
	return sc, nil
}

// checkScripts refuses scripts whose weights add up to 0, a \sleep where clients share a thread
// (it would stop them all), and more latency histograms than MaxHistograms.
func checkScripts(c *Config) error {
	total := 0
	for _, sc := range c.Scripts {
		total += sc.Weight
	}
	if total == 0 {
		return fmt.Errorf("the scripts' weights add up to 0: give at least one a weight above 0")
	}
	if c.Jobs > 0 && c.Jobs < c.Clients {
		for _, sc := range c.Scripts {
			for _, cmd := range sc.Script.Commands {
				if cmd.Kind == pgscript.Sleep {
					return fmt.Errorf(`--jobs %d with %d clients: script %s line %d: \sleep would stop every client of its thread; use --jobs 0 (a thread per client)`, c.Jobs, c.Clients, sc.Script.Name, cmd.Line)
				}
			}
		}
	}
	kinds := 1
	for _, sc := range c.Scripts {
		kinds += 1 + sc.Script.SQLCount()
	}
	if kinds*c.Clients > MaxHistograms {
		return fmt.Errorf("%d operation kinds (scripts, statements, failures) × %d clients: at most %d latency histograms; use fewer clients or statements", kinds, c.Clients, MaxHistograms)
	}
	return nil
}

// readDefines checks the --define variables (NAME=VALUE) and returns those some script uses,
// with their slots and values.
func readDefines(defines []string, names *pgscript.Names) ([]Set, error) {
	var sets []Set
	for _, def := range defines {
		name, val, ok := strings.Cut(def, "=")
		if !ok || !pgscript.ValidName(name) || len(val) > pgscript.MaxLineBytes {
			return nil, fmt.Errorf("--define %q: want NAME=VALUE, NAME of letters, digits and _ (at most 64), VALUE at most %d bytes", input.Short(def), pgscript.MaxLineBytes)
		}
		if slot, used := names.Lookup(name); used {
			var v pgscript.Value
			pgscript.ParseValue([]byte(val), &v)
			sets = append(sets, Set{Slot: slot, Value: v})
		}
	}
	return sets, nil
}

// checkVariables refuses a variable the scripts read but nothing sets: no \set of any script,
// no --define, none of pgbench's automatic ones. (pgbench finds it when the command runs, after
// the init step.) With a \gset or \aset any name may be set by a query: no check then.
func checkVariables(scripts []Weighted, defines []string, names *pgscript.Names) error {
	set := map[int]bool{pgscript.SlotScale: true, pgscript.SlotClientID: true, pgscript.SlotDefaultSeed: true, pgscript.SlotRandomSeed: true}
	for _, def := range defines {
		name, _, _ := strings.Cut(def, "=")
		if slot, ok := names.Lookup(name); ok {
			set[slot] = true
		}
	}
	type use struct {
		script     string
		line, slot int
	}
	var reads []use
	for _, sc := range scripts {
		stores := sc.Script.Variables(func(line, slot int) { reads = append(reads, use{sc.Script.Name, line, slot}) },
			func(slot int) { set[slot] = true })
		if stores {
			return nil
		}
	}
	for _, u := range reads {
		if !set[u.slot] {
			return fmt.Errorf("script %s line %d: variable :%s is never set (valid: a variable of a \\set, a --define, or scale, client_id, default_seed, random_seed)", u.script, u.line, names.Name(u.slot))
		}
	}
	return nil
}

// splitWeight splits "X@W" into X and the weight W (1 when no '@' is given), as pgbench reads
// -f and -b.
func splitWeight(flag, v string) (string, int, error) {
	i := strings.LastIndexByte(v, '@')
	if i < 0 {
		if v == "" {
			return "", 0, fmt.Errorf("%s: empty value", flag)
		}
		return v, 1, nil
	}
	w, err := strconv.Atoi(v[i+1:])
	if err != nil || w < 0 || w > MaxWeight || i == 0 {
		return "", 0, fmt.Errorf("%s %q: want NAME@WEIGHT with WEIGHT an integer from 0 to %d", flag, input.Short(v), MaxWeight)
	}
	return v[:i], w, nil
}

// label turns a script's name into a snake_case operation kind prefix, unique among taken.
func label(name string, taken map[string]bool) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "_"):
			b.WriteByte('_')
		}
	}
	l := strings.Trim(b.String(), "_")
	l = strings.TrimRight(l[:min(len(l), 32)], "_")
	if l == "" || l[0] >= '0' && l[0] <= '9' {
		l = "s_" + l
	}
	base := l
	for n := 2; taken[l]; n++ {
		l = fmt.Sprintf("%s_%d", base, n)
	}
	taken[l] = true
	return l
}

// Unloaded implements workload.Unloaded: without --init, a script that names one of pgbench's
// tables cannot run on a database that starts empty (the run would fail at its first statement
// on it, after the banner).
func (w *Workload) Unloaded(fresh bool) (string, bool) {
	if w.Cfg.Init || !fresh {
		return "", false
	}
	for _, sc := range w.Cfg.Scripts {
		for _, cmd := range sc.Script.Commands {
			if cmd.Kind != pgscript.SQL {
				continue
			}
			if t := pgbenchTable(cmd.Text); t != "" {
				return fmt.Sprintf("script %s line %d reads %s, which --init creates and loads: give --init, or --dsn of a server that holds pgbench's tables",
					sc.Script.Name, cmd.Line, t), true
			}
		}
	}
	return "", false
}

// pgbenchTable returns the first of pgbench's tables the SQL text names (a whole word, in any
// case), "" for none.
func pgbenchTable(text string) string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	for _, w := range words {
		if slices.Contains(Tables, w) {
			return w
		}
	}
	return ""
}
