package workload

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/table"
)

// Batches are a table's initial rows cut into batches, each a pure function of the seed and its
// index (as CockroachDB's workloads declare theirs): the loader inserts them, one transaction a
// batch, by several clients, and a shard of a split run loads a contiguous range of them.
type Batches struct {
	Table *table.Table
	// Count is the number of batches; Rows the most rows one holds.
	Count int64
	Rows  int
	// Fill writes batch i's rows into rows (reset to the table's columns).
	Fill func(i int64, rows *table.Rows)
	// Insert, when set, writes a batch in place of the session's Insert (one transaction).
	Insert func(ctx context.Context, sess table.Session, rows *table.Rows) error
}

// Loader loads a workload's Batches: its load step inserts them and it counts the rows
// committed. The zero Loader has nothing to load.
type Loader struct {
	// Batches are the tables' batches, loaded in order (a table's after the one's before).
	Batches []Batches
	// Clients insert batches concurrently, each taking the next batch (1 when 0).
	Clients int
	// Shard restricts the load to this shard's range of each table's batches.
	Shard Shard
	// next hands out batch numbers over all tables' ranges; loaded counts committed rows.
	next, loaded atomic.Int64
}

// Rows returns the rows the load has committed so far.
func (l *Loader) Rows() int64 { return l.loaded.Load() }

// SetLoaded sets the committed rows, for a run on data an earlier run loaded.
func (l *Loader) SetLoaded(n int64) { l.loaded.Store(n) }

// ranges returns each table's batch range [lo, hi) in this shard, and their total.
func (l *Loader) ranges() (lo, hi []int64, total int64) {
	lo, hi = make([]int64, len(l.Batches)), make([]int64, len(l.Batches))
	for i, b := range l.Batches {
		lo[i], hi[i] = l.Shard.Range(b.Count)
		total += hi[i] - lo[i]
	}
	return lo, hi, total
}

// Step returns the load step named name: Clients workers on sessions from ss insert this
// shard's batches of every table, one transaction a batch, taking the next batch from one
// counter; a batch's rows count as inserts (workload.KindInsert) when it commits.
func (l *Loader) Step(ctx context.Context, name string, eng table.Engine, ss *Sessions) (runner.Step, error) {
	st := runner.Step{Name: name, Presentation: LoadPresentation}
	kInsert := st.Kinds.Add(KindInsert)
	st.RateKinds = []runner.KindID{kInsert}
	lo, hi, total := l.ranges()
	l.next.Store(0)
	maxRows := 1
	for _, b := range l.Batches {
		maxRows = max(maxRows, b.Rows)
	}
	for c := 0; c < max(l.Clients, 1); c++ {
		sess, err := ss.Open(ctx, eng)
		if err != nil {
			return st, err
		}
		rows := table.NewRows(1, maxRows)
		st.Workers = append(st.Workers, runner.Worker{Name: fmt.Sprintf("loader %d", c+1), Role: runner.Driver,
			Op: func(ctx context.Context, m *runner.Meter) (bool, error) {
				n := l.next.Add(1) - 1
				if n >= total {
					return true, nil
				}
				// The n-th batch of the shard's ranges, table by table.
				t := 0
				for n >= hi[t]-lo[t] {
					n -= hi[t] - lo[t]
					t++
				}
				b := &l.Batches[t]
				rows.Reset(len(b.Table.Columns))
				b.Fill(lo[t]+n, rows)
				t0 := time.Now()
				var err error
				if b.Insert != nil {
					err = b.Insert(ctx, sess, rows)
				} else {
					err = sess.Insert(ctx, b.Table, rows)
				}
				if err != nil {
					return false, fmt.Errorf("%s batch %d: %w", b.Table.Name, lo[t]+n, err)
				}
				m.Done(kInsert, t0, rows.N)
				m.Commit(1)
				l.loaded.Add(int64(rows.N))
				return false, nil
			}})
	}
	return st, nil
}
