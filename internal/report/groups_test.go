package report

import (
	"bytes"
	"testing"

	"github.com/rumbench/rumbench/internal/results"
)

// The per-group tables that run prints for grouped steps (sysbench's tests): groups in the
// declared order, a row per test × target, the rate kind's percentiles (those chosen with
// --percentiles when present), server columns when a target runs on a server, and a retries
// column when any test retried.
func TestGroupTablesGolden(t *testing.T) {
	steps := sysbenchRun("20261121T120000Z-sb", 1).Steps
	for i := range steps {
		steps[i].Latency = []results.Latency{{Kind: "event", Count: 100, P50Us: 210, P90Us: 400, P95Us: 520,
			P99Us: 900, P999Us: 1500, MaxUs: 2100 + float64(i)}}
		steps[i].Kinds[0].MaxUs = 2100 + float64(i)
	}
	steps[0].Latency[0].Percentiles = map[string]float64{"p99.99": 1900, "p50": 210}
	steps[4].Retries = 7
	steps = append(steps, results.Step{Target: "mysql", Step: "load", Status: "ok"}) // no group: left out
	var b bytes.Buffer
	if err := Groups(&b, steps, sysbenchGroups, Wide); err != nil {
		t.Fatal(err)
	}
	golden(t, "sysbench.text", b.Bytes())
	// The brief view: p50 and p99 where no percentiles were chosen, and the retries column
	// because a test retried.
	steps[0].Latency[0].Percentiles = nil
	b.Reset()
	if err := Groups(&b, steps, sysbenchGroups, Brief); err != nil {
		t.Fatal(err)
	}
	golden(t, "sysbench-brief.text", b.Bytes())
}
