package tpcc

import (
	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/table"
)

// Scale is the cardinality of the tables (clause 1.2.1 and 4.3.3.1): the specification's is
// Spec; tests load a smaller one with the same shape.
type Scale struct {
	// Items is the item table's rows and each warehouse's stock rows (100,000).
	Items int
	// Customers is the customers and the loaded orders of each district (3,000).
	Customers int
}

// SpecScale is the specification's cardinality.
var SpecScale = Scale{Items: 100_000, Customers: 3_000}

// Districts per warehouse (fixed by the specification).
const Districts = 10

// Values of the specification's load (clause 4.3.3.1), money in cents, rates in 1/10000.
const (
	warehouseYTD = 300_000_00
	districtYTD  = 30_000_00
	creditLim    = 50_000_00
	initBalance  = -10_00
	initYTDPay   = 10_00
	historyAmt   = 10_00
	maxTax       = 2000 // 0.2000
	maxDiscount  = 5000 // 0.5000
)

// undelivered returns the first undelivered order id of a district with customers orders:
// the last 900 of 3,000 (o_id 2101..3000) have no carrier and a new_order row.
func (s Scale) undelivered() int64 { return int64(s.Customers) - int64(s.Customers)*900/3000 + 1 }

// lastNames is the number of last names in use: the first lastNames customers of a district
// have names 0, 1, ... in turn and the others a NURand-drawn one (1,000 at the specification's
// scale).
func (s Scale) lastNames() int64 { return min(1000, max(int64(s.Customers)/3, 1)) }

// maxLastName is the longest last name, bytes.
const maxLastName = 15

// syllables make last names (clause 4.3.2.3).
var syllables = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// appendLastName appends the last name of number n (0..999).
func appendLastName(dst []byte, n int64) []byte {
	return append(append(append(dst, syllables[n/100]...), syllables[n/10%10]...), syllables[n%10]...)
}

// Constants are the C constants of NURand (clause 2.1.6): one set for the load, one for the
// run, whose C for last names differs from the load's by a delta the specification allows
// (clause 2.1.6.1).
type Constants struct {
	CLast, CID, CItem int64
}

// constants derives the load's and the run's constants from the seed.
func constants(seed uint64) (load, run Constants) {
	r := gen.NewRand(gen.Mix(seed ^ 0x7c0c))
	load = Constants{CLast: r.Intn(256), CID: r.Intn(1024), CItem: r.Intn(8192)}
	run = load
	for {
		delta := r.Range(65, 119)
		if delta != 96 && delta != 112 {
			run.CLast = (load.CLast + delta) % 256
			return load, run
		}
	}
}

// nurand is NURand(A, x, y) with constant c (clause 2.1.6).
func nurand(r *gen.Rand, a, c, x, y int64) int64 {
	return ((r.Range(0, a)|r.Range(x, y))+c)%(y-x+1) + x
}

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// astring fills a random alphanumeric string of length lo..hi from rows' arena.
func astring(rows *table.Rows, r *gen.Rand, lo, hi int64) []byte {
	b := rows.Alloc(int(r.Range(lo, hi)))
	for i := range b {
		b[i] = alnum[r.Intn(int64(len(alnum)))]
	}
	return b
}

// nstring fills a random numeric string of length n.
func nstring(rows *table.Rows, r *gen.Rand, n int) []byte {
	b := rows.Alloc(n)
	for i := range b {
		b[i] = byte('0' + r.Intn(10))
	}
	return b
}

// original puts "ORIGINAL" at a random place of b (len(b) >= 8), for 10% of the items and stock
// rows (clause 4.3.3.1).
func original(b []byte, r *gen.Rand) {
	copy(b[r.Intn(int64(len(b)-7)):], "ORIGINAL")
}

// zip is a zip code: 4 random digits and "11111".
func zip(rows *table.Rows, r *gen.Rand) []byte {
	b := nstring(rows, r, 9)
	copy(b[4:], "11111")
	return b
}

