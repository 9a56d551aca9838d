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

// Parts per warehouse and per district (at the specification's scale: 100 stock parts, 6 per
// district, 161 a warehouse).
func (w *Workload) stockParts() int64 { return ceilDiv(int64(w.Cfg.Scale.Items), chunkItems) }
func (w *Workload) customerParts() int64 {
	return ceilDiv(int64(w.Cfg.Scale.Customers), chunkCustomers)
}
func (w *Workload) orderParts() int64 { return ceilDiv(int64(w.Cfg.Scale.Customers), chunkOrders) }
func (w *Workload) warehouseParts() int64 {
	return 1 + w.stockParts() + Districts*(w.customerParts()+w.orderParts())
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// itemParts is the item parts this process loads: shard 0's (all of them unsplit).
func (w *Workload) itemParts() int64 {
	if w.Shard.Index != 0 {
		return 0
	}
	return w.stockParts()
}

// numParts is the number of the load's parts of this process.
func (w *Workload) numParts() int64 {
	lo, hi := w.ownWarehouses()
	return w.itemParts() + (hi-lo+1)*w.warehouseParts()
}

// partAt returns part i (0 <= i < numParts) of the load's list, in order: the items (shard 0's),
// then warehouse by warehouse (this shard's): its row and districts, its stock, then district by
// district its customers and its orders. The list is computed, not held: it has 161 parts a
// warehouse.
func (w *Workload) partAt(i int64) part {
	chunk := func(kind int, wh, d, j, size, n int64) part {
		lo := 1 + j*size
		return part{kind: kind, w: wh, d: d, lo: lo, hi: min(lo+size, n+1)}
	}
	sc := w.Cfg.Scale
	if i < w.itemParts() {
		return chunk(partItem, 0, 0, i, chunkItems, int64(sc.Items))
	}
	i -= w.itemParts()
	lo, _ := w.ownWarehouses()
	wh := lo + i/w.warehouseParts()
	i %= w.warehouseParts()
	if i == 0 {
		return part{kind: partWarehouse, w: wh}
	}
	i--
	if i < w.stockParts() {
		return chunk(partStock, wh, 0, i, chunkItems, int64(sc.Items))
	}
	i -= w.stockParts()
	perDistrict := w.customerParts() + w.orderParts()
	d, j := 1+i/perDistrict, i%perDistrict
	if j < w.customerParts() {
		return chunk(partCustomer, wh, d, j, chunkCustomers, int64(sc.Customers))
	}
	return chunk(partOrders, wh, d, j-w.customerParts(), chunkOrders, int64(sc.Customers))
}

var kindLoad = runner.Kind{Name: "rows", Role: results.RoleWrite, Unit: "rows", CountUnits: true}

var loadPresentation = runner.Presentation{RateName: "ips", RateUnit: "rows/s", PerOp: "row loaded",
	Note: "ips = rows loaded/s over the nine tables; per-op figures per row"}

// loadStep loads the parts by Loaders clients taking them from one list. It is the workload's
// own, not workload.Loader's: a part's rows span several tables, generated together (a
// warehouse and its districts, customers and their history rows, orders with their lines and
// new orders), where the Loader's batches are one table's each; and the step counts rows as
// kind "rows" over the nine tables, as its results always have.
func (r *Run) loadStep(ctx context.Context) (runner.Step, error) {
	w := r.w
	st := runner.Step{Name: StepLoad, Presentation: loadPresentation, Percentiles: w.Cfg.Percentiles}
	k := st.Kinds.Add(kindLoad)
	st.RateKinds = []runner.KindID{k}
	nparts := w.numParts()
	now := time.Now().Unix()
	var next atomic.Int64
	for i := 0; i < w.Cfg.Loaders; i++ {
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
				if i >= nparts {
					return true, nil
				}
				return false, l.load(ctx, m, w.partAt(i))
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
	seed, sc := w.Cfg.Seed, w.Cfg.Scale
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
