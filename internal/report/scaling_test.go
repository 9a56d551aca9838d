package report

import (
	"math"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/results"
)

// sweepRun is a hand-built sweep of two counts and three: engine a scales (100, 190, 200 qps,
// its CPU per query rising at the last), engine b only loads.
func sweepRun() *results.Run {
	rec := func(target, step string, rate, cpu float64) results.Step {
		return results.Step{Target: target, Step: step, Status: "ok", Secs: 1, Rate: rate, RateName: "qps", RateUnit: "queries/s",
			HostCPUUsPerOp: cpu, RateKinds: []string{"q"}, Ops: int64(rate),
			Kinds: []results.Kind{{Name: "q", Role: results.RoleRead, Unit: "queries", Ops: int64(rate), Units: int64(rate)}}}
	}
	m := &results.Manifest{RunID: "r", Workload: "sysbench", Sweep: &results.Sweep{Flag: "threads", Counts: []int{1, 2, 4}, LoadOnce: true},
		Targets: []results.Target{{Label: "a"}, {Label: "a@1", Of: "a", Clients: 1}, {Label: "a@2", Of: "a", Clients: 2}, {Label: "a@4", Of: "a", Clients: 4}}}
	return &results.Run{Manifest: m, Steps: []results.Step{rec("a", "load", 1000, 1),
		rec("a@1", "q", 100, 10), rec("a@2", "q", 190, 10), rec("a@4", "q", 200, 12)}}
}

// TestSweeps checks the scaling figures: speedup over the smallest count, efficiency per
// client, the gain over the count before and the knee.
func TestSweeps(t *testing.T) {
	steps := Sweeps([]*results.Run{sweepRun()})
	if len(steps) != 1 || steps[0].Step != "q" || steps[0].RateName != "qps" || len(steps[0].Lines) != 1 {
		t.Fatalf("sweeps %+v, want step q alone (the load ran at one count)", steps)
	}
	pts := steps[0].Lines[0].Points
	want := []struct{ clients, speedup, eff, gain float64 }{{1, 1, 1, math.NaN()}, {2, 1.9, 0.95, 1.9}, {4, 2, 0.5, 200.0 / 190}}
	for i, w := range want {
		p := pts[i]
		if float64(p.Clients) != w.clients || math.Abs(p.Speedup-w.speedup) > 1e-9 || math.Abs(p.Efficiency-w.eff) > 1e-9 ||
			(math.IsNaN(w.gain) != math.IsNaN(p.Gain)) || (!math.IsNaN(w.gain) && math.Abs(p.Gain-w.gain) > 1e-9) {
			t.Errorf("point %d: %+v, want %+v", i, p, w)
		}
	}
	if pts[1].PastKnee() || !pts[2].PastKnee() {
		t.Errorf("knee: 2 clients %v, 4 clients %v; want only 4 past it (5%% more qps)", pts[1].PastKnee(), pts[2].PastKnee())
	}
	tables := ScalingTables([]*results.Run{sweepRun()})
	if len(tables) != 1 {
		t.Fatalf("%d tables, want 1", len(tables))
	}
	var b strings.Builder
	if err := WriteText(&b, tables[0]); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, s := range []string{"scaling: q", "speedup: qps over qps at 1 client", "past knee, cpu/op +20%", "1.90  0.95"} {
		if !strings.Contains(text, s) {
			t.Errorf("table lacks %q:\n%s", s, text)
		}
	}
	if Sweeps([]*results.Run{{Manifest: &results.Manifest{}, Steps: sweepRun().Steps}}) != nil {
		t.Error("a run without a sweep has scaling figures")
	}
}
