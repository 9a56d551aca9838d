package workload

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rumbench/rumbench/internal/input"
)

// A Param is one of a workload's settings, declared once: its flag (name, shorthand, help,
// unit), its default (one, or one per profile), its bounds, and whether it shapes the loaded
// data. The flag, the validation (one line naming the flag and what is valid), the recorded
// configuration, the banner and the reuse identity all come from the declaration. C is the
// workload's configuration type, whose field the setting holds.
//
// Make one with Int, Float, Text or Bool; a workload lists its settings in a Params[C].
type Param[C any] struct {
	// Name is the flag's name ("rows-per-commit"); the recorded configuration and the banner
	// name it in snake case ("rows_per_commit") unless Key says otherwise.
	Name, Short string
	// Key overrides the recorded name; Show the name the banner shows (default: the recorded
	// name; "-": not shown, where the workload shows a derived setting instead).
	Key, Show string
	// Help says what the setting is; Unit what its values count ("rows", "s").
	Help, Unit string
	// Runtime says the setting shapes only how the steps run, not the data they load: it is
	// left out of the reuse identity (rumbench run --reuse may change it).
	Runtime bool
	// Unshown leaves the setting out of the run's banner (it is still checked and recorded):
	// the list of steps to run, which the banner's steps say, or a list too long for it.
	Unshown bool
	// Steps are the steps the setting matters to: it is checked and shown in the banner only
	// when one of them runs, and it is part of the reuse identity only when one of them is a
	// load step. nil: every step.
	Steps []string

	bind   func(fs *pflag.FlagSet, c *C, help string) // nil: no flag of the workload's (FromRun)
	apply  func(c *C, profile string)
	take   func(c *C, s Shared) // the run's shared value, when given (FromRun)
	check  func(c *C) error
	value  func(c *C) any
	text   func(c *C) string                      // the banner's text; nil: value's, formatted with %v
	byProf func() (def string, profiles []string) // the defaults, for the help
}

// key is the setting's recorded name.
func (s *Param[C]) key() string {
	if s.Key != "" {
		return s.Key
	}
	return strings.ReplaceAll(s.Name, "-", "_")
}

// matters says whether the setting matters to a run of steps (nil: every step).
func (s *Param[C]) matters(steps []string) bool {
	return s.Steps == nil || steps == nil || slices.ContainsFunc(s.Steps, func(x string) bool { return slices.Contains(steps, x) })
}

// Number is the declaration of a numeric setting (Int, Float): Param's fields, the default
// (Default, or per profile in Profiles) and the inclusive bounds [Min, Max]. Zero, when not
// empty, allows 0 outside the bounds and says what it means ("the per-step default").
type Number[T int | int64 | float64] struct {
	Name, Short, Key, Help, Unit string
	Runtime, Unshown             bool
	Steps                        []string
	Default                      T
	Profiles                     map[string]T
	Min, Max                     T
	Zero                         string
	// Check, when set, is a further rule on a value within the bounds; its error says what is
	// valid and is printed after the flag and the value.
	Check func(T) error
	// Show is the name the banner shows (default: the recorded name; "-": not shown).
	Show string
}

// Int declares an integer setting held in the field that field returns.
func Int[C any, T int | int64](field func(*C) *T, d Number[T]) Param[C] {
	return number(field, d, func(v T) string { return strconv.FormatInt(int64(v), 10) })
}

// Float declares a floating-point setting held in the field that field returns; NaN and the
// infinities are refused.
func Float[C any](field func(*C) *float64, d Number[float64]) Param[C] {
	return number(field, d, func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) })
}

