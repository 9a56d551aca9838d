package runner

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/hist"
	"github.com/rumbench/rumbench/internal/results"
)

// testKinds are the kinds of the test steps: inserts counted by rows, range queries by calls.
var testKinds = Kinds{
	{Name: "insert", Role: results.RoleWrite, Unit: "rows", CountUnits: true},
	{Name: "range_query", Role: results.RoleRead, Unit: "rows"},
}

const kIns, kRange KindID = 0, 1

// counted returns an op that records one insert of rows rows, done after n calls.
func counted(n int64, rows int) OpFunc {
	var calls atomic.Int64
	return func(ctx context.Context, m *Meter) (bool, error) {
		if calls.Add(1) > n {
			return true, nil
		}
		m.Done(kIns, time.Now(), rows)
		return false, nil
	}
}

// queries returns an op that records one range query of 10 rows, done after n calls.
func queries(n int64) OpFunc {
	var calls atomic.Int64
	return func(ctx context.Context, m *Meter) (bool, error) {
		if calls.Add(1) > n {
			return true, nil
		}
		m.Done(kRange, time.Now(), 10)
		return false, nil
	}
}

func TestDriverAndBackground(t *testing.T) {
	var bgCalls atomic.Int64
	bg := func(ctx context.Context, m *Meter) (bool, error) {
		bgCalls.Add(1)
		m.Done(kRange, time.Now(), 10)
		time.Sleep(time.Millisecond)
		return false, nil
	}
	var ticks atomic.Int64
	var lastInserts atomic.Int64 // the last interval's insert calls (counts since the step's start)
	st := Step{Name: "s", Kinds: testKinds, RateKinds: []KindID{kIns}, Workers: []Worker{
		{Name: "w", Role: Driver, Rate: 200, Op: counted(40, 5)},
		{Name: "q", Role: Background, Op: bg},
	}}
	start := time.Now()
	res, err := Run(context.Background(), Setup{Label: "t", Tick: 50 * time.Millisecond, OnTick: func(iv *results.Interval) {
		ticks.Add(1)
		for _, k := range iv.Kinds {
			if k.Name == "insert" {
				lastInserts.Store(k.Ops)
			}
		}
	}}, st)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	// 40 paced calls at 200/s: the 40th starts at 195 ms, never sooner (a loaded host only makes
	// it later: the minute is a hang guard).
	if took < 190*time.Millisecond || took > time.Minute {
		t.Errorf("paced step took %v, want at least 195 ms", took)
	}
	ins, q := res.Kind("insert"), res.Kind("range_query")
	if res.Status != results.StatusOK || ins.Units != 200 || res.Ops != 200 || ins.Ops != 40 || ins.Role != results.RoleWrite {
		t.Errorf("status %s inserted %d ops %d statements %d", res.Status, ins.Units, res.Ops, ins.Ops)
	}
	if q.Ops == 0 || q.Ops != bgCalls.Load() || q.Units != 10*q.Ops {
		t.Errorf("queries %d (calls %d), rows %d", q.Ops, bgCalls.Load(), q.Units)
	}
	if res.IPS <= 0 || res.QPS <= 0 || res.Rate != res.IPS || math.Abs(res.CallsPerSec*5-res.Rate) > 1e-9*res.Rate {
		t.Errorf("role rates: ips %g qps %g rate %g calls/s %g", res.IPS, res.QPS, res.Rate, res.CallsPerSec)
	}
	// At least one periodic tick in the 195 ms and the final one, which has every insert.
	if ticks.Load() < 2 || lastInserts.Load() != 40 {
		t.Errorf("%d ticks, the last with %d inserts; want a tick per 50 ms and a final one with 40", ticks.Load(), lastInserts.Load())
	}
	kinds := map[string]int64{}
	for _, l := range res.Latency {
		kinds[l.Kind] = l.Count
	}
	if kinds["insert"] != 40 || kinds["insert_intended"] != 40 || kinds["range_query"] != q.Ops {
		t.Errorf("latency counts %v", kinds)
	}
}

