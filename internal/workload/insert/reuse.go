package insert

import (
	"context"
	"fmt"

	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
)

var _ workload.Reuser = (*Workload)(nil)

// Tables implements workload.Reuser: one table per client.
func (w *Workload) Tables() []*table.Table {
	var out []*table.Table
	for _, i := range w.clientNos() {
		out = append(out, NewTable(i))
	}
	return out
}

// Reopen implements workload.Reuser. The tables must exist with their indexes. The live rows
// of a table are always the transactionids [minID, nextID) (inserts append, deletes take the
// oldest): Reopen finds that range from the row count and primary-key lookups.
func (w *Workload) Reopen(ctx context.Context, eng table.Engine, k table.Keeper) (workload.Run, error) {
	tables := w.Tables()
	if err := workload.AttachAll(ctx, k, tables, true); err != nil {
		return nil, err
	}
	sess, err := workload.CheckSession(ctx, eng)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	r := &Run{w: w, eng: eng}
	for j, t := range tables {
		i := w.clientNos()[j]
		lo, n, err := liveRange(ctx, sess, t)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.Name, err)
		}
		c := &client{no: i, t: t, gen: NewGenerator(w.Seed, i), indexed: true}
		c.minID.Store(lo)
		c.nextID.Store(lo + n)
		r.clients = append(r.clients, c)
	}
	return r, nil
}

// liveRange returns the first transactionid of t and the row count n, the rows being the
// contiguous ids [lo, lo+n). Of the ids 1, 1+n, 1+2n, ... exactly one falls in the range; a
// binary search below it finds lo.
func liveRange(ctx context.Context, s table.Session, t *table.Table) (lo, n int64, err error) {
	if n, err = s.Count(ctx, t, -1); err != nil || n == 0 {
		return 1, n, err
	}
	out := table.NewRows(1, 1)
	exists := func(id int64) (bool, error) {
		out.Reset(1)
		err := s.Get(ctx, t, []int64{id}, []int{0}, out)
		return out.N == 1, err
	}
	hit := int64(1)
	for ; ; hit += n {
		ok, err := exists(hit)
		if err != nil {
			return 0, 0, err
		}
		if ok {
			break
		}
		if hit > 1<<62 {
			return 0, 0, fmt.Errorf("no row among the ids 1, 1+%d, ...: the table is not one the insert benchmark loaded", n)
		}
	}
	// lo is in (hit-n, hit]: the first id that exists.
	l, h := max(hit-n+1, 1), hit
	for l < h {
		mid := l + (h-l)/2
		ok, err := exists(mid)
		if err != nil {
			return 0, 0, err
		}
		if ok {
			h = mid
		} else {
			l = mid + 1
		}
	}
	last, err := exists(l + n - 1)
	if err != nil {
		return 0, 0, err
	}
	if after, err := exists(l + n); err != nil || !last || after {
		return 0, 0, fmt.Errorf("its %d rows are not the contiguous ids from %d (%v)", n, l, err)
	}
	return l, n, nil
}
