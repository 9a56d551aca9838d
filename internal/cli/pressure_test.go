package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/metric"
	"github.com/rumbench/rumbench/internal/results"
)

// TestCachePressure runs WiredTiger's random-key inserts (l.i1) with a cache far below its
// in-memory pages and with one that holds them: the small cache makes rumbench's own threads
// evict pages (appevict/op > 0), its stall time is at least a quarter of the operations' time
// and the step is labelled cache-bound (IO-bound when the disk read a KB per op, which other
// work on the host can cause); the large one has no application eviction and is not.
// stall_us/op is the sum of the stall counters over the step's operations.
func TestCachePressure(t *testing.T) {
	if spec, _ := engine.Lookup("wiredtiger"); spec.Unavailable != "" {
		t.Skip(spec.Unavailable)
	}
	stall := []string{"app_cache_wait_us", "force_evict_dirty_us", "force_evict_clean_us", "force_evict_fail_us", "app_read_us"}
	for _, c := range []struct {
		cacheMB    int
		cacheBound bool
	}{{1, true}, {512, false}} {
		t.Run(fmt.Sprintf("cache_mb=%d", c.cacheMB), func(t *testing.T) {
			out, _, d := dirs(t)
			tr := run(t, nil, append([]string{"run", "--engine", "wiredtiger", "--steps", "l.i0,l.x,l.i1", "--rows", "30000",
				"--writes", "10000", "--cache-mb", fmt.Sprint(c.cacheMB), "--quiet"}, d...)...)
			if tr.code != 0 {
				t.Fatalf("exit %d: %s", tr.code, tr.stderr)
			}
			_, m, steps := readRun(t, out)
			if got := m.Targets[0].Engine.Options["cache_mb"]; got != fmt.Sprint(c.cacheMB) {
				t.Errorf("cache_mb %q, want %d (--cache-mb applies to every engine)", got, c.cacheMB)
			}
			s := stepNamed(t, steps, "l.i1")
			ec := s.EngineCounters
			var sum int64
			for _, k := range stall {
				v, ok := ec[k]
				if !ok {
					t.Fatalf("engine counters %v: no %s", ec, k)
				}
				sum += v
			}
			got, ok := metric.MustGet("stall_us/op").Value(s)
			if want := float64(sum) / float64(s.Ops); !ok || got != want {
				t.Errorf("stall_us/op = %v (%v), want Σ %v / %d ops = %v", got, ok, stall, s.Ops, want)
			}
			evict, _ := metric.MustGet("appevict/op").Value(s)
			if want := float64(ec["app_evict_pages"]) / float64(s.Ops); evict != want {
				t.Errorf("appevict/op = %v, want app_evict_pages / ops = %v", evict, want)
			}
			regime, ok := metric.Regime(s)
			share, _ := metric.StallShare(s)
			t.Logf("cache %d MB: l.i1 app_evict_pages %d, stall %d µs over %.0f µs of operations (share %.2f), rKB/op %.3f, regime %v",
				c.cacheMB, ec["app_evict_pages"], sum, metric.OpTimeUs(s), share, s.ReadKBPerOp, regime)
			if c.cacheBound {
				if ec["app_evict_pages"] <= 0 {
					t.Errorf("a %d MB cache: no pages evicted by application threads (%v)", c.cacheMB, ec)
				}
				if share < metric.CacheBoundShare {
					t.Errorf("stall share %.2f, want at least %.2f with a %d MB cache", share, metric.CacheBoundShare, c.cacheMB)
				}
				// The device's reads are the whole disk's: other work on the host can make the
				// step read a KB per op, and the rule then says IO-bound before cache-bound.
				want := 2.0
				if s.ReadKBPerOp >= metric.IOBoundReadKB {
					want = 1
				}
				if !ok || regime != want {
					t.Errorf("regime %v (%v), want %v: stall share %.2f, rKB/op %.3f", regime, ok, want, share, s.ReadKBPerOp)
				}
				return
			}
			if ec["app_evict_pages"] != 0 {
				t.Errorf("a %d MB cache: %d pages evicted by application threads, want none", c.cacheMB, ec["app_evict_pages"])
			}
			if regime == 2 || share >= metric.CacheBoundShare {
				t.Errorf("regime %v, stall share %.2f: want not cache-bound", regime, share)
			}
		})
	}
}