func TestTimeLimitFailureCancel(t *testing.T) {
	forever := func(ctx context.Context, m *Meter) (bool, error) {
		m.Done(kIns, time.Now(), 1)
		time.Sleep(time.Millisecond)
		return false, nil
	}
	res, err := Run(context.Background(), Setup{Label: "t"}, Step{Name: "limit", Kinds: testKinds, RateKinds: []KindID{kIns},
		MaxDuration: 150 * time.Millisecond, Workers: []Worker{{Name: "w", Op: forever}}})
	if err != nil || res.Status != results.StatusTimeLimit || res.Kind("insert").Units == 0 {
		t.Errorf("time limit: err %v status %s rows %d", err, res.Status, res.Kind("insert").Units)
	}

	boom := errors.New("disk full")
	var n atomic.Int64
	failing := func(ctx context.Context, m *Meter) (bool, error) {
		if n.Add(1) == 5 {
			return false, boom
		}
		m.Done(kIns, time.Now(), 1)
		return false, nil
	}
	res, err = Run(context.Background(), Setup{Label: "t"}, Step{Name: "fail", Kinds: testKinds, RateKinds: []KindID{kIns},
		Workers: []Worker{{Name: "writer pi1", Op: failing}, {Name: "q", Role: Background, Op: forever}}})
	if !errors.Is(err, boom) || res.Status != results.StatusFailed || res.Error != "writer pi1: disk full" || res.Kind("insert").Units < 4 {
		t.Errorf("failure: err %v status %s error %q rows %d", err, res.Status, res.Error, res.Kind("insert").Units)
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	blocking := func(ctx context.Context, m *Meter) (bool, error) {
		<-ctx.Done()
		return false, ctx.Err()
	}
	res, err = Run(ctx, Setup{Label: "t"}, Step{Name: "cancel", Kinds: testKinds, RateKinds: []KindID{kIns},
		Workers: []Worker{{Name: "w", Op: blocking}}})
	if err != nil || res.Status != results.StatusInterrupted {
		t.Errorf("cancel: err %v status %s", err, res.Status)
	}
}

func TestWarmupExcluded(t *testing.T) {
	var calls atomic.Int64
	op := func(ctx context.Context, m *Meter) (bool, error) {
		if calls.Add(1) > 60 {
			return true, nil
		}
		m.Done(kIns, time.Now(), 1)
		return false, nil
	}
	start := time.Now()
	res, err := Run(context.Background(), Setup{Label: "t", Tick: 20 * time.Millisecond}, Step{Name: "w",
		Kinds: testKinds, RateKinds: []KindID{kIns}, Warmup: 100 * time.Millisecond, Workers: []Worker{{Name: "w", Rate: 200, Op: op}}})
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start).Seconds()
	// 300 ms (or more, on a loaded host) of paced inserts, the first 100 ms or more excluded:
	// the measured window is what follows the warm-up, with some of the 60 rows, not all.
	if rows := res.Kind("insert").Units; res.WarmupSec < 0.1 || rows >= 60 || rows < 1 || res.Secs <= 0 || res.WarmupSec+res.Secs > took {
		t.Errorf("warm-up %.3fs, measured %d rows in %.3fs of %.3fs", res.WarmupSec, rows, res.Secs, took)
	}
}

