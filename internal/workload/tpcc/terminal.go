package tpcc

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"time"

	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/table"
)

// terminal is one terminal of the run (clause 5.2.2): a session bound to warehouse w and, for
// Stock-Level, district d, with its random source and buffers, allocated once.
type terminal struct {
	r          *Run
	st         *stmts
	sess       table.Session
	rng        gen.Rand
	w, d       int64
	warehouses int64
	sc         Scale
	c          Constants
	args       []table.Value
	out, aux   *table.Rows
	wr         *table.Rows // the scratch of writes (which return no rows)
	lines      [maxLines]orderLine
	ids        []int64
	last       []byte // a last name drawn
	hData      []byte // Payment's h_data
	cData      []byte // Payment's new c_data
	timer      *time.Timer
	// n counts the rows the transaction read (its Selects returned; Delivery's SUM counts the
	// lines it adds up); added the rows it added to the tables (counted at its commit).
	n, added int64
}

// orderLine is one line of a New-Order being entered.
type orderLine struct {
	iid, supplyW, qty int64
}

// newTerminal returns terminal i of this process: of its n warehouses lo..hi (all W unsplit),
// warehouse lo + i mod n, district (i div n) mod 10 + 1, so that the first n terminals cover
// every warehouse and the next ones its other districts. Its random stream is numbered among
// all shards' terminals.
func newTerminal(r *Run, sess table.Session, i int) *terminal {
	cfg := &r.w.Cfg
	lo, hi := r.w.ownWarehouses()
	n := hi - lo + 1
	return &terminal{r: r, st: r.w.st, sess: sess, rng: r.newRand(r.w.Shard.Index*cfg.Terminals + i), w: lo + int64(i)%n, d: (int64(i)/n)%Districts + 1,
		warehouses: int64(cfg.Warehouses), sc: cfg.Scale, c: r.w.run, args: make([]table.Value, 0, 32),
		out: table.NewRows(16, 64), aux: table.NewRows(16, 64), wr: table.NewRows(1, 1), ids: make([]int64, 0, 20*maxLines),
		last: make([]byte, 0, maxLastName), hData: make([]byte, 0, 24), cData: make([]byte, 0, 600)}
}

// next draws the next transaction type from the mix.
func (c *terminal) next() int {
	x := c.rng.Intn(100)
	for t, p := range mix {
		if x < p {
			return t
		}
	}
	return txNewOrder
}

// pause waits d, or until ctx ends (false).
func (c *terminal) pause(ctx context.Context, d time.Duration) bool {
	if c.timer == nil {
		c.timer = time.NewTimer(d)
	} else {
		c.timer.Reset(d)
	}
	select {
	case <-ctx.Done():
		c.timer.Stop()
		return false
	case <-c.timer.C:
		return true
	}
}

// backoff draws the wait before retry try+1 of a transaction that met a conflict: uniform in
// [0, min(try+1, 20) ms), so that terminals that keep meeting each other (two Deliveries of one
// warehouse) fall out of step.
func (c *terminal) backoff(try int) time.Duration {
	return time.Duration(c.rng.Intn(int64(min(try+1, 20)) * int64(time.Millisecond)))
}

// wait pauses d (a keying or think time), or until end or ctx ends (false: the run is over).
func (c *terminal) wait(ctx context.Context, d time.Duration, end time.Time) bool {
	if left := time.Until(end); d >= left {
		c.pause(ctx, max(left, 0))
		return false
	}
	return c.pause(ctx, d)
}

// thinkTime draws a think time of type tx: negative exponential, capped at ten times its mean
// (clause 5.2.5.4).
func (c *terminal) thinkTime(tx int) time.Duration {
	s := -math.Log(max(c.rng.Float64(), 1e-300)) * thinkMean[tx]
	return time.Duration(min(s, 10*thinkMean[tx]) * float64(time.Second))
}

// exec runs st with c.args, results in out (reset to st's columns).
func (c *terminal) exec(ctx context.Context, st *table.Stmt, out *table.Rows) (int64, error) {
	out.Reset(max(len(st.Cols), 1))
	return c.sess.Exec(ctx, st, c.args, out)
}

