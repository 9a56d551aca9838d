package sysbench

import (
	"context"
	"testing"

	"github.com/rumbench/rumbench/internal/engine/null"
	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload/worktest"
)

// benchThread returns a thread of test name on the null engine: what one event costs the
// client alone (argument generation, statement dispatch, metering).
func benchThread(b *testing.B, name string) (*thread, *runner.Meter) {
	cfg := Default()
	cfg.TableSize = 10_000_000
	cfg.Tests = name // no zipfian setup unless the test needs it
	w, err := New(cfg, 3221223452)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	run, err := w.Open(ctx, null.Engine{})
	if err != nil {
		b.Fatal(err)
	}
	test, _ := lookup(name)
	sess, _ := null.Engine{}.NewSession(ctx)
	th := &thread{r: run.(*Run), test: test, sess: sess, out: table.NewRows(4, 128), seen: map[int64]struct{}{}, rng: gen.NewRand(1)}
	return th, runner.NewMeter(1, false)
}

func benchEvent(b *testing.B, name string) {
	th, m := benchThread(b, name)
	loop(b, th, m)
}

// loop runs b.N events of th as the runner's worker does: time, run, record.
func loop(b *testing.B, th *thread, m *runner.Meter) {
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := timeNow()
		n, err := th.event(ctx)
		if err != nil {
			b.Fatal(err)
		}
		m.Done(0, t0, n) // the test step's one kind, event
	}
}

func BenchmarkEventPointQuery(b *testing.B)      { benchEvent(b, "point-query") }
func BenchmarkEventRandomPoints100(b *testing.B) { benchEvent(b, "random-points_range=100") }
func BenchmarkEventReadWrite10(b *testing.B)     { benchEvent(b, "read-write_range=10") }
func BenchmarkEventUpdateNonIndex(b *testing.B)  { benchEvent(b, "update-nonindex") }

// benchEngineEvent times one event of test name on a real embedded engine (client and engine
// together): allocations here are the adapter's and the engine's.
func benchEngineEvent(b *testing.B, engineName, name string) {
	eng, dir := worktest.Engine(b, engineName, false, nil)
	cfg := Default()
	cfg.TableSize = 20_000
	cfg.Tests = name
	w, err := New(cfg, 3221223452)
	if err != nil {
		b.Fatal(err)
	}
	if err := w.SetSteps([]string{StepLoad, StepIndex}); err != nil { // load and index only; the test runs below
		b.Fatal(err)
	}
	run := worktest.Steps(b, eng, dir, w, nil).(*Run)
	ctx := context.Background()
	test, _ := lookup(name)
	sess, err := eng.NewSession(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	th := &thread{r: run, test: test, sess: sess, out: table.NewRows(4, 128), seen: map[int64]struct{}{}, rng: gen.NewRand(1)}
	loop(b, th, runner.NewMeter(1, false))
}

func BenchmarkPebblePointQuery(b *testing.B)      { benchEngineEvent(b, "pebble", "point-query") }
func BenchmarkPebblePointsCoveredSI(b *testing.B) { benchEngineEvent(b, "pebble", "points-covered-si") }
func BenchmarkPebbleRangeCoveredPK(b *testing.B)  { benchEngineEvent(b, "pebble", "range-covered-pk") }
func BenchmarkBboltPointQuery(b *testing.B)       { benchEngineEvent(b, "bbolt", "point-query") }
func BenchmarkLMDBPointQuery(b *testing.B)        { benchEngineEvent(b, "lmdb", "point-query") }
func BenchmarkRocksDBPointQuery(b *testing.B)     { benchEngineEvent(b, "rocksdb", "point-query") }
func BenchmarkWiredTigerPointQuery(b *testing.B)  { benchEngineEvent(b, "wiredtiger", "point-query") }
