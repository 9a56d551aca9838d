package live

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/hist"
	"github.com/rumbench/rumbench/internal/results"
)

// TestWriteRuns writes the series of a hand-made run: a step of 2 s after a 1 s warm-up, with
// 3 interval records, and checks the points: the counts of every interval at its time, the
// histogram at the measured window's start (zero) and at the step's end (the record's), the
// record's counts beside it, and # EOF.
func TestWriteRuns(t *testing.T) {
	start := time.Date(2026, 11, 21, 12, 0, 1, 0, time.UTC) // the measured window's start
	var s hist.Snapshot
	h := hist.New()
	for range 30 {
		h.Record(150_000)
	}
	h.Snapshot(&s)
	st := results.Step{Target: "sqlite", Engine: "sqlite", Step: "qr100", Status: "ok", Start: start, End: start.Add(2 * time.Second),
		WarmupSec: 1, Secs: 2, RateName: "qps", RateKinds: []string{"range_query"}, Ops: 30, Device: "vda", FlushesPerOp: 0.1, CSPerOp: 2,
		Kinds:   []results.Kind{{Name: "range_query", Role: "read", Unit: "rows", Ops: 30, Units: 300}},
		Latency: []results.Latency{{Kind: "range_query", Count: 30, MeanUs: 150, Buckets: s.Buckets(nil)}}}
	iv := func(T float64, ops int64) results.Interval {
		return results.Interval{Target: "sqlite", Step: "qr100", T: T, Secs: 1, RateName: "qps", Rate: 15, RateKinds: []string{"range_query"},
			Kinds:         []results.Kind{{Name: "range_query", Role: "read", Unit: "rows", Ops: ops, Units: 10 * ops}},
			WriteMBPerSec: 1, ClientCPUPct: 50, ClientRSSMB: 10}
	}
	run := &results.Run{Manifest: &results.Manifest{RunID: "20261121T120000Z-insert", Label: "insert", Workload: "insert", Version: "v1"},
		Steps: []results.Step{st}, Intervals: []results.Interval{iv(1, 10), iv(2, 25), iv(3, 40)}}
	var b bytes.Buffer
	if err := WriteRuns(&b, []*results.Run{run}); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	l := `run_id="20261121T120000Z-insert",run_label="insert",workload="insert",target="sqlite",engine="sqlite",step="qr100"`
	for _, want := range []string{
		`rumbench_run_info{run_id="20261121T120000Z-insert",run_label="insert",workload="insert",version="v1"} 1 1795262401.000` + "\n",
		// Every interval: the step began a second before the window (its warm-up).
		`rumbench_ops_total{` + l + `} 10 1795262401.000` + "\n" + `rumbench_ops_total{` + l + `} 25 1795262402.000` + "\n" +
			`rumbench_ops_total{` + l + `} 40 1795262403.000` + "\n",
		`rumbench_device_written_bytes_total{` + l + `} 3145728 1795262403.000` + "\n",
		`rumbench_client_cpu_seconds_total{` + l + `} 1.5 1795262403.000` + "\n",
		`rumbench_step_running{` + l + `} 1 1795262402.000` + "\n" + `rumbench_step_running{` + l + `} 0 1795262403.000` + "\n",
		// The histogram: zero at the window's start, the record's at the end.
		`rumbench_response_seconds_count{` + l + `,kind="range_query"} 0 1795262401.000` + "\n",
		`rumbench_response_seconds_bucket{` + l + `,kind="range_query",le="0.0002"} 30 1795262403.000` + "\n",
		`rumbench_response_seconds_sum{` + l + `,kind="range_query"} 0.0045 1795262403.000` + "\n",
		`rumbench_device_flushes_total{` + l + `} 0 1795262401.000` + "\n" + `rumbench_device_flushes_total{` + l + `} 3 1795262403.000` + "\n",
		`rumbench_context_switches_total{` + l + `} 60 1795262403.000` + "\n",
		`rumbench_errors_total{` + l + `,error="failed"} 0 1795262403.000` + "\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("series lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "rumbench_commits_total") || strings.Contains(got, "rumbench_syncs_total") {
		t.Errorf("series have counts the run did not measure:\n%s", got)
	}
	if !strings.HasSuffix(got, "# EOF\n") {
		t.Errorf("no # EOF at the end")
	}
}
