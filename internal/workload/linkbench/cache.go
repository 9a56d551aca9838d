package linkbench

import "github.com/rumbench/rumbench/internal/workload"

// The regimes the profiles state: quick, small and cached hold the graph in every engine's
// cache (the report's cached setup); iobound leaves the caches at the run's default, for
// --memory-limit to put the graph out of memory.
const (
	regimeCached  = "cached"
	regimeIOBound = "IO-bound"
)

// graphBytes is, per engine, the bytes its tables and indexes take on disk per node (the node,
// its count rows and its share of the tables' fixed cost) and per link, from the database sizes
// after the loads of the quick profile and of the small one (both 100,000 nodes: 420,252 and
// 4,597,662 links), the fork's DDL where it applies (MariaDB's 16 partitions are most of
// InnoDB's bytes per node). docs/engine-settings.md has the measurements.
var graphBytes = map[string]struct{ node, link float64 }{
	"pebble":     {node: 529, link: 85.6},
	"rocksdb":    {node: 360, link: 87.2},
	"myrocks":    {node: 656, link: 95.1},
	"wiredtiger": {node: 219, link: 82.6},
	"mysql":      {node: 3379, link: 223.4},
	"postgres":   {node: 1069, link: 338.5},
}

// cacheFactor is the cache an engine needs per byte of graphBytes to hold the graph: the LSMs'
// block caches hold blocks uncompressed (snappy's output here is about a third of its input),
// WiredTiger's cache holds pages in their in-memory form (2.7 times its files after the quick
// load) and evicts from 80% full, InnoDB's buffer pool and PostgreSQL's shared buffers hold
// pages as on disk, plus a quarter free. SQLite (its cache is per
// connection, and the operating system's page cache serves its reads), LMDB and bbolt (no
// cache of their own) and the others keep the run's default.
var cacheFactor = map[string]float64{
	"pebble": 3, "rocksdb": 3, "myrocks": 3, "wiredtiger": 4, "mysql": 1.25, "postgres": 1.25,
}

// defaultCacheMB is the least cache a rule gives, MiB (the --cache-mb default).
const defaultCacheMB = 64

// Regime implements workload.CachePlanner.
func (w *Workload) Regime() string { return w.cfg.Regime }

// CacheMB implements workload.CachePlanner: in a cached profile, the cache that holds engine's
// tables and indexes at this graph's size (cacheFactor × graphBytes of the graph's nodes and
// links), rounded up to a power of two MiB, at least defaultCacheMB and at most maxBytes (0:
// no bound); false for an engine without a rule and in the IO-bound profile.
func (w *Workload) CacheMB(engine string, maxBytes int64) (int64, bool) {
	per, ok := graphBytes[engine]
	if !ok || w.cfg.Regime != regimeCached {
		return 0, false
	}
	need := cacheFactor[engine] * (per.node*float64(w.model.Nodes()) + per.link*float64(w.links()))
	mb := int64(defaultCacheMB)
	for float64(mb<<20) < need {
		mb *= 2
	}
	if maxBytes > 0 && mb<<20 > maxBytes {
		mb = max(maxBytes>>20, defaultCacheMB)
	}
	return mb, true
}

// links is the number of links the load writes (all shards').
func (w *Workload) links() int64 {
	g := w.cfg.Graph
	var n int64
	for id := g.StartID1; id < g.MaxID1; id++ {
		n += w.model.LinksOf(id)
	}
	return n
}

var _ workload.CachePlanner = (*Workload)(nil)
