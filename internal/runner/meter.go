package runner

import (
	"sync/atomic"
	"time"

	"github.com/rumbench/rumbench/internal/hist"
	"github.com/rumbench/rumbench/internal/table"
)

// Meter records one worker's operations. Its methods are called by the worker's goroutine only;
// the runner reads the histograms and counters concurrently through atomics.
//
// The measured window: an operation counts in the step's figures when the unit of work it
// belongs to (a transaction of several statements, or the operation itself) started inside the
// step's measured window, [the end of the warm-up, the end of the timed step), whenever the
// operation ends; all the operations of such a unit count with it. An operation of a unit that
// started during the warm-up is counted apart (it shows in the per-second progress, not in the
// step's figures), and a worker starts no unit once the window has ended (Ended).
type Meter struct {
	kinds   []kindMeter
	commits atomic.Int64
	retries atomic.Int64
	// intendedStart is the pacer's intended start of the current call, zero when unpaced.
	intendedStart time.Time
	// from and to bound the measured window: zero from counts every operation, zero to has no
	// end (the step ends when its drivers are done). Set before the workers start, then read
	// only.
	from, to time.Time
	// sched is the worker's schedule's figures, zero when it is not paced.
	sched schedule
	// errs counts the failed operations by class (table.ErrorClass), unknown those of them
	// whose outcome is unknown (a connection lost in flight), reconnects the successes that
	// followed a connection's failure; lostConn is set by a connection's failure until the next
	// success (the worker's own).
	errs       [table.NumErrorClasses]atomic.Int64
	firstErrs  [table.NumErrorClasses]atomic.Pointer[string] // each class's first error
	unknown    atomic.Int64
	reconnects atomic.Int64
	lostConn   bool
	// watch is the fault being watched (nil: none): see faultWatch.
	watch atomic.Pointer[faultWatch]
	// detect, when set, is called at a lost connection: the step records outages itself.
	detect func(now time.Time)
}

// schedule is a paced worker's figures of its schedule: set by the worker's loop, read by the
// runner's ticks.
type schedule struct {
	// rate is the worker's calls per second; units what one call counts for in the step's
	// Pace rate (0: the worker is paced by a rate of its own, not the step's Pace).
	rate  float64
	units int64
	// arrived counts the calls intended in the measured window that the worker took from its
	// schedule (started or skipped), unstarted those it had not taken when the window ended
	// (it was behind): together, what the schedule offered.
	arrived, unstarted atomic.Int64
	// started counts the calls started in the measured window (as its operations count, by
	// their actual start) and lateNs the sum of their lateness (actual start − intended start),
	// ns: the mean schedule lag; skipped those the latency limit skipped in it.
	started, lateNs, skipped atomic.Int64
	// due is the intended start of the next call not yet started, Unix ns (0: none yet).
	due atomic.Int64
}

// kindMeter is one kind's histograms and counters.
type kindMeter struct {
	hist     *hist.Histogram
	intended *hist.Histogram // response time from the intended start (paced workers)
	ops      atomic.Int64
	units    atomic.Int64
	// warmOps and warmUnits count the operations of units that started before the window:
	// the warm-up's, shown per second but not in the step's figures (nor in its histograms).
	warmOps   atomic.Int64
	warmUnits atomic.Int64
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
	m.DoneIn(k, start, start, time.Now(), units)
}

// DoneAt is Done for an operation that ended at now (a reading of time.Now): a worker whose
// operations follow one another reads the clock once at each boundary, for the end of one and
// the start of the next.
func (m *Meter) DoneAt(k KindID, start, now time.Time, units int) {
	m.DoneIn(k, start, start, now, units)
}

// DoneIn is DoneAt for an operation that is part of a unit of work that began at origin (a
// statement of a transaction: origin is the transaction's start): it counts in the step's
// figures when origin is inside the measured window, as the rest of its unit does.
func (m *Meter) DoneIn(k KindID, origin, start, now time.Time, units int) {
	if w := m.watch.Load(); w != nil {
		w.succeeded(start, now)
	}
	if m.lostConn {
		m.lostConn = false
		m.reconnects.Add(1)
	}
	km := &m.kinds[k]
	if origin.Before(m.from) || !m.to.IsZero() && !origin.Before(m.to) {
		km.warmOps.Add(1)
		km.warmUnits.Add(int64(units))
		return
	}
	km.hist.Record(int64(now.Sub(start)))
	if km.intended != nil && !m.intendedStart.IsZero() {
		km.intended.Record(int64(now.Sub(m.intendedStart)))
	}
	km.ops.Add(1)
	km.units.Add(int64(units))
}

// Ended says whether the step's measured window has ended at t: a worker starts no unit of work
// then (the runner's loop stops calling a worker's Op; a worker that runs several clients or a
// loop of its own asks). Always false for a step that ends when its drivers are done.
func (m *Meter) Ended(t time.Time) bool { return !m.to.IsZero() && !t.Before(m.to) }

// InWindow says whether a unit of work that starts at t counts in the step's figures: a
// workload that runs a count of operations (sysbench's --events, YCSB's operationcount) counts
// those, so the count is of measured operations, the warm-up's before them.
func (m *Meter) InWindow(t time.Time) bool { return !t.Before(m.from) && !m.Ended(t) }

// End is the end of the measured window, zero for a step that ends when its drivers are done:
// a wait (think time, a script's sleep) ends there.
func (m *Meter) End() time.Time { return m.to }

// Commit records n write transactions committed: the denominator of syncs per commit. A
// workload that never calls it has the calls of its write and delete kinds counted instead.
func (m *Meter) Commit(n int) { m.commits.Add(int64(n)) }

// Retry records an operation abandoned after a deadlock or lock conflict and tried again (not
// counted in the operations): sysbench's "ignored errors".
func (m *Meter) Retry() { m.retries.Add(1) }

// Failed records an operation that failed with err and was not retried: counted by its class
// (table.ClassOf), and as of unknown outcome when its connection broke in flight. The runner
// calls it for the errors a step tolerates (Step.Tolerate).
func (m *Meter) Failed(err error, now time.Time) {
	c := table.ClassOf(err)
	if c == table.ClassConnection && m.detect != nil {
		m.detect(now) // before the count: an outage it opens counts this failure
	}
	if m.errs[c].Add(1) == 1 {
		msg := err.Error()
		m.firstErrs[c].Store(&msg)
	}
	if c == table.ClassConnection {
		m.lostConn = true
		if table.UnknownOutcome(err) {
			m.unknown.Add(1)
		}
	}
	if w := m.watch.Load(); w != nil {
		w.failed(now)
	}
}
