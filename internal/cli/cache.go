package cli

import (
	"github.com/rumbench/rumbench/internal/memcap"
	"github.com/rumbench/rumbench/internal/sysstat"
	"github.com/rumbench/rumbench/internal/workload"
)

// engineCaches returns the cache, bytes, of each engine whose workload profile sizes it
// (workload.CachePlanner) and the profile's regime ("" when the workload states none). An
// explicit --cache-mb (or a memory profile's) applies to every engine: then no engine has a
// cache of its own. A profile's cache is at most cacheCeiling of the host's memory, and the
// engine's share (half) of limit (--memory-limit, bytes; 0: none) when one is set.
func engineCaches(f *runFlags, engines []string, wl workload.Workload, limit int64) (map[string]int64, string) {
	p, ok := wl.(workload.CachePlanner)
	if !ok {
		return nil, ""
	}
	if f.cacheMBSet {
		return nil, p.Regime()
	}
	ceiling := cacheCeiling(sysstat.MemInfo("MemTotal"))
	if share := memcap.SharesOf(limit).Engine; limit > 0 && (ceiling == 0 || share < ceiling) {
		ceiling = share // under --memory-limit the rest is the Go heap and the page cache
	}
	out := map[string]int64{}
	for _, e := range engines {
		if mb, ok := p.CacheMB(e, ceiling); ok {
			out[e] = mb << 20
		}
	}
	if len(out) == 0 {
		return nil, p.Regime()
	}
	return out, p.Regime()
}

// cacheCeiling is the largest cache a profile gives one engine on a host with mem bytes of
// memory: MongoDB's default WiredTiger cache, half of the memory less 1 GiB, at least 256 MiB
// (0: memory unknown, no bound).
func cacheCeiling(mem int64) int64 {
	if mem <= 0 {
		return 0
	}
	return max((mem-1<<30)/2, 256<<20)
}
