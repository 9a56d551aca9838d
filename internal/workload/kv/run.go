package kv

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
)

// The run's kinds, each once in the rate; units: rows found, keys upserted, rows counted.
var kinds = runner.Kinds{{Name: "read", Role: results.RoleRead, Unit: "rows"}, {Name: "write", Role: results.RoleWrite, Unit: "rows"}, {Name: "span", Role: results.RoleRead, Unit: "rows"}}

// key is the key of write number n: n with --sequential, else its hash with the seed.
func (w *Workload) key(n int64) int64 {
	if w.Cfg.Sequential {
		return n
	}
	return int64(gen.Mix(uint64(n) ^ gen.Mix(w.Seed)))
}

// value appends to rows a value of random bytes, of a length between the bounds.
func (w *Workload) value(rows *table.Rows, rng *gen.Rand) []byte {
	v := rows.Alloc(int(rng.Range(int64(w.Cfg.MinBlock), int64(w.Cfg.MaxBlock))))
	for i := range v {
		v[i] = byte(rng.Uint64())
	}
	return v
}

// fill writes load batch i: write numbers i×loadBatch on, each value seeded by its number.
func (w *Workload) fill(i int64, rows *table.Rows) {
	for n := i * loadBatch; n < min((i+1)*loadBatch, w.Cfg.InsertCount); n++ {
		rng := gen.NewRand(gen.Mix(w.Seed ^ uint64(n)))
		row := rows.Append()
		row[0].I, row[1].B = w.key(n), w.value(rows, &rng)
	}
}

// written is the new keys this shard's acknowledged writes added (--zipfian's update loaded ones).
func (r *Run) written() int64 {
	if r.w.Cfg.Zipfian {
		return 0
	}
	return r.ack.Last() + 1
}

// number is the write number of this shard's n-th write: after the load's, shards interleaved.
func (r *Run) number(n int64) int64 {
	return r.w.Cfg.InsertCount + n*int64(max(r.w.Shard.Count, 1)) + int64(r.w.Shard.Index)
}

// client is one client of the run step.
type client struct {
	r     *Run
	sess  table.Session
	rng   gen.Rand
	zipf  *gen.Zipf
	args  []table.Value
	keys  []int64 // a read's keys
	wkeys []int64 // a write's numbers
	// pending: the write of wkeys failed and is sent again (writeOp).
	pending bool
	out     *table.Rows
}

func (r *Run) runStep(ctx context.Context) (runner.Step, error) {
	cfg := &r.w.Cfg
	st := runner.Step{Name: StepRun, Kinds: kinds, RateKinds: []runner.KindID{0, 1, 2}, Duration: time.Duration(cfg.RunSecs * float64(time.Second)),
		Presentation: runner.Presentation{RateName: "ops", RateUnit: "operations/s", PerOp: "operation", Note: "ops = reads, writes and spans per second"}}
	var err error
	st.Workers, err = r.Clients(ctx, r.w.Shard.Index*cfg.Concurrency, cfg.Concurrency, func(no int, sess table.Session) runner.OpFunc {
		c := &client{r: r, sess: sess, rng: gen.NewRand(gen.Mix(r.w.Seed ^ uint64(no+1)<<32)), keys: make([]int64, cfg.Batch), wkeys: make([]int64, cfg.Batch),
			out: table.NewRows(2, cfg.Batch)}
		if cfg.Zipfian {
			c.zipf = gen.NewZipf(cfg.InsertCount, 0.99)
		}
		return c.op
	})
	return st, err
}

// op runs one operation of the mix: a read, a span or a write.
func (c *client) op(ctx context.Context, m *runner.Meter) (bool, error) {
	t0 := time.Now()
	if m.Ended(t0) {
		return true, nil
	}
	k, n, err := c.next(ctx, m)
	if err != nil {
		return ctx.Err() != nil, err
	}
	m.Done(k, t0, n)
	return false, nil
}

// next runs the operation the mix draws and returns its kind and units.
func (c *client) next(ctx context.Context, m *runner.Meter) (runner.KindID, int, error) {
	switch p, cfg := int(c.rng.Intn(100)), &c.r.w.Cfg; {
	case p < cfg.ReadPercent:
		n, err := c.readOp(ctx)
		return 0, n, err
	case p < cfg.ReadPercent+cfg.SpanPercent:
		n, err := c.spanOp(ctx)
		return 2, n, err
	}
	return 1, len(c.wkeys), c.writeOp(ctx, m)
}

// readNumber draws the write number of an existing key: zipfian over the loaded keys, or
// uniform over the loaded keys (all shards') and this shard's acknowledged writes.
func (c *client) readNumber() int64 {
	if c.zipf != nil {
		return c.zipf.Next(&c.rng)
	}
	n := c.rng.Intn(max(c.r.w.Cfg.InsertCount+c.r.written(), 1))
	if n < c.r.w.Cfg.InsertCount {
		return n
	}
	return c.r.number(n - c.r.w.Cfg.InsertCount)
}

