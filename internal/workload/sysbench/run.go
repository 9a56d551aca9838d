package sysbench

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
)

// loadBatch is the rows per insert transaction of the load.
const loadBatch = 1000

// Run is the suite's state on one engine.
type Run struct {
	w      *Workload
	eng    table.Engine
	stores bool
	tables []*stmts
	// rows is each table's row count by the workload's own count.
	rows     []atomic.Int64
	zipf     *gen.Zipf
	sessions workload.Sessions
	prev     string // the previous step

	mu       sync.Mutex
	returned map[string]int64 // rows the selects of each test returned
	// acks are each test's acknowledged and unknown write events (see thread).
	acks map[string]ackCount
	// sumK is the tables' sum of k, read before and after a step with faults (acks).
	sumK workload.Growth
	// dupRetry: a duplicate key restarts an event, as a conflict does (PostgreSQL's dialect:
	// see retryable).
	dupRetry bool
	// unknownRows counts the events of unknown outcome that may have changed a table's row
	// count by one (a delete or an insert): the count check allows as many rows more or less.
	unknownRows atomic.Int64
	// indexDone is set when the index step has built every index.
	indexDone atomic.Bool
}

var _ workload.Run = (*Run)(nil)

// Open implements workload.Workload: it creates the sbtest tables (the index on k comes after
// the load).
func (w *Workload) Open(ctx context.Context, eng table.Engine) (workload.Run, error) {
	r := w.newRun(eng)
	for _, i := range w.tableNos() {
		t := newTable(i)
		if err := eng.CreateTable(ctx, t, false); err != nil {
			return nil, err
		}
		r.tables = append(r.tables, newStmts(t, w.Cfg.Prepared))
	}
	return r, nil
}

// newRun returns a run on eng with no tables yet.
func (w *Workload) newRun(eng table.Engine) *Run {
	r := &Run{w: w, eng: eng, stores: eng.Info().Stores, rows: make([]atomic.Int64, len(w.tableNos())), returned: map[string]int64{}, acks: map[string]ackCount{},
		dupRetry: eng.Info().Dialect == table.DialectPostgres}
	// The zipfian generator's setup is O(table size): build it once, when a test needs it.
	for _, t := range w.tests() {
		if t.event == evUpdateZipf || w.Cfg.RandType == "zipfian" {
			r.zipf = gen.NewZipf(w.Cfg.TableSize, zipfExp)
			break
		}
	}
	return r
}

// Rows implements workload.Run.
func (r *Run) Rows() int64 {
	var n int64
	for i := range r.rows {
		n += r.rows[i].Load()
	}
	return n
}

// RowsReturned returns the rows the selects of test returned in all, for checks across
// engines.
func (r *Run) RowsReturned(test string) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.returned[test]
}

// Close implements workload.Run: it closes the sessions of the last step.
func (r *Run) Close() error { return r.sessions.Close() }

// Prepare implements workload.Run: the flush after the load (before the first test) and after the
// write tests (before the first read test that follows them), as the reference's postwrite step:
// the engine's cleanup, then the settling wait.
func (r *Run) Prepare(ctx context.Context, name string) (string, error) {
	prev := r.prev
	r.prev = name
	t, ok := r.w.test(name)
	if !ok {
		return "", nil
	}
	pt, prevIsTest := r.w.test(prev)
	if prevIsTest && (!pt.Write || t.Write) {
		return "", nil
	}
	if prev == "" {
		return "", nil
	}
	start := time.Now()
	what, err := r.eng.Cleanup(ctx)
	if err != nil {
		return "", err
	}
	if wait := cleanupWait(&r.w.Cfg) - time.Since(start); wait > 0 {
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(wait):
		}
		what += fmt.Sprintf("; waited %.0fs", cleanupWait(&r.w.Cfg).Seconds())
	}
	if prevIsTest {
		return "post-write flush: " + what, nil
	}
	return "post-load flush: " + what, nil
}

// Step implements workload.Run: name is one of the workload's steps (Build refused any other).
func (r *Run) Step(ctx context.Context, name string) (runner.Step, error) {
	if err := r.sessions.Close(); err != nil {
		return runner.Step{}, err
	}
	switch name {
	case StepLoad:
		return r.loadStep(ctx)
	case StepIndex:
		return r.indexStep(), nil
	}
	return r.testStep(ctx, testsByName[name])
}

