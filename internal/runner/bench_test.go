package runner

import (
	"context"
	"github.com/rumbench/rumbench/internal/gen"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/hist"
	"github.com/rumbench/rumbench/internal/sysstat"
)

// BenchmarkTick is the runner's per-tick cost for a step of 3 workers: merge every histogram and
// counter, take a system sample (with the walk of a data directory of 10 files), build the
// interval record.
func BenchmarkTick(b *testing.B) {
	dir := b.TempDir()
	s, err := sysstat.NewSampler(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	c := newCollector(Setup{Label: "t", Sampler: s}, Step{Name: "s", Kinds: testKinds, RateKinds: []KindID{kIns}})
	for i := 0; i < 3; i++ {
		m := NewMeter(len(testKinds), i == 0)
		m.Done(kIns, time.Now(), 100)
		c.meters = append(c.meters, m)
	}
	c.begin(time.Now())
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.tick(time.Now(), false)
	}
}

// BenchmarkWork is the runner's per-operation cost: a worker's loop (work) calling an operation
// that records itself on its Meter, b.N times; the operation does nothing else.
func BenchmarkWork(b *testing.B) { benchWork(b, NewMeter(len(testKinds), false), nil) }

// BenchmarkWorkPaced is BenchmarkWork on a Poisson schedule that is always due (it began an
// hour ago at a rate of a billion per second): the cost the schedule adds to each operation.
func BenchmarkWorkPaced(b *testing.B) {
	m := NewMeter(len(testKinds), true)
	m.sched.rate, m.sched.units = 1e9, 1
	benchWork(b, m, gen.NewSchedule(time.Now().Add(-time.Hour), 1e9, gen.Poisson, 1))
}

// benchWork runs b.N operations that record one insert each through work's loop on meter m,
// paced by p (nil: a closed loop).
func benchWork(b *testing.B, m *Meter, p *gen.Pacer) {
	n := 0
	op := func(ctx context.Context, m *Meter) (bool, error) {
		n++
		if n > b.N {
			return true, nil
		}
		m.Done(kIns, time.Now(), 1)
		return false, nil
	}
	var ended atomic.Bool
	b.ReportAllocs()
	b.ResetTimer()
	if err := work(context.Background(), Worker{Name: "w", Op: op}, m, p, 0, &ended, 0); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkLiveSample measures what the metrics endpoint adds to a tick: one live sample of a
// step of three kinds (their histograms converted to classic buckets), on the observer's
// thread.
func BenchmarkLiveSample(b *testing.B) {
	st := Step{Name: "s", Kinds: Kinds{{Name: "a"}, {Name: "b"}, {Name: "c"}}, RateKinds: []KindID{0}}
	c := newCollector(Setup{Label: "t"}, st)
	h := hist.New()
	for i := range 100000 {
		h.Record(int64(1000 + i*37))
	}
	for k := range c.cur.kinds {
		h.Snapshot(&c.cur.kinds[k].hist)
	}
	b.ReportAllocs()
	for b.Loop() {
		c.sample(c.first, c.cur, 100, false)
	}
}
