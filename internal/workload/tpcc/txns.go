package tpcc

import (
	"context"
	"errors"
	"strconv"
	"time"
)

// payment is the Payment transaction (clause 2.5): a payment to the terminal's warehouse and a
// random district by a customer of it (85%) or of another warehouse (15%), chosen by last
// name (60%) or by id.
func (c *terminal) payment(ctx context.Context) error {
	st := c.st
	d := c.rng.Range(1, Districts)
	cw, cd := c.w, d
	if c.rng.Intn(100) >= 85 && c.warehouses > 1 {
		cw, cd = c.otherWarehouse(), c.rng.Range(1, Districts)
	}
	byName := c.rng.Intn(100) < 60
	var cust int64
	if !byName {
		cust = c.customer()
	} else {
		c.lastName()
	}
	amount := c.rng.Range(100, 500_000) // 1.00 .. 5,000.00
	c.arg(amount, c.w, d)
	if _, err := c.x(ctx, st.payUpdDistrict, c.wr); err != nil {
		return err
	}
	c.arg(c.w, d)
	if _, err := c.one(ctx, st.paySelDistrict, c.out); err != nil {
		return err
	}
	dName := c.out.Row(0)[5].B
	c.arg(amount, c.w)
	if _, err := c.x(ctx, st.payUpdWarehouse, c.wr); err != nil {
		return err
	}
	c.arg(c.w)
	if _, err := c.one(ctx, st.paySelWarehouse, c.aux); err != nil {
		return err
	}
	// h_data is w_name, four spaces and d_name (clause 2.5.2.2).
	c.hData = append(append(append(c.hData[:0], c.aux.Row(0)[5].B...), "    "...), dName...)
	if byName {
		c.arg(cw, cd)
		c.args = append(c.args, bv(c.last))
		k, err := c.x(ctx, st.payByLast, c.out)
		if err != nil {
			return err
		}
		if k == 0 {
			return errNoCustomer
		}
		cust = c.out.Row(int((k - 1) / 2))[0].I // the middle one, rounded up (clause 2.5.2.2)
	}
	c.arg(cw, cd, cust)
	if _, err := c.one(ctx, st.payCustomer, c.out); err != nil {
		return err
	}
	if credit := c.out.Row(0)[9].B; len(credit) == 2 && credit[0] == 'B' && credit[1] == 'C' {
		c.arg(cw, cd, cust)
		if _, err := c.one(ctx, st.payCData, c.out); err != nil {
			return err
		}
		// c_data gets the payment's ids and amount in front, cut at 500 characters.
		b := strconv.AppendInt(c.cData[:0], cust, 10)
		for _, x := range [...]int64{cd, cw, d, c.w} {
			b = strconv.AppendInt(append(b, ' '), x, 10)
		}
		b = strconv.AppendInt(append(b, ' '), amount, 10)
		b = append(append(b, ' '), c.out.Row(0)[0].B...)
		c.cData = b[:min(len(b), 500)]
		c.arg(-amount, amount)
		c.args = append(c.args, bv(c.cData), iv(cw), iv(cd), iv(cust))
		if _, err := c.x(ctx, st.payUpdCustomerData, c.wr); err != nil {
			return err
		}
	} else {
		c.arg(-amount, amount, cw, cd, cust)
		if _, err := c.x(ctx, st.payUpdCustomer, c.wr); err != nil {
			return err
		}
	}
	c.arg(cd, cw, cust, d, c.w, time.Now().Unix(), amount)
	c.args = append(c.args, bv(c.hData))
	if _, err := c.x(ctx, st.payInsHistory, c.wr); err != nil {
		return err
	}
	c.added = 1
	return nil
}

// orderStatus is the Order-Status transaction (clause 2.6): a customer of a random district of
// the terminal's warehouse, by last name (60%) or id, their latest order and its lines.
func (c *terminal) orderStatus(ctx context.Context) error {
	st := c.st
	d := c.rng.Range(1, Districts)
	var cust int64
	if c.rng.Intn(100) < 60 {
		c.arg(c.w, d)
		c.args = append(c.args, bv(c.lastName()))
		k, err := c.x(ctx, st.osByLast, c.out)
		if err != nil {
			return err
		}
		if k == 0 {
			return errNoCustomer
		}
		cust = c.out.Row(int((k - 1) / 2))[3].I
	} else {
		cust = c.customer()
		c.arg(c.w, d, cust)
		if _, err := c.one(ctx, st.osByID, c.out); err != nil {
			return err
		}
	}
	c.arg(c.w, d, cust, 1, 0)
	k, err := c.x(ctx, st.osLatest, c.out)
	if err != nil || k == 0 {
		return err
	}
	c.arg(c.w, d, c.out.Row(0)[0].I)
	_, err = c.x(ctx, st.osLines, c.out)
	return err
}

