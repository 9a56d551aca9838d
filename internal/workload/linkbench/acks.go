package linkbench

import (
	"context"
	"fmt"

	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/workload"
)

var _ workload.AckChecker = (*Run)(nil)

// BeforeFaults implements workload.AckChecker: the nodes, and the node inserts and deletes
// counted, before the loop.
func (r *Run) BeforeFaults(ctx context.Context, name string) error {
	r.unknownNodes.Store(0)
	r.added0, r.deleted0 = r.nodesAdded.Load(), r.nodesDeleted.Load()
	r.nodeRows = workload.Growth{Unit: "nodes of the nodetable", Read: workload.RowCount(r.eng, nodeTable)}
	return r.nodeRows.Begin(ctx, name, r.stores && !r.w.split())
}

// CheckAcknowledged implements workload.AckChecker on the node writes: the nodetable holds the
// nodes before the loop plus the acknowledged inserts minus the acknowledged deletes, give or
// take the writes of unknown outcome; what lies beyond those is lost (at least), and the final
// check takes the table as it is. The links' writes keep their count rows equal to the visible
// links (one transaction each), which the final check verifies; their acknowledgements are not
// counted one by one.
func (r *Run) CheckAcknowledged(ctx context.Context, name string) (results.AckCheck, error) {
	added, deleted := r.nodesAdded.Load()-r.added0, r.nodesDeleted.Load()-r.deleted0
	unknown := r.unknownNodes.Load()
	res, grew, err := r.nodeRows.Check(ctx, name, added-deleted, unknown, false, "no data kept, or a graph the shards share")
	if err != nil || !res.Checked {
		return res, err
	}
	diff := grew - (added - deleted)
	r.nodes += diff
	res.Acknowledged = added + deleted
	res.Lost = max(0, max(diff, -diff)-unknown)
	res.How = fmt.Sprintf("node writes only: the nodetable's nodes grew by %d, %+d from %d acknowledged inserts - %d acknowledged deletes, %d of unknown outcome", grew, diff, added, deleted, unknown)
	return res, nil
}
