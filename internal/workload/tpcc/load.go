package tpcc

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/table"
)

// Load parts: items and stock rows go in batches of chunkItems rows, customers (with their
// history rows) in batches of chunkCustomers, orders in batches of chunkOrders (about ten
// order lines each).
const (
	chunkItems     = 1000
	chunkCustomers = 500
	chunkOrders    = 100
)

// part is one unit of the load: a range [lo, hi) of one kind of rows of warehouse w (and
// district d).
type part struct {
	kind   int // partItem, partWarehouse, partStock, partCustomer, partOrders
	w, d   int64
	lo, hi int64
}

// parts lists the load's parts in order: the items (shard 0's), then warehouse by warehouse
// (this shard's).
func (w *Workload) parts() []part {
	sc := w.cfg.Scale
	var out []part
	chunks := func(kind int, wh, d, n, size int64) {
		for lo := int64(1); lo <= n; lo += size {
			out = append(out, part{kind: kind, w: wh, d: d, lo: lo, hi: min(lo+size, n+1)})
		}
	}
	if w.shard.Index == 0 {
		chunks(partItem, 0, 0, int64(sc.Items), chunkItems)
	}
	lo, hi := w.ownWarehouses()
	for wh := lo; wh <= hi; wh++ {
		out = append(out, part{kind: partWarehouse, w: wh})
		chunks(partStock, wh, 0, int64(sc.Items), chunkItems)
		for d := int64(1); d <= Districts; d++ {
			chunks(partCustomer, wh, d, int64(sc.Customers), chunkCustomers)
			chunks(partOrders, wh, d, int64(sc.Customers), chunkOrders)
		}
	}
	return out
}

var kindLoad = runner.Kind{Name: "rows", Role: results.RoleWrite, Unit: "rows", CountUnits: true}

var loadPresentation = runner.Presentation{RateName: "ips", RateUnit: "rows/s", PerOp: "row loaded",
	Note: "ips = rows loaded/s over the nine tables; per-op figures per row"}

// loadStep loads the parts by Loaders clients taking them from one list.
func (r *Run) loadStep(ctx context.Context) (runner.Step, error) {
	w := r.w
	st := runner.Step{Name: StepLoad, Presentation: loadPresentation, Percentiles: w.cfg.Percentiles}
	k := st.Kinds.Add(kindLoad)
	st.RateKinds = []runner.KindID{k}
	parts := w.parts()
	now := time.Now().Unix()
	var next atomic.Int64
	for i := 0; i < w.cfg.Loaders; i++ {
		sess, err := r.sessions.Open(ctx, r.eng)
		if err != nil {
			return st, err
		}
		l := &loader{r: r, sess: sess, kind: k, now: now}
		for j := range l.rows {
			l.rows[j] = table.NewRows(len(tables[j].Columns), 0)
		}
		st.Workers = append(st.Workers, runner.Worker{Name: fmt.Sprintf("loader %d", i+1), Role: runner.Driver,
			Op: func(ctx context.Context, m *runner.Meter) (bool, error) {
				i := next.Add(1) - 1
				if i >= int64(len(parts)) {
					return true, nil
				}
				return false, l.load(ctx, m, parts[i])
			}})
	}
	return st, nil
}

// loader is one load client with a block of rows per table (in the order of tables).
type loader struct {
	r    *Run
	sess table.Session
	kind runner.KindID
	now  int64
	rows [9]*table.Rows
}

// Positions of the tables in tables (and loader.rows).
const (
	tItem = iota
	tWarehouse
	tDistrict
	tCustomer
	tHistory
	tOrders
	tNewOrder
	tOrderLine
	tStock
)

// load generates part p's rows and inserts them, one batch per table.
func (l *loader) load(ctx context.Context, m *runner.Meter, p part) error {
	for j, rows := range l.rows {
		rows.Reset(len(tables[j].Columns))
	}
	w := l.r.w
	seed, sc := w.cfg.Seed, w.cfg.Scale
	switch p.kind {
	case partItem:
		addItems(l.rows[tItem], seed, p.lo, p.hi)
	case partWarehouse:
		addWarehouse(l.rows[tWarehouse], l.rows[tDistrict], seed, p.w, sc)
	case partStock:
		addStock(l.rows[tStock], seed, p.w, p.lo, p.hi)
	case partCustomer:
		addCustomers(l.rows[tCustomer], l.rows[tHistory], seed, w.load, sc, p.w, p.d, p.lo, p.hi, l.now)
	case partOrders:
		perm := customerPermutation(seed, p.w, p.d, sc.Customers)
		addOrders(l.rows[tOrders], l.rows[tOrderLine], l.rows[tNewOrder], seed, sc, perm, p.w, p.d, p.lo, p.hi, l.now)
	}
	for j, rows := range l.rows {
		if rows.N == 0 {
			continue
		}
		t0 := time.Now()
		if err := l.sess.Insert(ctx, tables[j], rows); err != nil {
			return fmt.Errorf("load %s: %w", tables[j].Name, err)
		}
		m.Done(l.kind, t0, rows.N)
		m.Commit(1)
		l.r.rows.Add(int64(rows.N))
	}
	return nil
}