// TestWindowRule: an operation counts when the unit of work it belongs to started inside the
// measured window, whenever it ends; the operations of a unit count together.
func TestWindowRule(t *testing.T) {
	m := NewMeter(len(testKinds), false)
	t0 := time.Now()
	m.from, m.to = t0.Add(time.Second), t0.Add(2*time.Second)
	before, inside, after := t0, t0.Add(1500*time.Millisecond), t0.Add(2*time.Second)
	// A unit that began in the warm-up, its second operation inside the window: neither counts.
	m.DoneIn(kIns, before, before, inside, 1)
	m.DoneIn(kRange, before, inside, inside, 1)
	// A unit that began inside, its second operation ending after the window: both count.
	m.DoneIn(kIns, inside, inside, after, 2)
	m.DoneIn(kRange, inside, after, after.Add(time.Second), 1)
	// One that began at the window's end does not.
	m.DoneAt(kIns, after, after, 3)
	k := &m.kinds[kIns]
	if k.ops.Load() != 1 || k.units.Load() != 2 || k.warmOps.Load() != 2 || k.warmUnits.Load() != 4 || histTotal(k.hist) != 1 {
		t.Errorf("insert: %d ops %d units measured, %d ops %d units apart, %d in the histogram", k.ops.Load(), k.units.Load(), k.warmOps.Load(), k.warmUnits.Load(), histTotal(k.hist))
	}
	if r := &m.kinds[kRange]; r.ops.Load() != 1 || r.warmOps.Load() != 1 {
		t.Errorf("range: %d measured, %d apart", r.ops.Load(), r.warmOps.Load())
	}
	if m.Ended(inside) || !m.Ended(after) || (&Meter{}).Ended(after) {
		t.Error("Ended: want true from the window's end on, never without one")
	}
}

// TestTimedWindow: a timed step with a warm-up; one worker runs transactions of two
// operations, and two of them stall across the window's start and end. Each kind is counted
// exactly as often as the transactions that began inside the window, and none starts after it.
func TestTimedWindow(t *testing.T) {
	var in, after atomic.Int64 // transactions that began inside the window, and after it
	waitUntil := func(ctx context.Context, t time.Time) {
		for time.Now().Before(t) && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
	}
	op := func(ctx context.Context, m *Meter) (bool, error) {
		origin := time.Now()
		switch {
		case !origin.Before(m.to):
			after.Add(1)
		case !origin.Before(m.from):
			in.Add(1)
		}
		m.DoneIn(kIns, origin, origin, time.Now(), 1)
		// Stall across an edge of the window the transaction began before.
		if origin.Before(m.from) {
			waitUntil(ctx, m.from.Add(5*time.Millisecond))
		} else if d := m.to.Sub(origin); d < 20*time.Millisecond {
			waitUntil(ctx, m.to.Add(5*time.Millisecond))
		} else {
			time.Sleep(time.Millisecond)
		}
		s := time.Now()
		m.DoneIn(kRange, origin, s, time.Now(), 1)
		return false, nil
	}
	res, err := Run(context.Background(), Setup{Label: "t", Tick: 10 * time.Millisecond}, Step{Name: "w", Kinds: testKinds,
		RateKinds: []KindID{kIns}, Warmup: 50 * time.Millisecond, Duration: 100 * time.Millisecond, Workers: []Worker{{Name: "w", Op: op}}})
	if err != nil {
		t.Fatal(err)
	}
	ins, rng := res.Kind("insert").Ops, res.Kind("range_query").Ops
	if ins != in.Load() || rng != in.Load() || after.Load() != 0 || ins == 0 {
		t.Errorf("measured %d inserts and %d range queries; %d transactions began inside the window, %d after it", ins, rng, in.Load(), after.Load())
	}
	// (The status may be degraded: a loaded host runs fewer than MinOps transactions in 0.1 s.)
	if (res.Status != results.StatusOK && res.Status != results.StatusDegraded) || res.WarmupSec < 0.05 || res.Secs < 0.1 {
		t.Errorf("status %s, warm-up %.3fs, measured %.3fs: want the warm-up and the window's full length", res.Status, res.WarmupSec, res.Secs)
	}
}

func TestRatePercentile(t *testing.T) {
	rates := []float64{50, 10, 40, 30, 20, 100, 90, 80, 70, 60}
	// Descending: 100 90 80 70 60 50 40 30 20 10; p50 → rank 5 → 60; p99 → rank 10 → 10.
	if got := results.RatePercentile(rates, 0.5); got != 60 {
		t.Errorf("p50 = %g, want 60", got)
	}
	if got := results.RatePercentile(rates, 0.99); got != 10 {
		t.Errorf("p99 = %g, want 10", got)
	}
	if got := results.RatePercentile(nil, 0.5); got != 0 {
		t.Errorf("empty = %g", got)
	}
	if rates[0] != 50 {
		t.Error("RatePercentile reordered its input")
	}
}

