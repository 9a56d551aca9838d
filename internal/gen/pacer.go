package gen

import (
	"context"
	"syscall"
	"time"
)

// Pacer spaces operations at a target rate by their intended start times: operation k is
// intended to start at start + k/rate. When the worker falls behind it runs at once and the
// intended time stays on schedule, so latency measured from the intended start includes the
// queueing a slow engine causes (no coordinated omission). Not safe for concurrent use.
type Pacer struct {
	start time.Time
	nsPer float64 // nanoseconds per operation: 1e9/rate, unrounded so the schedule does not drift
	k     int64
}

// NewPacer returns a pacer for rate operations per second starting at start; rate must be > 0.
func NewPacer(start time.Time, rate float64) *Pacer {
	return &Pacer{start: start, nsPer: float64(time.Second) / rate}
}

// maxSleep bounds one sleep of Next, so that it notices the end of its context this soon.
const maxSleep = 20 * time.Millisecond

// Next returns the intended start time of the next operation, sleeping until then if it is in the
// future. It returns ctx's error if ctx ends first (within maxSleep).
//
// The sleep is the nanosleep system call, not a runtime timer: the Go runtime rounds a timer
// shorter than a millisecond up to a millisecond of epoll timeout, which would start paced
// operations up to 1 ms late (half a millisecond on average) and charge that lateness to the
// engine in the intended-start latency. nanosleep wakes within the kernel's timer slack (50 µs by
// default); the goroutine's thread blocks meanwhile, and the runtime hands its processor on.
func (p *Pacer) Next(ctx context.Context) (time.Time, error) {
	at := p.start.Add(time.Duration(float64(p.k) * p.nsPer))
	p.k++
	for {
		if err := ctx.Err(); err != nil {
			return at, err
		}
		d := time.Until(at)
		if d <= 0 {
			return at, nil
		}
		ts := syscall.NsecToTimespec(int64(min(d, maxSleep)))
		syscall.Nanosleep(&ts, nil) // EINTR: the loop sleeps again for what is left
	}
}