// loadStep loads every table: rows 1..TableSize (a shard of shared tables: its id range) in id
// order, loadBatch rows per transaction, one worker per table up to Threads. It is the
// reference's load (sysbench prepare: each thread loads its tables, one after the other, in id
// order), not workload.Loader's clients, which take any table's next batch.
func (r *Run) loadStep(ctx context.Context) (runner.Step, error) {
	cfg := &r.w.Cfg
	st := runner.Step{Name: StepLoad, Presentation: workload.LoadPresentation}
	kInsert := st.Kinds.Add(workload.KindInsert)
	st.RateKinds = []runner.KindID{kInsert}
	tables := len(r.tables)
	first := r.w.firstTable() // the global index of r.tables[0]
	idLo, idHi := r.w.idRange()
	workers := min(cfg.Threads, tables)
	for wn := 0; wn < workers; wn++ {
		sess, err := r.session(ctx)
		if err != nil {
			return st, err
		}
		ti, next := wn, idLo // table index, next id
		rows := table.NewRows(4, loadBatch)
		var text []byte
		st.Workers = append(st.Workers, runner.Worker{Name: fmt.Sprintf("loader %d", wn+1), Role: runner.Driver,
			Op: func(ctx context.Context, m *runner.Meter) (bool, error) {
				if ti >= tables {
					return true, nil
				}
				n := min(int64(loadBatch), idHi-next+1)
				rng := gen.NewRand(gen.Mix(r.w.Seed ^ uint64(first+int64(ti))<<40 ^ uint64(next)))
				rows.Reset(4)
				text = text[:0]
				for i := int64(0); i < n; i++ {
					start := len(text)
					text = appendDigits(text, &rng, 10)
					text = appendDigits(text, &rng, 5)
					row := rows.AppendRaw()
					row[colID] = table.Value{I: next + i}
					row[colK] = table.Value{I: rng.Range(1, cfg.TableSize)}
					row[colC] = table.Value{B: text[start : start+cLen]}
					row[colPad] = table.Value{B: text[start+cLen+1:]}
				}
				t0 := time.Now()
				if err := sess.Insert(ctx, r.tables[ti].t, rows); err != nil {
					return false, err
				}
				m.Done(kInsert, t0, int(n))
				m.Commit(1)
				r.rows[ti].Add(n)
				next += n
				if next > idHi {
					ti, next = ti+workers, idLo
				}
				return ti >= tables, nil
			}})
	}
	return st, nil
}

// indexStep creates the secondary index of every table.
func (r *Run) indexStep() runner.Step {
	done := false
	var kinds runner.Kinds
	kIndex := kinds.Add(workload.KindCreateIndex)
	return runner.Step{Name: StepIndex, Kinds: kinds, RateKinds: []runner.KindID{kIndex}, Presentation: workload.IndexPresentation, Workers: []runner.Worker{{
		Name: "create index", Role: runner.Driver,
		Op: func(ctx context.Context, m *runner.Meter) (bool, error) {
			if done || (r.w.shareTables && r.w.Shard.Index != 0) {
				// Shared tables: shard 0 builds the indexes, the others' next step waits at
				// the barrier until it has.
				r.indexDone.Store(true)
				return true, nil
			}
			for i, s := range r.tables {
				t0 := time.Now()
				if err := r.eng.CreateIndexes(ctx, s.t); err != nil {
					return false, err
				}
				m.Done(kIndex, t0, int(r.rows[i].Load()))
			}
			done = true
			r.indexDone.Store(true)
			return true, nil
		}}}}
}

// kindEvent is a test's operation: an event (a transaction, or one statement outside a
// transaction), counted by the statements it ran, BEGIN and COMMIT included, as the reference's
// QPS does. The load and the index build use the workload package's insert and create_index.
var kindEvent = runner.Kind{Name: "event", Role: results.RoleOther, Unit: "statements", CountUnits: true}