func letters(rows *table.Rows, r *gen.Rand, n int) []byte {
	b := rows.Alloc(n)
	for i := range b {
		b[i] = byte('A' + r.Intn(26))
	}
	return b
}

func iv(v int64) table.Value  { return table.Value{I: v} }
func bv(b []byte) table.Value { return table.Value{B: b} }
func sv(s string) table.Value { return table.Value{B: []byte(s)} }
func seedOf(seed uint64, parts ...uint64) gen.Rand {
	x := seed
	for _, p := range parts {
		x = gen.Mix(x ^ p)
	}
	return gen.NewRand(x)
}

// Seeds of the load's parts: each is a pure function of the seed, the part and its numbers.
const (
	partItem = iota + 1
	partWarehouse
	partStock
	partCustomer
	partOrders
	partRun
)

// addItems appends items [lo, hi) (1-based ids) to rows.
func addItems(rows *table.Rows, seed uint64, lo, hi int64) {
	for id := lo; id < hi; id++ {
		r := seedOf(seed, partItem, uint64(id))
		row := rows.AppendRaw()
		row[iID], row[iImID] = iv(id), iv(r.Range(1, 10_000))
		row[iName] = bv(astring(rows, &r, 14, 24))
		row[iPrice] = iv(r.Range(100, 10_000))
		data := astring(rows, &r, 26, 50)
		if r.Intn(10) == 0 {
			original(data, &r)
		}
		row[iData] = bv(data)
	}
}

// addWarehouse appends warehouse w's row to wh and its districts' rows to dist.
func addWarehouse(wh, dist *table.Rows, seed uint64, w int64, sc Scale) {
	r := seedOf(seed, partWarehouse, uint64(w))
	row := wh.AppendRaw()
	row[wID] = iv(w)
	row[wName] = bv(astring(wh, &r, 6, 10))
	addAddress(wh, row[wStreet1:wZip+1], &r)
	row[wTax], row[wYTD] = iv(r.Range(0, maxTax)), iv(warehouseYTD)
	for d := int64(1); d <= Districts; d++ {
		row := dist.AppendRaw()
		row[dWID], row[dID] = iv(w), iv(d)
		row[dName] = bv(astring(dist, &r, 6, 10))
		addAddress(dist, row[dStreet1:dZip+1], &r)
		row[dTax], row[dYTD], row[dNextOID] = iv(r.Range(0, maxTax)), iv(districtYTD), iv(int64(sc.Customers)+1)
	}
}

// addAddress fills street_1, street_2, city, state and zip.
func addAddress(rows *table.Rows, cells []table.Value, r *gen.Rand) {
	cells[0] = bv(astring(rows, r, 10, 20))
	cells[1] = bv(astring(rows, r, 10, 20))
	cells[2] = bv(astring(rows, r, 10, 20))
	cells[3] = bv(letters(rows, r, 2))
	cells[4] = bv(zip(rows, r))
}

// addStock appends warehouse w's stock rows of items [lo, hi).
func addStock(rows *table.Rows, seed uint64, w, lo, hi int64) {
	for id := lo; id < hi; id++ {
		r := seedOf(seed, partStock, uint64(w), uint64(id))
		row := rows.AppendRaw()
		row[sWID], row[sIID], row[sQuantity] = iv(w), iv(id), iv(r.Range(10, 100))
		for d := range Districts {
			row[sDist01+d] = bv(astring(rows, &r, 24, 24))
		}
		row[sYTD], row[sOrderCnt], row[sRemoteCnt] = iv(0), iv(0), iv(0)
		data := astring(rows, &r, 26, 50)
		if r.Intn(10) == 0 {
			original(data, &r)
		}
		row[sData] = bv(data)
	}
}

