package kv

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/table"
)

// The run's operation kinds: each counts once in the rate; a read's units are the rows it
// found, a write's the keys it upserted, a span's the rows it counted.
var (
	kindRead  = runner.Kind{Name: "read", Role: results.RoleRead, Unit: "rows"}
	kindWrite = runner.Kind{Name: "write", Role: results.RoleWrite, Unit: "rows"}
	kindSpan  = runner.Kind{Name: "span", Role: results.RoleRead, Unit: "rows"}
)

var runPresentation = runner.Presentation{RateName: "ops", RateUnit: "operations/s", PerOp: "operation",
	Note: "ops = reads, writes and span queries per second, each once; per-op figures per operation"}

// maxConflictRetries bounds the tries of a write that meets another client's lock.
const maxConflictRetries = 100

// client is one client of the run step.
type client struct {
	r        *Run
	sess     table.Session
	rng      gen.Rand
	zipf     *gen.Zipf
	args     []table.Value
	keys     []int64
	numbers  []int64
	out, val *table.Rows
}

func (r *Run) runStep(ctx context.Context) (runner.Step, error) {
	cfg := &r.w.Cfg
	st := runner.Step{Name: StepRun, Presentation: runPresentation, Duration: time.Duration(cfg.RunSecs * float64(time.Second))}
	kRead, kWrite, kSpan := st.Kinds.Add(kindRead), st.Kinds.Add(kindWrite), st.Kinds.Add(kindSpan)
	st.RateKinds = []runner.KindID{kRead, kWrite, kSpan}
	for i := 0; i < cfg.Concurrency; i++ {
		sess, err := r.sessions.Open(ctx, r.eng)
		if err != nil {
			return st, err
		}
		no := r.w.Shard.Index*cfg.Concurrency + i // the client's number among all shards'
		c := &client{r: r, sess: sess, rng: gen.NewRand(gen.Mix(r.w.Seed ^ uint64(no+1)<<32 ^ 0x4b56)),
			args: make([]table.Value, 0, 2*cfg.Batch+1), keys: make([]int64, cfg.Batch), numbers: make([]int64, cfg.Batch),
			out: table.NewRows(2, cfg.Batch), val: table.NewRows(1, 1)}
		if cfg.Zipfian {
			c.zipf = gen.NewZipf(cfg.InsertCount, 0.99)
		}
		st.Workers = append(st.Workers, runner.Worker{Name: fmt.Sprintf("client %d", no+1), Role: runner.Driver,
			Op: func(ctx context.Context, m *runner.Meter) (bool, error) {
				t0 := time.Now()
				if m.Ended(t0) {
					return true, nil
				}
				switch p := int(c.rng.Intn(100)); {
				case p < cfg.ReadPercent:
					n, err := c.readOp(ctx)
					if err != nil {
						return ctx.Err() != nil, err
					}
					m.Done(kRead, t0, n)
				case p < cfg.ReadPercent+cfg.SpanPercent:
					n, err := c.spanOp(ctx)
					if err != nil {
						return ctx.Err() != nil, err
					}
					m.Done(kSpan, t0, n)
				default:
					if err := c.writeOp(ctx, m); err != nil {
						return ctx.Err() != nil, err
					}
					m.Done(kWrite, t0, cfg.Batch)
					m.Commit(1)
				}
				return false, nil
			}})
	}
	return st, nil
}

// readNumber draws the write number of an existing key: zipfian over the loaded keys, or
// uniform over the loaded keys and this shard's acknowledged writes.
func (c *client) readNumber() int64 {
	if c.zipf != nil {
		return c.zipf.Next(&c.rng)
	}
	lo, hi := c.r.w.Shard.Range(c.r.w.Cfg.InsertCount)
	loaded := hi - lo
	if c.r.w.Shard.Count <= 1 {
		lo, loaded = 0, c.r.w.Cfg.InsertCount
	}
	n := c.rng.Intn(max(loaded+c.r.written(), 1))
	if n < loaded {
		return lo + n
	}
	return c.r.number(n - loaded)
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
	if err != nil {
		return 0, err
	}
	slices.Sort(c.keys) // the distinct keys are the rows to find
	if want := int64(len(slices.Compact(c.keys))); n < want {
		c.r.missing.Add(want - n)
	}
	return int(n), nil
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
	if err != nil || c.r.w.Cfg.SpanLimit > 0 {
		return int(n), err
	}
	return int(c.out.Row(0)[0].I), nil // the count
}

