package linkbench

import (
	"context"
	"fmt"

	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
)

// A split run (workload.Sharder, set by the framework's SetShard): the shards share the graph's
// three tables (shard 0 creates them; the others attach after the "open" barrier) and together
// run Count × Loaders loaders and Count × Requesters requesters:
//   - the load: of the load's task list (node ranges, heavy nodes' slices, link ranges: the
//     tasks of one process), shard Index takes the tasks i with i mod Count = Index, so every
//     node, link and count row is written once, by the task one process would write it with;
//   - the loops: requesters are numbered among all shards' (requester Index×R+i of Count×R,
//     with that requester's random stream), and draw from the whole graph, as one process's
//     requesters do; new nodes take the ids the server generates.
//
// The count check after the load and the invariant check at the end cover the whole graph, which
// the other shards may still be writing: a shard runs neither (the merged run's totals are the
// shards' sums).
var _ workload.SharedTables = (*Workload)(nil)

// shardPart is a shard's part of the work (workload.Sharder's ShardPart, through the Shape).
func shardPart(b *workload.Base[Config]) string {
	r, s := b.Cfg.Requesters, b.Shard
	return fmt.Sprintf("load tasks i with i mod %d = %d; requesters %d..%d of %d", s.Count, s.Index, s.Index*r+1, s.Index*r+r, r*s.Count)
}

// SharesTables implements workload.SharedTables: the shards share the graph.
func (w *Workload) SharesTables() bool { return w.split() }

// Attach implements workload.SharedTables: the tables shard 0 created.
func (w *Workload) Attach(ctx context.Context, eng table.Engine, k table.Keeper) (workload.Run, error) {
	for _, t := range []*table.Table{linkTable, countTable, nodeTable} {
		ok, _, err := k.AttachTable(ctx, t)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("table %s is missing: shard 0 did not create it", t.Name)
		}
	}
	return w.newRun(eng), nil
}

// split says whether this process is one shard of several.
func (w *Workload) split() bool { return w.Shard.Count > 1 }

// ownsTask says whether load task i is this shard's.
func (w *Workload) ownsTask(i int) bool { return !w.split() || i%w.Shard.Count == w.Shard.Index }
