package tpcc

import (
	"bytes"
	"context"
	"math"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/table"
)

// TestLastName: the specification's example (clause 4.3.2.3): 371 is PRICALLYOUGHT.
func TestLastName(t *testing.T) {
	if got := string(appendLastName(nil, 371)); got != "PRICALLYOUGHT" {
		t.Errorf("371: %s", got)
	}
	if got := string(appendLastName(nil, 0)); got != "BARBARBAR" {
		t.Errorf("0: %s", got)
	}
}

// TestConstants: the run's C for last names differs from the load's by 65..119, never 96 or
// 112 (clause 2.1.6.1), for many seeds; the other constants are the load's.
func TestConstants(t *testing.T) {
	for seed := uint64(0); seed < 2000; seed++ {
		load, run := constants(seed)
		d := (run.CLast - load.CLast + 256) % 256
		if d < 65 || d > 119 || d == 96 || d == 112 || run.CID != load.CID || run.CItem != load.CItem {
			t.Fatalf("seed %d: load %+v run %+v (delta %d)", seed, load, run, d)
		}
	}
}

// TestNURand: NURand(A, x, y) stays in [x, y] and is not uniform (its hot values are drawn
// more often).
func TestNURand(t *testing.T) {
	r := gen.NewRand(1)
	counts := make([]int, 3001)
	for range 300_000 {
		v := nurand(&r, 1023, 259, 1, 3000)
		if v < 1 || v > 3000 {
			t.Fatalf("NURand(1023, 1, 3000) = %d", v)
		}
		counts[v]++
	}
	most := 0
	for _, c := range counts {
		most = max(most, c)
	}
	if most < 3*100 { // uniform would give about 100 each
		t.Errorf("the most drawn customer id was drawn %d times of 300,000: not skewed", most)
	}
}

// TestLoadData checks the specification's distributions on the rows of a warehouse's parts:
// 10% of the items and stock rows with ORIGINAL, 10% BC customers, the first 1,000 customers'
// last names in order, the undelivered orders' new_order rows and the delivered ones' carrier.
func TestLoadData(t *testing.T) {
	const seed = 5
	items := table.NewRows(len(itemTable.Columns), 0)
	addItems(items, seed, 1, 100_001)
	if n := countContains(items, iData, "ORIGINAL"); n < 9_500 || n > 10_500 {
		t.Errorf("%d of 100,000 items have ORIGINAL, want about 10,000", n)
	}
	stock := table.NewRows(len(stockTable.Columns), 0)
	addStock(stock, seed, 1, 1, 20_001)
	if n := countContains(stock, sData, "ORIGINAL"); n < 1_800 || n > 2_200 {
		t.Errorf("%d of 20,000 stock rows have ORIGINAL, want about 2,000", n)
	}
	load, _ := constants(seed)
	cust, hist := table.NewRows(len(customerTable.Columns), 0), table.NewRows(len(historyTable.Columns), 0)
	addCustomers(cust, hist, seed, load, SpecScale, 1, 1, 1, 3001, 0)
	bc := 0
	for i := 0; i < cust.N; i++ {
		row := cust.Row(i)
		if string(row[cCredit].B) == "BC" {
			bc++
		}
		if i < 1000 && !bytes.Equal(row[cLast].B, appendLastName(nil, int64(i))) {
			t.Fatalf("customer %d: last name %s, want %s", i+1, row[cLast].B, appendLastName(nil, int64(i)))
		}
	}
	if bc < 240 || bc > 360 || hist.N != 3000 {
		t.Errorf("%d of 3,000 customers BC (want about 300), %d history rows", bc, hist.N)
	}
	ord, lines, no := table.NewRows(len(ordersTable.Columns), 0), table.NewRows(len(orderLineTable.Columns), 0), table.NewRows(3, 0)
	addOrders(ord, lines, no, seed, SpecScale, customerPermutation(seed, 1, 1, 3000), 1, 1, 1, 3001, 0)
	if no.N != 900 || no.Row(0)[noOID].I != 2101 {
		t.Errorf("%d new orders from %d, want 900 from 2101", no.N, no.Row(0)[noOID].I)
	}
	seen := map[int64]bool{}
	for i := 0; i < ord.N; i++ {
		row := ord.Row(i)
		seen[row[oCID].I] = true
		if delivered := row[oID].I < 2101; delivered != (row[oCarrierID].I > 0) {
			t.Fatalf("order %d: carrier %d", row[oID].I, row[oCarrierID].I)
		}
	}
	if len(seen) != 3000 {
		t.Errorf("the orders' customers are %d distinct ids, want a permutation of 3,000", len(seen))
	}
	if mean := float64(lines.N) / 3000; math.Abs(mean-10) > 0.3 {
		t.Errorf("%.2f lines an order, want about 10", mean)
	}
}

func countContains(rows *table.Rows, col int, s string) int {
	n := 0
	for i := 0; i < rows.N; i++ {
		if bytes.Contains(rows.Row(i)[col].B, []byte(s)) {
			n++
		}
	}
	return n
}

// TestMixAndThink: the terminals' draws follow the 45/43/4/4/4 mix, and think times are capped
// at ten times their mean.
func TestMixAndThink(t *testing.T) {
	c := &terminal{rng: gen.NewRand(9)}
	var n [numTx]int
	const draws = 200_000
	for range draws {
		n[c.next()]++
	}
	for tx, want := range []float64{45, 43, 4, 4, 4} {
		if got := float64(n[tx]) * 100 / draws; math.Abs(got-want) > 0.5 {
			t.Errorf("%s: %.2f%% of the draws, want %g%%", txKinds[tx].Name, got, want)
		}
	}
	for range 10_000 {
		if d := c.thinkTime(txDelivery); d < 0 || d.Seconds() > 10*thinkMean[txDelivery] {
			t.Fatalf("delivery think time %v", d)
		}
	}
	// A keying or think time that would outlast the run ends with it and says so.
	ctx := context.Background()
	if c.wait(ctx, time.Hour, time.Now().Add(time.Millisecond)) {
		t.Error("an hour's wait in a run ending in a millisecond: the run goes on")
	}
	if !c.wait(ctx, time.Millisecond, time.Now().Add(time.Hour)) {
		t.Error("a millisecond's wait in a run of an hour: the run is over")
	}
}
