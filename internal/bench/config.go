package bench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/workload"
)

// Bounds of a Config's settings, each far below where its value overflows what it sizes.
const (
	// MaxCacheMB bounds CacheMB: 16 TiB, more than any host has.
	MaxCacheMB = 16 << 20
	// MaxRepeat bounds Repeat.
	MaxRepeat = 1000
	// MaxSyncLatency bounds SyncAcct.Latency, the sleep injected into every sync call.
	MaxSyncLatency = 10 * time.Second
	// MaxReadaheadKB bounds ReadaheadKB, KiB (1 GiB).
	MaxReadaheadKB = 1 << 20
	// MaxRate bounds Pace.Rate, units per second: a billion, beyond any engine here.
	MaxRate = 1e9
	// MaxLatencyLimit bounds Pace.LatencyLimit.
	MaxLatencyLimit = time.Hour
)

// checkSettings refuses a setting of cfg outside its bounds, in one line naming the flag that
// sets it and what is valid: the cache, the repetitions, the injected sync latency, the
// readahead, the label (it names the run directory), the results and data directories (each
// a directory this process can write in, or create), and an engine without SQL for a
// workload that runs SQL text.
func checkSettings(cfg Config) error {
	switch {
	case cfg.CacheMB < 1 || cfg.CacheMB > MaxCacheMB:
		return UsageError{fmt.Errorf("--cache-mb %d: must be 1..%d (16 TiB)", cfg.CacheMB, MaxCacheMB)}
	case cfg.SyncAcct.Latency < 0 || cfg.SyncAcct.Latency > MaxSyncLatency:
		return UsageError{fmt.Errorf("--fsync-latency %v: must be between 0 and %v", cfg.SyncAcct.Latency, MaxSyncLatency)}
	case cfg.ReadaheadKB < 0 || cfg.ReadaheadKB > MaxReadaheadKB:
		return UsageError{fmt.Errorf("--readahead-kb %d: must be between 0 and %d (0: leave it)", cfg.ReadaheadKB, MaxReadaheadKB)}
	case cfg.Repeat < 1 || cfg.Repeat > MaxRepeat:
		return UsageError{fmt.Errorf("--repeat %d: must be 1..%d", cfg.Repeat, MaxRepeat)}
	case cfg.Pace != nil && !(cfg.Pace.Rate > 0 && cfg.Pace.Rate <= MaxRate):
		return UsageError{fmt.Errorf("--rate %g: must be above 0 and at most %g per second", cfg.Pace.Rate, float64(MaxRate))}
	case cfg.Pace != nil && (cfg.Pace.LatencyLimit < 0 || cfg.Pace.LatencyLimit > MaxLatencyLimit):
		return UsageError{fmt.Errorf("--latency-limit %v: must be between 0 (none) and %v", cfg.Pace.LatencyLimit, MaxLatencyLimit)}
	}
	for _, d := range []struct{ flag, dir string }{{"--out", cfg.Out}, {"--data-dir", cfg.DataDir}} {
		if err := writableDir(d.dir); err != nil {
			return UsageError{fmt.Errorf("%s %s: %v", d.flag, input.Short(d.dir), err)}
		}
	}
	if err := input.CheckName(cfg.Label); err != nil {
		return UsageError{fmt.Errorf("--label %q: %v (it names the run directory)", input.Short(cfg.Label), err)}
	}
	if cfg.Workload == nil {
		return errors.New("no workload to run")
	}
	if spec, ok := workload.Lookup(cfg.Workload.Name()); ok && spec.NeedsSQL {
		for _, name := range engineNames(cfg.Targets) {
			if s, ok := engine.Lookup(name); ok && !s.SQL {
				return UsageError{fmt.Errorf("engine %s runs no SQL text, which the %s workload runs (valid: %s)", name, spec.Name, strings.Join(sqlEngines(), ", "))}
			}
		}
	}
	return nil
}

// sqlEngines returns the names of the engines that run SQL text, sorted.
func sqlEngines() []string {
	var names []string
	for _, n := range engine.Names() {
		if s, _ := engine.Lookup(n); s.SQL {
			names = append(names, n)
		}
	}
	return names
}

// engineNames returns the registered engine names of targets, each once, in order: the
// --engine list.
func engineNames(targets []results.Target) []string {
	var names []string
	for _, t := range targets {
		if !slices.Contains(names, t.Engine.Name) {
			names = append(names, t.Engine.Name)
		}
	}
	return names
}

// tickSecs is the runner's sampling interval, s, which a run leaves at its default
// (runner.Setup.Tick unset).
const tickSecs = 1

// settings is the effective configuration the manifest records (Manifest.Config), every value
// read from cfg: the caller's Settings, then what cfg holds, which wins for a key of both. A
// key's value keeps its type and unit from one run to the next (stores and comparisons read
// them): sizes in MiB or bytes as the key says, durations in seconds or µs.
func settings(cfg Config) map[string]any {
	out := make(map[string]any, len(cfg.Settings)+24)
	for k, v := range cfg.Settings {
		out[k] = v
	}
	engines := engineNames(cfg.Targets)
	regime := ""
	if p, ok := cfg.Workload.(workload.CachePlanner); ok {
		regime = p.Regime()
	}
	engineCacheMB := make(map[string]int64, len(engines))
	for _, e := range engines {
		engineCacheMB[e] = cfg.cacheBytes(e) >> 20
	}
	for k, v := range map[string]any{
		"profile": cfg.Profile, "engines": engines, "dsn": slices.ContainsFunc(cfg.Targets, external),
		"cache_mb": cfg.CacheMB, "sync": cfg.Sync, "data_dir": cfg.DataDir, "out": cfg.Out, "tick_secs": tickSecs,
		"syscalls": cfg.SyncAcct.Enabled, "fsync_latency_us": cfg.SyncAcct.Latency.Microseconds(),
		"pss_every_secs": cfg.PSSEvery.Seconds(), "memory_limit_bytes": cfg.MemoryLimit, "cold": cfg.Cold,
		"readahead_kb": cfg.ReadaheadKB, "repeat": cfg.Repeat, "prepare": cfg.Prepare, "reuse": cfg.Reuse,
		"settle": cfg.Settle.String(), "regime": regime, "engine_cache_mb": engineCacheMB,
	} {
		out[k] = v
	}
	if p := cfg.Pace; p != nil {
		out["rate"], out["arrivals"], out["latency_limit_ms"] = p.Rate, p.Arrivals.String(), float64(p.LatencyLimit)/1e6
	}
	return out
}

// writableDir checks, leaving nothing behind, that dir is a directory this process can create
// files in, or that it can be created: a directory is made and removed in it, or in its nearest
// existing ancestor.
func writableDir(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := input.CheckPath(abs); err != nil {
		return err
	}
	for p := abs; ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) && p != filepath.Dir(p) {
			continue
		}
		if err != nil {
			if p == abs {
				return input.Reason(err) // the path is long: the caller echoes it cut
			}
			return fmt.Errorf("%s: %v", input.Short(p), input.Reason(err))
		}
		if !st.IsDir() {
			if p == abs {
				return errors.New("is a file, not a directory")
			}
			return fmt.Errorf("%s is a file, not a directory", input.Short(p))
		}
		probe, err := os.MkdirTemp(p, ".rumbench-probe-")
		if err != nil {
			err = errors.Unwrap(err) // the cause, without the probe's name
			if p == abs {
				return fmt.Errorf("not writable: %v", err)
			}
			return fmt.Errorf("cannot be created: %s is not writable: %v", input.Short(p), err)
		}
		return os.Remove(probe)
	}
}
