package bench

import (
	"errors"
	"slices"
	"testing"
	"time"

	_ "github.com/rumbench/rumbench/internal/engine/pebble"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/workload"
	"github.com/rumbench/rumbench/internal/workload/insert"
)

// validConfig is a run of the insert benchmark's load on pebble that Validate accepts.
func validConfig(t *testing.T) Config {
	t.Helper()
	wl, err := insert.New(insert.Config{Clients: 1, Rows: 1000, QuerySecs: 1, Steps: "l.i0"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	return Config{Workload: wl, Targets: []results.Target{results.NewTarget("pebble", "pebble", nil)}, CacheMB: 8, Repeat: 1,
		DataDir: t.TempDir(), Out: t.TempDir(), Label: "t", RunID: "t"}
}

// TestValidateSettings: a Config built by any caller has its settings checked by Validate, each
// refusal a UsageError of one line that names the flag that sets it and what is valid.
func TestValidateSettings(t *testing.T) {
	if err := Validate(validConfig(t)); err != nil {
		t.Fatalf("a valid configuration: %v", err)
	}
	for _, c := range []struct {
		set  func(*Config)
		want string
	}{
		{func(c *Config) { c.CacheMB = 0 }, "--cache-mb 0: must be 1..16777216 (16 TiB)"},
		{func(c *Config) { c.CacheMB = MaxCacheMB + 1 }, "--cache-mb 16777217: must be 1..16777216 (16 TiB)"},
		{func(c *Config) { c.Repeat = 0 }, "--repeat 0: must be 1..1000"},
		{func(c *Config) { c.SyncAcct.Latency = -time.Millisecond }, "--fsync-latency -1ms: must be between 0 and 10s"},
		{func(c *Config) { c.SyncAcct.Latency = time.Minute }, "--fsync-latency 1m0s: must be between 0 and 10s"},
		{func(c *Config) { c.ReadaheadKB = -4 }, "--readahead-kb -4: must be between 0 and 1048576 (0: leave it)"},
		{func(c *Config) { c.Out = "/etc/hostname" }, "--out /etc/hostname: is a file, not a directory"},
		{func(c *Config) { c.DataDir = "/proc/rumbench-data" }, "--data-dir /proc/rumbench-data: cannot be created: /proc is not writable: no such file or directory"},
		{func(c *Config) { c.Label = "../x" }, `--label "../x": starts with '.': want 1 to 64 characters A-Z a-z 0-9 . _ -, not starting with '.' or '-' (it names the run directory)`},
		{func(c *Config) { c.Workload = nil }, "no workload to run"},
	} {
		cfg := validConfig(t)
		c.set(&cfg)
		err := Validate(cfg)
		var ue UsageError
		if err == nil || err.Error() != c.want || (cfg.Workload != nil && !errors.As(err, &ue)) {
			t.Errorf("Validate: %v, want the usage error %q", err, c.want)
		}
	}
}

// TestRecordedSettings: the manifest's settings are read from the Config's fields, which win
// over a key of the caller's Settings; the caller's other keys are kept.
func TestRecordedSettings(t *testing.T) {
	cfg := validConfig(t)
	cfg.Targets = append(cfg.Targets, results.NewTarget("pebble:b", "pebble", nil))
	cfg.EngineCacheBytes = map[string]int64{"pebble": 32 << 20}
	cfg.SyncAcct.Latency = 2 * time.Millisecond
	cfg.Settings = map[string]any{"warmup_secs": 2.5, "cache_mb": 99}
	got := settings(cfg)
	regime := ""
	if p, ok := cfg.Workload.(workload.CachePlanner); ok {
		regime = p.Regime()
	}
	if got["cache_mb"] != int64(8) || got["warmup_secs"] != 2.5 || !slices.Equal(got["engines"].([]string), []string{"pebble"}) ||
		got["engine_cache_mb"].(map[string]int64)["pebble"] != 32 || got["fsync_latency_us"] != int64(2000) || got["repeat"] != 1 ||
		got["dsn"] != false || got["settle"] != "auto" || got["tick_secs"] != tickSecs || got["regime"] != regime {
		t.Errorf("settings: %v", got)
	}
}
