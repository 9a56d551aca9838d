package runner

import (
	"context"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/results"
)

// stalling returns an op that records one insert per call and, on call stallAt, stalls for
// stall before it records (a server that stops answering for a while); done after n calls.
func stalling(n, stallAt int64, stall time.Duration) OpFunc {
	var calls atomic.Int64
	return func(ctx context.Context, m *Meter) (bool, error) {
		k := calls.Add(1)
		if k > n {
			return true, nil
		}
		start := time.Now()
		if k == stallAt {
			time.Sleep(stall)
		}
		m.Done(kIns, start, 1)
		return false, nil
	}
}

// over counts the operations of l slower than ns (its buckets above ns).
func over(l *results.Latency, ns int64) int64 {
	var n int64
	for _, b := range l.Buckets {
		if b.UpperNs > ns {
			n += b.Count
		}
	}
	return n
}

func latencyOf(r results.Step, kind string) *results.Latency {
	for i := range r.Latency {
		if r.Latency[i].Kind == kind {
			return &r.Latency[i]
		}
	}
	return nil
}

// TestPaceQueueing runs a paced step whose operation stalls once for 200 ms at a rate of 500 per
// second: the operations due meanwhile queue behind it. Their response time from the intended
// start includes the queueing, their service time does not: only the stalled operation's
// service time is long, while dozens are late from their intended start. Counts are asserted,
// with room for a loaded host.
func TestPaceQueueing(t *testing.T) {
	st := Step{Name: "s", Kinds: testKinds, RateKinds: []KindID{kIns},
		Pace:    &Pace{Rate: 500, Arrivals: gen.Uniform, Seed: 1},
		Workers: []Worker{{Name: "w", Role: Driver, Op: stalling(200, 20, 200*time.Millisecond)}}}
	res, err := Run(context.Background(), Setup{Label: "t", Tick: 20 * time.Millisecond}, st)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Schedule
	if s == nil || s.Rate != 500 || s.Arrivals != "uniform" || s.Skipped != 0 {
		t.Fatalf("schedule %+v, want rate 500, uniform, none skipped", s)
	}
	if res.Ops != 200 || s.Achieved <= 0 || s.LagMeanMs <= 0 || s.LagMaxSecs <= 0 {
		t.Fatalf("ops %d, schedule %+v: want 200 ops, an achieved rate and a lag", res.Ops, s)
	}
	service, intended := latencyOf(res, "insert"), latencyOf(res, "insert_intended")
	if service == nil || intended == nil || service.Count != 200 || intended.Count != 200 {
		t.Fatalf("latencies %+v: want 200 of insert and of insert_intended", res.Latency)
	}
	const slow = int64(100 * time.Millisecond)
	sv, in := over(service, slow), over(intended, slow)
	// The 50 operations due in the stall's first 100 ms start at least 100 ms late.
	if sv < 1 || in < 40 || sv >= in {
		t.Fatalf("operations over 100 ms: %d by service time, %d from the intended start; want 1 (or a few on a loaded host) and 40 or more", sv, in)
	}
}

// TestPaceLatencyLimit runs the stalled step with a latency limit of 20 ms: the operations that
// are later than that when their turn comes are skipped, counted apart, never run.
func TestPaceLatencyLimit(t *testing.T) {
	st := Step{Name: "s", Kinds: testKinds, RateKinds: []KindID{kIns},
		Pace:    &Pace{Rate: 500, Arrivals: gen.Poisson, Seed: 1, LatencyLimit: 20 * time.Millisecond},
		Workers: []Worker{{Name: "w", Role: Driver, Op: stalling(200, 20, 200*time.Millisecond)}}}
	res, err := Run(context.Background(), Setup{Label: "t", Tick: 20 * time.Millisecond}, st)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Schedule
	if s == nil || s.Arrivals != "poisson" || s.LatencyLimitMs != 20 || res.Ops != 200 {
		t.Fatalf("ops %d, schedule %+v: want 200 ops, poisson, limit 20 ms", res.Ops, s)
	}
	// About 90 of the 100 operations due in the stall are more than 20 ms late.
	if s.Skipped < 40 {
		t.Fatalf("%d operations skipped, want the 40 or more due in the stall's last 180 ms", s.Skipped)
	}
}

// TestPaceShares checks which workers a step's Pace paces: drivers without a rate of their own
// that follow no other; and that a step with none is not paced.
func TestPaceShares(t *testing.T) {
	st := Step{Pace: &Pace{Rate: 100}, Workers: []Worker{
		{Role: Driver}, {Role: Driver}, {Role: Driver, Unpaced: true}, {Role: Driver, Rate: 5}, {Role: Background},
	}}
	if n := paceShares(st); n != 2 {
		t.Fatalf("paceShares = %d, want 2", n)
	}
	st.Workers = st.Workers[2:]
	if n := paceShares(st); n != 0 {
		t.Fatalf("paceShares = %d, want 0", n)
	}
	res, err := Run(context.Background(), Setup{Label: "t", Tick: 20 * time.Millisecond}, Step{Name: "s", Kinds: testKinds,
		RateKinds: []KindID{kIns}, Pace: &Pace{Rate: 100}, Workers: []Worker{{Name: "w", Role: Driver, Unpaced: true, Op: counted(10, 1)}}})
	if err != nil || res.Schedule != nil || res.Ops != 10 {
		t.Fatalf("a step with no worker to pace: ops %d, schedule %+v, err %v; want 10 ops and no schedule", res.Ops, res.Schedule, err)
	}
}

// TestPaceBehind runs a timed step of 300 ms at 1000 per second (uniform: 300 arrivals in the
// window) whose operation stalls past the window's end at its 50th call: the arrivals it did not
// start are counted in what was offered, not in what was achieved, and the rate is not met.
func TestPaceBehind(t *testing.T) {
	st := Step{Name: "s", Kinds: testKinds, RateKinds: []KindID{kIns}, Duration: 300 * time.Millisecond,
		Pace:    &Pace{Rate: 1000, Arrivals: gen.Uniform, Seed: 1},
		Workers: []Worker{{Name: "w", Role: Driver, Op: stalling(1000, 50, 500*time.Millisecond)}}}
	res, err := Run(context.Background(), Setup{Label: "t", Tick: 50 * time.Millisecond}, st)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Schedule
	if s == nil || s.Met || s.Achieved >= s.Offered {
		t.Fatalf("schedule %+v: want the rate not met, achieved below offered", s)
	}
	if n := math.Round(s.Offered * res.Secs); n != 300 {
		t.Fatalf("offered %g/s over %g s = %g operations, want the window's 300", s.Offered, res.Secs, n)
	}
	if got := math.Round(s.Achieved * res.Secs); got != 50 {
		t.Fatalf("achieved %g/s over %g s = %g operations started, want 50", s.Achieved, res.Secs, got)
	}
	if s.LagMaxSecs <= 0 || s.Backlog <= 0 {
		t.Fatalf("schedule %+v: want a lag and a backlog seen by the ticks in the stall", s)
	}
}