// writeOp upserts --batch keys in one transaction (an upsert statement a key, in key order:
// two clients' batches lock their keys in one order) and acknowledges their write numbers once
// it committed. A conflict rolls back and tries the same keys again.
func (c *client) writeOp(ctx context.Context, m *runner.Meter) error {
	r := c.r
	for i := range c.numbers {
		if c.zipf != nil {
			c.numbers[i] = c.zipf.Next(&c.rng)
		} else {
			c.numbers[i] = r.ack.Next()
		}
	}
	slices.SortFunc(c.numbers, func(a, b int64) int { return cmp.Compare(r.w.key(r.num(a)), r.w.key(r.num(b))) })
	for try := 0; ; try++ {
		err := c.upsert(ctx)
		if err == nil {
			break
		}
		if !errors.Is(err, table.ErrConflict) || try == maxConflictRetries {
			return fmt.Errorf("write: %w", err)
		}
		m.Retry()
	}
	if c.zipf == nil {
		for _, n := range c.numbers {
			if err := r.ack.Acknowledge(n); err != nil {
				return err
			}
		}
	}
	return nil
}

// num is the write number of an acknowledged-counter number (the zipfian's are write numbers).
func (r *Run) num(n int64) int64 {
	if r.w.Cfg.Zipfian {
		return n
	}
	return r.number(n)
}

// upsert writes the batch in one transaction (a lone key in autocommit).
func (c *client) upsert(ctx context.Context) error {
	tx := len(c.numbers) > 1
	if tx {
		if err := c.sess.Begin(ctx); err != nil {
			return err
		}
	}
	for _, n := range c.numbers {
		c.val.Reset(1)
		v := c.r.w.value(c.val, &c.rng)
		c.args = append(c.args[:0], table.Value{I: c.r.w.key(c.r.num(n))}, table.Value{B: v}, table.Value{B: v})
		if _, err := c.sess.Exec(ctx, c.r.w.write, c.args, nil); err != nil {
			if tx {
				c.sess.Rollback(context.WithoutCancel(ctx))
			}
			return err
		}
	}
	if tx {
		return c.sess.Commit(ctx)
	}
	return nil
}

// Check implements workload.Run: no read missed a key; unsplit, the table holds exactly the keys
// loaded and written; split, every key this shard loaded and wrote reads back.
func (r *Run) Check(ctx context.Context) (string, error) {
	if !r.eng.Info().Stores {
		return "skipped: the engine stores nothing", nil
	}
	if n := r.missing.Load(); n > 0 {
		return "", fmt.Errorf("%d keys that reads chose were not found", n)
	}
	sess, err := r.eng.NewSession(ctx)
	if err != nil {
		return "", err
	}
	defer sess.Close()
	want := r.Rows()
	if r.w.Shard.Count <= 1 {
		got, err := sess.Count(ctx, r.w.t, -1)
		if err != nil || got != want {
			return "", errors.Join(err, fmt.Errorf("table kv has %d rows, want %d (%d loaded, %d written)", got, want, r.load.Rows(), r.written()))
		}
		return fmt.Sprintf("ok: %d rows (%d loaded, %d written), every read found its keys", got, r.load.Rows(), r.written()), nil
	}
	c := &client{r: r, sess: sess, out: table.NewRows(2, 1)}
	lo, hi := r.w.Shard.Range(r.w.Cfg.InsertCount)
	found := int64(0)
	for n := int64(0); n < want; n++ {
		num := lo + n
		if n >= hi-lo {
			num = r.number(n - (hi - lo))
		}
		c.out.Reset(2)
		got, err := sess.Exec(ctx, r.w.read1(), []table.Value{{I: r.w.key(num)}}, c.out)
		if err != nil {
			return "", err
		}
		found += got
	}
	if found != want {
		return "", fmt.Errorf("%d of this shard's %d keys are missing", want-found, want)
	}
	return fmt.Sprintf("ok: this shard's %d keys read back one by one, every read found its keys", want), nil
}

// read1 is the read of one key.
func (w *Workload) read1() *table.Stmt {
	s := *w.read
	s.InLen, s.SQL = 1, "SELECT k, v FROM kv WHERE k IN (?)"
	return &s
}
