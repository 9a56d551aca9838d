package gen

import (
	"errors"
	"fmt"
	"sync/atomic"
)

// AckWindow is the number of insert key numbers that may be handed out by an AckCounter beyond
// its acknowledged bound before Acknowledge refuses (YCSB's window of 2^20).
const AckWindow = 1 << 20

// AckCounter hands out insert key numbers and tracks which have been acknowledged, as YCSB's
// AcknowledgedCounterGenerator: Next gives each inserter a fresh number, Acknowledge marks one
// done once its insert has completed, and Last is the highest number up to which every number has
// been acknowledged, the bound for keys that reads may choose. It is safe for concurrent use by
// any number of goroutines: Next is one atomic add, Acknowledge sets a flag in a sliding window of
// AckWindow slots, and whichever acknowledger wins a compare-and-swap advances the bound over the
// run of set flags (the others do not wait).
type AckCounter struct {
	next      atomic.Int64 // the next number Next hands out
	limit     atomic.Int64 // Last
	advancing atomic.Bool  // held by the one goroutine advancing limit
	window    []atomic.Bool
}

// NewAckCounter returns a counter whose first Next is start; Last is start−1 until start is
// acknowledged. For a loaded table of recordcount keys 0..recordcount−1, start is recordcount.
func NewAckCounter(start int64) *AckCounter {
	c := &AckCounter{window: make([]atomic.Bool, AckWindow)}
	c.next.Store(start)
	c.limit.Store(start - 1)
	return c
}

// Next returns the next insert key number; every call returns a different number, counting up.
func (c *AckCounter) Next() int64 { return c.next.Add(1) - 1 }

// Last returns the highest key number v such that every number handed out up to v has been
// acknowledged (start−1 before any is). It never decreases.
func (c *AckCounter) Last() int64 { return c.limit.Load() }

// ErrAckWindow is returned by Acknowledge for a number more than AckWindow ahead of Last: too
// many inserts are outstanding behind it.
var ErrAckWindow = errors.New("gen: acknowledged key is more than AckWindow ahead of the acknowledged bound")

// Acknowledge marks v, a number returned by Next, as inserted. It fails with ErrAckWindow when v
// is AckWindow or more beyond Last, and with an error when v is at or below Last or was already
// acknowledged; the counter is unchanged then.
func (c *AckCounter) Acknowledge(v int64) error {
	limit := c.limit.Load()
	if v <= limit {
		return fmt.Errorf("gen: key %d acknowledged twice (the bound is %d)", v, limit)
	}
	if v-limit > AckWindow {
		return ErrAckWindow
	}
	if c.window[v&(AckWindow-1)].Swap(true) {
		return fmt.Errorf("gen: key %d acknowledged twice", v)
	}
	for c.advancing.CompareAndSwap(false, true) {
		i := c.limit.Load() + 1
		for c.window[i&(AckWindow-1)].Load() {
			c.window[i&(AckWindow-1)].Store(false)
			i++
		}
		c.limit.Store(i - 1)
		c.advancing.Store(false)
		// An acknowledger whose flag was set after the scan passed it and whose compare-and-swap
		// failed relies on this check: its flag is visible here, so the bound is advanced again.
		if !c.window[i&(AckWindow-1)].Load() {
			return nil
		}
	}
	return nil
}
