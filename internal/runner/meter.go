package runner

import (
	"sync/atomic"
	"time"

	"github.com/rumbench/rumbench/internal/hist"
)

// Meter records one worker's operations. Its methods are called by the worker's goroutine only;
// the runner reads the histograms and counters concurrently through atomics.
type Meter struct {
	kinds   []kindMeter
	commits atomic.Int64
	retries atomic.Int64
	// intendedStart is the pacer's intended start of the current call, zero when unpaced.
	intendedStart time.Time
}

// kindMeter is one kind's histograms and counters.
type kindMeter struct {
	hist     *hist.Histogram
	intended *hist.Histogram // response time from the intended start (paced workers)
	ops      atomic.Int64
	units    atomic.Int64
}

// NewMeter returns a meter with a histogram for each of n kinds, and intended-start histograms
// when paced. The runner makes one per worker; benchmarks and tests may make their own.
func NewMeter(n int, paced bool) *Meter {
	m := &Meter{kinds: make([]kindMeter, n)}
	for k := range m.kinds {
		m.kinds[k].hist = hist.New()
		if paced {
			m.kinds[k].intended = hist.New()
		}
	}
	return m
}

// Done records one operation of kind k that started at start and covered units units (rows,
// statements). Its service time is measured from start; for a paced worker its response time
// from the intended start is recorded too.
func (m *Meter) Done(k KindID, start time.Time, units int) {
	m.DoneAt(k, start, time.Now(), units)
}

// DoneAt is Done for an operation that ended at now (a reading of time.Now): a worker whose
// operations follow one another reads the clock once at each boundary, for the end of one and
// the start of the next.
func (m *Meter) DoneAt(k KindID, start, now time.Time, units int) {
	km := &m.kinds[k]
	km.hist.Record(int64(now.Sub(start)))
	if km.intended != nil && !m.intendedStart.IsZero() {
		km.intended.Record(int64(now.Sub(m.intendedStart)))
	}
	km.ops.Add(1)
	km.units.Add(int64(units))
}

// Commit records n write transactions committed: the denominator of syncs per commit. A
// workload that never calls it has the calls of its write and delete kinds counted instead.
func (m *Meter) Commit(n int) { m.commits.Add(int64(n)) }

// Retry records an operation abandoned after a deadlock or lock conflict and tried again (not
// counted in the operations): sysbench's "ignored errors".
func (m *Meter) Retry() { m.retries.Add(1) }