// A step whose warm-up outlasts it, that measured nothing, or too few operations for per-op
// figures, is degraded, with the reasons.
func TestDegraded(t *testing.T) {
	res, err := Run(context.Background(), Setup{Label: "t", Tick: 20 * time.Millisecond}, Step{Name: "w",
		Kinds: testKinds, RateKinds: []KindID{kIns}, Warmup: time.Hour, Workers: []Worker{{Name: "w", Op: counted(MinOps, 1)}}})
	if err != nil || res.Status != results.StatusDegraded || len(res.Degraded) != 1 || res.Degraded[0] != "the warm-up (1h0m0s) did not end before the step did: nothing was measured" {
		t.Errorf("warm-up overrun: err %v status %s reasons %q", err, res.Status, res.Degraded)
	}
	res, _ = Run(context.Background(), Setup{Label: "t"}, Step{Name: "none", Kinds: testKinds, RateKinds: []KindID{kIns},
		Workers: []Worker{{Name: "w", Op: counted(0, 1)}}})
	if res.Status != results.StatusDegraded || len(res.Degraded) != 1 || res.Degraded[0] != "no operation was measured" {
		t.Errorf("nothing measured: status %s reasons %q", res.Status, res.Degraded)
	}
	// The operations are what the rate counts: 99 rows in 99 calls are too few, 100 rows in
	// one call are enough, 99 queries of 10 rows each are too few.
	few := "only 99 operations (per inserted row) measured, fewer than 100: a per-op figure charges each with a large share of what the step cost besides its operations (settling, sampling, background work)"
	for _, c := range []struct {
		name   string
		op     OpFunc
		rate   KindID
		perOp  string
		status string
		reason string
	}{
		{"99 rows", counted(MinOps-1, 1), kIns, "inserted row", results.StatusDegraded, few},
		{"100 rows in a call", counted(1, MinOps), kIns, "inserted row", results.StatusOK, ""},
		{"99 queries", queries(MinOps - 1), kRange, "", results.StatusDegraded, strings.Replace(few, " (per inserted row)", "", 1)},
		{"1 row", counted(1, 1), kIns, "transaction", results.StatusDegraded, strings.Replace(few, "99 operations (per inserted row)", "1 operation (per transaction)", 1)},
	} {
		res, err := Run(context.Background(), Setup{Label: "t"}, Step{Name: c.name, Kinds: testKinds, RateKinds: []KindID{c.rate},
			Presentation: Presentation{PerOp: c.perOp}, Workers: []Worker{{Name: "w", Op: c.op}}})
		if err != nil || res.Status != c.status || strings.Join(res.Degraded, "; ") != c.reason {
			t.Errorf("%s: err %v, %d ops, status %s, reasons %q; want %s %q", c.name, err, res.Ops, res.Status, res.Degraded, c.status, c.reason)
		}
	}
}

// A worker's panic fails the step with an error; it does not end the process.
func TestWorkerPanic(t *testing.T) {
	boom := func(ctx context.Context, m *Meter) (bool, error) { panic("engine bug") }
	res, err := Run(context.Background(), Setup{Label: "t"}, Step{Name: "p", Kinds: testKinds, RateKinds: []KindID{kIns},
		Workers: []Worker{{Name: "writer pi1", Op: boom}}})
	if err == nil || res.Status != results.StatusFailed || res.Error != "writer pi1: panic: engine bug" {
		t.Errorf("err %v, status %s, error %q", err, res.Status, res.Error)
	}
}

func histTotal(h *hist.Histogram) int64 {
	var s hist.Snapshot
	h.Snapshot(&s)
	return s.Total
}
