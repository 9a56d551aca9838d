package ycsb

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
	"github.com/rumbench/rumbench/internal/workload/ycsb/ycsbgen"
)

// Operations of the run, in the order of ycsbconf.Config.Proportions.
const (
	opRead = iota
	opUpdate
	opInsert
	opScan
	opRMW
	numOps
)

// opNames are the operations' names in summaries.
var opNames = [numOps]string{"read", "update", "insert", "scan", "read_modify_write"}

// opKinds are the run's operation kinds: every operation counts once in the rate (YCSB's
// throughput); a scan's units are the records it returned.
var opKinds = [numOps]runner.Kind{
	{Name: "read", Role: results.RoleRead, Unit: "records"},
	{Name: "update", Role: results.RoleWrite, Unit: "records"},
	{Name: "insert", Role: results.RoleWrite, Unit: "records"},
	{Name: "scan", Role: results.RoleRead, Unit: "records"},
	{Name: "read_modify_write", Role: results.RoleOther, Unit: "records"},
}

// runPresentation is the run step's.
var runPresentation = runner.Presentation{RateName: "ops", RateUnit: "operations/s", PerOp: "operation",
	Note: "ops = operations/s, every kind once (YCSB's throughput); per-op figures per operation"}

// percentiles are the run's extra percentiles: YCSB's hdrhistogram.percentiles add p99.99 to the
// p50, p90, p99, p99.9 and max every latency table has.
var percentiles = []float64{99.99}

// verifySample is the loaded records the run's preparation reads back.
const verifySample = 1000

// Run is the workload's state on one engine.
type Run struct {
	w        *Workload
	eng      table.Engine
	stores   bool
	sessions workload.Sessions
	// loadNext hands out the load's record numbers (offsets from insertstart); loaded counts
	// the records the load committed.
	loadNext, loaded atomic.Int64
	// ack hands out and acknowledges the run's insert key numbers (from recordcount on).
	ack *gen.AckCounter
	seq *ycsbgen.Sequential
	// missing counts reads and scans that found no record where one must be.
	missing, badValues atomic.Int64
	// Acknowledged inserts after faults (acks.go): the inserts of unknown outcome since
	// BeforeFaults, the acknowledged bound and the records then, and the acknowledged
	// inserts the checks found lost (Check expects them missing).
	unknownInserts     atomic.Int64
	last0, lostInserts int64
	records            workload.Growth
}

var _ workload.Run = (*Run)(nil)

// Open implements workload.Workload: it creates the usertable.
func (w *Workload) Open(ctx context.Context, eng table.Engine) (workload.Run, error) {
	if err := eng.CreateTable(ctx, w.stmts.t, true); err != nil {
		return nil, err
	}
	return w.newRun(eng)
}

// Rows implements workload.Run: the records loaded and inserted.
func (r *Run) Rows() int64 {
	return r.loaded.Load() + max(r.ack.Last()+1-r.w.Cfg.Core.RecordCount, 0)
}

// Close implements workload.Run.
func (r *Run) Close() error { return r.sessions.Close() }

// Prepare implements workload.Run: before the run, a sample of the loaded records is read back
// whole (no flush: YCSB runs right after its load).
func (r *Run) Prepare(ctx context.Context, name string) (string, error) {
	if name != StepRun || !r.stores {
		return "", nil
	}
	sess, err := workload.CheckSession(ctx, r.eng)
	if err != nil {
		return "", err
	}
	defer sess.Close()
	c, err := r.newClient(sess, 0, 0x5eed)
	if err != nil {
		return "", err
	}
	lo, hi := r.w.loadRange() // this shard's records: the others' may still be loading
	n := min(int64(verifySample), hi-lo)
	for i := int64(0); i < n; i++ {
		keynum := lo + c.rng.Intn(hi-lo)
		rows, err := c.readRecord(ctx, keynum, true, true)
		if err != nil {
			return "", err
		}
		if rows != 1 {
			return "", fmt.Errorf("loaded record %s (number %d) is not there", c.key, keynum)
		}
	}
	if bad := r.badValues.Load(); bad > 0 {
		return "", fmt.Errorf("%d of %d loaded records read back with a field the load did not write", bad, n)
	}
	return fmt.Sprintf("load verified: %d sampled records read back whole", n), nil
}

