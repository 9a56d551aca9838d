package tpcc

import (
	"context"

	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
)

var _ workload.Reuser = (*Workload)(nil)

// Tables implements workload.Reuser: the nine tables (shard 0's only in a split run: the others
// never drop them).
func (w *Workload) Tables() []*table.Table {
	if w.Shard.Index > 0 {
		return nil
	}
	return tables
}

// Reopen implements workload.Reuser: it attaches the nine tables and counts their rows. The
// data may hold an earlier run's transactions: the consistency check before the run says
// whether it is still TPC-C's.
func (w *Workload) Reopen(ctx context.Context, eng table.Engine, k table.Keeper) (workload.Run, error) {
	if err := transactional(eng.Info()); err != nil {
		return nil, err
	}
	if err := workload.AttachAll(ctx, k, tables, true); err != nil {
		return nil, err
	}
	sess, err := workload.CheckSession(ctx, eng)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	r := &Run{w: w, eng: eng, stores: eng.Info().Stores}
	for _, t := range tables {
		n, err := sess.Count(ctx, t, -1)
		if err != nil {
			return nil, err
		}
		r.rows.Add(n)
	}
	return r, nil
}