// delivery is the Delivery transaction (clause 2.7), its deferred part done in the same call:
// the oldest undelivered order of each of the warehouse's ten districts is delivered by one
// carrier; a district with none is skipped.
func (c *terminal) delivery(ctx context.Context) error {
	st := c.st
	carrier := c.rng.Range(1, 10)
	now := time.Now().Unix()
	for d := int64(1); d <= Districts; d++ {
		c.arg(c.w, d, 1, 0)
		k, err := c.x(ctx, st.dlOldest, c.out)
		if err != nil {
			return err
		}
		if k == 0 {
			continue
		}
		o := c.out.Row(0)[0].I
		c.arg(c.w, d, o)
		k, err = c.x(ctx, st.dlDelNewOrder, c.wr)
		if err != nil {
			return err
		}
		if k == 0 {
			return errRaced
		}
		if _, err := c.one(ctx, st.dlOrder, c.out); err != nil {
			return err
		}
		cust, cnt := c.out.Row(0)[0].I, c.out.Row(0)[1].I
		if cnt < minLines || cnt > maxLines {
			return errNoOrder
		}
		c.arg(carrier, c.w, d, o)
		if _, err := c.x(ctx, st.dlUpdOrder, c.wr); err != nil {
			return err
		}
		c.arg(now, c.w, d, o)
		for l := int64(1); l <= cnt; l++ {
			c.args = append(c.args, iv(l))
		}
		if _, err := c.x(ctx, st.dlUpdLines[cnt], c.wr); err != nil {
			return err
		}
		c.arg(c.w, d, o)
		if _, err := c.exec(ctx, st.dlSum, c.out); err != nil {
			return err
		}
		total := c.out.Row(0)[0].I
		c.n += cnt // the lines SUM read
		c.arg(total, c.w, d, cust)
		if _, err := c.x(ctx, st.dlUpdCustomer, c.wr); err != nil {
			return err
		}
		c.added--
	}
	return nil
}

// stockLevel is the Stock-Level transaction (clause 2.8): how many of the distinct items of
// the last 20 orders of the terminal's district have a stock below a threshold of 10 to 20.
func (c *terminal) stockLevel(ctx context.Context) error {
	st := c.st
	threshold := c.rng.Range(10, 20)
	c.arg(c.w, c.d)
	if _, err := c.one(ctx, st.slNextOID, c.out); err != nil {
		return err
	}
	next := c.out.Row(0)[0].I
	c.arg(c.w, c.d, next-stockLevelOrders, next-1)
	_, err := c.x(ctx, st.slItems, c.out)
	if err != nil {
		return err
	}
	c.ids = c.ids[:0]
	for i := 0; i < c.out.N; i++ {
		c.ids = append(c.ids, c.out.Row(i)[0].I)
	}
	low := 0
	for lo := 0; lo < len(c.ids); lo += stockChunk {
		c.arg(c.w)
		for i := lo; i < lo+stockChunk; i++ {
			id := int64(0) // no item has id 0: the padding of the last chunk
			if i < len(c.ids) {
				id = c.ids[i]
			}
			c.args = append(c.args, iv(id))
		}
		_, err := c.x(ctx, st.slStock, c.out)
		if err != nil {
			return err
		}
		for i := 0; i < c.out.N; i++ {
			if c.out.Row(i)[0].I < threshold {
				low++
			}
		}
	}
	_ = low // the count shown to the user
	return nil
}

// errMissing is a row the data must hold that a statement did not find.
var errMissing = errors.New("tpcc: a row the data must hold is missing")

// Errors of data that is not TPC-C's (a missing customer, an order without its lines).
var (
	errNoCustomer = errors.New("tpcc: no customer found where the data must have one")
	errNoOrder    = errors.New("tpcc: an undelivered order without its orders row or with a bad o_ol_cnt")
)
