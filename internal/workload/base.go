package workload

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rumbench/rumbench/internal/table"
)

// StepDecl declares one of a workload's steps: its name and whether it loads the data (a load
// step is what rumbench prepare runs and run --reuse skips).
type StepDecl struct {
	Name string
	Load bool
}

// StepNames returns the names of steps, in order.
func StepNames(steps []StepDecl) []string {
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = s.Name
	}
	return out
}

// Base is the part of a workload in the framework's shape that the framework gives it: its
// configuration C made from declared settings, the steps that run, the shard of a split run,
// and from those the workload's name, steps, recorded configuration, banner, reuse identity,
// shard and client count (workload.Workload's Name, Steps, Config and Summary; Reuser's
// LoadSteps and DataConfig; Sharder; Concurrent). A workload embeds a *Base[C] and adds what is
// its own (Open, Tables, Reopen, its steps).
type Base[C any] struct {
	// Cfg is the configuration, every setting resolved and valid.
	Cfg C
	// Seed is the run's seed; Shard this process's part of a split run (Count 0: unsplit).
	Seed  uint64
	Shard Shard

	name     string
	settings Params[C]
	decls    []StepDecl
	steps    []string // the steps that run, in declaration order
	clients  func(*C) *int
	validate func(*C) error
	extra    func(*C) map[string]any
	data     func(*C) (string, float64, float64)
	shape    *Shape[C] // for the optional parts (Resolve, RecordRun, Shown, Banner, CheckShard, ShardPart)
	given    func(flag string) bool
	warmup   *float64 // --warmup-secs, nil when not given
	// tables and open, set by Opens, make Base open, reopen and attach the workload's runs.
	tables func() []*table.Table
	open   func(ctx context.Context, eng table.Engine, existing bool) (Run, error)
}

// Shape declares a workload in the framework's shape: what Define needs to make its
// definition. C is the workload's configuration.
type Shape[C any] struct {
	// Name is the registered name.
	Name string
	// Settings are the workload's settings (flags), in banner order.
	Settings Params[C]
	// Steps are every step the workload knows, in run order.
	Steps []StepDecl
	// Choose, when set, is the setting (a Text setting's field) that lists the steps to run,
	// comma-separated ("" runs every step); unknown names are refused in one line. nil: the
	// definition has a --steps flag of its own for it.
	Choose func(*C) *string
	// ChooseFlag is the flag that Choose's setting is, for the refusal ("steps").
	ChooseFlag string
	// Pick, when set, returns the steps a configuration runs as it makes them, or a one-line
	// refusal naming its flag (LinkBench's loops follow --loops; sysbench's --tests picks among
	// the tests of the set --pre chooses, and its load steps always run); names that are not
	// among Steps are left out. Choose, when also set, chooses among them. The configuration is
	// b.Cfg (b.Given says which flags were given); it is not validated yet.
	Pick func(b *Base[C]) ([]string, error)
	// Clients, when set, is the field of the setting that sets the client count (Spec.Clients
	// names its flag): Base implements Concurrent with it.
	Clients func(*C) *int
	// Validate, when set, checks what no single setting can (settings against each other);
	// its error names the flags.
	Validate func(*C) error
	// Record, when set, adds derived figures to the recorded configuration (fixed schema
	// values, the column lengths): never a setting's own.
	Record func(*C) map[string]any
	// Data, when set, sizes each engine's cache to hold the loaded data (Base implements
	// CachePlanner with it): units of data, each taking the engine's figure for unit
	// (engine.Spec.PerUnitBytes, read with Measured) plus extra bytes.
	Data func(*C) (unit string, units, extra float64)
	// RecordRun, when set, adds derived figures of the run to the recorded configuration only,
	// never to the reuse identity (a mix read from a file, the steps' constants, the profile's
	// regime); a figure replaces a setting's recorded value of the same key with the value the
	// run resolved it to (the tests a list chose, the wait that -1's formula gives).
	RecordRun func(b *Base[C]) map[string]any
	// Shown, when set, returns derived settings the banner shows after the declared ones (each
	// with the steps it matters to): what the workload made of several settings, the warm-up.
	Shown func(*C) []Setting
	// NoShards says the workload does not split its work among shards: SetShard refuses.
	NoShards bool
	// ShardPart, when set, says in one line which part of the work a shard of a split run does
	// (Sharder.ShardPart: the banner and the recorded configuration), where it is not the
	// framework's: its range of the load's batches and its clients.
	ShardPart func(b *Base[C]) string
	// Build makes the workload from its base.
	Build func(b *Base[C], s Shared) (Workload, error)
	// Resolve completes the configuration after the profile's defaults are applied and
	// before it is validated: defaults that follow other settings (a client count bounded by
	// the data's size, settings read from files the flags name), for profile. given says
	// whether the command line gave a flag. Its error is the user's: one line naming the flag
	// or the file.
	Resolve func(c *C, profile string, given func(flag string) bool) error
	// Banner gives the banner's settings in place of the declared ones (a workload whose
	// settings are mostly read from files shows what it read); each names its steps.
	Banner func(c *C) []Setting
	// CheckShard refuses a split the configuration cannot take (one line naming the flags)
	// before SetShard keeps it.
	CheckShard func(b *Base[C], s Shard) error
}

