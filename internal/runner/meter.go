package runner

import (
	"sync/atomic"
	"time"

	"github.com/rumbench/rumbench/internal/hist"
)

// Kind is the kind of an operation, the unit that is timed and counted.
type Kind uint8

const (
	// Insert is one insert transaction (a batch of rows); its units are rows.
	Insert Kind = iota
	// Delete is one delete transaction; its units are rows deleted.
	Delete
	// RangeQuery is one short index range scan; its units are rows returned.
	RangeQuery
	// PointQuery is one batched primary-key lookup; its units are rows returned.
	PointQuery
	// CreateIndex is building secondary indexes; its units are rows indexed.
	CreateIndex
	// Event is one sysbench event (a transaction, or one statement outside a transaction); its
	// units are the statements it ran, BEGIN and COMMIT included.
	Event
	// NumKinds is the number of kinds.
	NumKinds
)

var kindNames = [NumKinds]string{"insert", "delete", "range_query", "point_query", "create_index", "event"}

// String returns the kind's snake_case name, used in result field names.
func (k Kind) String() string { return kindNames[k] }

// Meter records one worker's operations. Its methods are called by the worker's goroutine only;
// the runner reads the histograms and counters concurrently through atomics.
type Meter struct {
	hists    [NumKinds]*hist.Histogram
	intended [NumKinds]*hist.Histogram // response time from the intended start (paced workers)
	ops      [NumKinds]atomic.Int64
	units    [NumKinds]atomic.Int64
	commits  atomic.Int64
	retries  atomic.Int64
	// intendedStart is the pacer's intended start of the current call, zero when unpaced.
	intendedStart time.Time
}

// NewMeter returns a meter with a histogram per kind, and per-kind intended-start histograms when
// paced. The runner makes one per worker; benchmarks and tests may make their own.
func NewMeter(paced bool) *Meter {
	m := &Meter{}
	for k := range m.hists {
		m.hists[k] = hist.New()
		if paced {
			m.intended[k] = hist.New()
		}
	}
	return m
}

// Done records one operation of kind k that started at start and covered units units (rows). Its
// service time is measured from start; for a paced worker its response time from the intended
// start is recorded too.
func (m *Meter) Done(k Kind, start time.Time, units int) {
	now := time.Now()
	m.hists[k].Record(int64(now.Sub(start)))
	if !m.intendedStart.IsZero() && m.intended[k] != nil {
		m.intended[k].Record(int64(now.Sub(m.intendedStart)))
	}
	m.ops[k].Add(1)
	m.units[k].Add(int64(units))
}

// Commit records n write transactions committed: the denominator of syncs per commit. A
// workload that never calls it has its insert and delete operations counted instead.
func (m *Meter) Commit(n int) { m.commits.Add(int64(n)) }

// Retry records an operation abandoned after a deadlock or lock conflict and tried again (not
// counted in the operations): sysbench's "ignored errors".
func (m *Meter) Retry() { m.retries.Add(1) }