// Step implements workload.Run.
func (r *Run) Step(ctx context.Context, name string) (runner.Step, error) {
	if err := r.sessions.Close(); err != nil {
		return runner.Step{}, err
	}
	if name == StepLoad {
		return r.loadStep(ctx)
	}
	return r.runStep(ctx)
}

// loadStep inserts records insertstart .. insertstart+insertcount-1 (a shard: its part of them),
// LoadBatch per transaction, by Loaders clients that take the next record numbers from one
// counter (YCSB's load). It is the workload's own, not workload.Loader's: a shard loads its
// part of the records, as YCSB's insertstart/insertcount split a load among client hosts (the
// Loader splits batches), and a lone record goes as the JDBC binding's INSERT, its arguments in
// the binding's column order, built in the loader's own buffers.
func (r *Run) loadStep(ctx context.Context) (runner.Step, error) {
	cfg := &r.w.Cfg
	st := runner.Step{Name: StepLoad, Presentation: workload.LoadPresentation, Percentiles: percentiles}
	kInsert := st.Kinds.Add(workload.KindInsert)
	st.RateKinds = []runner.KindID{kInsert}
	batch := int64(cfg.LoadBatch)
	start, end := r.w.loadRange()
	count := end - start
	for i := 0; i < cfg.Loaders; i++ {
		c, err := r.stepClient(ctx, i, 0x10ad)
		if err != nil {
			return st, err
		}
		rows := table.NewRows(len(r.w.stmts.t.Columns), cfg.LoadBatch)
		st.Workers = append(st.Workers, runner.Worker{Name: fmt.Sprintf("loader %d", i+1), Role: runner.Driver,
			Op: func(ctx context.Context, m *runner.Meter) (bool, error) {
				first := r.loadNext.Add(batch) - batch
				if first >= count {
					return true, nil
				}
				n := min(batch, count-first)
				c.buildRecords(rows, start+first, n)
				t0 := time.Now()
				var err error
				if n == 1 {
					err = c.insertOne(ctx, rows.Row(0)) // the JDBC binding's load: one INSERT in autocommit
				} else {
					err = c.sess.Insert(ctx, r.w.stmts.t, rows)
				}
				if err != nil {
					return false, err
				}
				m.Done(kInsert, t0, int(n))
				m.Commit(1)
				r.loaded.Add(n)
				return first+n >= count, nil
			}})
	}
	return st, nil
}

// runStep makes the run's clients: each draws operations from the mix until the run's time is
// up or its share of operationcount is done, paced at Target/Threads operations per second when
// a target is set.
func (r *Run) runStep(ctx context.Context) (runner.Step, error) {
	cfg := &r.w.Cfg
	core := &cfg.Core
	warmup := time.Duration(cfg.WarmupSecs * float64(time.Second))
	st := runner.Step{Name: StepRun, Presentation: runPresentation, Warmup: warmup, Percentiles: percentiles}
	var kinds [numOps]runner.KindID
	var choices []ycsbgen.Choice
	for op, f := range core.Proportions() {
		if f > 0 {
			kinds[op] = st.Kinds.Add(opKinds[op])
			st.RateKinds = append(st.RateKinds, kinds[op])
			choices = append(choices, ycsbgen.Choice{Op: op, Weight: f})
		}
	}
	st.Duration = time.Duration(cfg.RunSecs * float64(time.Second)) // 0: the operation count ends the step
	all := int64(r.w.allThreads())
	for local := 0; local < cfg.Threads; local++ {
		i := r.w.firstThread() + local // the thread's number among all shards' threads
		c, err := r.stepClient(ctx, i, 0x0b5)
		if err != nil {
			return st, err
		}
		if err := c.runGenerators(choices); err != nil {
			return st, err
		}
		left := int64(-1)
		if core.OperationCount > 0 {
			left = core.OperationCount / all
			if int64(i) < core.OperationCount%all {
				left++
			}
		}
		st.Workers = append(st.Workers, runner.Worker{Name: fmt.Sprintf("client %d", i+1), Role: runner.Driver,
			Op: func(ctx context.Context, m *runner.Meter) (bool, error) {
				t0 := time.Now()
				if left == 0 || m.Ended(t0) {
					return true, nil
				}
				op := c.mix.Next(&c.rng)
				units, err := c.do(ctx, op)
				if err != nil {
					if ctx.Err() != nil {
						return true, nil
					}
					if errors.Is(err, table.ErrConflict) {
						m.Retry()
						return false, nil
					}
					return false, fmt.Errorf("%s of %s: %w", opNames[op], c.key, err)
				}
				m.Done(kinds[op], t0, units)
				if op != opRead && op != opScan {
					m.Commit(1)
				}
				if left > 0 && m.InWindow(t0) {
					left--
				}
				return false, nil
			}})
	}
	return st, nil
}

