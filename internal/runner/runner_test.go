package runner

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/results"
)

// counted returns an op that records one insert of rows rows, done after n calls.
func counted(n int64, rows int) OpFunc {
	var calls atomic.Int64
	return func(ctx context.Context, m *Meter) (bool, error) {
		if calls.Add(1) > n {
			return true, nil
		}
		m.Done(Insert, time.Now(), rows)
		return false, nil
	}
}

func TestDriverAndBackground(t *testing.T) {
	var bgCalls atomic.Int64
	bg := func(ctx context.Context, m *Meter) (bool, error) {
		bgCalls.Add(1)
		m.Done(RangeQuery, time.Now(), 10)
		time.Sleep(time.Millisecond)
		return false, nil
	}
	var ticks atomic.Int64
	st := Step{Name: "s", RateKinds: []Kind{Insert}, Workers: []Worker{
		{Name: "w", Role: Driver, Rate: 200, Op: counted(40, 5)},
		{Name: "q", Role: Background, Op: bg},
	}}
	start := time.Now()
	res, err := Run(context.Background(), Target{Label: "t", Tick: 50 * time.Millisecond, OnTick: func(*results.Interval) { ticks.Add(1) }}, st)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	// 40 paced calls at 200/s: the 40th starts at 195 ms.
	if took < 190*time.Millisecond || took > 2*time.Second {
		t.Errorf("paced step took %v, want about 200 ms", took)
	}
	if res.Status != results.StatusOK || res.RowsInserted != 200 || res.Ops != 200 || res.InsertStatements != 40 {
		t.Errorf("status %s inserted %d ops %d statements %d", res.Status, res.RowsInserted, res.Ops, res.InsertStatements)
	}
	if res.Queries == 0 || res.Queries != bgCalls.Load() || res.RowsPerQuery != 10 {
		t.Errorf("queries %d (calls %d), rows per query %g", res.Queries, bgCalls.Load(), res.RowsPerQuery)
	}
	if ticks.Load() < 3 {
		t.Errorf("%d ticks, want one per 50 ms", ticks.Load())
	}
	kinds := map[string]int64{}
	for _, l := range res.Latency {
		kinds[l.Kind] = l.Count
	}
	if kinds["insert"] != 40 || kinds["insert_intended"] != 40 || kinds["range_query"] != res.Queries {
		t.Errorf("latency counts %v", kinds)
	}
}

func TestTimeLimitFailureCancel(t *testing.T) {
	forever := func(ctx context.Context, m *Meter) (bool, error) {
		m.Done(Insert, time.Now(), 1)
		time.Sleep(time.Millisecond)
		return false, nil
	}
	res, err := Run(context.Background(), Target{Label: "t"}, Step{Name: "limit", RateKinds: []Kind{Insert},
		MaxDuration: 150 * time.Millisecond, Workers: []Worker{{Name: "w", Op: forever}}})
	if err != nil || res.Status != results.StatusTimeLimit || res.RowsInserted == 0 {
		t.Errorf("time limit: err %v status %s rows %d", err, res.Status, res.RowsInserted)
	}

	boom := errors.New("disk full")
	var n atomic.Int64
	failing := func(ctx context.Context, m *Meter) (bool, error) {
		if n.Add(1) == 5 {
			return false, boom
		}
		m.Done(Insert, time.Now(), 1)
		return false, nil
	}
	res, err = Run(context.Background(), Target{Label: "t"}, Step{Name: "fail", RateKinds: []Kind{Insert},
		Workers: []Worker{{Name: "writer pi1", Op: failing}, {Name: "q", Role: Background, Op: forever}}})
	if !errors.Is(err, boom) || res.Status != results.StatusFailed || res.Error != "writer pi1: disk full" || res.RowsInserted < 4 {
		t.Errorf("failure: err %v status %s error %q rows %d", err, res.Status, res.Error, res.RowsInserted)
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	blocking := func(ctx context.Context, m *Meter) (bool, error) {
		<-ctx.Done()
		return false, ctx.Err()
	}
	res, err = Run(ctx, Target{Label: "t"}, Step{Name: "cancel", RateKinds: []Kind{Insert},
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
		m.Done(Insert, time.Now(), 1)
		return false, nil
	}
	res, err := Run(context.Background(), Target{Label: "t", Tick: 20 * time.Millisecond}, Step{Name: "w",
		RateKinds: []Kind{Insert}, Warmup: 100 * time.Millisecond, Workers: []Worker{{Name: "w", Rate: 200, Op: op}}})
	if err != nil {
		t.Fatal(err)
	}
	// 300 ms of paced inserts, the first ~100 ms excluded.
	if res.WarmupSec < 0.1 || res.RowsInserted >= 60 || res.RowsInserted < 20 || res.Secs > 0.25 {
		t.Errorf("warm-up %.3fs, measured %d rows in %.3fs", res.WarmupSec, res.RowsInserted, res.Secs)
	}
}

func TestRatePercentile(t *testing.T) {
	rates := []float64{50, 10, 40, 30, 20, 100, 90, 80, 70, 60}
	// Descending: 100 90 80 70 60 50 40 30 20 10; p50 → rank 5 → 60; p99 → rank 10 → 10.
	if got := ratePercentile(rates, 0.5); got != 60 {
		t.Errorf("p50 = %g, want 60", got)
	}
	if got := ratePercentile(rates, 0.99); got != 10 {
		t.Errorf("p99 = %g, want 10", got)
	}
	if got := ratePercentile(nil, 0.5); got != 0 {
		t.Errorf("empty = %g", got)
	}
	if rates[0] != 50 {
		t.Error("ratePercentile reordered its input")
	}
}