// arg starts the argument list.
func (c *terminal) arg(v ...int64) {
	c.args = c.args[:0]
	for _, x := range v {
		c.args = append(c.args, iv(x))
	}
}

// otherWarehouse draws a warehouse other than the terminal's (its own when there is one).
func (c *terminal) otherWarehouse() int64 {
	if c.warehouses == 1 {
		return c.w
	}
	o := c.rng.Range(1, c.warehouses-1)
	if o >= c.w {
		o++
	}
	return o
}

// customer draws a customer id, NURand(1023, 1, 3000) (clause 2.1.6).
func (c *terminal) customer() int64 { return nurand(&c.rng, 1023, c.c.CID, 1, int64(c.sc.Customers)) }

// lastName draws a last name, NURand(255, 0, 999) with the run's C, into c.last.
func (c *terminal) lastName() []byte {
	c.last = appendLastName(c.last[:0], nurand(&c.rng, 255, c.c.CLast, 0, c.sc.lastNames()-1))
	return c.last
}

// do runs one transaction of type tx and returns the rows it read and whether it
// rolled back (New-Order's unused item). On an error the transaction may be open: the caller
// rolls back.
func (c *terminal) do(ctx context.Context, tx int) (int, bool, error) {
	if err := c.sess.Begin(ctx); err != nil {
		return 0, false, err
	}
	c.n, c.added = 0, 0
	var rb bool
	var err error
	switch tx {
	case txNewOrder:
		rb, err = c.newOrder(ctx)
	case txPayment:
		err = c.payment(ctx)
	case txOrderStatus:
		err = c.orderStatus(ctx)
	case txDelivery:
		err = c.delivery(ctx)
	case txStockLevel:
		err = c.stockLevel(ctx)
	}
	if err != nil {
		return 0, false, err
	}
	if rb {
		return int(c.n), true, c.sess.Rollback(ctx)
	}
	if err := c.sess.Commit(ctx); err != nil {
		return 0, false, err
	}
	c.r.rows.Add(c.added)
	return int(c.n), false, nil
}

// one runs st like x and fails with errMissing when it returns no row.
func (c *terminal) one(ctx context.Context, st *table.Stmt, out *table.Rows) (int64, error) {
	k, err := c.x(ctx, st, out)
	if err == nil && out.N == 0 {
		err = fmt.Errorf("%w: %s", errMissing, st.SQL)
	}
	return k, err
}

// x runs st with c.args, results in out, and counts the rows a Select returned in c.n.
func (c *terminal) x(ctx context.Context, st *table.Stmt, out *table.Rows) (int64, error) {
	k, err := c.exec(ctx, st, out)
	if st.Kind == table.Select {
		c.n += k
	}
	return k, err
}

// newOrder is the New-Order transaction (clause 2.4): the order of 5 to 15 lines of a
// customer of a random district, 1% of the lines supplied by another warehouse, 1% of the
// orders rolled back on an unused item id. The lines are entered in item order, so that
// concurrent New-Orders lock stock rows in one order.
func (c *terminal) newOrder(ctx context.Context) (bool, error) {
	d, cust := c.rng.Range(1, Districts), c.customer()
	cnt := c.rng.Range(minLines, maxLines)
	rollback := c.rng.Intn(100) == 0
	lines, allLocal := c.drawLines(cnt, rollback)
	st := c.st
	c.arg(c.w)
	if _, err := c.one(ctx, st.noWarehouse, c.out); err != nil {
		return false, err
	}
	wTaxV := c.out.Row(0)[0].I
	c.arg(c.w, d, cust)
	if _, err := c.one(ctx, st.noCustomer, c.out); err != nil {
		return false, err
	}
	discount := c.out.Row(0)[0].I
	c.arg(d, c.w)
	if _, err := c.one(ctx, st.noDistrict, c.out); err != nil {
		return false, err
	}
	oid, dTaxV := c.out.Row(0)[0].I, c.out.Row(0)[1].I
	if _, err := c.x(ctx, st.noNextOID, c.out); err != nil {
		return false, err
	}
	now := time.Now().Unix()
	c.arg(oid, d, c.w, cust, now, 0, cnt, allLocal)
	if _, err := c.x(ctx, st.noInsOrder, c.out); err != nil {
		return false, err
	}
	c.arg(oid, d, c.w)
	if _, err := c.x(ctx, st.noInsNewOrder, c.out); err != nil {
		return false, err
	}
	c.args = c.args[:0]
	for i := range lines {
		c.args = append(c.args, iv(lines[i].iid))
	}
	found, err := c.x(ctx, st.noItems[cnt], c.aux) // i_price, i_name, i_data, i_id
	if err != nil {
		return false, err
	}
	if found < cnt {
		return true, nil // an item is not found: the order is rolled back
	}
	var total int64
	for i := range lines {
		amount, err := c.enterLine(ctx, oid, d, int64(i+1), &lines[i])
		if err != nil {
			return false, err
		}
		total += amount
	}
	c.added = 2 + cnt                                                        // the order, its new_order row and its lines
	_ = total * (10000 - discount) / 10000 * (10000 + wTaxV + dTaxV) / 10000 // the order's total, shown to the user only
	return false, nil
}