func number[C any, T int | int64 | float64](field func(*C) *T, d Number[T], str func(T) string) Param[C] {
	s := Param[C]{Name: d.Name, Short: d.Short, Key: d.Key, Show: d.Show, Help: d.Help, Unit: d.Unit, Runtime: d.Runtime, Unshown: d.Unshown, Steps: d.Steps}
	if d.Max < d.Min {
		panic(fmt.Sprintf("workload setting %s: Max %v < Min %v", d.Name, d.Max, d.Min))
	}
	s.bind = func(fs *pflag.FlagSet, c *C, help string) {
		switch p := any(field(c)).(type) {
		case *int:
			fs.IntVarP(p, d.Name, d.Short, int(d.Default), help)
		case *int64:
			fs.Int64VarP(p, d.Name, d.Short, int64(d.Default), help)
		case *float64:
			fs.Float64VarP(p, d.Name, d.Short, float64(d.Default), help)
		}
	}
	s.apply = func(c *C, profile string) {
		if v, ok := d.Profiles[profile]; ok {
			*field(c) = v
		} else {
			*field(c) = d.Default
		}
	}
	s.check = func(c *C) error {
		v := *field(c)
		in := v >= d.Min && v <= d.Max // false for NaN
		if !in && !(v == 0 && d.Zero != "") {
			valid := str(d.Min) + ".." + str(d.Max)
			if d.Zero != "" {
				valid = "0 (" + d.Zero + ") or " + valid
			}
			if d.Unit != "" {
				valid += " " + d.Unit
			}
			return fmt.Errorf("--%s %s: want %s", d.Name, str(v), valid)
		}
		if in && d.Check != nil {
			if err := d.Check(v); err != nil {
				return fmt.Errorf("--%s %s: %v", d.Name, str(v), err)
			}
		}
		return nil
	}
	s.value = func(c *C) any { return *field(c) }
	s.byProf = func() (string, []string) { return str(d.Default), profileDefaults(d.Profiles, str) }
	return s
}

// Text is the declaration of a string setting: Param's fields, its default (per profile
// where Profiles says), the values it may take (Valid; nil: any, checked by Check), and the
// most bytes it may hold (MaxLen; 0: input.MaxValueBytes).
type Text struct {
	Name, Short, Key, Help string
	Runtime, Unshown       bool
	Steps                  []string
	Default                string
	Profiles               map[string]string
	Valid                  []string
	MaxLen                 int
	Check                  func(string) error
	// Show is the name the banner shows (default: the recorded name; "-": not shown).
	Show string
}

// MaxValueBytes bounds a text setting that declares no MaxLen.
const MaxValueBytes = 4096

// String declares a text setting held in the field that field returns.
func String[C any](field func(*C) *string, d Text) Param[C] {
	s := Param[C]{Name: d.Name, Short: d.Short, Key: d.Key, Show: d.Show, Help: d.Help, Runtime: d.Runtime, Unshown: d.Unshown, Steps: d.Steps}
	s.bind = func(fs *pflag.FlagSet, c *C, help string) { fs.StringVarP(field(c), d.Name, d.Short, d.Default, help) }
	s.apply = func(c *C, profile string) {
		if v, ok := d.Profiles[profile]; ok {
			*field(c) = v
		} else {
			*field(c) = d.Default
		}
	}
	maxLen := cmp.Or(d.MaxLen, MaxValueBytes)
	s.check = func(c *C) error {
		v := *field(c)
		switch {
		case len(v) > maxLen:
			return fmt.Errorf("--%s %q: at most %d bytes", d.Name, input.Short(v), maxLen)
		case d.Valid != nil && !slices.Contains(d.Valid, v):
			return fmt.Errorf("--%s %q: want one of %s", d.Name, input.Short(v), strings.Join(d.Valid, ", "))
		case d.Check != nil:
			if err := d.Check(v); err != nil {
				return fmt.Errorf("--%s %q: %v", d.Name, input.Short(v), err)
			}
		}
		return nil
	}
	s.value = func(c *C) any { return *field(c) }
	s.byProf = func() (string, []string) {
		return d.Default, profileDefaults(d.Profiles, func(v string) string { return v })
	}
	return s
}

// Switch is the declaration of a boolean setting.
type Switch struct {
	Name, Short, Key, Help string
	Runtime, Unshown       bool
	Steps                  []string
	Default                bool
	// Show is the name the banner shows (default: the recorded name; "-": not shown).
	Show string
}

// Bool declares a boolean setting held in the field that field returns.
func Bool[C any](field func(*C) *bool, d Switch) Param[C] {
	s := Param[C]{Name: d.Name, Short: d.Short, Key: d.Key, Show: d.Show, Help: d.Help, Runtime: d.Runtime, Unshown: d.Unshown, Steps: d.Steps}
	s.bind = func(fs *pflag.FlagSet, c *C, help string) { fs.BoolVarP(field(c), d.Name, d.Short, d.Default, help) }
	s.apply = func(c *C, _ string) { *field(c) = d.Default }
	s.check = func(*C) error { return nil }
	s.value = func(c *C) any { return *field(c) }
	s.byProf = func() (string, []string) { return strconv.FormatBool(d.Default), nil }
	return s
}