// addCustomers appends the customers [lo, hi) of district (w, d) to cust and their history
// rows to hist; now is the load's time (c_since, h_date).
func addCustomers(cust, hist *table.Rows, seed uint64, c Constants, sc Scale, w, d, lo, hi, now int64) {
	for id := lo; id < hi; id++ {
		r := seedOf(seed, partCustomer, uint64(w), uint64(d), uint64(id))
		row := cust.AppendRaw()
		row[cWID], row[cDID], row[cID] = iv(w), iv(d), iv(id)
		row[cFirst] = bv(astring(cust, &r, 8, 16))
		row[cMiddle] = sv("OE")
		n := id - 1
		if id > sc.lastNames() {
			n = nurand(&r, 255, c.CLast, 0, sc.lastNames()-1)
		}
		row[cLast] = bv(appendLastName(cust.Alloc(maxLastName)[:0], n))
		addAddress(cust, row[cStreet1:cZip+1], &r)
		row[cPhone] = bv(nstring(cust, &r, 16))
		row[cSince] = iv(now)
		if r.Intn(10) == 0 {
			row[cCredit] = sv("BC")
		} else {
			row[cCredit] = sv("GC")
		}
		row[cCreditLim], row[cDiscount], row[cBalance] = iv(creditLim), iv(r.Range(0, maxDiscount)), iv(initBalance)
		row[cYTDPayment], row[cPaymentCnt], row[cDeliveryCnt] = iv(initYTDPay), iv(1), iv(0)
		row[cData] = bv(astring(cust, &r, 300, 500))

		h := hist.AppendRaw()
		h[hID] = iv(((w-1)*Districts+d-1)*int64(sc.Customers) + id)
		h[hCID], h[hCDID], h[hCWID], h[hDID], h[hWID] = iv(id), iv(d), iv(w), iv(d), iv(w)
		h[hDate], h[hAmount] = iv(now), iv(historyAmt)
		h[hData] = bv(astring(hist, &r, 12, 24))
	}
}

// customerPermutation returns the o_c_id of orders 1..n of district (w, d): a random
// permutation of the customer ids (clause 4.3.3.1).
func customerPermutation(seed uint64, w, d int64, n int) []int32 {
	r := seedOf(seed, partOrders, uint64(w), uint64(d))
	p := make([]int32, n)
	for i := range p {
		p[i] = int32(i + 1)
	}
	for i := n - 1; i > 0; i-- {
		j := r.Intn(int64(i + 1))
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// addOrders appends the orders [lo, hi) of district (w, d), with perm the district's customer
// permutation, to ord, their lines to lines and the undelivered ones to no; it returns the
// order lines appended.
func addOrders(ord, lines, no *table.Rows, seed uint64, sc Scale, perm []int32, w, d, lo, hi, now int64) {
	first := sc.undelivered()
	for o := lo; o < hi; o++ {
		r := seedOf(seed, partOrders, uint64(w), uint64(d), uint64(o))
		cnt := r.Range(5, 15)
		row := ord.AppendRaw()
		row[oWID], row[oDID], row[oID], row[oCID], row[oEntryD] = iv(w), iv(d), iv(o), iv(int64(perm[o-1])), iv(now)
		row[oCarrierID], row[oOLCnt], row[oAllLocal] = iv(0), iv(cnt), iv(1)
		delivered := o < first
		if delivered {
			row[oCarrierID] = iv(r.Range(1, 10))
		} else {
			n := no.AppendRaw()
			n[noWID], n[noDID], n[noOID] = iv(w), iv(d), iv(o)
		}
		for l := int64(1); l <= cnt; l++ {
			ol := lines.AppendRaw()
			ol[olWID], ol[olDID], ol[olOID], ol[olNumber] = iv(w), iv(d), iv(o), iv(l)
			ol[olIID], ol[olSupplyWID], ol[olQuantity] = iv(r.Range(1, int64(sc.Items))), iv(w), iv(5)
			if delivered {
				ol[olDeliveryD], ol[olAmount] = iv(now), iv(0)
			} else {
				ol[olDeliveryD], ol[olAmount] = iv(0), iv(r.Range(1, 999_999))
			}
			ol[olDistInfo] = bv(astring(lines, &r, 24, 24))
		}
	}
}
