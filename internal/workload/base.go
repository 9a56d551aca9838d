package workload

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/pflag"
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
	runExtra func(*C) map[string]any
	shown    func(*C) []Setting
	noShards bool
	part     func(*Base[C]) string
	given    func(flag string) bool
	warmup   *float64 // --warmup-secs, nil when not given
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
	// comma-separated ("" runs every step); unknown names are refused in one line.
	Choose func(*C) *string
	// ChooseFlag is the flag that Choose's setting is, for the refusal ("steps").
	ChooseFlag string
	// Pick, when set, returns the steps that run as the configuration makes them (LinkBench's
	// loops follow --loops), read before the settings are validated (b.Cfg, b.Given); names
	// that are not among Steps are left out. Choose, when also set, chooses among them.
	Pick func(b *Base[C]) []string
	// Clients, when set, is the field of the setting that sets the client count (Spec.Clients
	// names its flag): Base implements Concurrent with it.
	Clients func(*C) *int
	// Validate, when set, checks what no single setting can (settings against each other);
	// its error names the flags.
	Validate func(*C) error
	// Record, when set, adds derived figures to the recorded configuration (fixed schema
	// values, the column lengths): never a setting's own.
	Record func(*C) map[string]any
	// RecordRun, when set, adds derived figures that shape only the run (a mix read from a
	// file, the warm-up) to the recorded configuration; unlike Record's, they are not part of
	// the reuse identity (DataConfig). Never a setting's own.
	RecordRun func(*C) map[string]any
	// Shown, when set, returns derived settings the banner shows after the declared ones (each
	// with the steps it matters to): what the workload made of several settings, the warm-up.
	Shown func(*C) []Setting
	// NoShards says the workload does not split its work among shards: SetShard refuses.
	NoShards bool
	// ShardPart, when set, says in one line which part of the work a shard of a split run does
	// (Sharder.ShardPart), where it is not the framework's: its range of the load's batches and
	// its clients.
	ShardPart func(b *Base[C]) string
	// Build makes the workload from its base.
	Build func(b *Base[C], s Shared) (Workload, error)
}

// definition is a Definition made by Define.
type definition[C any] struct {
	shape Shape[C]
	cfg   C
	fs    *pflag.FlagSet
}

// MaxWarmupSecs bounds --warmup-secs (Shared.WarmupSecs), which Build checks: a week.
const MaxWarmupSecs = 7 * 86400

// Define returns a Definition of a workload in the framework's shape: its flags are the
// settings'; Build applies the profile's defaults to the settings not given, picks the steps,
// validates the settings that matter to them, and calls shape.Build.
func Define[C any](shape Shape[C]) Definition {
	d := &definition[C]{shape: shape, fs: pflag.NewFlagSet(shape.Name, pflag.ContinueOnError)}
	shape.Settings.Bind(d.fs, &d.cfg)
	return d
}

func (d *definition[C]) Flags() *pflag.FlagSet { return d.fs }

func (d *definition[C]) Build(s Shared) (Workload, error) {
	sh := d.shape
	if spec, ok := Lookup(sh.Name); ok {
		if err := spec.CheckProfile(s.Profile); err != nil {
			return nil, err
		}
	}
	if w := s.WarmupSecs; w != nil && !(*w >= 0 && *w <= MaxWarmupSecs) {
		return nil, fmt.Errorf("--warmup-secs %g: want 0 to a week (%d)", *w, MaxWarmupSecs)
	}
	c := d.cfg
	sh.Settings.Apply(d.fs, &c, s.Profile)
	b := &Base[C]{Cfg: c, Seed: s.Seed, name: sh.Name, settings: sh.Settings, decls: sh.Steps, clients: sh.Clients,
		validate: sh.Validate, extra: sh.Record, runExtra: sh.RecordRun, shown: sh.Shown, noShards: sh.NoShards, part: sh.ShardPart, given: d.fs.Changed,
		warmup: s.WarmupSecs}
	all := StepNames(sh.Steps)
	b.steps = all
	if sh.Pick != nil {
		picked := sh.Pick(b)
		b.steps = slices.DeleteFunc(slices.Clone(all), func(n string) bool { return !slices.Contains(picked, n) })
	}
	if sh.Choose != nil && *sh.Choose(&b.Cfg) != "" {
		chosen, err := SplitList("--"+sh.ChooseFlag, *sh.Choose(&b.Cfg))
		if err != nil {
			return nil, err
		}
		for _, n := range chosen {
			if !slices.Contains(all, n) {
				return nil, fmt.Errorf("--%s: unknown step %q (valid: %s)", sh.ChooseFlag, n, strings.Join(all, ", "))
			}
		}
		b.steps = slices.DeleteFunc(slices.Clone(b.steps), func(n string) bool { return !slices.Contains(chosen, n) })
	}
	if err := b.check(&b.Cfg); err != nil {
		return nil, err
	}
	return sh.Build(b, s)
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
	if b.runExtra != nil {
		maps.Copy(m, b.runExtra(&b.Cfg))
	}
	m["steps"], m["seed"] = b.steps, b.Seed
	if part := b.ShardPart(); part != "" {
		m["shard"] = part
	}
	return m
}

// Settings implements Workload: the declared settings, the Shape's derived ones, then the seed.
func (b *Base[C]) Settings() []Setting {
	out := b.settings.Shown(&b.Cfg)
	if b.shown != nil {
		out = append(out, b.shown(&b.Cfg)...)
	}
	return append(out, Show("seed", b.Seed))
}

// LoadSteps implements Reuser: the load steps among those that run.
func (b *Base[C]) LoadSteps() []string {
	var out []string
	for _, s := range b.decls {
		if s.Load && b.Runs(s.Name) {
			out = append(out, s.Name)
		}
	}
	return out
}

// DataConfig implements Reuser: the settings that shape what the load steps leave, the seed
// and the workload's derived figures.
func (b *Base[C]) DataConfig() map[string]any {
	var load []string
	for _, s := range b.decls {
		if s.Load {
			load = append(load, s.Name)
		}
	}
	m := b.settings.Identity(&b.Cfg, load)
	if b.extra != nil {
		maps.Copy(m, b.extra(&b.Cfg))
	}
	m["seed"] = b.Seed
	return m
}

// SetShard implements Sharder; a workload whose Shape says NoShards refuses.
func (b *Base[C]) SetShard(s Shard) error {
	if b.noShards {
		return fmt.Errorf("--shard: workload %s does not split its work among shards", b.name)
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
	if b.part != nil {
		return b.part(b)
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