// profileDefaults renders a per-profile default map as "profile value" items, sorted by
// profile name.
func profileDefaults[T any](m map[string]T, str func(T) string) []string {
	var out []string
	for _, p := range slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}) {
		out = append(out, p+" "+str(m[p]))
	}
	return out
}

// Params are a workload's settings, in the order its banner shows them.
type Params[C any] []Param[C]

// Verify checks the declarations against the workload's profiles and steps: every profile a
// default names is one of profiles, every step a setting names is one of steps, no two
// settings share a name or a key. Registration calls it; an error is the workload's bug.
func (ss Params[C]) Verify(profiles, steps []string) error {
	names := map[string]bool{}
	for _, s := range ss {
		if s.Name == "" || names[s.Name] || names["key:"+s.key()] {
			return fmt.Errorf("setting %q: empty or declared twice", s.Name)
		}
		names[s.Name], names["key:"+s.key()] = true, true
		for _, st := range s.Steps {
			if !slices.Contains(steps, st) {
				return fmt.Errorf("setting %s: unknown step %q", s.Name, st)
			}
		}
		_, byProf := s.byProf()
		for _, item := range byProf {
			p, _, _ := strings.Cut(item, " ")
			if !slices.Contains(profiles, p) {
				return fmt.Errorf("setting %s: unknown profile %q", s.Name, p)
			}
		}
	}
	return nil
}

// Bind adds the settings' flags to fs, each pointing at its field of c. The help says the
// unit and the defaults per profile.
func (ss Params[C]) Bind(fs *pflag.FlagSet, c *C) {
	for i := range ss {
		s := &ss[i]
		if s.bind == nil {
			continue
		}
		help := s.Help
		if s.Unit != "" {
			help += " (" + s.Unit + ")"
		}
		if _, byProf := s.byProf(); len(byProf) > 0 {
			help += "; by --profile: " + strings.Join(byProf, ", ")
		}
		s.bind(fs, c, help)
	}
}

// Apply sets each setting that fs does not say was given to its default for profile.
func (ss Params[C]) Apply(fs *pflag.FlagSet, c *C, profile string) {
	for i := range ss {
		if !fs.Changed(ss[i].Name) {
			ss[i].apply(c, profile)
		}
	}
}

// Validate checks every setting that matters to a run of steps (nil: all) and returns the
// first error: one line naming the flag, its value and what is valid.
func (ss Params[C]) Validate(c *C, steps []string) error {
	for i := range ss {
		if ss[i].matters(steps) {
			if err := ss[i].check(c); err != nil {
				return err
			}
		}
	}
	return nil
}

// Record returns every setting's value by its recorded name, for the run's manifest.
func (ss Params[C]) Record(c *C) map[string]any {
	m := make(map[string]any, len(ss))
	for i := range ss {
		m[ss[i].key()] = ss[i].value(c)
	}
	return m
}

// Shown returns every setting as the run's banner shows it (Banner keeps those that matter to
// the steps that run), in declaration order, but a text setting left empty (none given) and
// those declared not shown (Unshown, or Show "-").
func (ss Params[C]) Shown(c *C) []Setting {
	out := make([]Setting, 0, len(ss))
	for i := range ss {
		s := &ss[i]
		v := ""
		if s.text != nil {
			v = s.text(c)
		} else if x := s.value(c); x != "" {
			v = fmt.Sprint(x)
		}
		if v != "" && s.Show != "-" && !s.Unshown {
			out = append(out, Setting{Name: cmp.Or(s.Show, s.key()), Value: v, Steps: s.Steps})
		}
	}
	return out
}

// Identity returns the settings that shape the data the load steps leave (not Runtime, and
// mattering to a load step), by recorded name: the reuse identity, which rumbench prepare
// records with the data and run --reuse compares.
func (ss Params[C]) Identity(c *C, loadSteps []string) map[string]any {
	m := map[string]any{}
	for i := range ss {
		s := &ss[i]
		if s.Runtime || s.Steps != nil && !slices.ContainsFunc(s.Steps, func(x string) bool { return slices.Contains(loadSteps, x) }) {
			continue
		}
		m[s.key()] = s.value(c)
	}
	return m
}

// Lookup returns the setting named name (its flag name).
func (ss Params[C]) Lookup(name string) (Param[C], bool) {
	for _, s := range ss {
		if s.Name == name {
			return s, true
		}
	}
	return Param[C]{}, false
}