// readOp reads --batch existing keys in one IN list and returns the rows found; a key not found
// counts as missing (the check fails on it).
func (c *client) readOp(ctx context.Context) (int, error) {
	c.args = c.args[:0]
	for i := range c.keys {
		c.keys[i] = c.r.w.key(c.readNumber())
		c.args = append(c.args, table.Value{I: c.keys[i]})
	}
	c.out.Reset(2)
	n, err := c.sess.Exec(ctx, c.r.w.read, c.args, c.out)
	slices.Sort(c.keys) // the distinct keys are the rows to find
	if want := int64(len(slices.Compact(c.keys))); err == nil && n < want {
		c.r.missing.Add(want - n)
	}
	return int(n), err
}

// spanOp counts the values from a random existing key (--span-limit rows at most), or of the
// whole table.
func (c *client) spanOp(ctx context.Context) (int, error) {
	c.args = c.args[:0]
	if c.r.w.Cfg.SpanLimit > 0 {
		c.args = append(c.args, table.Value{I: c.r.w.key(c.readNumber())}, table.Value{I: int64(c.r.w.Cfg.SpanLimit)})
	}
	c.out.Reset(1)
	n, err := c.sess.Exec(ctx, c.r.w.span, c.args, c.out)
	if err == nil && c.r.w.Cfg.SpanLimit == 0 {
		n = c.out.Row(0)[0].I // the count
	}
	return int(n), err
}

// writeOp upserts --batch keys in one transaction, in key order (two clients' batches lock their
// keys in one order), and acknowledges them once it committed. A lock conflict rolls back and
// tries the same keys again.
// A batch that failed (a lost connection the run goes on through) is written again, the same
// keys, at the client's next write: an upsert may be sent twice.
func (c *client) writeOp(ctx context.Context, m *runner.Meter) error {
	r := c.r
	for i := 0; !c.pending && i < len(c.wkeys); i++ {
		if c.zipf != nil {
			c.wkeys[i] = c.zipf.Next(&c.rng)
		} else {
			c.wkeys[i] = r.number(r.ack.Next())
		}
	}
	slices.SortFunc(c.wkeys, func(a, b int64) int { return cmp.Compare(r.w.key(a), r.w.key(b)) })
	if err := workload.RetryConflicts(m, 100, func() error { return c.upsert(ctx) }); err != nil {
		c.pending = ctx.Err() == nil
		return fmt.Errorf("write: %w", err)
	}
	c.pending = false
	for i := 0; c.zipf == nil && i < len(c.wkeys); i++ {
		if err := r.ack.Acknowledge((c.wkeys[i] - r.w.Cfg.InsertCount - int64(r.w.Shard.Index)) / int64(max(r.w.Shard.Count, 1))); err != nil { // number's inverse
			return err
		}
	}
	m.Commit(1)
	return nil
}

// upsert writes the batch in one transaction.
func (c *client) upsert(ctx context.Context) error {
	return workload.InTx(ctx, c.sess, len(c.wkeys), func(i int) error {
		c.out.Reset(1)
		v := c.r.w.value(c.out, &c.rng)
		c.args = append(c.args[:0], table.Value{I: c.r.w.key(c.wkeys[i])}, table.Value{B: v}, table.Value{B: v})
		_, err := c.sess.Exec(ctx, c.r.w.write, c.args, nil)
		return err
	})
}

// Check implements workload.Run: no read missed a key, and the table holds every key loaded and
// written: unsplit, exactly those (a count); split, this shard's read back one by one.
func (r *Run) Check(ctx context.Context) (string, error) {
	if !r.Eng.Info().Stores {
		return "skipped: the engine stores nothing", nil
	}
	sess, err := workload.CheckSession(ctx, r.Eng)
	if err != nil {
		return "", err
	}
	defer sess.Close()
	want, found := r.Rows(), int64(0)
	lo, _ := r.w.loaded()
	if r.w.Shard.Count <= 1 {
		found, err = sess.Count(ctx, r.w.t, -1)
	} else {
		found, err = workload.ReadBack(ctx, sess, r.w.read1, want, func(n int64) []table.Value {
			if n < r.Load.Rows() {
				return []table.Value{{I: r.w.key(lo + n)}}
			}
			return []table.Value{{I: r.w.key(r.number(n - r.Load.Rows()))}}
		})
	}
	switch {
	case err != nil:
		return "", err
	case found != want-r.lost:
		return "", fmt.Errorf("%d of the %d keys loaded and written (%d loaded, %d lost after faults) were found", found, want, r.Load.Rows(), r.lost)
	case r.lost > 0:
		return fmt.Sprintf("%d rows (%d loaded, %d written, %d acknowledged lost after faults; %d reads did not find a key)", found, r.Load.Rows(), r.written(), r.lost, r.missing.Load()), nil
	case r.missing.Load() > 0:
		return "", fmt.Errorf("%d keys that reads chose were not found", r.missing.Load())
	}
	return fmt.Sprintf("ok: %d rows (%d loaded, %d written), every read found its keys", want, r.Load.Rows(), r.written()), nil
}
