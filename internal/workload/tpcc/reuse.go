package tpcc

import (
	"context"

	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
)

var _ workload.Reuser = (*Workload)(nil)

// LoadSteps implements workload.Reuser: the load.
func (w *Workload) LoadSteps() []string { return []string{StepLoad} }

// Tables implements workload.Reuser: the nine tables (shard 0's only in a split run: the others
// never drop them).
func (w *Workload) Tables() []*table.Table {
	if w.shard.Index > 0 {
		return nil
	}
	return tables
}

// DataConfig implements workload.Reuser: what shapes the loaded data (the warehouses, the
// scale and the seed, which also gives the run's NURand constants).
func (w *Workload) DataConfig() map[string]any {
	c := &w.cfg
	return map[string]any{"warehouses": c.Warehouses, "items": c.Scale.Items, "customers_per_district": c.Scale.Customers, "seed": c.Seed}
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
	sess, err := eng.NewSession(ctx)
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
