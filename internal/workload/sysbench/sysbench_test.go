package sysbench

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/rumbench/rumbench/internal/engine"
	_ "github.com/rumbench/rumbench/internal/engine/all"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/workload"
	"github.com/rumbench/rumbench/internal/workload/worktest"
)

const (
	tinyTables = 2
	tinySize   = 1500
	tinyEvents = 12
)

// statementsPerEvent is what each test's event runs, BEGIN and COMMIT included: the reference's
// QPS counts every one of them.
var statementsPerEvent = map[string]int64{
	"read-only_range=10": 16, "read-only_range=100": 16, "read-only_range=10000": 16,
	"read-only-simple": 13, "read-only-sum": 13, "read-only-order": 13, "read-only-distinct": 13,
	"write-only": 6, "read-write_range=10": 20, "read-write_range=100": 20,
}

// TestEveryTestEveryEngine runs the 42-test set and the 32-test set's extra tests at tiny scale
// on every engine with a fixed number of events per test: each result is checked for its size as
// it runs (Verify), the statements per event are counted, the invariants hold at the end, and
// every storing engine returns the same rows for the same events (the same seed).
func TestEveryTestEveryEngine(t *testing.T) {
	var mu sync.Mutex
	returned := map[string]map[string]int64{} // engine → test → rows
	t.Run("engines", func(t *testing.T) {
		for _, name := range engine.Names() {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				got := runSuite(t, name)
				mu.Lock()
				returned[name] = got
				mu.Unlock()
			})
		}
	})
	var base string
	for name, got := range returned {
		if got == nil {
			continue
		}
		if base == "" {
			base = name
			continue
		}
		for test, n := range returned[base] {
			if got[test] != n {
				t.Errorf("%s: %s returned %d rows, %s %d", test, name, got[test], base, n)
			}
		}
	}
	if base == "" {
		t.Fatal("no storing engine ran")
	}
	if n := returned[base]["range-covered-pk"]; n < tinyEvents*90 {
		t.Errorf("range-covered-pk returned %d rows over %d events, want about 101 per event", n, tinyEvents)
	}
}

// runSuite runs every test on one engine and returns the rows each test's selects returned (nil
// for an engine that stores nothing).
func runSuite(t *testing.T, name string) map[string]int64 {
	ctx := context.Background()
	eng, dir := worktest.Engine(t, name, false, nil)
	// The 42-test set, then the five tests only the 32-test set has, on the same tables.
	cfg := Config{Tables: tinyTables, TableSize: tinySize, Threads: 1, ReadSecs: 600, WriteSecs: 600, Events: tinyEvents, // the events end each test: its time only bounds a host too loaded to run them
		Pre: true, RandType: "uniform", Prepared: true, Verify: true}
	w, err := New(cfg, 11)
	if err != nil {
		t.Fatal(err)
	}
	tests := names(Tests(true))
	tests = append(tests[:len(tests)-2:len(tests)-2], append(slices.Clone(readOnlyVariants), "delete", "insert")...)
	if name == "mongo" {
		// The document engine refuses scan's LENGTH(c) filter (table.ErrUnsupported).
		tests = slices.DeleteFunc(tests, func(tt string) bool { return tt == "scan" })
	}
	if err := w.SetSteps(append([]string{StepLoad, StepIndex}, tests...)); err != nil {
		t.Fatal(err)
	}
	run := worktest.Steps(t, eng, dir, w, func(_ workload.Run, step string, res results.Step) {
		switch step {
		case StepLoad:
			if res.KindUnits("insert") != tinyTables*tinySize {
				t.Errorf("load inserted %d rows, want %d", res.KindUnits("insert"), tinyTables*tinySize)
			}
			return
		case StepIndex:
			return
		}
		if res.KindOps("event") != tinyEvents {
			t.Errorf("%s: %d events, want %d", step, res.KindOps("event"), tinyEvents)
		}
		per := statementsPerEvent[baseName(step)]
		if per == 0 {
			per = 1
		}
		if res.KindUnits("event") != per*tinyEvents {
			t.Errorf("%s: %d statements, want %d per event", step, res.KindUnits("event"), per)
		}
		// Cross-check with the server's own count of client statements (MariaDB's Questions,
		// BEGIN and COMMIT included, as sysbench counts them); the runner's counter sampling
		// adds one statement per tick.
		if q, ok := res.ServerCounters["Questions"]; ok {
			ticks := int64(res.Secs/0.1) + 3
			if extra := q - res.KindUnits("event"); extra < 0 || extra > ticks {
				t.Errorf("%s: %d statements counted, the server counted %d questions", step, res.KindUnits("event"), q)
			}
		}
		test, _ := w.test(step)
		if res.Group != test.Group || res.Group == "" {
			t.Errorf("%s: group %q, want %q", step, res.Group, test.Group)
		}
	})
	msg, err := run.Check(ctx)
	if err != nil {
		t.Fatalf("invariants: %v", err)
	}
	t.Logf("%s: %s", name, msg)
	if !eng.Info().Stores {
		return nil
	}
	r := run.(*Run)
	got := map[string]int64{}
	for _, step := range w.Steps() {
		got[step] = r.RowsReturned(step)
	}
	// hot-points reads the same 100 ids every time.
	if n := got["hot-points"]; n != 100*tinyEvents {
		t.Errorf("hot-points returned %d rows, want %d", n, 100*tinyEvents)
	}
	if n := got["scan"]; n != 0 {
		t.Errorf("scan returned %d rows, want 0", n)
	}
	return got
}