// drawLines draws the cnt lines of a New-Order (distinct items, 1% supplied by another
// warehouse; the last item unused when the order rolls back) in (supply warehouse, item) order,
// and says whether every line is supplied by the terminal's warehouse (1) or not (0).
func (c *terminal) drawLines(cnt int64, rollback bool) ([]orderLine, int64) {
	allLocal := int64(1)
	lines := c.lines[:cnt]
	for i := range lines {
		l := &lines[i]
	draw:
		l.iid = nurand(&c.rng, 8191, c.c.CItem, 1, int64(c.sc.Items))
		for j := range i {
			if lines[j].iid == l.iid {
				goto draw
			}
		}
		l.supplyW, l.qty = c.w, c.rng.Range(1, 10)
		if c.rng.Intn(100) == 0 && c.warehouses > 1 {
			l.supplyW, allLocal = c.otherWarehouse(), 0
		}
	}
	if rollback {
		lines[cnt-1].iid = int64(c.sc.Items) + 1 // unused (clause 2.4.1.4)
	}
	for i := 1; i < len(lines); i++ { // insertion sort by (supply warehouse, item)
		for j := i; j > 0 && (lines[j].supplyW < lines[j-1].supplyW || lines[j].supplyW == lines[j-1].supplyW && lines[j].iid < lines[j-1].iid); j-- {
			lines[j], lines[j-1] = lines[j-1], lines[j]
		}
	}
	return lines, allLocal
}

// enterLine enters line number of New-Order oid of district d: it reads and updates the
// line's stock and inserts the order line; it returns the line's amount. The items the
// transaction read are in c.aux.
func (c *terminal) enterLine(ctx context.Context, oid, d, number int64, l *orderLine) (int64, error) {
	st := c.st
	var price int64
	var iData []byte
	for j := 0; j < c.aux.N; j++ {
		if row := c.aux.Row(j); row[3].I == l.iid {
			price, iData = row[0].I, row[2].B
		}
	}
	c.arg(l.supplyW, l.iid)
	if _, err := c.one(ctx, st.noStock, c.out); err != nil {
		return 0, err
	}
	srow := c.out.Row(0) // s_i_id, s_quantity, s_data, s_dist_01..10
	q := srow[1].I
	if q >= l.qty+10 {
		q -= l.qty
	} else {
		q += 91 - l.qty
	}
	_ = bytes.Contains(iData, original8) && bytes.Contains(srow[2].B, original8) // brand-generic: 'B' or 'G', shown to the user only
	distInfo := srow[3+d-1].B
	remote := int64(0)
	if l.supplyW != c.w {
		remote = 1
	}
	amount := l.qty * price
	c.arg(q, l.qty, remote, l.iid, l.supplyW)
	if _, err := c.x(ctx, st.noUpdStock, c.wr); err != nil {
		return 0, err
	}
	c.arg(oid, d, c.w, number, l.iid, l.supplyW, l.qty, amount)
	c.args = append(c.args, bv(distInfo), iv(0))
	if _, err := c.x(ctx, st.noInsLine, c.wr); err != nil {
		return 0, err
	}
	return amount, nil
}

var original8 = []byte("ORIGINAL")
