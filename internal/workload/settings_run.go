package workload

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/spf13/pflag"

	"github.com/rumbench/rumbench/internal/input"
)

// FromRun declares a setting that is one of the run's shared settings (Shared: --warmup-secs,
// --cleanup-wait-secs; from returns it, nil when the command line does not give it), held in the
// field that field returns: its value is the command line's when given, else the workload's
// default for the profile (d's Default and Profiles). The command line owns the flag, so the
// workload binds none; the declaration gives the bounds, the steps it matters to, whether it is
// shown and recorded, as for any setting.
func FromRun[C any](field func(*C) *float64, from func(Shared) *float64, d Number[float64]) Param[C] {
	s := Float(field, d)
	s.bind = nil
	s.take = func(c *C, sh Shared) {
		if v := from(sh); v != nil {
			*field(c) = *v
		}
	}
	return s
}

// MaxStepSecs bounds a duration setting in seconds: a week, as the command line bounds every
// flag of seconds.
const MaxStepSecs = 7 * 24 * 3600

// WarmupSecs declares a workload's --warmup-secs (Shared.WarmupSecs), held in field: d gives
// the steps that have a warm-up and the defaults (Default, Profiles), and may say more in Help;
// the name, unit, bounds (0 to MaxStepSecs) and Runtime are the flag's.
func WarmupSecs[C any](field func(*C) *float64, d Number[float64]) Param[C] {
	d.Name, d.Unit, d.Runtime, d.Min, d.Max = "warmup-secs", "s", true, 0, MaxStepSecs
	d.Help = cmp.Or(d.Help, "seconds at the start of each measured step that are not measured")
	return FromRun(field, func(s Shared) *float64 { return s.WarmupSecs }, d)
}

// CleanupWaitSecs declares a workload's --cleanup-wait-secs (Shared.CleanupWaitSecs), held in
// field: the wait after a cleanup before the steps that follow it, -1 for the reference's
// formula (the workload's own). d gives the steps and the defaults, as for WarmupSecs; the
// name, unit, bounds (-1, or 0 to MaxStepSecs) and Runtime are the flag's.
func CleanupWaitSecs[C any](field func(*C) *float64, d Number[float64]) Param[C] {
	d.Name, d.Unit, d.Runtime, d.Min, d.Max = "cleanup-wait-secs", "s", true, -1, MaxStepSecs
	d.Help = cmp.Or(d.Help, "seconds of the settling wait after a cleanup, -1 for the reference's formula")
	d.Check = func(v float64) error {
		if v < 0 && v != -1 {
			return fmt.Errorf("want -1 (the reference's formula) or 0..%d s", MaxStepSecs)
		}
		return nil
	}
	return FromRun(field, func(s Shared) *float64 { return s.CleanupWaitSecs }, d)
}

// CleanupWait is the wait after a cleanup that secs (--cleanup-wait-secs) asks for: -1 (any
// negative) is the reference scripts' formula, 60 s and 1 s per million rows the tables hold
// (rows), at most 1200 s.
func CleanupWait(secs float64, rows int64) time.Duration {
	if secs >= 0 {
		return time.Duration(secs * float64(time.Second))
	}
	return time.Duration(min(60+float64(rows)/1e6, 1200) * float64(time.Second))
}

// Share sets each setting declared with FromRun to the run's value of it, when s gives one.
func (ss Params[C]) Share(c *C, s Shared) {
	for i := range ss {
		if ss[i].take != nil {
			ss[i].take(c, s)
		}
	}
}

// Items is the declaration of a list setting, given as comma-separated text: Param's fields, the
// default text, the most bytes the text may hold (MaxLen; 0: MaxValueBytes), and Parse, which
// turns the text into the items or says in one line, naming flag ("--percentiles") and the text,
// what is wrong and what is valid ("" is no items).
type Items[T any] struct {
	Name, Short, Key, Help string
	Runtime, Unshown       bool
	Steps                  []string
	Default                string
	MaxLen                 int
	Parse                  func(flag, text string) ([]T, error)
}

// Parsed declares a list setting: its flag's text is held in the field text returns, and
// validation parses it into the field items returns, which the recorded configuration and the
// banner show.
func Parsed[C, T any](text func(*C) *string, items func(*C) *[]T, d Items[T]) Param[C] {
	s := Param[C]{Name: d.Name, Short: d.Short, Key: d.Key, Help: d.Help, Runtime: d.Runtime, Unshown: d.Unshown, Steps: d.Steps}
	s.bind = func(fs *pflag.FlagSet, c *C, help string) { fs.StringVarP(text(c), d.Name, d.Short, d.Default, help) }
	s.apply = func(c *C, _ string) { *text(c) = d.Default }
	maxLen := cmp.Or(d.MaxLen, MaxValueBytes)
	s.check = func(c *C) error {
		v := *text(c)
		if len(v) > maxLen {
			return fmt.Errorf("--%s %q: at most %d bytes", d.Name, input.Short(v), maxLen)
		}
		parsed, err := d.Parse("--"+d.Name, v)
		if err != nil {
			return err
		}
		*items(c) = parsed
		return nil
	}
	s.value = func(c *C) any { return *items(c) }
	s.byProf = func() (string, []string) { return d.Default, nil }
	return s
}

// Defaults returns the configuration of profile: every setting at its default for it, as
// Build makes it when the command line gives no flag of the workload's.
func (ss Params[C]) Defaults(profile string) C {
	var c C
	for i := range ss {
		ss[i].apply(&c, profile)
	}
	return c
}

// Make builds a workload in the framework's shape from a configuration given as a value rather
// than from flags (a test's, a program's), as the workload's own type W: c's settings are taken
// as they are (no profile applied), the run's shared settings that s gives replace theirs
// (FromRun), then the steps are chosen and the settings that matter to them validated, as Build
// does. An error says what is wrong, naming the flag.
func Make[C any, W Workload](shape Shape[C], c C, s Shared) (W, error) {
	var zero W
	w, err := build(shape, c, s, nil, "")
	if err != nil {
		return zero, err
	}
	out, ok := w.(W)
	if !ok {
		return zero, fmt.Errorf("workload %s: Build made a %T, not a %T", shape.Name, w, zero)
	}
	return out, nil
}

// SetSteps makes steps the steps that run, in the order given, in place of those the
// configuration chose: for a test or a program that runs a workload's steps in an order of its
// own. A name that is not one of the declared steps is refused, and the settings are validated
// for the new steps.
func (b *Base[C]) SetSteps(steps []string) error {
	all := StepNames(b.decls)
	for _, n := range steps {
		if !slices.Contains(all, n) {
			return fmt.Errorf("workload %s has no step %q", b.name, n)
		}
	}
	old := b.steps
	b.steps = slices.Clone(steps)
	if err := b.check(&b.Cfg); err != nil {
		b.steps = old
		return err
	}
	return nil
}
