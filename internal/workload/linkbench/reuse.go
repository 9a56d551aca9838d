package linkbench

import (
	"context"

	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
)

var _ workload.Reuser = (*Workload)(nil)

// LoadSteps implements workload.Reuser: the graph's load.
func (w *Workload) LoadSteps() []string { return []string{StepLoad} }

// Tables implements workload.Reuser: linktable, counttable and nodetable.
func (w *Workload) Tables() []*table.Table {
	if w.split() && w.shard.Index != 0 {
		return nil // shard 0's tables: the other shards never drop them
	}
	return []*table.Table{linkTable, countTable, nodeTable}
}

// DataConfig implements workload.Reuser: what decides the loaded graph.
func (w *Workload) DataConfig() map[string]any {
	g := &w.cfg.Graph
	return map[string]any{"reference": w.cfg.Reference, "startid1": g.StartID1, "maxid1": g.MaxID1, "max_degree": g.MaxDegree,
		"link_type_count": g.LinkTypeCount, "degree_data": g.DegreeData, "link_datasize": g.LinkDataSize,
		"node_datasize": g.NodeDataSize, "seed": w.cfg.Seed}
}

// Reopen implements workload.Reuser: the node and link counts are read back (request loops of
// earlier runs add and delete nodes and links); the first loop checks every count row against
// its visible links before it starts, as after a load.
func (w *Workload) Reopen(ctx context.Context, eng table.Engine, k table.Keeper) (workload.Run, error) {
	if err := workload.AttachAll(ctx, k, w.Tables(), true); err != nil {
		return nil, err
	}
	sess, err := eng.NewSession(ctx)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	nodes, err := sess.Count(ctx, nodeTable, -1)
	if err != nil {
		return nil, err
	}
	links, err := sess.Count(ctx, linkTable, -1)
	if err != nil {
		return nil, err
	}
	r := &Run{w: w, eng: eng, stores: eng.Info().Stores, plan: w.loadPlan()}
	r.nodesLoaded.Store(nodes)
	r.linksLoaded.Store(links)
	return r, nil
}