// definition is a Definition made by Define.
type definition[C any] struct {
	shape Shape[C]
	cfg   C
	fs    *pflag.FlagSet
	steps string // --steps, when the shape has no Choose
}

// MaxWarmupSecs bounds --warmup-secs (Shared.WarmupSecs), which Build checks: a week.
const MaxWarmupSecs = 7 * 86400

// Define returns a Definition of a workload in the framework's shape: its flags are the
// settings'; Build applies the profile's defaults to the settings not given, picks the steps,
// validates the settings that matter to them, and calls shape.Build.
func Define[C any](shape Shape[C]) Definition {
	d := &definition[C]{shape: shape, fs: pflag.NewFlagSet(shape.Name, pflag.ContinueOnError)}
	shape.Settings.Bind(d.fs, &d.cfg)
	if shape.Choose == nil && shape.Pick == nil {
		d.fs.StringVar(&d.steps, "steps", "", "steps to run, comma-separated (default all: "+strings.Join(StepNames(shape.Steps), ",")+")")
	}
	return d
}

func (d *definition[C]) Flags() *pflag.FlagSet { return d.fs }

func (d *definition[C]) Build(s Shared) (Workload, error) {
	if spec, ok := Lookup(d.shape.Name); ok {
		if err := spec.CheckProfile(s.Profile); err != nil {
			return nil, err
		}
	}
	if w := s.WarmupSecs; w != nil && !(*w >= 0 && *w <= MaxWarmupSecs) {
		return nil, fmt.Errorf("--warmup-secs %g: want 0 to a week (%d)", *w, MaxWarmupSecs)
	}
	c := d.cfg
	d.shape.Settings.Apply(d.fs, &c, s.Profile)
	if d.shape.Resolve != nil {
		if err := d.shape.Resolve(&c, s.Profile, d.fs.Changed); err != nil {
			return nil, err
		}
	}
	return build(d.shape, c, s, d.fs.Changed, d.steps)
}

// build makes the workload of sh from c: the run's shared settings that s gives, the steps c
// chooses (stepsFlag: the framework's --steps), the settings that matter to them validated,
// then sh.Build. given says whether the command line gave a flag (nil: none).
func build[C any](sh Shape[C], c C, s Shared, given func(string) bool, stepsFlag string) (Workload, error) {
	sh.Settings.Share(&c, s)
	b := &Base[C]{Cfg: c, Seed: s.Seed, name: sh.Name, settings: sh.Settings, decls: sh.Steps, clients: sh.Clients,
		validate: sh.Validate, extra: sh.Record, data: sh.Data, shape: &sh, given: given, warmup: s.WarmupSecs}
	var err error
	if b.steps, err = chooseSteps(b, stepsFlag); err != nil {
		return nil, err
	}
	if err := b.check(&b.Cfg); err != nil {
		return nil, err
	}
	return sh.Build(b, s)
}

