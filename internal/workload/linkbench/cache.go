package linkbench

import "github.com/rumbench/rumbench/internal/workload"

// unitNode and unitLink name the figures (engine.Spec.PerUnitBytes) of the bytes an engine's
// tables and indexes take on disk per node (the node, its count rows and its share of the tables'
// fixed cost) and per link, from the database sizes after the loads of the quick profile and of
// the small one (both 100,000 nodes: 420,252 and 4,597,662 links), the fork's DDL where it applies
// (MariaDB's 16 partitions are most of InnoDB's bytes per node). docs/engine-settings.md has the
// measurements.
const unitNode, unitLink = "linkbench.node", "linkbench.link"

// Regime implements workload.CachePlanner.
func (w *Workload) Regime() string { return w.Cfg.regime }

// CacheMB implements workload.CachePlanner: in a cached profile, the cache that holds engine's
// tables and indexes at this graph's size (workload.CacheForFiles of the engine's bytes per node
// and per link of the graph's nodes and links); false for an engine without a rule and in the
// IO-bound profile.
func (w *Workload) CacheMB(engine string, maxBytes int64) (int64, bool) {
	node, ok1 := workload.Measured(unitNode)[engine]
	link, ok2 := workload.Measured(unitLink)[engine]
	if !ok1 || !ok2 || w.Cfg.regime != workload.RegimeCached {
		return 0, false
	}
	return workload.CacheForFiles(engine, node*float64(w.model.Nodes())+link*float64(w.links()), maxBytes)
}

// links returns the number of links the load writes (all shards'): counted node by node up to
// linkSample nodes, estimated from every k-th node's above that (maxid1 may reach 2^31). Counted
// once; CacheMB asks it for every engine.
func (w *Workload) links() int64 {
	if w.linkCount > 0 {
		return w.linkCount
	}
	g := w.Cfg.Graph
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
