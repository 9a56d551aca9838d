package insert

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
)

// rowsPerQuery is the LIMIT of a range query and the number of keys of a point query.
const rowsPerQuery = 10

// lxRows is the number of rows l.x inserts before it creates the indexes.
const lxRows = 100

// client is the state of one client's table. nextID and minID are read by the query thread
// while the writer and deleter change them.
type client struct {
	no      int
	t       *table.Table
	gen     *Generator
	nextID  atomic.Int64 // next transactionid to insert; rows [minID, nextID) exist
	minID   atomic.Int64 // oldest transactionid not deleted
	indexed bool
	// acked and unknown count the rows the writer was told committed, and those of batches
	// whose outcome it found out itself, since BeforeFaults; lost is the rows the checks after
	// faults found missing (acknowledged inserts lost) less those found in excess
	// (acknowledged deletes lost): the table holds that many fewer (see acks.go).
	acked, unknown atomic.Int64
	lost           int64
}

// Run is the insert benchmark's state on one engine.
type Run struct {
	w        *Workload
	eng      table.Engine
	clients  []*client
	sessions workload.Sessions
	cleanAt  time.Time // when the cleanup started
	kinds    stepKinds // the current step's kind ids
}

// stepKinds are the ids of a step's operation kinds.
type stepKinds struct {
	insert, delete, createIndex, query runner.KindID
}

// Operation kinds besides the shared insert and create_index: rows deleted count by units
// (rows), queries by calls.
var (
	kindDelete     = runner.Kind{Name: "delete", Role: results.RoleDelete, Unit: "rows", CountUnits: true}
	kindRangeQuery = runner.Kind{Name: "range_query", Role: results.RoleRead, Unit: "rows"}
	kindPointQuery = runner.Kind{Name: "point_query", Role: results.RoleRead, Unit: "rows"}
)

// queryPresentation is the query steps' (the load steps and l.x use the workload package's).
var queryPresentation = runner.Presentation{RateName: "qps", RateUnit: "queries/s", PerOp: "query",
	Note: "per-op figures per query, wKB/i per background insert"}

// declareKinds sets the step's kinds and presentation and records their ids for its workers.
func (r *Run) declareKinds(st *runner.Step) {
	st.Kinds = nil
	r.kinds.insert = st.Kinds.Add(workload.KindInsert)
	withDeletes := r.w.Cfg.DeletePerInsert && st.Name != "l.i0" && st.Name != "l.x"
	if withDeletes {
		r.kinds.delete = st.Kinds.Add(kindDelete)
	}
	switch {
	case st.Name == "l.x":
		r.kinds.createIndex = st.Kinds.Add(workload.KindCreateIndex)
		st.RateKinds, st.Presentation = []runner.KindID{r.kinds.createIndex}, workload.IndexPresentation
	case st.Name[0] == 'q':
		q := kindRangeQuery
		if st.Name[1] == 'p' {
			q = kindPointQuery
		}
		r.kinds.query = st.Kinds.Add(q)
		st.RateKinds, st.Presentation = []runner.KindID{r.kinds.query}, queryPresentation
	default:
		st.RateKinds, st.Presentation = []runner.KindID{r.kinds.insert}, workload.LoadPresentation
	}
}

var _ workload.Run = (*Run)(nil)

// Open implements workload.Workload: it creates one table per client, with the secondary
// indexes unless l.x will create them.
func (w *Workload) Open(ctx context.Context, eng table.Engine) (workload.Run, error) {
	r := &Run{w: w, eng: eng}
	withIndexes := !w.Runs("l.x")
	for _, i := range w.clientNos() {
		c := &client{no: i, t: NewTable(i), gen: NewGenerator(w.Seed, i), indexed: withIndexes}
		c.nextID.Store(1)
		c.minID.Store(1)
		if err := eng.CreateTable(ctx, c.t, withIndexes); err != nil {
			return nil, err
		}
		r.clients = append(r.clients, c)
	}
	return r, nil
}

