package linkbench

import (
	"context"

	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
)

var _ workload.Reuser = (*Workload)(nil)

// Tables implements workload.Reuser: linktable, counttable and nodetable.
func (w *Workload) Tables() []*table.Table {
	if w.split() && w.Shard.Index != 0 {
		return nil // shard 0's tables: the other shards never drop them
	}
	return []*table.Table{linkTable, countTable, nodeTable}
}

// Reopen implements workload.Reuser: the node and link counts are read back (request loops of
// earlier runs add and delete nodes and links); the first loop checks every count row against
// its visible links before it starts, as after a load.
func (w *Workload) Reopen(ctx context.Context, eng table.Engine, k table.Keeper) (workload.Run, error) {
	if err := workload.AttachAll(ctx, k, w.Tables(), true); err != nil {
		return nil, err
	}
	n, err := workload.CountRows(ctx, eng, nodeTable, linkTable)
	if err != nil {
		return nil, err
	}
	r := w.newRun(eng)
	r.nodesLoaded.Store(n[0])
	r.linksLoaded.Store(n[1])
	return r, nil
}