// chooseSteps returns the steps b's configuration runs: Pick's (every step without it), among
// them those that Choose's list names, or the framework's --steps (stepsFlag) when the Shape has
// no Choose (every step when it is empty), in declaration order; an unknown name is refused in
// one line.
func chooseSteps[C any](b *Base[C], stepsFlag string) ([]string, error) {
	sh := b.shape
	all := StepNames(sh.Steps)
	steps := all
	if sh.Pick != nil {
		picked, err := sh.Pick(b)
		if err != nil {
			return nil, err
		}
		steps = slices.DeleteFunc(slices.Clone(all), func(n string) bool { return !slices.Contains(picked, n) })
	}
	list, flag := stepsFlag, "steps"
	if sh.Choose != nil {
		list, flag = *sh.Choose(&b.Cfg), sh.ChooseFlag
	}
	if list == "" {
		return steps, nil
	}
	chosen, err := SplitList("--"+flag, list)
	if err != nil {
		return nil, err
	}
	for _, n := range chosen {
		if !slices.Contains(all, n) {
			return nil, fmt.Errorf("--%s: unknown step %q (valid: %s)", flag, n, strings.Join(all, ", "))
		}
	}
	return slices.DeleteFunc(slices.Clone(steps), func(n string) bool { return !slices.Contains(chosen, n) }), nil
}

// check validates c for the steps that run.
func (b *Base[C]) check(c *C) error {
	if err := b.settings.Validate(c, b.steps); err != nil {
		return err
	}
	if b.validate != nil {
		return b.validate(c)
	}
	return nil
}

// Name implements Workload.
func (b *Base[C]) Name() string { return b.name }

// Steps implements Workload: the steps that run, in order.
func (b *Base[C]) Steps() []string { return b.steps }

// Runs says whether step runs.
func (b *Base[C]) Runs(step string) bool { return slices.Contains(b.steps, step) }

// Given says whether the command line gave the flag of setting name (false: its value is its
// profile's default, or the default), for a setting whose value may also come from elsewhere
// (a file the workload reads) or whose default follows from others.
func (b *Base[C]) Given(name string) bool { return b.given != nil && b.given(name) }

// WarmupSecs returns --warmup-secs when the run gives it, else def: the seconds at the start of
// each timed step that are not measured (runner.Step.Warmup).
func (b *Base[C]) WarmupSecs(def float64) float64 {
	if b.warmup != nil {
		return *b.warmup
	}
	return def
}

// Config implements Workload: every setting by its recorded name, the steps, the seed, the
// workload's derived figures and the shard's part.
func (b *Base[C]) Config() map[string]any {
	m := b.settings.Record(&b.Cfg)
	if b.extra != nil {
		maps.Copy(m, b.extra(&b.Cfg))
	}
	m["steps"], m["seed"] = b.steps, b.Seed
	if b.shape.RecordRun != nil {
		maps.Copy(m, b.shape.RecordRun(b))
	}
	if part := b.ShardPart(); part != "" {
		m["shard"] = part
	}
	return m
}

// Settings implements Workload: the declared settings, the Shape's derived ones, then the seed.
func (b *Base[C]) Settings() []Setting {
	out := b.settings.Shown(&b.Cfg)
	if b.shape.Banner != nil {
		out = b.shape.Banner(&b.Cfg)
	}
	if b.shape.Shown != nil {
		out = append(out, b.shape.Shown(&b.Cfg)...)
	}
	return append(out, Show("seed", b.Seed))
}

// LoadSteps implements Reuser: the declared load steps, whether they run or not (prepare
// refuses a choice of steps without one, naming them).
func (b *Base[C]) LoadSteps() []string {
	var out []string
	for _, s := range b.decls {
		if s.Load {
			out = append(out, s.Name)
		}
	}
	return out
}

// DataConfig implements Reuser: the settings that shape what the load steps leave, the seed
// and the workload's derived figures.
func (b *Base[C]) DataConfig() map[string]any {
	m := b.settings.Identity(&b.Cfg, b.LoadSteps())
	if b.extra != nil {
		maps.Copy(m, b.extra(&b.Cfg))
	}
	m["seed"] = b.Seed
	return m
}

// SetShard implements Sharder; a workload whose Shape says NoShards refuses.
func (b *Base[C]) SetShard(s Shard) error {
	if b.shape.NoShards && s.Count > 1 {
		return fmt.Errorf("--shard: workload %s does not split its work among shards", b.name)
	}
	if b.shape.CheckShard != nil && s.Count > 1 {
		if err := b.shape.CheckShard(b, s); err != nil {
			return err
		}
	}
	b.Shard = s
	return nil
}

