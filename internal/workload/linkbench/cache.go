package linkbench

import "github.com/rumbench/rumbench/internal/workload"

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

// Regime implements workload.CachePlanner.
func (w *Workload) Regime() string { return w.cfg.Regime }

// CacheMB implements workload.CachePlanner: in a cached profile, the cache that holds engine's
// tables and indexes at this graph's size (workload.CacheForFiles of graphBytes of the graph's
// nodes and links); false for an engine without a rule and in the IO-bound profile.
func (w *Workload) CacheMB(engine string, maxBytes int64) (int64, bool) {
	per, ok := graphBytes[engine]
	if !ok || w.cfg.Regime != workload.RegimeCached {
		return 0, false
	}
	return workload.CacheForFiles(engine, per.node*float64(w.model.Nodes())+per.link*float64(w.links()), maxBytes)
}

// links returns the number of links the load writes (all shards'): counted node by node up to
// linkSample nodes, estimated from every k-th node's above that (maxid1 may reach 2^31). Counted
// once; CacheMB asks it for every engine.
func (w *Workload) links() int64 {
	if w.linkCount > 0 {
		return w.linkCount
	}
	g := w.cfg.Graph
	step := max((g.MaxID1-g.StartID1)/linkSample, 1)
	var n, seen int64
	for id := g.StartID1; id < g.MaxID1; id += step {
		n += w.model.LinksOf(id)
		seen++
	}
	w.linkCount = max(int64(float64(n)*float64(g.MaxID1-g.StartID1)/float64(seen)), 1)
	return w.linkCount
}

// linkSample bounds the nodes links reads: about 30 ms.
const linkSample = 1 << 20

var _ workload.CachePlanner = (*Workload)(nil)
