package gen

import (
	"context"
	"fmt"
	"math"
	"syscall"
	"time"
	"unsafe"
)

// Arrivals is how a schedule spaces its operations in time.
type Arrivals uint8

const (
	// Uniform spaces operations evenly: operation k is intended at start + k/rate (YCSB's
	// -target, the insert benchmark's paced writers).
	Uniform Arrivals = iota
	// Poisson draws the gaps between operations from the exponential distribution of mean
	// 1/rate (pgbench's -R): arrivals independent of one another, as users' requests are.
	Poisson
)

// ArrivalNames are the names ParseArrivals takes, in Arrivals order.
var ArrivalNames = []string{"uniform", "poisson"}

// String is the arrivals' name ("poisson").
func (a Arrivals) String() string { return ArrivalNames[a] }

// ParseArrivals returns the arrivals named s, or an error saying what is valid.
func ParseArrivals(s string) (Arrivals, error) {
	for i, n := range ArrivalNames {
		if s == n {
			return Arrivals(i), nil
		}
	}
	return 0, fmt.Errorf("want poisson or uniform")
}

// Pacer spaces operations at a target rate by their intended start times, fixed in advance: the
// schedule does not depend on how fast the operations run (an open loop). When the worker falls
// behind it runs at once and the intended time stays on schedule, so latency measured from the
// intended start includes the queueing a slow engine causes (no coordinated omission). Not safe
// for concurrent use.
type Pacer struct {
	start time.Time
	nsPer float64 // nanoseconds per operation: 1e9/rate, unrounded so the schedule does not drift
	k     int64
	// poisson draws exponential gaps from rnd; next is the offset from start of the next
	// operation, ns.
	poisson bool
	rnd     Rand
	next    float64
	// hold makes the last holdMax of each wait a sleep that keeps the goroutine's processor
	// (see Hold).
	hold bool
}

// Hold makes the pacer sleep the last holdMax (5 ms) before each intended start without
// leaving the Go scheduler: a raw nanosleep that keeps the goroutine's processor (P). Go's
// ordinary system call path costs about three more context switches per sleep (the runtime
// hands the processor around): BenchmarkPacerSleep, 40-47 µs of CPU per paced sleep against
// 19-22 µs with the raw one (16 µs for the same loop in C). A held processor runs nothing else meanwhile,
// so the caller holds it only while paced workers leave processors free (fewer of them than
// GOMAXPROCS); a stop-the-world waits for a held sleep, at most holdMax.
func (p *Pacer) Hold() { p.hold = true }

// holdMax is the longest sleep Hold makes keeping the processor.
const holdMax = 5 * time.Millisecond

// NewPacer returns a pacer of uniform arrivals at rate operations per second from start; rate
// must be > 0.
func NewPacer(start time.Time, rate float64) *Pacer {
	return &Pacer{start: start, nsPer: float64(time.Second) / rate}
}

// NewSchedule returns a pacer of arrivals a at rate operations per second from start, its gaps
// drawn from seed (Poisson): the same seed gives the same schedule. rate must be > 0.
func NewSchedule(start time.Time, rate float64, a Arrivals, seed uint64) *Pacer {
	p := NewPacer(start, rate)
	if a == Poisson {
		p.poisson, p.rnd = true, NewRand(Mix(seed))
		p.next = p.gap()
	}
	return p
}

// gap draws one exponential gap of mean nsPer, ns.
func (p *Pacer) gap() float64 { return -math.Log(1-p.rnd.Float64()) * p.nsPer }

// Peek returns the intended start of the next operation, without taking it.
func (p *Pacer) Peek() time.Time {
	if p.poisson {
		return p.start.Add(time.Duration(p.next))
	}
	return p.start.Add(time.Duration(float64(p.k) * p.nsPer))
}

// Before takes, without sleeping, every operation intended to start before t and returns how
// many there were: the arrivals a worker did not start when its time ran out. Uniform arrivals
// are counted exactly; Poisson ones one by one up to maxCounted, and past it (a worker far
// behind a high rate) as their expected number, rate × time, with the schedule left there.
func (p *Pacer) Before(t time.Time) int64 {
	next := p.Peek()
	if !next.Before(t) {
		return 0
	}
	if !p.poisson {
		// Operation j is at start + j·nsPer: those before t are j < (t − start)/nsPer.
		end := int64(math.Ceil(float64(t.Sub(p.start)) / p.nsPer))
		n := end - p.k
		p.k = end
		return n
	}
	if est := float64(t.Sub(next)) / p.nsPer; est > maxCounted {
		p.next = float64(t.Sub(p.start))
		return int64(est) + 1
	}
	var n int64
	for p.Peek().Before(t) {
		p.k++
		p.next += p.gap()
		n++
	}
	return n
}

// maxCounted is the most Poisson arrivals Before counts one by one.
const maxCounted = 1 << 20

// maxSleep bounds one sleep of Next, so that it notices the end of its context this soon.
const maxSleep = 20 * time.Millisecond

// Next takes the next operation and returns its intended start time and the time it returns
// at (a reading of the clock, not before the intended start), sleeping until the intended
// start if it is in the future. It returns ctx's error if ctx ends first (within maxSleep).
//
// The last timerTail of the wait (holdMax when held) is the nanosleep system call, not a
// runtime timer: the Go runtime rounds a timer shorter than a millisecond up to a millisecond of
// epoll timeout, which would start paced operations up to 1 ms late (half a millisecond on
// average) and charge that lateness to the engine in the intended-start latency. nanosleep wakes
// within the thread's timer slack (50 µs by default); the goroutine's thread blocks meanwhile,
// and the runtime hands its processor on (unless held). The wait before the tail is a runtime
// timer (see timerTail).
func (p *Pacer) Next(ctx context.Context) (at, now time.Time, err error) {
	at = p.Peek()
	p.k++
	if p.poisson {
		p.next += p.gap()
	}
	for {
		if err := ctx.Err(); err != nil {
			return at, now, err
		}
		now = time.Now()
		d := at.Sub(now)
		if d <= 0 {
			return at, now, nil
		}
		tail := timerTail
		if p.hold {
			tail = holdMax
		}
		if d > tail {
			// Far from the intended start: park on a runtime timer, which frees the processor
			// without a system call (its up to 1 ms of lateness falls inside the tail).
			time.Sleep(min(d-tail, maxSleep))
			continue
		}
		ts := syscall.NsecToTimespec(int64(d))
		if p.hold {
			syscall.RawSyscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0) // EINTR: as below
			continue
		}
		syscall.Nanosleep(&ts, nil) // EINTR: the loop sleeps again for what is left
	}
}

// timerTail is the part of a wait Next sleeps with nanosleep rather than on a runtime timer.
// A goroutine in a system call of more than 20 µs, with no processor idle, makes the runtime's
// monitor thread take its processor away and then poll every 20 µs for a while: a paced worker
// sleeping its whole wait in nanosleep kept that thread waking 2,600 times a second
// (docs/rates.md). A runtime timer wakes up to 1 ms late (epoll's resolution), so the last
// timerTail stays a nanosleep, precise to the thread's timer slack; a held pacer's tail is
// holdMax.
const timerTail = 2 * time.Millisecond
