package workload

import "github.com/rumbench/rumbench/internal/engine"

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
// perUnit[engine] bytes on disk a unit (a row, a record, a warehouse): CacheForFiles of their
// bytes; false when perUnit has no figure for engine or the engine has no rule (it keeps the
// run's cache).
func CacheFor(engine string, perUnit map[string]float64, units float64, maxBytes int64) (int64, bool) {
	per, ok := perUnit[engine]
	if !ok {
		return 0, false
	}
	return CacheForFiles(engine, per*units, maxBytes)
}

// CacheForFiles returns the cache, MiB, that holds fileBytes of engine's data files in memory:
// the engine's engine.Spec.CachePerFileByte times the bytes, rounded by CacheMiB; false when the
// engine has no such rule.
func CacheForFiles(name string, fileBytes float64, maxBytes int64) (int64, bool) {
	spec, ok := engine.Lookup(name)
	if !ok || spec.CachePerFileByte <= 0 {
		return 0, false
	}
	return CacheMiB(spec.CachePerFileByte*fileBytes, maxBytes), true
}
