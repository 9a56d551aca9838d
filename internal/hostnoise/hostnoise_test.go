package hostnoise

import (
	"context"
	"math"
	"os"
	"testing"
	"time"
)

// A steady series spreads by nothing; one whose windows alternate between two rates spreads by
// their ratio at most, and the cv and window count follow from the series.
func TestSummarize(t *testing.T) {
	steady := make([]float64, 30)
	for i := range steady {
		steady[i] = 100
	}
	f, ok := Summarize(steady, 5, 1)
	if !ok || f.Windows != 6 || f.CVPct != 0 || f.Spread != 1 || f.Spread90 != 1 || f.RatioSpread != 1 || f.WithinGoalPct != 100 {
		t.Fatalf("steady: %+v ok %v", f, ok)
	}
	// Windows of 2 s: 100, 121, 100, 121, ... (twelve: cv = 10.5·√(12/11)/110.5).
	two := make([]float64, 25) // the last second is a partial window, dropped
	for i := range two {
		two[i] = 100
		if i/2%2 == 1 {
			two[i] = 121
		}
	}
	f, ok = Summarize(two, 2, 1)
	if !ok || f.Windows != 12 || math.Abs(f.CVPct-100*10.5*math.Sqrt(12.0/11)/110.5) > 1e-9 {
		t.Fatalf("two levels: %+v ok %v", f, ok)
	}
	// Three windows from two levels: 1 or 1.21; ratios of two levels: 1/1.21, 1, 1.21.
	if f.Spread90 != 1.21 || f.Spread < 1 || f.Spread > 1.21 || f.RatioSpread90 > 1.21*1.21+1e-9 || f.RatioSpread90 < 1.21-1e-9 {
		t.Fatalf("two levels: spreads %+v", f)
	}
	if f.WithinGoalPct <= 0 || f.WithinGoalPct >= 100 {
		t.Fatalf("two levels: %.1f%% of ratios within %.2f, want some and not all", f.WithinGoalPct, Goal)
	}
	if g, _ := Summarize(two, 2, 1); g != f {
		t.Fatalf("the same series and seed gave %+v then %+v", f, g)
	}
	if _, ok := Summarize(steady[:29], 5, 1); ok {
		t.Fatal("five windows summarized; want six at least")
	}
	if _, ok := Summarize([]float64{1, 0, 1, 1, 1, 1}, 1, 1); ok {
		t.Fatal("a window of rate 0 summarized")
	}
}

// Each probe measures: a positive rate in each window, and the device probe leaves no file.
func TestProbes(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Secs: 2, Dir: dir, CacheMB: 4}
	for _, p := range Probes {
		rates, err := runProbe(context.Background(), cfg, p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if len(rates) != cfg.Secs {
			t.Fatalf("%s: %d windows, want %d", p, len(rates), cfg.Secs)
		}
		for _, r := range rates {
			if !(r > 0) {
				t.Fatalf("%s: rates %v", p, rates)
			}
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("the device probe left %d files in its directory", len(left))
	}
	if _, err := Run(context.Background(), Config{Probes: []Probe{CPU}, Secs: 2, CacheMB: 4}); err == nil {
		t.Fatal("Run took --secs 2")
	}
	// Ended early: the windows measured so far come back with the error.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(2500*time.Millisecond, cancel)
	out, err := Run(ctx, Config{Probes: []Probe{CPU, Cache}, Secs: MinSecs, CacheMB: 4})
	if err == nil || len(out[CPU]) >= MinSecs || len(out[Cache]) != 0 {
		t.Fatalf("cancelled after 2.5 s: %v, cpu windows %d, cache windows %d; want an error, fewer than %d and 0", err, len(out[CPU]), len(out[Cache]), MinSecs)
	}
	for _, r := range out[CPU] {
		if !(r > 0) {
			t.Fatalf("cancelled: cpu rates %v", out[CPU])
		}
	}
}

// Settings out of range are refused with one line naming the flag and the valid range.
func TestValidate(t *testing.T) {
	ok := Config{Probes: []Probe{CPU}, Secs: 10, CacheMB: 16}
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Secs: 10, CacheMB: 16}, "--probes: none given: valid are cpu, device, cache"},
		{Config{Probes: []Probe{CPU}, Secs: 2, CacheMB: 16}, "--secs 2: valid are 6 to 3600 (seconds per probe)"},
		{Config{Probes: []Probe{CPU}, Secs: 10, CacheMB: 0}, "--cache-mb 0: valid are 1 to 1024"},
		{Config{Probes: []Probe{Device}, Secs: 10, CacheMB: 16, Dir: "/nonexistent/x"}, `--data-dir "/nonexistent/x": not an existing directory (the device probe writes a file in it)`},
	} {
		if err := c.cfg.Validate(); err == nil || err.Error() != c.want {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
	if err := ok.Validate(); err != nil {
		t.Errorf("%+v: %v", ok, err)
	}
	if _, err := ParseProbe("disk"); err == nil || err.Error() != `--probes: unknown probe "disk": valid are cpu, device, cache` {
		t.Errorf("ParseProbe(disk): %v", err)
	}
}
