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
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

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

// profile is a named scale: pgbench's scale factor and the run's duration.
type profile struct {
	scale   int64
	runSecs float64
}

var profiles = map[string]profile{
	"quick":    {scale: 1, runSecs: 10},
	"small":    {scale: 10, runSecs: 60},
	"standard": {scale: 100, runSecs: 300},
}

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

type definition struct {
	fs                *pflag.FlagSet
	scripts, builtins []string
	defines           []string
	scale             int64
	clients, maxTries int
	jobs              int
	runSecs           float64
	init              bool
}

func newDefinition() workload.Definition {
	d := &definition{fs: pflag.NewFlagSet("script", pflag.ContinueOnError)}
	fl := d.fs
	fl.StringArrayVar(&d.scripts, "script", nil, "a pgbench script file, with an optional weight: FILE[@WEIGHT] (repeatable; pgbench -f)")
	fl.StringArrayVar(&d.builtins, "builtin", nil, "a pgbench built-in script: tpcb-like, simple-update or select-only, with an optional weight NAME[@WEIGHT] (repeatable; pgbench -b; default tpcb-like when no --script is given)")
	fl.Int64Var(&d.scale, "scale-factor", 0, "pgbench's scale factor (-s; --scale is the recipes' flag): a branch, 10 tellers and 100,000 accounts per unit, and :scale (default from --profile: 1, 10, 100)")
	fl.IntVar(&d.clients, "clients", 1, "concurrent clients, each on its own session (pgbench -c)")
	fl.IntVar(&d.jobs, "jobs", 0, "threads the clients share, each running its share of the clients on one poll of their connections (pgbench -j; postgres and mysql with io=raw); 0, the default: a thread per client")
	fl.IntVar(&d.maxTries, "max-tries", 1, "tries of a transaction that meets a serialization failure or deadlock before it counts as failed (pgbench --max-tries)")
	fl.Float64Var(&d.runSecs, "run-secs", 0, "seconds the run step lasts (pgbench -T; default from --profile: 10, 60, 300)")
	fl.StringArrayVar(&d.defines, "define", nil, "set a variable for every client before its first script: NAME=VALUE (repeatable; pgbench -D)")
	fl.BoolVar(&d.init, "init", false, "create and load pgbench's four tables first (pgbench -i; default on with a built-in, off for --script files only)")
	return d
}

func (d *definition) Flags() *pflag.FlagSet { return d.fs }

// Config is the workload's effective configuration.
type Config struct {
	Scale   int64
	Clients int
	// Jobs is the number of threads the clients share (pgbench -j); 0: a thread per client.
	Jobs     int
	MaxTries int
	RunSecs  float64
	// WarmupSecs run before RunSecs, unmeasured (--warmup-secs; 0 by default, as pgbench has
	// none).
	WarmupSecs float64
	Init       bool
	Seed       uint64
	// Scripts are the scripts with their weights, in the order given.
	Scripts []Weighted
	// Defines are the --define variables, as given (NAME=VALUE), and their slots and values
	// (a name no script uses has no slot and is left out of Sets).
	Defines []string
	Sets    []Set
}

// Set is a variable every client starts with.
type Set struct {
	Slot  int
	Value pgscript.Value
}

// MaxDefines bounds --define.
const MaxDefines = 100

// Weighted is a parsed script and its weight.
type Weighted struct {
	Script  *pgscript.Script
	Weight  int
	Builtin string // the built-in's name, "" for a file
	Label   string // the script's name in operation kinds (snake_case)
	Source  string // the file's path or "builtin:NAME"
}

