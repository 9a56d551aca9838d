package runner

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/engine"
	_ "github.com/rumbench/rumbench/internal/engine/pebble"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/sysstat"
	"github.com/rumbench/rumbench/internal/table"
)

// TestSettle runs write steps on pebble, whose memtable holds what a short step wrote: a step
// that settles has its memtable flushed inside it (an sstable exists when it ends, the last
// interval is the settling's, left out of the rate percentiles), and says so; --settle off and
// a step that writes nothing do not settle.
func TestSettle(t *testing.T) {
	dir := t.TempDir()
	spec, _ := engine.Lookup("pebble")
	e, err := spec.Open(context.Background(), engine.Options{Dir: dir, CacheBytes: 8 << 20, Sync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	tb := &table.Table{Name: "t", Columns: []table.Column{{Name: "id", Type: table.Int64, NotNull: true}, {Name: "v", Type: table.Int64}}}
	if err := e.CreateTable(context.Background(), tb, true); err != nil {
		t.Fatal(err)
	}
	sess, err := e.NewSession(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	sampler, err := sysstat.NewSampler(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer sampler.Close()
	var next int64
	insert := func(n int64) OpFunc {
		rows := table.NewRows(2, 100)
		var calls int64
		return func(ctx context.Context, m *Meter) (bool, error) {
			if calls++; calls > n {
				return true, nil
			}
			rows.Reset(2)
			for range 100 {
				next++
				r := rows.Append()
				r[0].I, r[1].I = next, next*7
			}
			if err := sess.Insert(ctx, tb, rows); err != nil {
				return true, err
			}
			m.Done(kIns, time.Now(), 100)
			return false, nil
		}
	}
	sstables := func() int {
		m, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
		return len(m)
	}
	step := func(name string, op OpFunc) Step {
		return Step{Name: name, Kinds: testKinds, RateKinds: []KindID{kIns}, Workers: []Worker{{Name: "w", Role: Driver, Op: op}}}
	}
	run := func(mode SettleMode, st Step) (results.Step, []results.Interval) {
		var ivs []results.Interval
		res, err := Run(context.Background(), Setup{Label: "pebble", Engine: e, Sampler: sampler, Tick: 50 * time.Millisecond,
			Settle: mode, SettleDir: dir, OnTick: func(iv *results.Interval) { ivs = append(ivs, *iv) }}, st)
		if err != nil {
			t.Fatal(err)
		}
		return res, ivs
	}

	res, ivs := run(SettleOff, step("off", insert(20)))
	if res.Settled != "" || res.SettleSecs != 0 || res.DebtBytes != nil || sstables() != 0 {
		t.Errorf("--settle off: settled %q in %gs, debt %v, %d sstables; want no settling and the rows in the memtable", res.Settled, res.SettleSecs, res.DebtBytes, sstables())
	}
	for _, iv := range ivs {
		if iv.Settle {
			t.Errorf("--settle off: interval at %gs marked as settling", iv.T)
		}
	}

	res, ivs = run(SettleAuto, step("auto", insert(20)))
	if res.Settled != "memtable flush; syncfs" || res.SettleSecs <= 0 || res.DebtBytes == nil || *res.DebtBytes < 0 {
		t.Errorf("--settle auto, a short write step: settled %q in %gs, debt %v; want a memtable flush and a syncfs", res.Settled, res.SettleSecs, res.DebtBytes)
	}
	if sstables() == 0 {
		t.Errorf("no sstable after the settled step: the memtable was not flushed")
	}
	if res.Ops != 2000 || res.Rate != float64(res.Ops)/res.Secs {
		t.Errorf("ops %d, rate %g over %gs: want 2000 rows, the rate over the operations' time", res.Ops, res.Rate, res.Secs)
	}
	if last := ivs[len(ivs)-1]; !last.Settle || last.Kinds[kIns].Ops != 20 {
		t.Errorf("last interval %+v: want the settling's, after all 20 inserts", last)
	}
	for _, iv := range ivs[:len(ivs)-1] {
		if iv.Settle {
			t.Errorf("interval at %gs marked as settling before the last", iv.T)
		}
	}
	if res.RateIntervals > len(ivs)-1 {
		t.Errorf("%d rate intervals of %d: the settling's must be left out", res.RateIntervals, len(ivs))
	}

	read := func(ctx context.Context, m *Meter) (bool, error) {
		m.Done(kRange, time.Now(), 1)
		return true, nil
	}
	res, _ = run(SettleOn, Step{Name: "read", Kinds: testKinds, RateKinds: []KindID{kRange}, Workers: []Worker{{Name: "r", Role: Driver, Op: read}}})
	if res.Settled != "" {
		t.Errorf("a step that wrote nothing settled: %q", res.Settled)
	}
}
