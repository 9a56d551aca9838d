package workload

import (
	"fmt"

	"github.com/rumbench/rumbench/internal/engine"
)

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

// DiskPlanner is a workload that says, before it loads, how many bytes its data will take in an
// engine's data directory, from the bytes per unit (row, record, scale unit, warehouse) measured
// on each engine: the run refuses, before anything starts, data the data directory's file
// system has no room for.
type DiskPlanner interface {
	// DiskBytes returns the bytes the workload's data takes on engine at this configuration,
	// and in words how they were estimated ("10000 warehouses (--warehouses) × 158.3 MB measured
	// per warehouse on postgres"); false when it loads nothing there (its data exists already).
	DiskBytes(engine string) (bytes float64, how string, ok bool)
}

// DiskFor returns the bytes units of a workload's data take on engine's disk, perUnit[engine]
// bytes a unit as measured, and how, in words: what the units are (e.g. "10000 warehouses
// (--warehouses)"), times the figure measured per unit (unit names it: "warehouse"). An engine
// without a figure is given the smallest figure of perUnit, and the words say so: the estimate
// is then a lower bound.
func DiskFor(engine string, perUnit map[string]float64, units float64, what, unit string) (float64, string) {
	if per, ok := perUnit[engine]; ok {
		return per * units, fmt.Sprintf("%s × %s measured per %s on %s", what, unitBytes(per), unit, engine)
	}
	least, on := 0.0, ""
	for e, per := range perUnit {
		if on == "" || per < least || per == least && e < on {
			least, on = per, e
		}
	}
	return least * units, fmt.Sprintf("%s × %s per %s at least (the least measured, on %s; %s has no figure)", what, unitBytes(least), unit, on, engine)
}

// unitBytes writes a figure of bytes per unit: "158.3 MB", "419.6 bytes".
func unitBytes(b float64) string {
	if b >= 1e6 {
		return fmt.Sprintf("%.1f MB", b/1e6)
	}
	return fmt.Sprintf("%.1f bytes", b)
}

// Measured returns, by engine name, the figure every registered engine gives for unit in its
// engine.Spec.PerUnitBytes (an engine without one is left out): what a workload sizes caches
// and disk estimates by, without naming an engine.
func Measured(unit string) map[string]float64 {
	out := map[string]float64{}
	for _, name := range engine.Names() {
		if s, ok := engine.Lookup(name); ok {
			if v, ok := s.PerUnitBytes[unit]; ok {
				out[name] = v
			}
		}
	}
	return out
}