// TestProfileCaches: without --cache-mb the quick profile gives each engine the cache of its
// rule (recorded in the manifest and in the engine's options), with --cache-mb every engine
// takes that.
func TestProfileCaches(t *testing.T) {
	if spec, _ := engine.Lookup("wiredtiger"); spec.Unavailable != "" {
		t.Skip(spec.Unavailable)
	}
	for _, c := range []struct {
		args []string
		want map[string]string
	}{
		// 70,000 rows: wiredtiger's rule is 1200 × 70,000 bytes = 80 MiB, a 128 MiB cache;
		// pebble's 50 × 70,000 is below the 64 MiB floor.
		{nil, map[string]string{"wiredtiger": "128", "pebble": "64"}},
		{[]string{"--cache-mb", "32"}, map[string]string{"wiredtiger": "32", "pebble": "32"}},
	} {
		out, _, d := dirs(t)
		args := append([]string{"run", "--engine", "wiredtiger,pebble", "--steps", "l.i0", "--rows", "60000", "--writes", "10000", "--quiet"}, c.args...)
		tr := run(t, nil, append(args, d...)...)
		if tr.code != 0 {
			t.Fatalf("exit %d: %s", tr.code, tr.stderr)
		}
		_, m, _ := readRun(t, out)
		for _, tg := range m.Targets {
			if got := tg.Engine.Options["cache_mb"]; got != c.want[tg.Label] {
				t.Errorf("%v: %s cache_mb %q, want %s", c.args, tg.Label, got, c.want[tg.Label])
			}
		}
		if m.Config["regime"] != "cached" {
			t.Errorf("%v: regime %v, want cached", c.args, m.Config["regime"])
		}
		// Every engine's cache, its own or the run's.
		per, _ := m.Config["engine_cache_mb"].(map[string]any)
		if len(per) != 2 || fmt.Sprint(per["wiredtiger"]) != c.want["wiredtiger"] || fmt.Sprint(per["pebble"]) != c.want["pebble"] {
			t.Errorf("%v: engine_cache_mb %v, want %v", c.args, m.Config["engine_cache_mb"], c.want)
		}
	}
}

func stepNamed(t *testing.T, steps []results.Step, name string) *results.Step {
	t.Helper()
	for i := range steps {
		if steps[i].Step == name {
			return &steps[i]
		}
	}
	t.Fatalf("no step %s", name)
	return nil
}

// TestEveryEngineCacheRecorded: run.json's config.engine_cache_mb holds every engine's cache,
// the one its profile planned or the run's, for every workload.
func TestEveryEngineCacheRecorded(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--workload", "ycsb", "--engine", "sqlite", "--steps", "load", "-p", "recordcount=500"}, []string{"sqlite"}},
		{[]string{"--workload", "sysbench", "--engine", "sqlite,pebble", "--table-size", "500", "--tests", "point-query", "--read-secs", "0.2"}, []string{"sqlite", "pebble"}},
		{[]string{"--workload", "toy", "--engine", "bbolt", "--toy-rows", "100", "--cache-mb", "16"}, []string{"bbolt"}},
	} {
		out, _, d := dirs(t)
		tr := run(t, nil, append(append([]string{"run", "--quiet"}, c.args...), d...)...)
		if tr.code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, tr.code, tr.stderr)
		}
		_, m, _ := readRun(t, out)
		per, _ := m.Config["engine_cache_mb"].(map[string]any)
		for _, tg := range m.Targets {
			// The engine's own record of its cache: "64", "64 per connection"; bbolt has none.
			got, opt := fmt.Sprint(per[tg.Engine.Name]), tg.Engine.Options["cache_mb"]
			if tg.Engine.Name == "bbolt" {
				opt = "16"
			}
			if v, _, _ := strings.Cut(opt, " "); got != v {
				t.Errorf("%v: engine_cache_mb of %s = %s, the engine's cache_mb %s", c.args, tg.Engine.Name, got, opt)
			}
		}
		if len(per) != len(c.want) {
			t.Errorf("%v: engine_cache_mb %v, want one per engine of %v", c.args, per, c.want)
		}
	}
}
