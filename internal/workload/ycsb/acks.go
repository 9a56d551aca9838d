package ycsb

import (
	"context"
	"fmt"

	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/workload"
)

var _ workload.AckChecker = (*Run)(nil)

// BeforeFaults implements workload.AckChecker: the acknowledged inserts' bound and the
// usertable's records before the step.
func (r *Run) BeforeFaults(ctx context.Context, name string) error {
	r.unknownInserts.Store(0)
	r.last0, r.count0 = r.ack.Last(), -1
	if !r.stores || r.w.Shard.Count > 1 {
		return nil
	}
	n, err := r.records(ctx)
	if err != nil {
		return fmt.Errorf("records before %s: %w", name, err)
	}
	r.count0 = n
	return nil
}

// CheckAcknowledged implements workload.AckChecker: the usertable grew by at least the inserts
// acknowledged in the step (those below the acknowledged bound: an insert still to be sent again
// holds the bound back); what it lacks is lost, and the final check then expects that many keys
// missing. Updates are not checked: a lost update leaves a value the load or an earlier update
// wrote, which the checks cannot tell from the acknowledged one.
func (r *Run) CheckAcknowledged(ctx context.Context, name string) (results.AckCheck, error) {
	acked, unknown := r.ack.Last()-r.last0, r.unknownInserts.Load()
	res := results.AckCheck{Acknowledged: acked, Unknown: unknown}
	switch {
	case !r.stores:
		res.How = "not checked: the engine keeps no data"
		return res, nil
	case r.count0 < 0:
		res.How = "not checked: a shard's table is shared with the other shards"
		return res, nil
	}
	n, err := r.records(ctx)
	if err != nil {
		return res, fmt.Errorf("records after %s: %w", name, err)
	}
	grew := n - r.count0
	res.Checked, res.Lost = true, max(0, acked-grew)
	r.lostInserts += res.Lost
	res.How = fmt.Sprintf("inserts only (updates cannot be told apart): the usertable grew by %d records: %d acknowledged inserts, %d of unknown outcome", grew, acked, unknown)
	return res, nil
}

// records counts the usertable's records.
func (r *Run) records(ctx context.Context) (int64, error) {
	sess, err := r.eng.NewSession(ctx)
	if err != nil {
		return 0, err
	}
	defer sess.Close()
	return sess.Count(ctx, r.w.stmts.t, -1)
}
