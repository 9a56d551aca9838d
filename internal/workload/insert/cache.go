package insert

import "github.com/rumbench/rumbench/internal/workload"

// Regimes a profile states.
const (
	// RegimeCached: each engine's cache holds the data the steps touch; no step should wait on
	// storage reads or on its engine's cache.
	RegimeCached = workload.RegimeCached
	// RegimeIOBound: the data outgrows memory (the iobound profile's memory cap); the engines'
	// caches are small and equal, and the page cache is what the cap leaves.
	RegimeIOBound = workload.RegimeIOBound
)

// unitRowCache names the figure (engine.Spec.PerUnitBytes) of the cache a cached profile gives an
// engine per row the benchmark's tables hold at their largest (rows loaded + rows written, all
// clients): the engine's in-memory bytes per row of this benchmark (a row of about 60 bytes with
// its primary key and three secondary index entries), measured with a cache that holds everything,
// times the headroom its own tuning guide asks for. docs/engine-settings.md has the measurements.
//   - wiredtiger 1200: its pages take about 400 bytes a row in memory (cache: bytes currently in
//     the cache, 100 MB at 250k rows, three times its files), of which about 230 are dirty
//     before a checkpoint (cache: tracked dirty bytes, 57 MB); application threads evict once
//     the cache is 95% full or its dirty bytes reach 20% (eviction_trigger,
//     eviction_dirty_trigger), so the cache is at least 230/0.2 ≈ 1150 bytes a row.
//   - mysql 1000: InnoDB's pages take about 760 bytes a row on disk and in its buffer pool
//     (O_DIRECT: a page not in the pool is a storage read), plus a quarter for free pages.
//   - postgres 600: about 490 bytes a row of heap and indexes, plus a quarter.
//   - sqlite 80: about 62 bytes a row of pages, plus a quarter (the cache is per connection).
//   - pebble, rocksdb, myrocks 50: about 21 bytes a row of compressed blocks, with their index
//     and filter blocks, twice over.
//
// Engines without the figure (lmdb and bbolt have no cache of their own; mongo, null) keep the
// run's default. The cache is at least DefaultCacheMB.
const unitRowCache = "insert.row.cache"

// DefaultCacheMB is the cache an engine gets when the rule gives less, MiB (the --cache-mb
// default).
const DefaultCacheMB = workload.DefaultCacheMB

// Regime returns the profile's regime (RegimeCached or RegimeIOBound), workload.CachePlanner.
func (w *Workload) Regime() string { return w.Cfg.Regime }

// CacheMB implements workload.CachePlanner: in a cached profile, the cache for engine that
// holds its in-memory working set at the benchmark's largest table size (unitRowCache ×
// (Rows + Writes) × Clients), rounded up to a power of two MiB, at least DefaultCacheMB and at
// most maxBytes (0: no bound); false for an engine without a rule and in an IO-bound profile.
func (w *Workload) CacheMB(engine string, maxBytes int64) (int64, bool) {
	return cacheMB(w.Cfg, engine, maxBytes)
}

func cacheMB(c Config, engine string, maxBytes int64) (int64, bool) {
	perRow, ok := workload.Measured(unitRowCache)[engine]
	if !ok || c.Regime != RegimeCached {
		return 0, false
	}
	per := int64(perRow)
	clients := int64(max(c.Clients, 1))
	return workload.CacheMiB(float64(per*(c.Rows+c.Writes)*clients>>20<<20), maxBytes), true // need in whole MiB, as the rule was stated
}

var _ workload.CachePlanner = (*Workload)(nil)
