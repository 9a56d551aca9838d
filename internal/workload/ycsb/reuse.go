package ycsb

import (
	"context"
	"fmt"
	"github.com/rumbench/rumbench/internal/gen"

	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
	"github.com/rumbench/rumbench/internal/workload/ycsb/ycsbgen"
)

var _ workload.Reuser = (*Workload)(nil)

// Tables implements workload.Reuser: the usertable (or the table property's name); none for a
// shard other than 0, which uses the table shard 0 creates (workload.SharedTables).
func (w *Workload) Tables() []*table.Table {
	if w.Shard.Count > 1 && w.Shard.Index > 0 {
		return nil
	}
	return []*table.Table{w.stmts.t}
}

// Reopen implements workload.Reuser. The load wrote insertcount records; records above that
// count were inserted by earlier runs, under the key numbers recordcount, recordcount+1, ...
// (acknowledged in order): this run's inserts continue after them.
func (w *Workload) Reopen(ctx context.Context, eng table.Engine, k table.Keeper) (workload.Run, error) {
	if err := workload.AttachAll(ctx, k, w.Tables(), true); err != nil {
		return nil, err
	}
	sess, err := workload.CheckSession(ctx, eng)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	n, err := sess.Count(ctx, w.stmts.t, -1)
	if err != nil {
		return nil, err
	}
	c := &w.Cfg.Core
	extra := n - c.InsertCount
	if extra < 0 {
		return nil, fmt.Errorf("%s holds %d records, fewer than the %d the load wrote", c.Table, n, c.InsertCount)
	}
	r := &Run{w: w, eng: eng, stores: eng.Info().Stores, ack: gen.NewAckCounter(c.RecordCount + extra)}
	r.loaded.Store(c.InsertCount)
	r.loadNext.Store(c.InsertCount)
	if c.RequestDistribution == "sequential" {
		if r.seq, err = ycsbgen.NewSequential(c.InsertStart, c.InsertStart+c.InsertCount-1); err != nil {
			return nil, err
		}
	}
	return r, nil
}
