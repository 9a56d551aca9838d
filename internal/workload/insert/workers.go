package insert

import (
	"context"
	"time"

	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/table"
)

// deleteLag is how many insert batches the deleter may fall behind before the writer waits: the
// reference's statement queues hold 8.
const deleteLag = 8

// writer inserts rows batches of rpc rows until it has inserted total rows. With a deleter, it
// hands every batch's row count to it.
type writer struct {
	r       *Run
	c       *client
	s       table.Session
	rows    *table.Rows
	total   int64
	done    int64
	rpc     int
	kind    runner.KindID
	deletes chan int // nil without deletes; closed when the writer is done
	// pending is set by a batch whose connection broke in flight (table.UnknownOutcome): before
	// anything else the writer finds out whether it committed (resolve).
	pending bool
	probe   *table.Rows
}

func (r *Run) addWriter(ctx context.Context, st *runner.Step, c *client, total int64, rpc int, batchRate float64, deletes bool) error {
	s, err := r.session(ctx)
	if err != nil {
		return err
	}
	w := &writer{r: r, c: c, s: s, rows: table.NewRows(numCols, rpc), total: total, rpc: rpc, kind: r.kinds.insert}
	// The run's --rate counts rows: a call inserts rpc of them.
	st.Workers = append(st.Workers, runner.Worker{Name: "writer " + c.t.Name, Role: runner.Driver, Rate: batchRate, Op: w.op, PaceUnits: rpc})
	if !deletes {
		return nil
	}
	ds, err := r.session(ctx)
	if err != nil {
		return err
	}
	w.deletes = make(chan int, deleteLag)
	d := &deleter{c: c, s: ds, batches: w.deletes, kind: r.kinds.delete}
	st.Workers = append(st.Workers, runner.Worker{Name: "deleter " + c.t.Name, Role: runner.Driver, Op: d.op, Unpaced: true})
	return nil
}

func (w *writer) op(ctx context.Context, m *runner.Meter) (bool, error) {
	n := int(min(int64(w.rpc), w.total-w.done))
	if n <= 0 {
		if w.deletes != nil {
			close(w.deletes)
		}
		return true, nil
	}
	first := w.c.nextID.Load()
	if w.pending {
		// The last batch's outcome was unknown: its rows are there (it committed, unseen) or
		// not (it is sent again). Either way the rows stay [minID, nextID), without holes.
		committed, err := resolve(ctx, w.s, w.c.t, first, &w.probe)
		if err != nil {
			return false, err
		}
		w.pending = false
		if committed {
			w.c.unknown.Add(int64(n))
			w.inserted(first, n)
			return false, w.handOn(ctx, n)
		}
	}
	w.c.gen.Fill(w.rows, first, n, w.r.w.Cfg.Now().Unix())
	start := time.Now()
	if err := w.s.Insert(ctx, w.c.t, w.rows); err != nil {
		w.pending = table.UnknownOutcome(err)
		return false, err
	}
	m.Done(w.kind, start, n)
	w.c.acked.Add(int64(n))
	w.inserted(first, n)
	return false, w.handOn(ctx, n)
}

// inserted records n rows from first as inserted.
func (w *writer) inserted(first int64, n int) {
	w.c.nextID.Store(first + int64(n))
	w.done += int64(n)
}

