package kv

import (
	"context"
	"fmt"

	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/workload"
)

var _ workload.AckChecker = (*Run)(nil)

// BeforeFaults implements workload.AckChecker: the acknowledged new keys and the table's rows
// before the step (new keys only: --zipfian's writes update loaded ones, and a split run's
// table is shared).
func (r *Run) BeforeFaults(ctx context.Context, name string) error {
	r.written0, r.count0 = r.written(), -1
	if !r.Eng.Info().Stores || r.w.Cfg.Zipfian || r.w.Shard.Count > 1 {
		return nil
	}
	n, err := r.rowsNow(ctx)
	if err != nil {
		return fmt.Errorf("rows before %s: %w", name, err)
	}
	r.count0 = n
	return nil
}

// CheckAcknowledged implements workload.AckChecker: the table grew by at least the new keys
// acknowledged in the step (below the acknowledged bound: a batch still to be written again
// holds it back); what it lacks is lost, and the final check expects that many keys missing.
func (r *Run) CheckAcknowledged(ctx context.Context, name string) (results.AckCheck, error) {
	acked := r.written() - r.written0
	res := results.AckCheck{Acknowledged: acked}
	if r.count0 < 0 {
		res.How = "not checked: no data kept, updates of loaded keys (--zipfian) or a table the shards share"
		return res, nil
	}
	n, err := r.rowsNow(ctx)
	if err != nil {
		return res, fmt.Errorf("rows after %s: %w", name, err)
	}
	grew := n - r.count0
	res.Checked, res.Lost = true, max(0, acked-grew)
	r.lost += res.Lost
	res.How = fmt.Sprintf("new keys: the table grew by %d rows, %d keys acknowledged", grew, acked)
	return res, nil
}

// rowsNow counts the table's rows.
func (r *Run) rowsNow(ctx context.Context) (int64, error) {
	sess, err := r.Eng.NewSession(ctx)
	if err != nil {
		return 0, err
	}
	defer sess.Close()
	return sess.Count(ctx, r.w.t, -1)
}