// ShardPart implements Sharder: "shard I of N" and its part of the work, the Shape's or the
// framework's ("" unsplit).
func (b *Base[C]) ShardPart() string {
	if b.Shard.Count <= 1 {
		return ""
	}
	if b.shape.ShardPart != nil {
		return b.shape.ShardPart(b)
	}
	return fmt.Sprintf("shard %s: its range of the load's batches and its clients", b.Shard)
}

// SetClients implements Concurrent for a workload that declares its client count's setting.
func (b *Base[C]) SetClients(n int) error {
	if b.clients == nil {
		return fmt.Errorf("workload %s has no client count", b.name)
	}
	c := b.Cfg
	*b.clients(&c) = n
	if err := b.check(&c); err != nil {
		return err
	}
	b.Cfg = c
	return nil
}

// Regime implements CachePlanner: a workload in the framework's shape is meant to run from the
// engines' caches.
func (b *Base[C]) Regime() string { return RegimeCached }

// CacheMB implements CachePlanner: the cache that holds the loaded data (Shape.Data), false
// without a declaration or the engine's figure for its unit.
func (b *Base[C]) CacheMB(engine string, maxBytes int64) (int64, bool) {
	if b.data == nil {
		return 0, false
	}
	unit, units, extra := b.data(&b.Cfg)
	per, ok := Measured(unit)[engine]
	if !ok {
		return 0, false
	}
	return CacheForFiles(engine, units*(per+extra), maxBytes)
}

// Opens makes Base implement Workload's Open, Reuser's Tables and Reopen and SharedTables for a
// workload whose runs open on its tables: Open creates them, Reopen attaches them as a
// preparation left them, Attach (a shard other than 0 of a split run, whose shards share them)
// attaches them as shard 0 made them; each then calls open, existing telling whether the tables
// hold data an earlier run loaded (Reopen).
func (b *Base[C]) Opens(tables func() []*table.Table, open func(ctx context.Context, eng table.Engine, existing bool) (Run, error)) {
	b.tables, b.open = tables, open
}

// Tables implements Reuser: the workload's tables; in a split run whose shards share them,
// shard 0's only (the others never create or drop them). None for a workload that did not call
// Opens.
func (b *Base[C]) Tables() []*table.Table {
	if b.tables == nil || b.SharesTables() && b.Shard.Index > 0 {
		return nil
	}
	return b.tables()
}

// errNoOpens is what Base's Open, Reopen and Attach return for a workload that did not call
// Opens and does not open its runs itself: the workload's bug.
func (b *Base[C]) errNoOpens() error {
	return fmt.Errorf("workload %s: its runs open neither through Base.Opens nor by themselves", b.name)
}

// Open implements Workload: it creates the tables.
func (b *Base[C]) Open(ctx context.Context, eng table.Engine) (Run, error) {
	if b.open == nil {
		return nil, b.errNoOpens()
	}
	for _, t := range b.tables() {
		if err := eng.CreateTable(ctx, t, true); err != nil {
			return nil, err
		}
	}
	return b.open(ctx, eng, false)
}

// Reopen implements Reuser: the tables a preparation loaded.
func (b *Base[C]) Reopen(ctx context.Context, eng table.Engine, k table.Keeper) (Run, error) {
	if b.open == nil {
		return nil, b.errNoOpens()
	}
	if err := AttachAll(ctx, k, b.tables(), false); err != nil {
		return nil, err
	}
	return b.open(ctx, eng, true)
}

// SharesTables implements SharedTables: the shards of a split run of a workload that opens its
// runs through Opens share its tables (a workload that makes its own, one per client, does not).
func (b *Base[C]) SharesTables() bool { return b.tables != nil && b.Shard.Count > 1 }

// Attach implements SharedTables: the tables shard 0 made.
func (b *Base[C]) Attach(ctx context.Context, eng table.Engine, k table.Keeper) (Run, error) {
	if b.open == nil {
		return nil, b.errNoOpens()
	}
	if err := AttachAll(ctx, k, b.tables(), false); err != nil {
		return nil, err
	}
	return b.open(ctx, eng, false)
}
