package insert

import (
	"context"
	"fmt"
	"testing"

	"github.com/rumbench/rumbench/internal/engine"
	_ "github.com/rumbench/rumbench/internal/engine/all"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/workload"
	"github.com/rumbench/rumbench/internal/workload/worktest"
)

// TestEveryStepEveryEngine runs every step at tiny scale on every engine, with and without
// deletes, and checks the invariants after each step: rows = inserted − deleted, one index entry
// per row per secondary index, range and point queries returning their rows.
func TestEveryStepEveryEngine(t *testing.T) {
	for _, name := range engine.Names() {
		for _, deletes := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/deletes=%v", name, deletes), func(t *testing.T) {
				t.Parallel()
				runAllSteps(t, name, deletes)
			})
		}
	}
}

// queryKind is the operation kind of a query step's queries.
func queryKind(step string) string {
	if step[1] == 'p' {
		return "point_query"
	}
	return "range_query"
}

func runAllSteps(t *testing.T, name string, deletes bool) {
	ctx := context.Background()
	eng, dir := worktest.Engine(t, name, true, nil)
	clients, rows, writes, querySecs := int64(2), int64(2000), int64(1000), 0.3
	if name == "mongo" {
		// The managed FerretDB scans the collection for every query (and sorts it for a range
		// query): one client, a smaller table, and query steps long enough for queries to finish.
		clients, rows, writes, querySecs = 1, 400, 200, 1
	}
	w, err := New(Config{Clients: int(clients), Rows: rows, Writes: writes, QuerySecs: querySecs, DeletePerInsert: deletes}, 7)
	if err != nil {
		t.Fatal(err)
	}
	stores := eng.Info().Stores
	live := int64(0)
	worktest.Steps(t, eng, dir, w, func(run workload.Run, step string, res results.Step) {
		want := map[string]int64{"l.i0": clients * rows, "l.x": clients * lxRows, "l.i1": clients * writes * 4 / 5, "l.i2": clients * writes / 5}[step]
		if step[0] == 'q' {
			want = clients * int64(querySecs*queryRate(step))
			if res.KindOps(queryKind(step)) == 0 {
				t.Errorf("%s: no queries ran", step)
			}
		}
		if got := res.KindUnits("insert"); got != want {
			t.Errorf("%s: inserted %d rows, want %d", step, got, want)
		}
		deleted := int64(0)
		if deletes && step != "l.i0" && step != "l.x" {
			deleted = want
		}
		if got := res.KindUnits("delete"); got != deleted {
			t.Errorf("%s: deleted %d rows, want %d", step, got, deleted)
		}
		live += res.KindUnits("insert") - res.KindUnits("delete")
		if res.Rows != live || run.Rows() != live {
			t.Errorf("%s: rows %d (run %d), want %d", step, res.Rows, run.Rows(), live)
		}
		if step == "l.x" && res.Ops != clients*(rows+lxRows) {
			t.Errorf("l.x: %d indexed rows, want %d", res.Ops, clients*(rows+lxRows))
		}
		if stores && step[0] == 'q' {
			// 10 rows per query, less a few range queries that start near the top of a column's
			// range and point queries with a repeated or concurrently deleted key.
			k := queryKind(step)
			if perQuery := float64(res.KindUnits(k)) / float64(res.KindOps(k)); perQuery < 9.5 || perQuery > 10 {
				t.Errorf("%s: %.2f rows per query, want about 10", step, perQuery)
			}
			if res.RateKinds[0] != k || res.RateName != "qps" || res.Rate != res.QPS {
				t.Errorf("%s: rate kinds %v name %s rate %g qps %g", step, res.RateKinds, res.RateName, res.Rate, res.QPS)
			}
		}
		if _, err := run.Check(ctx); err != nil {
			t.Fatalf("after %s: %v", step, err)
		}
	})
}

// TestStepSelectionCreatesIndexes checks that without l.x the tables get their indexes at the
// start, so the later steps maintain and query them.
func TestStepSelectionCreatesIndexes(t *testing.T) {
	ctx := context.Background()
	spec, _ := engine.Lookup("pebble")
	eng, err := spec.Open(ctx, engine.Options{Dir: t.TempDir(), CacheBytes: 8 << 20, Sync: false})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	w, err := New(Config{Clients: 1, Rows: 500, Writes: 100, QuerySecs: 0.2, Steps: "qp100,l.i0"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(w.Steps()); got != "[l.i0 qp100]" {
		t.Fatalf("steps %s, want reference order", got)
	}
	run, err := w.Open(ctx, eng)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	for _, step := range w.Steps() {
		st, err := run.Step(ctx, step)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := runner.Run(ctx, runner.Setup{Label: "pebble", Engine: eng, Rows: run.Rows}, st); err != nil {
			t.Fatal(err)
		}
	}
	msg, err := run.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if msg != "ok: 520 rows, 1560 index entries, range and point queries return their rows" {
		t.Errorf("check: %s", msg)
	}
}

func TestConfigValidate(t *testing.T) {
	bad := []Config{
		{Clients: 0, QuerySecs: 1},
		{Clients: 1, Rows: -1, QuerySecs: 1},
		{Clients: 1, QuerySecs: 0},
		{Clients: 1, QuerySecs: 1, RowsPerCommit: -5},
		{Clients: 1, QuerySecs: 1, Steps: "l.i9"},
	}
	for _, c := range bad {
		if _, err := New(c, 1); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
	good := Default()
	if _, err := New(good, 1); err != nil {
		t.Error(err)
	}
}

// The settings' declarations name only the workload's profiles and steps.
func TestSettingsDeclared(t *testing.T) {
	if err := settings.Verify(profileNames, StepNames); err != nil {
		t.Error(err)
	}
}

// The manifest records the wait the reference's formula gives (60 s + 1 s per million rows of
// every client) and the profile's regime; the reuse identity is the clients, their rows and
// the seed.
func TestRecordedConfig(t *testing.T) {
	for _, c := range []struct {
		profile string
		args    []string
		wait    float64
		regime  string
	}{
		{"standard", []string{"--rows", "2000000", "--clients", "2"}, 64, RegimeCached},
		{"small", nil, 10, RegimeCached},
		{"iobound", nil, 0, RegimeIOBound},
	} {
		d := newDefinition()
		if err := d.Flags().Parse(c.args); err != nil {
			t.Fatal(err)
		}
		w, err := d.Build(workload.Shared{Profile: c.profile, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		m := w.Config()
		if m["cleanup_wait_secs"] != c.wait || m["regime"] != c.regime {
			t.Errorf("%s %v: cleanup_wait_secs %v regime %v, want %v %s", c.profile, c.args, m["cleanup_wait_secs"], m["regime"], c.wait, c.regime)
		}
		id := w.(workload.Reuser).DataConfig()
		if got := fmt.Sprint(id); got != fmt.Sprintf("map[clients:%d rows:%d seed:9]", m["clients"], m["rows"]) {
			t.Errorf("%s: reuse identity %s", c.profile, got)
		}
	}
}
