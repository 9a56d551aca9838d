package ycsb

import (
	"context"

	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/workload"
)

var _ workload.AckChecker = (*Run)(nil)

// BeforeFaults implements workload.AckChecker: the acknowledged inserts' bound and the
// usertable's records before the step.
func (r *Run) BeforeFaults(ctx context.Context, name string) error {
	r.unknownInserts.Store(0)
	r.last0 = r.ack.Last()
	r.records = workload.Growth{Unit: "records of the usertable", Read: workload.RowCount(r.eng, r.w.stmts.t)}
	return r.records.Begin(ctx, name, r.stores && r.w.Shard.Count <= 1)
}

// CheckAcknowledged implements workload.AckChecker: the usertable grew by at least the inserts
// acknowledged in the step (those below the acknowledged bound: an insert still to be sent again
// holds the bound back); what it lacks is lost, and the final check then expects that many keys
// missing. Updates are not checked: a lost update leaves a value the load or an earlier update
// wrote, which the checks cannot tell from the acknowledged one.
func (r *Run) CheckAcknowledged(ctx context.Context, name string) (results.AckCheck, error) {
	res, _, err := r.records.Check(ctx, name, r.ack.Last()-r.last0, r.unknownInserts.Load(), false,
		"no data kept, or a table the shards share")
	if res.Checked {
		res.How = "inserts only (updates cannot be told apart): " + res.How
	}
	r.lostInserts += res.Lost
	return res, err
}