// testPresentation is the tests' (the load and the index build use the workload package's).
var testPresentation = runner.Presentation{RateName: "qps", RateUnit: "statements/s", PerOp: "statement",
	Note: "qps = statements/s incl. BEGIN/COMMIT, scan: Krps; per-op figures per statement"}

// scanRate is the scan test's rate as the reference reports it: rows scanned per millisecond of
// mean event latency, thousand rows per second.
func scanRate(r *results.Step, rows float64) float64 {
	for _, l := range r.Latency {
		if l.Kind == kindEvent.Name && l.MeanUs > 0 {
			return rows / (l.MeanUs / 1e3)
		}
	}
	return 0
}

// testStep makes the threads of one test. Each runs events until the test's time (after its
// warm-up) is up, or its share of Events is done.
func (r *Run) testStep(ctx context.Context, t Test) (runner.Step, error) {
	cfg := &r.w.Cfg
	secs := cfg.ReadSecs
	if t.Write {
		secs = cfg.WriteSecs
	}
	st := runner.Step{Name: t.Name, Presentation: testPresentation,
		Warmup:   time.Duration(cfg.WarmupSecs * float64(time.Second)),
		Duration: time.Duration(secs * float64(time.Second)), Percentiles: cfg.Percentiles}
	st.Group = t.Group
	kEvent := st.Kinds.Add(kindEvent)
	st.RateKinds = []runner.KindID{kEvent}
	if t.event == evScan {
		st.RateName, st.RateUnit = "Krps", "thousand rows/s"
		rows := float64(cfg.TableSize)
		st.Finish = func(res *results.Step) { res.Rate = scanRate(res, rows) }
	}
	all := int64(r.w.allThreads())
	for local := 0; local < cfg.Threads; local++ {
		i := r.w.firstThread() + local // the thread's number among all shards' threads
		sess, err := r.session(ctx)
		if err != nil {
			return st, err
		}
		th := &thread{no: i, r: r, test: t, sess: sess, out: table.NewRows(4, 128), seen: map[int64]struct{}{},
			rng: gen.NewRand(gen.Mix(r.w.Seed ^ uint64(i+1)<<32 ^ hashName(t.Name)))}
		left := int64(-1)
		if cfg.Events > 0 {
			left = cfg.Events / all
			if int64(i) < cfg.Events%all {
				left++
			}
		}
		st.Workers = append(st.Workers, runner.Worker{Name: fmt.Sprintf("thread %d", i+1), Role: runner.Driver,
			Finish: func() { r.addReturned(t.Name, th) },
			Op: func(ctx context.Context, m *runner.Meter) (bool, error) {
				t0 := time.Now()
				if left == 0 || m.Ended(t0) {
					return true, nil
				}
				n, err := th.event(ctx)
				if err != nil {
					if ctx.Err() != nil {
						return true, nil
					}
					if r.retryable(err) {
						m.Retry()
						return false, nil
					}
					if t.Write && table.UnknownOutcome(err) {
						th.unknown++
						if t.event == evInsert || t.event == evDelete {
							r.unknownRows.Add(1)
						}
					}
					return false, err
				}
				m.Done(kEvent, t0, n)
				if t.Write {
					m.Commit(1) // one write transaction per event: the denominator of syncs per commit
					th.acked++
				}
				if left > 0 && m.InWindow(t0) {
					left--
				}
				return false, nil
			}})
	}
	return st, nil
}

// addReturned adds a finished thread's returned-row count and write events to its test's
// totals.
func (r *Run) addReturned(test string, th *thread) {
	r.mu.Lock()
	r.returned[test] += th.rows
	a := r.acks[test]
	a.acked, a.unknown = a.acked+th.acked, a.unknown+th.unknown
	r.acks[test] = a
	th.rows, th.acked, th.unknown = 0, 0, 0
	r.mu.Unlock()
}

// ackCount is a test's write events: acknowledged, and of unknown outcome.
type ackCount struct{ acked, unknown int64 }

var _ workload.AckChecker = (*Run)(nil)

// sumChecked says whether test's acknowledged writes can be checked: its only writes add one
// to k (update-index), so that the tables' sum of k grows by one per committed event.
func (r *Run) sumChecked(test string) bool {
	t, ok := r.w.test(test)
	return ok && t.event == evUpdateIndex && r.stores && !r.w.shareTables
}