// Rows implements workload.Run.
func (r *Run) Rows() int64 {
	var n int64
	for _, c := range r.clients {
		n += c.nextID.Load() - c.minID.Load()
	}
	return n
}

// session opens a session that Close will close.
func (r *Run) session(ctx context.Context) (table.Session, error) { return r.sessions.Open(ctx, r.eng) }

// Close implements workload.Run: it closes the sessions of the last step.
func (r *Run) Close() error { return r.sessions.Close() }

// Prepare implements workload.Run: before the first query step it runs the engine's cleanup and
// waits out the configured settling time.
func (r *Run) Prepare(ctx context.Context, name string) (string, error) {
	if name[0] != 'q' || !r.cleanAt.IsZero() {
		return "", nil
	}
	r.cleanAt = time.Now()
	what, err := r.eng.Cleanup(ctx)
	if err != nil {
		return "", fmt.Errorf("cleanup: %w", err)
	}
	if wait := time.Until(r.cleanAt.Add(cleanupWait(&r.w.Cfg, r.w.Shard))); wait > 0 {
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return what, ctx.Err()
		}
	}
	return what, nil
}

// Step implements workload.Run. The sessions of the previous step are closed first: each step
// works on its own sessions (connections). The load, l.i0, is the reference's: one writer per
// table inserting in key order (the writer of every insert step), not workload.Loader's
// clients, which take any table's next batch.
func (r *Run) Step(ctx context.Context, name string) (runner.Step, error) {
	if err := r.Close(); err != nil {
		return runner.Step{}, err
	}
	st := runner.Step{Name: name}
	r.declareKinds(&st)
	for _, c := range r.clients {
		var err error
		switch name {
		case "l.x":
			err = r.addIndexer(ctx, &st, c)
		case "l.i0":
			err = r.addWriter(ctx, &st, c, r.w.Cfg.Rows, r.w.rowsPerCommit(name), 0, false)
		case "l.i1":
			err = r.addWriter(ctx, &st, c, r.w.Cfg.Writes*4/5, r.w.rowsPerCommit(name), 0, r.w.Cfg.DeletePerInsert)
		case "l.i2":
			err = r.addWriter(ctx, &st, c, r.w.Cfg.Writes-r.w.Cfg.Writes*4/5, r.w.rowsPerCommit(name), 0, r.w.Cfg.DeletePerInsert)
		default:
			err = r.addQueryStep(ctx, &st, c, name)
		}
		if err != nil {
			return st, err
		}
	}
	if name[0] == 'q' {
		st.Warmup = time.Duration(r.w.Cfg.WarmupSecs * float64(time.Second))
		st.TargetInsertRate = queryRate(name) * float64(len(r.clients))
		st.MaxDuration = time.Duration((3*r.w.Cfg.QuerySecs + 10) * float64(time.Second))
	}
	return st, nil
}

func (r *Run) addQueryStep(ctx context.Context, st *runner.Step, c *client, name string) error {
	rate := queryRate(name)
	rpc := min(r.w.rowsPerCommit(name), int(rate)) // the reference lowers the batch to the rate
	if err := r.addWriter(ctx, st, c, int64(r.w.Cfg.QuerySecs*rate), rpc, rate/float64(rpc), r.w.Cfg.DeletePerInsert); err != nil {
		return err
	}
	s, err := r.session(ctx)
	if err != nil {
		return err
	}
	q := &querier{c: c, s: s, point: name[1] == 'p', kind: r.kinds.query, rnd: gen.NewRand(gen.Mix(r.w.Seed ^ gen.Mix(uint64(c.no)<<8|uint64(stepIndex(name)))))}
	q.out = table.NewRows(3, rowsPerQuery)
	st.Workers = append(st.Workers, runner.Worker{Name: "query " + c.t.Name, Role: runner.Background, Op: q.op})
	return nil
}
