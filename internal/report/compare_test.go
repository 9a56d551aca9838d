package report

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/results"
)

func TestRatio(t *testing.T) {
	for _, tc := range []struct{ v, base, want float64 }{
		{2, 4, 0.5}, {0, 0, 1}, {3, 0, math.Inf(1)}, {0, 2, 0},
	} {
		if got := Ratio(tc.v, tc.base); got != tc.want {
			t.Errorf("Ratio(%g, %g) = %g, want %g", tc.v, tc.base, got, tc.want)
		}
	}
	if got := Ratio(math.NaN(), 1); !math.IsNaN(got) {
		t.Errorf("Ratio(NaN, 1) = %g, want NaN", got)
	}
}

// sbStep is a synthetic sysbench test result: qps and the efficiency figures derived from it.
func sbStep(target, test, group string, qps, cpu, wkb float64) results.Step {
	s := results.Step{Target: target, Engine: target, Step: test, Group: group, Status: "ok", Secs: 10,
		RateName: "qps", RateUnit: "statements/s", PerOp: "statement",
		Note:      "qps = statements/s incl. BEGIN/COMMIT, scan: Krps; per-op figures per statement",
		RateKinds: []string{"event"}, Ops: int64(qps * 10), Rate: qps, CallsPerSec: qps / 10,
		Kinds:  []results.Kind{{Name: "event", Role: results.RoleOther, Unit: "statements", Ops: int64(qps), Units: int64(qps * 10)}},
		Device: "vda", HostCPUUsPerOp: cpu, ClientCPUUsPerOp: cpu / 4, CSPerOp: 2, ReadKBPerOp: 0, WriteKBPerOp: wkb,
		FlushesPerOp: wkb / 8, Server: "managed", ServerCPUUsPerOp: cpu / 2, ServerFsyncsPerOp: -1}
	if test == "scan" {
		s.RateName, s.RateUnit = "Krps", "thousand rows/s"
	}
	return s
}

// sysbenchGroups are the sysbench workload's groups as its manifest records them.
var sysbenchGroups = []results.Group{{Name: "point", Title: "point queries"}, {Name: "range", Title: "range queries without aggregation"},
	{Name: "range_agg", Title: "range queries with aggregation"}, {Name: "write", Title: "writes"}}

// sysbenchRun is one run of four tests on three targets. Reads write nothing on the base: the
// write figures exercise 0/0 (prints 1) and x/0 (prints inf).
func sysbenchRun(id string, scale float64) *results.Run {
	var steps []results.Step
	for ti, tg := range []string{"mysql", "postgres", "myrocks"} {
		f := scale * float64(ti+1)
		wkbRange := 0.0
		if tg == "myrocks" {
			wkbRange = 0.5 // x/0 against the base's 0
		}
		steps = append(steps,
			sbStep(tg, "point-query", "point", 10000*f, 50/f, 0),
			sbStep(tg, "points-covered-pk", "point", 8000*f, 60/f, 0),
			sbStep(tg, "range-covered-pk", "range", 4000*f, 120/f, wkbRange),
			sbStep(tg, "read-only_range=100", "range_agg", 2000*f, 300/f, 0),
			sbStep(tg, "update-index", "write", 3000/f, 80*f, 4*f),
			sbStep(tg, "insert", "write", 5000, 40, 2),
		)
	}
	return &results.Run{Dir: "results/" + id, Manifest: &results.Manifest{SchemaVersion: 2, RunID: id, Workload: "sysbench", Groups: sysbenchGroups}, Steps: steps}
}

