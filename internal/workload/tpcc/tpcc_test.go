package tpcc

import (
	"context"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/engine"
	_ "github.com/rumbench/rumbench/internal/engine/all"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
	"github.com/rumbench/rumbench/internal/workload/worktest"
)

// tiny is a small TPC-C of the specification's shape: two warehouses (so that remote
// payments and supplies happen), 200 items, 60 customers a district.
func tiny(t testing.TB, transactions int64) *Workload {
	t.Helper()
	w, err := New(Config{Warehouses: 2, Scale: Scale{Items: 200, Customers: 60}, Terminals: 4, Loaders: 2,
		RunSecs: 600, Transactions: transactions, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// tinyRows is the rows tiny loads: items, then per warehouse 1 + 10 districts, stock, and per
// district the customers, their history rows, orders, new orders (the last 30%) and lines.
func tinyRows(w *Workload) int64 {
	sc := w.Cfg.Scale
	var lines int64
	for wh := int64(1); wh <= int64(w.Cfg.Warehouses); wh++ {
		for d := int64(1); d <= Districts; d++ {
			ord, ol, no := table.NewRows(len(ordersTable.Columns), 0), table.NewRows(len(orderLineTable.Columns), 0), table.NewRows(3, 0)
			addOrders(ord, ol, no, w.Cfg.Seed, sc, customerPermutation(w.Cfg.Seed, wh, d, sc.Customers), wh, d, 1, int64(sc.Customers)+1, 0)
			lines += int64(ol.N)
		}
	}
	perDistrict := int64(sc.Customers)*3 + int64(sc.Customers) - sc.undelivered() + 1
	return int64(sc.Items) + int64(w.Cfg.Warehouses)*(1+Districts+int64(sc.Items)+Districts*perDistrict) + lines
}

// TestEngines loads a tiny TPC-C and runs a fixed number of transactions on every storing
// engine, with the consistency check after the load and after the run.
func TestEngines(t *testing.T) {
	for _, name := range engine.Names() {
		if name == "null" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			const transactions = 400
			w := tiny(t, transactions)
			eng, dir := worktest.Engine(t, name, false, nil)
			if transactional(eng.Info()) != nil {
				if _, err := w.Open(context.Background(), eng); err == nil || !strings.Contains(err.Error(), "needs multi-statement transactions") {
					t.Errorf("open on an engine without transactions: %v", err)
				}
				return
			}
			run := worktest.Steps(t, eng, dir, w, func(run workload.Run, step string, res results.Step) {
				switch step {
				case StepLoad:
					if want := tinyRows(w); res.Ops != want || run.Rows() != want {
						t.Errorf("load: %d rows (counted %d), want %d", res.Ops, run.Rows(), want)
					}
				case StepRun:
					if res.Ops != transactions {
						t.Errorf("run: %d transactions, want %d", res.Ops, transactions)
					}
					for _, k := range txKinds {
						if res.KindOps(k.Name) == 0 {
							t.Errorf("run: no %s", k.Name)
						}
					}
					if len(res.Remarks) != 1 || !strings.Contains(res.Remarks[0], "NOPM") || !strings.Contains(res.Remarks[0], "within the specification's limits") {
						t.Errorf("run: remarks %q", res.Remarks)
					}
				}
			})
			msg, err := run.Check(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(msg, "conditions 1-4 hold: 2 warehouses, 20 districts") {
				t.Errorf("check: %q", msg)
			}
		})
	}
}

// TestReopen loads and runs a tiny TPC-C, then reopens its tables as a later run on the data
// would (rumbench run --reuse): the rows counted and the consistency check agree.
func TestReopen(t *testing.T) {
	ctx := context.Background()
	w := tiny(t, 100)
	eng, dir := worktest.Engine(t, "pebble", false, nil)
	run := worktest.Steps(t, eng, dir, w, nil)
	k, ok := eng.(table.Keeper)
	if !ok {
		t.Fatal("pebble is no table.Keeper")
	}
	again, err := w.Reopen(ctx, eng, k)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if again.Rows() != run.Rows() {
		t.Errorf("reopened: %d rows, the run counted %d", again.Rows(), run.Rows())
	}
	if _, err := again.Prepare(ctx, StepRun); err != nil {
		t.Fatal(err)
	}
}

// parts lists the load's parts as a loop over the tables' rows would: the items in chunks
// (shard 0), then each warehouse of the process's: its row, its stock in chunks, then each
// district's customers and orders in chunks.
func (w *Workload) parts() []part {
	sc := w.Cfg.Scale
	var out []part
	chunks := func(kind int, wh, d, n, size int64) {
		for lo := int64(1); lo <= n; lo += size {
			out = append(out, part{kind: kind, w: wh, d: d, lo: lo, hi: min(lo+size, n+1)})
		}
	}
	if w.Shard.Index == 0 {
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

// TestParts: the computed list of load parts is the list a loop over the rows makes, at the
// specification's scale and at a small one, split or not.
func TestParts(t *testing.T) {
	for _, sc := range []Scale{SpecScale, {Items: 1500, Customers: 650}} {
		for _, sh := range []workload.Shard{{}, {Index: 1, Count: 3}} {
			w, err := New(Config{Warehouses: 4, Scale: sc, Terminals: 4, Loaders: 1, RunSecs: 1})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.SetShard(sh); err != nil {
				t.Fatal(err)
			}
			want := w.parts()
			if n := w.numParts(); n != int64(len(want)) {
				t.Fatalf("scale %+v shard %v: %d parts, want %d", sc, sh, n, len(want))
			}
			for i, p := range want {
				if got := w.partAt(int64(i)); got != p {
					t.Fatalf("scale %+v shard %v: part %d is %+v, want %+v", sc, sh, i, got, p)
				}
			}
		}
	}
}
