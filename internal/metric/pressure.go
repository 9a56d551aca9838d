package metric

import (
	"strings"

	"github.com/rumbench/rumbench/internal/results"
)

// CacheBoundShare is the share of a step's operation time, spent on the engine's cache
// pressure or write stalls (StallShare), from which the step is labelled cache-bound: a
// quarter of the time its callers spent in operations.
const CacheBoundShare = 0.25

// stallCounters are the engine and server counters (steps.json engine_counters and
// server_counters, deltas in µs) whose sum is a step's stall time: the time the engine's
// callers spent on its cache being too small or its writes being held back. A name is matched
// without regard to case (MariaDB capitalizes its status names).
var stallCounters = []string{
	// wiredtiger: in the cache-full path (evicting pages themselves or waiting for space),
	// evicting pages grown past their in-memory maximum (forced eviction, whether it succeeded
	// or not), and reading pages back into the cache.
	"app_cache_wait_us", "force_evict_dirty_us", "force_evict_clean_us", "force_evict_fail_us", "app_read_us",
	"rocksdb.stall.micros", // rocksdb: writes delayed or stopped (memtables, L0 files, pending compaction)
	"write_stall_us",       // pebble: commits held back (memtables full, L0 sublevels)
	"rocksdb_stall_micros", // myrocks (a server status counter): as rocksdb
}

// evictCounters are the counters (counts over the step) whose sum is the pages the engine's
// callers had to free in its cache themselves before they could go on.
var evictCounters = []string{
	"app_evict_pages",              // wiredtiger: pages evicted by application threads
	"innodb_buffer_pool_wait_free", // mysql (InnoDB): waits for a free page (a page flush first)
}

// sumCounters returns the sum of the step's engine and server counters named in names, and
// whether the step reports any of them.
func sumCounters(s *results.Step, names []string) (int64, bool) {
	return sumOf(names, s.EngineCounters, s.ServerCounters)
}

// StallUsOf returns the stall time in counter maps (an engine's and a server's counters, as
// table.CounterReporter and a server sample give them), µs: the sum of the stall counters
// StallUs adds, and whether any map holds one of them.
func StallUsOf(counters ...map[string]int64) (int64, bool) { return sumOf(stallCounters, counters...) }

// AppEvictionsOf returns the pages the engine's callers freed in its cache themselves, from
// counter maps as StallUsOf takes them (the counters AppEvictions adds), and whether any map
// holds one of them.
func AppEvictionsOf(counters ...map[string]int64) (int64, bool) {
	return sumOf(evictCounters, counters...)
}

// sumOf returns the sum of the counters named in names (matched without regard to case) in
// the maps, and whether any map holds one of them.
func sumOf(names []string, maps ...map[string]int64) (int64, bool) {
	var sum int64
	found := false
	for _, m := range maps {
		for k, v := range m {
			for _, n := range names {
				if strings.EqualFold(k, n) {
					sum += v
					found = true
				}
			}
		}
	}
	return sum, found
}

// StallUs returns the step's stall time, µs: the sum of its stall counters (stallCounters),
// and whether its engine reports one.
func StallUs(s *results.Step) (float64, bool) {
	v, ok := sumCounters(s, stallCounters)
	return float64(v), ok
}

// AppEvictions returns the pages the engine's callers freed in its cache themselves over the
// step (evictCounters), and whether its engine reports them.
func AppEvictions(s *results.Step) (float64, bool) {
	v, ok := sumCounters(s, evictCounters)
	return float64(v), ok
}

// OpTimeUs returns the time the step's callers spent in operations, µs: Σ count × mean
// response time over its operation kinds (response times from a paced start left out). With
// several threads it is the sum of their times.
func OpTimeUs(s *results.Step) float64 {
	var t float64
	for _, l := range s.Latency {
		if !strings.HasSuffix(l.Kind, "_intended") {
			t += float64(l.Count) * l.MeanUs
		}
	}
	return t
}

// StallShare returns the step's stall time over its operation time (StallUs / OpTimeUs), and
// whether both are known.
func StallShare(s *results.Step) (float64, bool) {
	st, ok := StallUs(s)
	op := OpTimeUs(s)
	if !ok || op <= 0 {
		return 0, false
	}
	return st / op, true
}

func hasPressure(s *results.Step) bool {
	_, a := StallUs(s)
	_, b := AppEvictions(s)
	return a || b
}

// Regime labels the step: 1 (IO-bound) when it read at least IOBoundReadKB from storage per
// op, else 2 (cache-bound) when its stall share is at least CacheBoundShare, else 0
// (cached); false when the step ran without a memory cap and its engine reports no pressure,
// or when neither label can be decided (no device, no pressure above the threshold).
func Regime(s *results.Step) (float64, bool) {
	share, pressured := StallShare(s)
	if s.Memory == nil && !hasPressure(s) {
		return 0, false
	}
	if s.Device != "" && s.ReadKBPerOp >= IOBoundReadKB {
		return 1, true
	}
	if pressured && share >= CacheBoundShare {
		return 2, true
	}
	if s.Device == "" {
		return 0, false
	}
	return 0, true
}

// per returns a/b, 0 when b is 0.
func per(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