// Build reads the scripts and sizes the run from the flags and the profile.
func (d *definition) Build(s workload.Shared) (workload.Workload, error) {
	p, err := workload.PickProfile("script", profiles, s.Profile)
	if err != nil {
		return nil, err
	}
	c := Config{Scale: p.scale, Clients: d.clients, Jobs: d.jobs, MaxTries: d.maxTries, RunSecs: p.runSecs, Seed: s.Seed}
	if d.fs.Changed("scale-factor") {
		c.Scale = d.scale
	}
	if d.fs.Changed("run-secs") {
		c.RunSecs = d.runSecs
	}
	if s.WarmupSecs != nil {
		c.WarmupSecs = *s.WarmupSecs
	}
	switch {
	case c.Scale < 1 || c.Scale > MaxScale:
		return nil, fmt.Errorf("--scale-factor %d: want 1 to %d", c.Scale, MaxScale)
	case c.Clients < 1 || c.Clients > MaxClients:
		return nil, fmt.Errorf("--clients %d: want 1 to %d", c.Clients, MaxClients)
	case c.Jobs < 0 || c.Jobs > MaxClients:
		return nil, fmt.Errorf("--jobs %d: want 0 (a thread per client) to %d", c.Jobs, MaxClients)
	case c.MaxTries < 1 || c.MaxTries > MaxTries:
		return nil, fmt.Errorf("--max-tries %d: want 1 to %d", c.MaxTries, MaxTries)
	case !(c.RunSecs > 0 && c.RunSecs <= 7*24*3600):
		return nil, fmt.Errorf("--run-secs %g: want more than 0, at most a week (604800)", c.RunSecs)
	case !(c.WarmupSecs >= 0 && c.WarmupSecs <= 7*24*3600):
		return nil, fmt.Errorf("--warmup-secs %g: want 0 to a week (604800)", c.WarmupSecs)
	case len(d.scripts)+len(d.builtins) > MaxScripts:
		return nil, fmt.Errorf("%d scripts: at most %d (--script and --builtin together)", len(d.scripts)+len(d.builtins), MaxScripts)
	}
	builtins := d.builtins
	if len(builtins) == 0 && len(d.scripts) == 0 {
		builtins = []string{"tpcb-like"}
	}
	names := pgscript.NewNames()
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
		c.Scripts = append(c.Scripts, Weighted{Script: sc, Weight: w, Builtin: name, Label: label(name, labels), Source: "builtin:" + name})
	}
	for _, f := range d.scripts {
		path, w, err := splitWeight("--script", f)
		if err != nil {
			return nil, err
		}
		if err := input.CheckPath(path); err != nil {
			return nil, fmt.Errorf("--script %q: %v", input.Short(path), err)
		}
		data, err := input.ReadFile(path, pgscript.MaxScriptBytes)
		if err != nil {
			return nil, fmt.Errorf("--script %q: %v", input.Short(path), err)
		}
		base := filepath.Base(path)
		sc, err := pgscript.Parse(base, string(data), names)
		if err != nil {
			return nil, fmt.Errorf("--script: %v", err)
		}
		c.Scripts = append(c.Scripts, Weighted{Script: sc, Weight: w, Label: label(strings.TrimSuffix(base, filepath.Ext(base)), labels), Source: path})
	}
	total := 0
	for _, sc := range c.Scripts {
		total += sc.Weight
	}
	if total == 0 {
		return nil, fmt.Errorf("the scripts' weights add up to 0: give at least one a weight above 0")
	}
	if c.Jobs > 0 && c.Jobs < c.Clients {
		for _, sc := range c.Scripts {
			for _, cmd := range sc.Script.Commands {
				if cmd.Kind == pgscript.Sleep {
					return nil, fmt.Errorf(`--jobs %d with %d clients: script %s line %d: \sleep would stop every client of its thread; use --jobs 0 (a thread per client)`, c.Jobs, c.Clients, sc.Script.Name, cmd.Line)
				}
			}
		}
	}
	kinds := 1
	for _, sc := range c.Scripts {
		kinds += 1 + sc.Script.SQLCount()
	}
	if kinds*c.Clients > MaxHistograms {
		return nil, fmt.Errorf("%d operation kinds (scripts, statements, failures) × %d clients: at most %d latency histograms; use fewer clients or statements", kinds, c.Clients, MaxHistograms)
	}
	if len(d.defines) > MaxDefines {
		return nil, fmt.Errorf("%d --define flags: at most %d", len(d.defines), MaxDefines)
	}
	for _, def := range d.defines {
		name, val, ok := strings.Cut(def, "=")
		if !ok || !pgscript.ValidName(name) || len(val) > pgscript.MaxLineBytes {
			return nil, fmt.Errorf("--define %q: want NAME=VALUE, NAME of letters, digits and _ (at most 64), VALUE at most %d bytes", input.Short(def), pgscript.MaxLineBytes)
		}
		c.Defines = append(c.Defines, def)
		if slot, used := names.Lookup(name); used {
			var v pgscript.Value
			pgscript.ParseValue([]byte(val), &v)
			c.Sets = append(c.Sets, Set{Slot: slot, Value: v})
		}
	}
	if err := checkVariables(c.Scripts, d.defines, names); err != nil {
		return nil, err
	}
	c.Init = len(d.builtins) > 0 || len(d.scripts) == 0
	if d.fs.Changed("init") {
		c.Init = d.init
	}
	return &Workload{cfg: c, names: names}, nil
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

// Workload is the configured script workload.
type Workload struct {
	cfg   Config
	names *pgscript.Names
}

// Name implements workload.Workload.
func (w *Workload) Name() string { return "script" }

// Steps implements workload.Workload.
func (w *Workload) Steps() []string {
	if w.cfg.Init {
		return Steps
	}
	return []string{StepRun}
}

// Config implements workload.Workload.
func (w *Workload) Config() map[string]any {
	var scripts []string
	for _, s := range w.cfg.Scripts {
		scripts = append(scripts, fmt.Sprintf("%s@%d", s.Source, s.Weight))
	}
	return map[string]any{"scale": w.cfg.Scale, "clients": w.cfg.Clients, "jobs": w.cfg.Jobs, "max_tries": w.cfg.MaxTries,
		"run_secs": w.cfg.RunSecs, "warmup_secs": w.cfg.WarmupSecs, "init": w.cfg.Init, "seed": w.cfg.Seed, "scripts": scripts, "defines": w.cfg.Defines}
}

// Unloaded implements workload.Unloaded: without --init, a script that names one of pgbench's
// tables cannot run on a database that starts empty (the run would fail at its first statement
// on it, after the banner).
func (w *Workload) Unloaded(fresh bool) (string, bool) {
	if w.cfg.Init || !fresh {
		return "", false
	}
	for _, sc := range w.cfg.Scripts {
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

// Settings implements workload.Workload: the scale is the loaded data's and the scripts'
// :scale; the rest matter to the run step.
func (w *Workload) Settings() []workload.Setting {
	var scripts []string
	for _, s := range w.cfg.Scripts {
		scripts = append(scripts, fmt.Sprintf("%s@%d", s.Label, s.Weight))
	}
	return []workload.Setting{
		workload.Show("scripts", strings.Join(scripts, ",")).For(StepRun),
		workload.Show("scale", w.cfg.Scale),
		workload.Show("clients", w.cfg.Clients).For(StepRun),
		workload.Show("run_secs", w.cfg.RunSecs).For(StepRun),
		workload.Show("warmup_secs", w.cfg.WarmupSecs).For(StepRun),
	}
}