func TestCompareSysbenchGolden(t *testing.T) {
	c, err := Compare([]*results.Run{sysbenchRun("20261121T120000Z-sb", 1)}, "")
	if err != nil {
		t.Fatal(err)
	}
	if !c.Grouped || len(c.Series) != 3 || c.Base != 0 {
		t.Fatalf("grouped %v, %d series, base %d", c.Grouped, len(c.Series), c.Base)
	}
	// point-query: postgres runs 20000 qps against mysql's 10000.
	if got := c.Blocks[0].Rows[0].Rel[1]; got != 2 {
		t.Errorf("point-query postgres relative qps = %g, want 2", got)
	}
	for _, f := range []string{"text", "tsv"} {
		var b bytes.Buffer
		if err := Render(&b, f, c.Document(false)); err != nil {
			t.Fatal(err)
		}
		golden(t, "compare-sysbench."+f, b.Bytes())
	}
	var b bytes.Buffer
	if err := Render(&b, "text", c.Document(true)); err != nil {
		t.Fatal(err)
	}
	golden(t, "compare-sysbench-abs.text", b.Bytes())
}

func TestCompareRunsGolden(t *testing.T) {
	runs := []*results.Run{sysbenchRun("20261121T120000Z-sb", 1), sysbenchRun("20261122T120000Z-sb", 1.1)}
	c, err := Compare(runs, "r2/postgres")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Series) != 6 || c.Base != 4 {
		t.Fatalf("%d series, base %d", len(c.Series), c.Base)
	}
	for _, f := range []string{"md", "csv", "json"} {
		var b bytes.Buffer
		if err := Render(&b, f, c.Document(false)); err != nil {
			t.Fatal(err)
		}
		golden(t, "compare-runs."+f, b.Bytes())
	}
	// A run id prefix selects that run's first target.
	if c, err := Compare(runs, "20261122"); err != nil || c.Base != 3 {
		t.Errorf("base by run prefix: %v, base %d, want 3", err, c.Base)
	}
	if _, err := Compare(runs, "nosuch"); !errors.Is(err, ErrUnknownBase) {
		t.Errorf("unknown base: %v", err)
	}
}

func TestCompareInsertGolden(t *testing.T) {
	c, err := Compare([]*results.Run{sampleRun()}, "sqlite")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Render(&b, "text", c.Document(false)); err != nil {
		t.Fatal(err)
	}
	golden(t, "compare-insert.text", b.Bytes())
}

// A comparison of one target, or of runs of different workloads, is refused.
func TestCompareNothing(t *testing.T) {
	one := sampleRun()
	one.Steps = one.Steps[:1]
	if _, err := Compare([]*results.Run{one}, ""); !errors.Is(err, ErrNothingToCompare) {
		t.Errorf("one target: %v", err)
	}
	if _, err := Compare([]*results.Run{sampleRun(), sysbenchRun("x", 1)}, ""); !errors.Is(err, ErrNothingToCompare) ||
		!strings.Contains(err.Error(), "insert, sysbench") {
		t.Errorf("two workloads: %v", err)
	}
}

func TestGoBenchSysbench(t *testing.T) {
	r := sysbenchRun("20261121T120000Z-sb", 1)
	r.Steps = append(r.Steps, sbStep("mysql", "scan", "range", 2500, 1, 0))
	var b bytes.Buffer
	if err := GoBench(&b, []*results.Run{r}); err != nil {
		t.Fatal(err)
	}
	golden(t, "sysbench.gobench", b.Bytes())
	checkBenchFormat(t, b.String())
}

// checkBenchFormat checks every Benchmark line against the Go benchmark format benchstat reads:
// a name without spaces, an integer iteration count, then value-unit pairs.
func checkBenchFormat(t *testing.T, out string) {
	t.Helper()
	lines := 0
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "Benchmark") {
			continue
		}
		lines++
		f := strings.Fields(l)
		if len(f) < 4 || len(f)%2 != 0 {
			t.Errorf("%q: want name, iterations and value-unit pairs", l)
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			t.Errorf("%q: iterations %q", l, f[1])
		}
		for i := 2; i < len(f); i += 2 {
			if _, err := strconv.ParseFloat(f[i], 64); err != nil {
				t.Errorf("%q: value %q", l, f[i])
			}
			if _, err := strconv.ParseFloat(f[i+1], 64); err == nil {
				t.Errorf("%q: unit %q is a number", l, f[i+1])
			}
		}
	}
	if lines == 0 {
		t.Error("no Benchmark line")
	}
}
