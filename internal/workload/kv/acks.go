package kv

import (
	"context"

	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/workload"
)

var _ workload.AckChecker = (*Run)(nil)

// BeforeFaults implements workload.AckChecker: the acknowledged new keys and the table's rows
// before the step (new keys only: --zipfian's writes update loaded ones, and a split run's
// table is shared).
func (r *Run) BeforeFaults(ctx context.Context, name string) error {
	r.written0 = r.written()
	r.rows = workload.Growth{Unit: "rows of the table", Read: workload.RowCount(r.Eng, r.w.t)}
	return r.rows.Begin(ctx, name, r.Eng.Info().Stores && !r.w.Cfg.Zipfian && r.w.Shard.Count <= 1)
}

// CheckAcknowledged implements workload.AckChecker: the table grew by at least the new keys
// acknowledged in the step (below the acknowledged bound: a batch still to be written again
// holds it back); what it lacks is lost, and the final check expects that many keys missing.
func (r *Run) CheckAcknowledged(ctx context.Context, name string) (results.AckCheck, error) {
	res, _, err := r.rows.Check(ctx, name, r.written()-r.written0, 0, false,
		"no data kept, updates of loaded keys (--zipfian) or a table the shards share")
	r.lost += res.Lost
	return res, err
}