func baseName(step string) string {
	if len(step) > 4 && step[len(step)-4:] == ".pre" {
		return step[:len(step)-4]
	}
	return step
}

// The 32-test set and the 42-test set are the reference's, in its order.
func TestTestSets(t *testing.T) {
	if n := len(Tests(false)); n != 32 {
		t.Errorf("32-test set has %d tests", n)
	}
	if n := len(Tests(true)); n != 42 {
		t.Errorf("42-test set has %d tests", n)
	}
	groups := map[string]int{}
	for _, x := range Tests(false) {
		groups[x.Group]++
	}
	want := map[string]int{GroupPoint: 9, GroupRange: 5, GroupRangeAgg: 8, GroupWrite: 10}
	for g, n := range want {
		if groups[g] != n {
			t.Errorf("group %s has %d tests, want %d", g, groups[g], n)
		}
	}
	pre := Tests(true)
	if pre[0].Name != "point-query.pre" || pre[14].Name != "read-only_range=10000.pre" || pre[15].Name != "update-inlist" {
		t.Errorf("42-test order starts %s ... %s, %s", pre[0].Name, pre[14].Name, pre[15].Name)
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		mod  func(*Config)
		want string
	}{
		{func(c *Config) { c.Tables = 0 }, "--tables 0: want 1..1000"},
		{func(c *Config) { c.RandType = "pareto" }, `--rand-type "pareto": want one of uniform, zipfian`},
		{func(c *Config) { c.Tests = "read-only-sum"; c.Pre = true }, `unknown test "read-only-sum" in the 42-test set (--pre)`},
		{func(c *Config) { c.PercentileList = "100" }, `--percentiles "100": each value must be a number in (0, 100)`},
	} {
		cfg := Default()
		c.mod(&cfg)
		_, err := New(cfg, 1)
		if err == nil || len(err.Error()) < len(c.want) || err.Error()[:len(c.want)] != c.want {
			t.Errorf("got %v, want %q...", err, c.want)
		}
	}
}

// TestConcurrentWrites runs the write tests with 4 threads on a small table of each embedded
// engine: conflicting transactions are rolled back and retried, and the invariants hold (one
// index entry per row, rows = loaded − deleted + inserted).
func TestConcurrentWrites(t *testing.T) {
	for _, name := range []string{"pebble", "bbolt", "sqlite"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			eng, dir := worktest.Engine(t, name, false, nil)
			w, err := New(Config{Tables: 1, TableSize: 200, Threads: 4, ReadSecs: 30, WriteSecs: 30, Events: 200,
				Tests:    "update-inlist,update-index,write-only,read-write_range=10,delete,insert",
				RandType: "uniform", Prepared: true}, 3)
			if err != nil {
				t.Fatal(err)
			}
			run := worktest.Steps(t, eng, dir, w, func(_ workload.Run, step string, res results.Step) {
				if step != StepLoad && step != StepIndex && res.KindOps("event") != 200 {
					t.Errorf("%s: %d events, want 200", step, res.KindOps("event"))
				}
			})
			msg, err := run.Check(context.Background())
			if err != nil {
				t.Fatalf("invariants: %v", err)
			}
			t.Log(msg)
		})
	}
}

// The settings' declarations name only the workload's profiles and steps.
func TestSettingsDeclared(t *testing.T) {
	if err := settings.Verify(profileNames, workload.StepNames(stepDecls)); err != nil {
		t.Error(err)
	}
}

// The manifest records the tests that run and the wait the reference's formula gives (60 s +
// 1 s per million rows); the reuse identity is the tables, their size, the seed and the
// schema's constants.
func TestRecordedConfig(t *testing.T) {
	d := newDefinition()
	if err := d.Flags().Parse([]string{"--tables", "2", "--tests", "point-query,update-index", "--percentiles", "99.99"}); err != nil {
		t.Fatal(err)
	}
	w, err := d.Build(workload.Shared{Profile: "standard", Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	m := w.Config()
	if got := fmt.Sprint(m["tests"], m["cleanup_wait_secs"], m["percentiles"], m["warmup_secs"], m["rand_zipfian_exp"]); got != "[update-index point-query] 160 [99.99] 5 0.8" {
		t.Errorf("recorded tests, wait, percentiles, warm-up and exponent: %s", got)
	}
	if got := fmt.Sprint(w.(workload.Reuser).DataConfig()); got != "map[c_length:119 pad_length:59 secondary_index:k seed:9 table_size:50000000 tables:2]" {
		t.Errorf("reuse identity %s", got)
	}
}
