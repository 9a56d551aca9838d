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
	r.added0, r.deleted0, r.nodes0 = r.nodesAdded.Load(), r.nodesDeleted.Load(), -1
	if !r.stores || r.w.split() {
		return nil
	}
	n, err := r.countNodes(ctx)
	if err != nil {
		return fmt.Errorf("nodes before %s: %w", name, err)
	}
	r.nodes0 = n
	return nil
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
	res := results.AckCheck{Acknowledged: added + deleted, Unknown: unknown}
	if r.nodes0 < 0 {
		res.How = "not checked: no data kept, or a graph the shards share"
		return res, nil
	}
	n, err := r.countNodes(ctx)
	if err != nil {
		return res, fmt.Errorf("nodes after %s: %w", name, err)
	}
	diff := n - (r.nodes0 + added - deleted)
	r.nodes += diff
	res.Checked, res.Lost = true, max(0, max(diff, -diff)-unknown)
	res.How = fmt.Sprintf("node writes only: the nodetable holds %d nodes, %+d from %d before + %d acknowledged inserts - %d acknowledged deletes, %d of unknown outcome", n, diff, r.nodes0, added, deleted, unknown)
	return res, nil
}

// countNodes counts the nodetable's rows.
func (r *Run) countNodes(ctx context.Context) (int64, error) {
	sess, err := r.eng.NewSession(ctx)
	if err != nil {
		return 0, err
	}
	defer sess.Close()
	return sess.Count(ctx, nodeTable, -1)
}
