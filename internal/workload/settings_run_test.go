package workload

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/table"
)

type runConfig struct {
	Rows        int64
	Warmup      float64
	PctText     string
	Percentiles []float64
	Only        string
}

var runSettings = Params[runConfig]{
	Int(func(c *runConfig) *int64 { return &c.Rows }, Number[int64]{Name: "rows", Help: "rows loaded", Steps: []string{"load"},
		Default: 10, Min: 1, Max: 1000}),
	FromRun(func(c *runConfig) *float64 { return &c.Warmup }, func(s Shared) *float64 { return s.WarmupSecs },
		Number[float64]{Name: "warmup-secs", Help: "warm-up", Runtime: true, Steps: []string{"run"},
			Default: 1, Profiles: map[string]float64{"small": 5}, Min: 0, Max: 60}),
	Parsed(func(c *runConfig) *string { return &c.PctText }, func(c *runConfig) *[]float64 { return &c.Percentiles },
		Items[float64]{Name: "percentiles", Help: "percentiles", Runtime: true, Unshown: true, Parse: ParsePercentiles}),
	String(func(c *runConfig) *string { return &c.Only }, Text{Name: "only", Help: "the steps to run", Runtime: true, Unshown: true}),
}

// The run's shared settings are declared like the workload's own but bind no flag; list
// settings are parsed when validated and recorded as their items; an unshown setting is
// recorded but not in the banner.
func TestRunSettings(t *testing.T) {
	d := Define(Shape[runConfig]{Name: "t", Settings: runSettings, Steps: []StepDecl{{Name: "load", Load: true}, {Name: "run"}},
		Choose: func(c *runConfig) *string { return &c.Only }, ChooseFlag: "only",
		RecordRun: func(b *Base[runConfig]) map[string]any { return map[string]any{"only": "resolved", "constant": 3} },
		Build:     func(b *Base[runConfig], s Shared) (Workload, error) { return testWorkload{b}, nil }})
	if d.Flags().Lookup("warmup-secs") != nil {
		t.Fatal("a shared setting bound a flag of the workload's")
	}
	if err := d.Flags().Parse([]string{"--percentiles", "99,99.9"}); err != nil {
		t.Fatal(err)
	}
	w, err := d.Build(Shared{Profile: "small", Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	b := w.(testWorkload).Base
	if b.Cfg.Warmup != 5 || !slices.Equal(b.Cfg.Percentiles, []float64{99, 99.9}) {
		t.Errorf("profile small: %+v", b.Cfg)
	}
	cfg := b.Config()
	if fmt.Sprintf("%v %v %v %v", cfg["percentiles"], cfg["warmup_secs"], cfg["only"], cfg["constant"]) != "[99 99.9] 5 resolved 3" {
		t.Errorf("recorded %v", cfg)
	}
	if got := Banner(b.Settings(), b.Steps()); got != "rows=10 warmup_secs=5 seed=3" {
		t.Errorf("banner %q", got)
	}
	if id := b.DataConfig(); len(id) != 2 || id["rows"] != int64(10) || id["seed"] != uint64(3) {
		t.Errorf("identity %v", id)
	}
	two := 2.0
	if w, err := d.Build(Shared{Profile: "small", WarmupSecs: &two}); err != nil || w.(testWorkload).Cfg.Warmup != 2 {
		t.Errorf("--warmup-secs 2: %v", err)
	}
	if c := runSettings.Defaults("quick"); c.Rows != 10 || c.Warmup != 1 {
		t.Errorf("defaults of quick: %+v", c)
	}

	// Made from a value: no profile, the same checks.
	sh := Shape[runConfig]{Name: "t", Settings: runSettings, Steps: []StepDecl{{Name: "load", Load: true}, {Name: "run"}},
		Choose: func(c *runConfig) *string { return &c.Only }, ChooseFlag: "only",
		Build: func(b *Base[runConfig], s Shared) (Workload, error) { return testWorkload{b}, nil }}
	for _, tc := range []struct {
		c    runConfig
		want string
	}{
		{runConfig{Rows: 0, Only: "load"}, "--rows 0: want 1..1000"},
		{runConfig{Rows: 5, PctText: "100", Only: "run"}, `--percentiles "100": each value must be a number in (0, 100), e.g. 50,99,99.9`},
		{runConfig{Rows: 5, Warmup: 61}, "--warmup-secs 61: want 0..60"},
		{runConfig{Rows: 0, Only: "nap"}, `--only: unknown step "nap" (valid: load, run)`},
	} {
		if _, err := Make[runConfig, testWorkload](sh, tc.c, Shared{}); err == nil || err.Error() != tc.want {
			t.Errorf("%+v: %v, want %s", tc.c, err, tc.want)
		}
	}
	w, err = Make[runConfig, testWorkload](sh, runConfig{Rows: 0, Only: "run"}, Shared{})
	if err != nil {
		t.Fatal(err)
	}
	b = w.(testWorkload).Base
	if !slices.Equal(b.LoadSteps(), []string{"load"}) {
		t.Errorf("load steps %v of a run without them, want the declared one (prepare names it)", b.LoadSteps())
	}
	if err := b.SetSteps([]string{"run", "load"}); err == nil || err.Error() != "--rows 0: want 1..1000" || !slices.Equal(b.Steps(), []string{"run"}) {
		t.Errorf("steps with a load of 0 rows: %v, steps %v", err, b.Steps())
	}
	b.Cfg.Rows = 4
	if err := b.SetSteps([]string{"run", "load"}); err != nil || !slices.Equal(b.Steps(), []string{"run", "load"}) {
		t.Errorf("steps in an order of their own: %v, steps %v", err, b.Steps())
	}
	if err := b.SetSteps([]string{"nap"}); err == nil || !strings.Contains(err.Error(), `no step "nap"`) {
		t.Errorf("an unknown step: %v", err)
	}
}

// Pick chooses the steps where they are no plain list.
func TestPick(t *testing.T) {
	sh := Shape[runConfig]{Name: "t", Settings: runSettings, Steps: []StepDecl{{Name: "load", Load: true}, {Name: "a"}, {Name: "b"}},
		Pick: func(b *Base[runConfig]) ([]string, error) {
			c := &b.Cfg
			if c.Only == "x" {
				return nil, fmt.Errorf("--only %q: no such test", c.Only)
			}
			return []string{"load", c.Only}, nil
		},
		Build: func(b *Base[runConfig], s Shared) (Workload, error) { return testWorkload{b}, nil }}
	w, err := Make[runConfig, testWorkload](sh, runConfig{Rows: 1, Only: "b"}, Shared{})
	if err != nil || !slices.Equal(w.Steps(), []string{"load", "b"}) {
		t.Errorf("picked %v (%v)", w, err)
	}
	if _, err := Make[runConfig, testWorkload](sh, runConfig{Rows: 1, Only: "x"}, Shared{}); err == nil || err.Error() != `--only "x": no such test` {
		t.Errorf("refused %v", err)
	}
}

// testWorkload is a workload with nothing of its own.
type testWorkload struct{ *Base[runConfig] }

func (testWorkload) Open(context.Context, table.Engine) (Run, error) { return nil, nil }

// The shared waits are declared with their flag's name, unit and bounds; -1 is the only
// negative wait (the reference's formula).
func TestSharedWaits(t *testing.T) {
	type waits struct{ Warmup, Cleanup float64 }
	ss := Params[waits]{
		WarmupSecs(func(c *waits) *float64 { return &c.Warmup }, Number[float64]{Profiles: map[string]float64{"small": 5}}),
		CleanupWaitSecs(func(c *waits) *float64 { return &c.Cleanup }, Number[float64]{Profiles: map[string]float64{"standard": -1}}),
	}
	if c := ss.Defaults("standard"); c.Cleanup != -1 || c.Warmup != 0 {
		t.Errorf("standard: %+v", c)
	}
	for _, tc := range []struct {
		c    waits
		want string
	}{
		{waits{Cleanup: -0.5}, "--cleanup-wait-secs -0.5: want -1 (the reference's formula) or 0..604800 s"},
		{waits{Cleanup: -2}, "--cleanup-wait-secs -2: want -1..604800 s"},
		{waits{Warmup: -1}, "--warmup-secs -1: want 0..604800 s"},
		{waits{Cleanup: -1, Warmup: 604800}, ""},
	} {
		if err := ss.Validate(&tc.c, nil); fmt.Sprint(err) != tc.want && !(err == nil && tc.want == "") {
			t.Errorf("%+v: %v, want %s", tc.c, err, tc.want)
		}
	}
	if a, b, c := CleanupWait(-1, 2_000_000), CleanupWait(-1, 5_000_000_000), CleanupWait(5, 1); a != 62*time.Second || b != 1200*time.Second || c != 5*time.Second {
		t.Errorf("the reference's formula: %v and %v (capped), a wait of 5 s: %v", a, b, c)
	}
}
