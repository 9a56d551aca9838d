package metric

import (
	"testing"

	"github.com/rumbench/rumbench/internal/results"
)

// TestPressure: stall_us/op sums the stall counters of every engine over the ops, appevict/op
// the eviction counts (MariaDB's capitalized status names included), and the regime is
// IO-bound from the reads first, then cache-bound from a stall share of a quarter.
func TestPressure(t *testing.T) {
	lat := []results.Latency{{Kind: "insert", Count: 100, MeanUs: 400}, {Kind: "insert_intended", Count: 100, MeanUs: 9000}}
	for _, c := range []struct {
		name     string
		s        results.Step
		stall    float64 // µs/op; -1: not measured
		evict    float64 // pages/op; -1: not measured
		regime   float64 // -1: not measured
		regimeOK bool
	}{
		{"wiredtiger cache-bound", results.Step{Ops: 1000, Device: "vda", Latency: lat,
			EngineCounters: map[string]int64{"app_cache_wait_us": 6000, "app_read_us": 3000, "force_evict_dirty_us": 1000, "app_evict_pages": 50}},
			10, 0.05, 2, true}, // 10,000 µs of 40,000: a quarter
		{"wiredtiger cached", results.Step{Ops: 1000, Device: "vda", Latency: lat,
			EngineCounters: map[string]int64{"app_cache_wait_us": 9999, "app_evict_pages": 0}},
			9.999, 0, 0, true},
		{"rocksdb IO-bound", results.Step{Ops: 1000, Device: "vda", ReadKBPerOp: 4, Latency: lat,
			EngineCounters: map[string]int64{"rocksdb.stall.micros": 30000}}, 30, -1, 1, true},
		{"pebble", results.Step{Ops: 500, Device: "vda", Latency: lat,
			EngineCounters: map[string]int64{"write_stall_us": 20000, "read_amp_now": 7}}, 40, -1, 2, true},
		{"mysql", results.Step{Ops: 1000, Device: "vda", Server: "managed", Latency: lat,
			ServerCounters: map[string]int64{"Innodb_buffer_pool_wait_free": 30}}, -1, 0.03, 0, true},
		{"myrocks", results.Step{Ops: 1000, Device: "vda", Server: "managed", Latency: lat,
			ServerCounters: map[string]int64{"Rocksdb_stall_micros": 5000, "Innodb_buffer_pool_wait_free": 0}}, 5, 0, 0, true},
		{"sqlite uncapped", results.Step{Ops: 1000, Device: "vda", Latency: lat}, -1, -1, -1, false},
		{"sqlite capped", results.Step{Ops: 1000, Device: "vda", ReadKBPerOp: 0.5, Latency: lat, Memory: &results.Memory{}}, -1, -1, 0, true},
		{"no device", results.Step{Ops: 1000, Latency: lat, EngineCounters: map[string]int64{"write_stall_us": 1}}, 0.001, -1, -1, false},
	} {
		check := func(name string, want float64) {
			m := MustGet(name)
			got, ok := m.Value(&c.s)
			if want < 0 {
				if ok || m.AppliesTo(&c.s) {
					t.Errorf("%s: %s = %v, applies %v, want not measured", c.name, name, got, m.AppliesTo(&c.s))
				}
				return
			}
			if !ok || got != want || !m.AppliesTo(&c.s) {
				t.Errorf("%s: %s = %v (%v), want %v", c.name, name, got, ok, want)
			}
		}
		check("stall_us/op", c.stall)
		check("appevict/op", c.evict)
		got, ok := MustGet("regime").Value(&c.s)
		if ok != c.regimeOK || (ok && got != c.regime) {
			t.Errorf("%s: regime %v (%v), want %v (%v)", c.name, got, ok, c.regime, c.regimeOK)
		}
	}
	if w := MustGet("regime").Words; len(w) != 3 || w[2] != "cache-bound" {
		t.Errorf("regime words %v", w)
	}
}
