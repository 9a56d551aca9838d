package sysbench

import (
	"context"

	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
)

var _ workload.Reuser = (*Workload)(nil)

// Tables implements workload.Reuser: sbtest1..sbtestN.
func (w *Workload) Tables() []*table.Table {
	if w.shareTables && w.Shard.Index != 0 {
		return nil // shard 0's tables: the other shards never drop them
	}
	var out []*table.Table
	for _, n := range w.tableNos() {
		out = append(out, newTable(n))
	}
	return out
}

// Reopen implements workload.Reuser: the tables must exist with their index on k; each table's
// row count is read back (write tests of earlier runs may have changed it).
func (w *Workload) Reopen(ctx context.Context, eng table.Engine, k table.Keeper) (workload.Run, error) {
	tables := w.Tables()
	if err := workload.AttachAll(ctx, k, tables, true); err != nil {
		return nil, err
	}
	r := w.newRun(eng)
	sess, err := workload.CheckSession(ctx, eng)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	for i, t := range tables {
		n, err := sess.Count(ctx, t, -1)
		if err != nil {
			return nil, err
		}
		r.rows[i].Store(n)
		r.tables = append(r.tables, newStmts(t, w.Cfg.Prepared))
	}
	r.indexDone.Store(true)
	return r, nil
}
