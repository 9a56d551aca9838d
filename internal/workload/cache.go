package workload

// The regimes a profile states (CachePlanner.Regime).
const (
	// RegimeCached: each engine's cache holds the data the steps touch; no step should wait on
	// storage reads or on its engine's cache.
	RegimeCached = "cached"
	// RegimeIOBound: the data outgrows memory (under --memory-limit); the caches are the run's.
	RegimeIOBound = "IO-bound"
)

// DefaultCacheMB is the least cache a profile's rule gives an engine, MiB (the --cache-mb
// default).
const DefaultCacheMB = 64

// CacheFactor is, for the engines whose cache a profile sizes from the data's size on disk,
// how much cache a byte of their files needs: the LSMs' block caches hold blocks uncompressed
// (snappy's output here is about a third of its input); WiredTiger's cache holds pages in
// their in-memory form (2.7 times its files after LinkBench's quick load) and evicts from 80%
// full; InnoDB's buffer pool and PostgreSQL's shared buffers hold pages as on disk, plus a
// quarter free. SQLite (its cache is per connection and the page cache serves its reads),
// LMDB and bbolt (no cache of their own) and the others keep the run's default.
var CacheFactor = map[string]float64{
	"pebble": 3, "rocksdb": 3, "myrocks": 3, "wiredtiger": 4, "mysql": 1.25, "postgres": 1.25,
}

// CacheMiB rounds a cache need of needBytes up to a power of two MiB, at least DefaultCacheMB
// and at most maxBytes (0: no bound; the result is never below DefaultCacheMB).
func CacheMiB(needBytes float64, maxBytes int64) int64 {
	mb := int64(DefaultCacheMB)
	for float64(mb)*(1<<20) < needBytes && mb < 1<<40 {
		mb *= 2
	}
	if maxBytes > 0 && mb<<20 > maxBytes {
		mb = max(maxBytes>>20, DefaultCacheMB)
	}
	return mb
}

// CacheFor returns the cache, MiB, that holds units of a workload's data on engine, which takes
// perUnit[engine] bytes on disk a unit (a row, a record, a warehouse): CacheFactor × the bytes,
// rounded by CacheMiB; false when perUnit or CacheFactor has no figure for engine (the engine
// keeps the run's cache).
func CacheFor(engine string, perUnit map[string]float64, units float64, maxBytes int64) (int64, bool) {
	per, ok := perUnit[engine]
	f, known := CacheFactor[engine]
	if !ok || !known {
		return 0, false
	}
	return CacheMiB(f*per*units, maxBytes), true
}
