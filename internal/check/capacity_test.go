package check

import (
	"testing"

	"github.com/rumbench/rumbench/internal/hist"
	"github.com/rumbench/rumbench/internal/results"
)

// pacedStep is a paced step of kind "event" whose intended-start latencies are all us µs (and
// its service times a tenth of that), kept or not.
func pacedStep(us float64, kept bool) *results.Step {
	h := hist.New()
	s := hist.New()
	for range 1000 {
		h.Record(int64(us * 1e3))
		s.Record(int64(us * 1e2))
	}
	var a, b hist.Snapshot
	h.Snapshot(&a)
	s.Snapshot(&b)
	return &results.Step{Step: "run", Status: results.StatusOK, RateKinds: []string{"event"},
		Schedule: &results.Schedule{Rate: 1, Met: kept},
		Latency: []results.Latency{{Kind: "event", Count: 1000, Buckets: b.Buckets(nil)},
			{Kind: "event_intended", Count: 1000, MaxUs: us, Buckets: a.Buckets(nil)}}}
}

// TestCapacity checks the capacity of a sweep of rates: the highest rate whose steps met the
// goal from the intended start and kept their rate; a check on it passes and fails by it.
func TestCapacity(t *testing.T) {
	goal := &results.SLO{Text: "p99<=2ms", Name: "p99", Percentile: 99, LimitUs: 2000}
	series := []Series{
		{Label: "pg@r1000", Of: "pg", Rate: 1000, SLO: goal, Steps: []*results.Step{pacedStep(500, true)}},
		{Label: "pg@r2000", Of: "pg", Rate: 2000, SLO: goal, Steps: []*results.Step{pacedStep(1500, true)}},
		{Label: "pg@r4000", Of: "pg", Rate: 4000, SLO: goal, Steps: []*results.Step{pacedStep(1900, false)}}, // behind
		{Label: "pg@r8000", Of: "pg", Rate: 8000, SLO: goal, Steps: []*results.Step{pacedStep(90000, false)}},
		{Label: "my@r1000", Of: "my", Rate: 1000, SLO: goal, Steps: []*results.Step{pacedStep(2500, true)}},
	}
	if c, ok := CapacityOf(series, "pg", goal); !ok || c != 2000 {
		t.Fatalf("capacity of pg = %g (%v), want 2000: 4000 fell behind its rate", c, ok)
	}
	if c, ok := CapacityOf(series, "my", goal); !ok || c != 0 {
		t.Fatalf("capacity of my = %g (%v), want 0: no rate met the goal", c, ok)
	}
	e, err := Parse("capacity>=2000", nil)
	if err != nil {
		t.Fatal(err)
	}
	rs := Evaluate([]Expr{e}, series, -1)
	if len(rs) != 2 || rs[0].Target != "pg" || !rs[0].Pass || rs[1].Target != "my" || rs[1].Pass {
		t.Fatalf("capacity>=2000: %+v, want pg pass, my fail", rs)
	}
	if _, err := Parse("run:capacity>=1", nil); err == nil {
		t.Fatal("a capacity check with a step was taken")
	}
	series[0].SLO = nil
	if rs := Evaluate([]Expr{e}, series[:1], -1); len(rs) != 1 || rs[0].Why == "" {
		t.Fatalf("capacity without a goal: %+v, want a reason", rs)
	}
}