// BeforeFaults implements workload.AckChecker: the tables' sum of k before an update-index
// test.
func (r *Run) BeforeFaults(ctx context.Context, name string) error {
	r.sumK = workload.Growth{Unit: "sum of k", Read: r.sumOfK}
	return r.sumK.Begin(ctx, name, r.sumChecked(name))
}

// CheckAcknowledged implements workload.AckChecker: after update-index, the tables' sum of k
// grew by at least the acknowledged events (one each) and at most those and the events of
// unknown outcome; what it lacks of the acknowledged ones is lost. The writes of other tests
// are counted, not checked.
func (r *Run) CheckAcknowledged(ctx context.Context, name string) (results.AckCheck, error) {
	r.mu.Lock()
	a := r.acks[name]
	r.mu.Unlock()
	why := "only update-index's writes are (each adds one to k)"
	if !r.stores {
		why = "the engine keeps no data"
	}
	res, _, err := r.sumK.Check(ctx, name, a.acked, a.unknown, true, why)
	return res, err
}

// sumOfK returns the tables' sum of k.
func (r *Run) sumOfK(ctx context.Context) (int64, error) {
	sess, err := workload.CheckSession(ctx, r.eng)
	if err != nil {
		return 0, err
	}
	defer sess.Close()
	out := table.NewRows(1, 1)
	args := []table.Value{{I: math.MinInt32}, {I: math.MaxInt32}}
	var sum int64
	for _, s := range r.tables {
		out.Reset(1)
		if _, err := sess.Exec(ctx, s.sumRange, args, out); err != nil {
			return 0, err
		}
		if out.N != 1 {
			return 0, fmt.Errorf("%s: SUM(k) returned %d rows", s.t.Name, out.N)
		}
		sum += out.Vals[0].I
	}
	return sum, nil
}

// hashName is the FNV-1a hash of a test name: each test draws its own keys from the seed.
func hashName(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// session opens a session that the next step (or Close) closes.
func (r *Run) session(ctx context.Context) (table.Session, error) { return r.sessions.Open(ctx, r.eng) }

// Check implements workload.Run: every table holds the rows the workload counted (loaded,
// minus deleted, plus inserted) and one index entry per row.
func (r *Run) Check(ctx context.Context) (string, error) {
	if !r.stores {
		return "skipped: the engine keeps no data", nil
	}
	sess, err := workload.CheckSession(ctx, r.eng)
	if err != nil {
		return "", err
	}
	defer sess.Close()
	var rows, entries int64
	var problems []string
	for i, s := range r.tables {
		want := r.rows[i].Load()
		if r.w.shareTables {
			// Shared with the other shards, which may still be writing: counted, not compared.
			want = -1
		}
		n, err := sess.Count(ctx, s.t, -1)
		if err != nil {
			return "", err
		}
		rows += n
		if unknown := r.unknownRows.Load(); want >= 0 && (n < want-unknown || n > want+unknown) {
			if unknown > 0 {
				problems = append(problems, fmt.Sprintf("%s has %d rows, want %d ± %d (deletes and inserts of unknown outcome)", s.t.Name, n, want, unknown))
			} else {
				problems = append(problems, fmt.Sprintf("%s has %d rows, want %d", s.t.Name, n, want))
			}
		}
		if r.indexDone.Load() {
			e, err := sess.Count(ctx, s.t, 0)
			if err != nil {
				return "", err
			}
			entries += e
			if e != n && !r.w.shareTables {
				problems = append(problems, fmt.Sprintf("%s has %d entries in index k, want %d (one per row)", s.t.Name, e, n))
			}
		}
	}
	if len(problems) > 0 {
		return "", fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	if r.w.shareTables {
		return fmt.Sprintf("not compared: %d rows, %d index entries in the %d tables the shards share, which the other shards may still be writing", rows, entries, len(r.tables)), nil
	}
	return fmt.Sprintf("ok: %d rows, %d index entries", rows, entries), nil
}

// timeNow is the clock of event timing (a variable so that benchmarks share the path).
var timeNow = time.Now