// stepClient returns a client of the current step, on a session that the next step (or Close)
// closes.
func (r *Run) stepClient(ctx context.Context, no int, salt uint64) (*client, error) {
	sess, err := r.sessions.Open(ctx, r.eng)
	if err != nil {
		return nil, err
	}
	return r.newClient(sess, no, salt)
}

// Check implements workload.Run: the table holds exactly the loaded and acknowledged records
// (count and key fingerprint, from one scan in key order) and every field of every record is
// one that the load or an update wrote, whole; no read or scan of the run missed its record.
func (r *Run) Check(ctx context.Context) (string, error) {
	if !r.stores {
		return "skipped: the engine keeps no data", nil
	}
	// After acknowledged inserts were lost (acks.go), operations that chose their keys find no
	// record: counted, not a failure.
	if n := r.missing.Load(); n > 0 && r.lostInserts == 0 {
		return "", fmt.Errorf("%d operations found no record under a key that was loaded or acknowledged", n)
	}
	if n := r.badValues.Load(); n > 0 {
		return "", fmt.Errorf("%d fields read during the run were not written by the load or an update", n)
	}
	sess, err := workload.CheckSession(ctx, r.eng)
	if err != nil {
		return "", err
	}
	defer sess.Close()
	c, err := r.newClient(sess, 0, 0xc4ec)
	if err != nil {
		return "", err
	}
	if r.w.Shard.Count > 1 {
		return r.checkOwn(ctx, c)
	}
	core := &r.w.Cfg.Core
	// The expected keys: the loaded ones, then those the run inserted and acknowledged.
	var want keySet
	loaded := r.loaded.Load()
	for k := core.InsertStart; k < core.InsertStart+loaded; k++ {
		c.key = ycsbgen.BuildKeyName(c.key[:0], k, c.ordered, core.ZeroPadding)
		want.add(c.key)
	}
	inserted := max(r.ack.Last()+1-core.RecordCount, 0)
	for k := core.RecordCount; k < core.RecordCount+inserted; k++ {
		c.key = ycsbgen.BuildKeyName(c.key[:0], k, c.ordered, core.ZeroPadding)
		want.add(c.key)
	}
	got, err := c.scanAll(ctx)
	if err != nil {
		return "", err
	}
	if r.lostInserts > 0 && got.n == want.n-r.lostInserts {
		// Faults lost acknowledged inserts (counted after their steps): the keys are the
		// expected ones but those, which a fingerprint cannot tell.
		return fmt.Sprintf("%d records (%d loaded + %d inserted): %d acknowledged inserts lost after faults (%d operations found no record), the rest not compared key by key", got.n, loaded, inserted, r.lostInserts, r.missing.Load()), nil
	}
	if got.n != want.n || got.sum != want.sum || got.xor != want.xor {
		return "", fmt.Errorf("usertable holds %d records, want %d (%d loaded + %d inserted), or not the same keys", got.n, want.n, loaded, inserted)
	}
	if n := r.badValues.Load(); n > 0 {
		return "", fmt.Errorf("%d fields are not values the load or an update wrote", n)
	}
	return fmt.Sprintf("ok: %d records (%d loaded + %d inserted), every key present and every field whole", got.n, loaded, inserted), nil
}

// keySet fingerprints a set of keys: their number and the sum and xor of their hashes.
type keySet struct {
	n        int64
	sum, xor uint64
}

func (k *keySet) add(key []byte) {
	h := gen.Mix(keyHash(key))
	k.n++
	k.sum += h
	k.xor ^= h
}