// handOn gives the deleter, if any, a batch of n rows to delete.
func (w *writer) handOn(ctx context.Context, n int) error {
	if w.deletes != nil {
		select {
		case w.deletes <- n:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// resolve says whether the row with primary key pk exists: whether a batch that holds it, whose
// outcome was unknown, committed (or a delete from it did not). out is the caller's buffer.
func resolve(ctx context.Context, s table.Session, t *table.Table, pk int64, out **table.Rows) (bool, error) {
	if *out == nil {
		*out = table.NewRows(1, 1)
	}
	(*out).Reset(1)
	if err := s.Get(ctx, t, []int64{pk}, []int{0}, *out); err != nil {
		return false, err
	}
	return (*out).N > 0, nil
}

// deleter deletes, for each batch the writer reports, as many of the oldest rows.
type deleter struct {
	c       *client
	s       table.Session
	batches chan int
	kind    runner.KindID
	// pending is the row count of a delete whose connection broke in flight (0: none): before
	// the next, the deleter finds out whether it committed.
	pending int
	probe   *table.Rows
}

func (d *deleter) op(ctx context.Context, m *runner.Meter) (bool, error) {
	n := d.pending
	from := d.c.minID.Load()
	if n > 0 {
		// The last delete's outcome was unknown: its oldest row is gone when it committed.
		there, err := resolve(ctx, d.s, d.c.t, from, &d.probe)
		if err != nil {
			return false, err
		}
		d.pending = 0
		if !there {
			d.c.minID.Store(from + int64(n))
			return false, nil
		}
	} else {
		var ok bool
		select {
		case n, ok = <-d.batches:
			if !ok {
				return true, nil
			}
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	start := time.Now()
	got, err := d.s.DeleteOldest(ctx, d.c.t, from, n)
	if err != nil {
		if ctx.Err() == nil {
			d.pending = n // resolved (or deleted again) at the next call
		}
		return false, err
	}
	m.Done(d.kind, start, got)
	d.c.minID.Store(from + int64(got))
	return false, nil
}

// addIndexer adds l.x's worker for c: insert 100 rows, then create the secondary indexes.
func (r *Run) addIndexer(ctx context.Context, st *runner.Step, c *client) error {
	s, err := r.session(ctx)
	if err != nil {
		return err
	}
	rows := table.NewRows(numCols, lxRows)
	kInsert, kIndex := r.kinds.insert, r.kinds.createIndex
	op := func(ctx context.Context, m *runner.Meter) (bool, error) {
		first := c.nextID.Load()
		c.gen.Fill(rows, first, lxRows, r.w.Cfg.Now().Unix())
		start := time.Now()
		if err := s.Insert(ctx, c.t, rows); err != nil {
			return false, err
		}
		m.Done(kInsert, start, lxRows)
		c.nextID.Store(first + lxRows)
		start = time.Now()
		if err := r.eng.CreateIndexes(ctx, c.t); err != nil {
			return false, err
		}
		c.indexed = true
		m.Done(kIndex, start, int(c.nextID.Load()-c.minID.Load()))
		return true, nil
	}
	st.Workers = append(st.Workers, runner.Worker{Name: "indexer " + c.t.Name, Role: runner.Driver, Op: op})
	return nil
}

// querier is a client's closed-loop query thread: range queries (one of the three indexes,
// chosen uniformly, from a uniform start) or 10-key point queries over the live key range.
type querier struct {
	c     *client
	s     table.Session
	point bool
	kind  runner.KindID // point_query or range_query
	rnd   gen.Rand
	out   *table.Rows
	pks   [rowsPerQuery]int64
	start [1]table.Value
}

// pointCols are the columns a point query returns.
var pointCols = []int{colTransactionID, colProductID, colData}

func (q *querier) op(ctx context.Context, m *runner.Meter) (bool, error) {
	q.out.Reset(3)
	if q.point {
		lo, hi := q.c.minID.Load(), q.c.nextID.Load()
		if hi <= lo {
			hi = lo + 1
		}
		for i := range q.pks {
			q.pks[i] = lo + q.rnd.Intn(hi-lo)
		}
		start := time.Now()
		if err := q.s.Get(ctx, q.c.t, q.pks[:], pointCols, q.out); err != nil {
			return false, err
		}
		m.Done(q.kind, start, q.out.N)
		return false, nil
	}
	ix := int(q.rnd.Intn(3))
	var inclusive = true
	switch ix {
	case ixMarket:
		q.start[0].I = q.rnd.Intn(products)
	case ixRegister:
		q.start[0].I = q.rnd.Intn(cashRegisters)
		inclusive = false // the reference's register query uses a strict >
	case ixPDC:
		q.start[0].I = q.rnd.Intn(maxPrice)
	}
	start := time.Now()
	if err := q.s.Scan(ctx, q.c.t, ix, q.start[:], inclusive, rowsPerQuery, q.out); err != nil {
		return false, err
	}
	m.Done(q.kind, start, q.out.N)
	return false, nil
}
