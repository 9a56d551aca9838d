// Package runner owns the only loop: it runs a step's workers (closed loop or paced at a target
// rate), stops them on completion, duration limit, error or cancellation, and on a 1-second tick
// merges their histograms and counters and takes a system sample, so every figure of an interval
// and of a step comes from the same instants.
package runner

import (
	"context"
	"time"

	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/table"
)

// Role says how a worker relates to the end of its step.
type Role uint8

const (
	// Driver workers define the step: it ends when every driver has returned done.
	Driver Role = iota
	// Background workers run until the drivers are done (e.g. the query thread).
	Background
)

// OpFunc performs one unit of work and records it on m. It returns done=true when the worker has
// no more work. An error stops the step (and the run). OpFunc must return promptly when ctx ends.
type OpFunc func(ctx context.Context, m *Meter) (done bool, err error)

// Worker is one goroutine of a step.
type Worker struct {
	// Name labels the worker in errors ("writer pi1").
	Name string
	Role Role
	// Rate paces calls of Op at this many per second from the step's start (0: closed loop).
	Rate float64
	Op   OpFunc
	// Finish, when set, is called once the worker's loop has ended, whatever ended it (done,
	// the end of a timed step's window, an error, cancellation), on the worker's goroutine.
	Finish func()
	// PaceUnits is how many units of the step's Pace rate one call of Op is (a writer's rows
	// per batch when the rate counts rows); 0 is 1.
	PaceUnits int
	// Unpaced keeps the step's Pace from pacing the worker: it follows another worker (the
	// insert benchmark's deleter deletes what its writer inserted).
	Unpaced bool
}

// Pace is a fixed rate for a step (rumbench run --rate): its driver workers that have no Rate
// of their own and are not Unpaced share Rate equally, each on a schedule of its own fixed in
// advance from Seed, and their operations' response times are also measured from the intended
// start. A step whose workers are all paced otherwise is run as it is.
type Pace struct {
	// Rate is the units of work per second over all paced workers: calls of Op times their
	// PaceUnits (transactions, events, requests, rows).
	Rate float64
	// Arrivals spaces each worker's operations (gen.Poisson or gen.Uniform).
	Arrivals gen.Arrivals
	// Seed makes the schedules reproducible; each worker draws from its own mix of it.
	Seed uint64
	// LatencyLimit, when > 0, skips an operation already later than it when its turn comes
	// (pgbench's --latency-limit): counted as skipped, not run, not an error.
	LatencyLimit time.Duration
}

// Kind declares one operation kind of a step: what is timed and counted by Meter.Done.
type Kind struct {
	// Name is the kind's snake_case name in results ("insert", "point_query", "event").
	Name string
	// Role is results.RoleRead, RoleWrite, RoleDelete or RoleOther: the runner aggregates rates
	// by role and reports choose columns by it.
	Role string
	// Unit names what the units passed to Meter.Done count ("rows", "statements").
	Unit string
	// CountUnits makes the kind count in rates by its units (rows inserted, statements run)
	// rather than by its calls (queries).
	CountUnits bool
}

// KindID is the index of a kind in its step's Kinds, resolved once when the step is built so
// that Meter.Done is an array index.
type KindID int

// Kinds builds a step's kind list: Add declares a kind and returns its id.
type Kinds []Kind

// Add declares k and returns its id.
func (ks *Kinds) Add(k Kind) KindID {
	*ks = append(*ks, k)
	return KindID(len(*ks) - 1)
}

// Presentation is how a step's results are named and read, declared by its workload.
type Presentation struct {
	// RateName and RateUnit name the headline rate ("ips", "rows/s"; "qps", "queries/s"; "Krps").
	RateName, RateUnit string
	// PerOp is what one op of the rate is, the denominator of every per-op figure
	// ("inserted row", "query", "statement").
	PerOp string
	// Note is the one-line legend of the step's table.
	Note string
	// Group places the step in one of the workload's step groups (reported together).
	Group string
}

// Step is one measured phase of a workload.
type Step struct {
	// Name is the step's name ("l.i0", "qr100").
	Name string
	// Workers run concurrently; at least one must be a Driver.
	Workers []Worker
	// Kinds are the operation kinds the workers record; every kind gets its histograms,
	// intended-start histograms (paced workers), per-interval maxima and counts.
	Kinds Kinds
	// RateKinds are the kinds that make the step's headline rate and the denominator of its
	// per-operation figures (by units or calls as each kind declares).
	RateKinds []KindID
	// HeadlineKinds, when set, are the kinds the headline rate counts (the step's, each
	// interval's and the per-second percentiles) where they differ from RateKinds, which stay
	// the denominator of the per-operation figures: TPC-C's tpmC counts New-Orders, its costs
	// are per transaction of any type.
	HeadlineKinds []KindID
	// RateScale multiplies the headline rate (the step's, each interval's and the per-second
	// percentiles): 60 for a rate per minute. 0 is 1.
	RateScale float64
	// Presentation names the rate and says what an op is.
	Presentation
	// Duration makes the step timed: its measured window lasts Duration after the warm-up, and
	// the workers start no unit of work once it has ended (0: the step ends when its drivers
	// are done). See Meter for what counts in the window.
	Duration time.Duration
	// MaxDuration stops the step when it elapses, cancelling the operations in flight (0: for a
	// timed step SafetyNet(Warmup+Duration), else no limit). A step stopped this way is marked
	// as such in its result.
	MaxDuration time.Duration
	// Warmup is how long the step runs before measurement starts (0: from the start). The
	// operations of units of work that start during it are left out of the step's figures.
	Warmup time.Duration
	// TargetInsertRate is the background writers' total target in rows/s for paced steps (0: not
	// paced); the result says whether the achieved write rate (ips) reached 95% of it.
	TargetInsertRate float64
	// Percentiles are extra response-time percentiles (0 < p < 100) to report per kind.
	Percentiles []float64
	// Pace, when set, paces the step's workers at a fixed rate (see Pace).
	Pace *Pace
	// Finish, when set, completes the step's result from what was measured (a workload's own
	// figure: sysbench's scan rate in thousand rows per second from the mean event latency).
	Finish func(r *results.Step)
	// Tolerate is the error classes the step's workers go on through: an operation that fails
	// with one is counted (Meter.Failed) and the worker goes on, after a backoff when its
	// connection was lost. Any other error fails the step.
	Tolerate Tolerance
	// Faults are injected into the target while the step runs (Setup.Faulter), each at its
	// time from the step's start, and measured (results.Fault).
	Faults []Fault
}

// Tolerance is a set of error classes (bit c: table.ErrorClass c).
type Tolerance uint8

// With returns the set with class c added.
func (t Tolerance) With(c table.ErrorClass) Tolerance { return t | 1<<c }

// Has says whether the set holds class c.
func (t Tolerance) Has(c table.ErrorClass) bool { return t&(1<<c) != 0 }

// Fault is one fault of a step's schedule (rumbench run --fault).
type Fault struct {
	// Kind is "kill", "restart", "stop" or "sever" (see table.Faulter), or "kill-primary" (see
	// table.FaultTarget).
	Kind string
	// Node is the cluster's server it is aimed at ("": the primary or first node; see
	// table.FaultTarget).
	Node string
	// At is when it is injected, from the step's start; For how long a stop or a sever lasts.
	At, For time.Duration
}

// SafetyNet is the limit of a timed step planned to last d (its warm-up and measured time): its
// workers stop by themselves at d, so the limit only ends a step whose operations hang, at
// twice its length and half a minute more (a load's last batches or a think time may run past
// d).
func SafetyNet(d time.Duration) time.Duration { return 2*d + 30*time.Second }
