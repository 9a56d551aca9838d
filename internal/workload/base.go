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
	run      func(*Base[C]) map[string]any
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
	// Pick, when set in place of Choose, returns the steps a configuration runs (names of
	// Steps, in run order) or a one-line refusal naming its flag: a choice that is not a list of
	// step names (sysbench's --tests picks among the tests of the set --pre chooses, and its
	// load steps always run).
	Pick func(*C) ([]string, error)
	// Clients, when set, is the field of the setting that sets the client count (Spec.Clients
	// names its flag): Base implements Concurrent with it.
	Clients func(*C) *int
	// Validate, when set, checks what no single setting can (settings against each other);
	// its error names the flags.
	Validate func(*C) error
	// Record, when set, adds derived figures to the recorded configuration (fixed schema
	// values, the column lengths): never a setting's own.
	Record func(*C) map[string]any
	// RecordRun, when set, adds derived figures of the run to the recorded configuration only,
	// never to the reuse identity (the steps' constants, the profile's regime). A figure
	// replaces a setting's recorded value of the same key with the value the run resolved it to
	// (the tests a list chose, the wait that -1's formula gives).
	RecordRun func(b *Base[C]) map[string]any
	// Build makes the workload from its base.
	Build func(b *Base[C], s Shared) (Workload, error)
}

// definition is a Definition made by Define.
type definition[C any] struct {
	shape Shape[C]
	cfg   C
	fs    *pflag.FlagSet
}

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
	if spec, ok := Lookup(d.shape.Name); ok {
		if err := spec.CheckProfile(s.Profile); err != nil {
			return nil, err
		}
	}
	c := d.cfg
	d.shape.Settings.Apply(d.fs, &c, s.Profile)
	return build(d.shape, c, s)
}

// build makes the workload of sh from c: the run's shared settings that s gives, the steps c
// chooses, the settings that matter to them validated, then sh.Build.
func build[C any](sh Shape[C], c C, s Shared) (Workload, error) {
	sh.Settings.Share(&c, s)
	b := &Base[C]{Cfg: c, Seed: s.Seed, name: sh.Name, settings: sh.Settings, decls: sh.Steps, clients: sh.Clients,
		validate: sh.Validate, extra: sh.Record, run: sh.RecordRun}
	var err error
	if b.steps, err = chooseSteps(sh, &b.Cfg); err != nil {
		return nil, err
	}
	if err := b.check(&b.Cfg); err != nil {
		return nil, err
	}
	return sh.Build(b, s)
}

// chooseSteps returns the steps c runs: Pick's, or those Choose's list names (every step when
// it is empty), in declaration order; an unknown name is refused in one line.
func chooseSteps[C any](sh Shape[C], c *C) ([]string, error) {
	all := StepNames(sh.Steps)
	switch {
	case sh.Pick != nil:
		return sh.Pick(c)
	case sh.Choose == nil || *sh.Choose(c) == "":
		return all, nil
	}
	chosen, err := SplitList("--"+sh.ChooseFlag, *sh.Choose(c))
	if err != nil {
		return nil, err
	}
	for _, n := range chosen {
		if !slices.Contains(all, n) {
			return nil, fmt.Errorf("--%s: unknown step %q (valid: %s)", sh.ChooseFlag, n, strings.Join(all, ", "))
		}
	}
	return slices.DeleteFunc(all, func(n string) bool { return !slices.Contains(chosen, n) }), nil
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

// Config implements Workload: every setting by its recorded name, the steps, the seed, the
// workload's derived figures and the shard's part.
func (b *Base[C]) Config() map[string]any {
	m := b.settings.Record(&b.Cfg)
	if b.extra != nil {
		maps.Copy(m, b.extra(&b.Cfg))
	}
	m["steps"], m["seed"] = b.steps, b.Seed
	if b.run != nil {
		maps.Copy(m, b.run(b))
	}
	if part := b.ShardPart(); part != "" {
		m["shard"] = part
	}
	return m
}

// Settings implements Workload: the declared settings, then the seed.
func (b *Base[C]) Settings() []Setting {
	return append(b.settings.Shown(&b.Cfg), Show("seed", b.Seed))
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

// SetShard implements Sharder.
func (b *Base[C]) SetShard(s Shard) error {
	b.Shard = s
	return nil
}

// ShardPart implements Sharder: "shard I of N" ("" unsplit).
func (b *Base[C]) ShardPart() string {
	if b.Shard.Count <= 1 {
		return ""
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
