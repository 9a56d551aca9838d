package live

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/openmetrics"
	"github.com/rumbench/rumbench/internal/results"
)

// sample is a test sample of target "pebble", step st, at t ms, with n inserts of 10 rows
// whose response times are all 150 µs.
func sample(st string, t, n int64, final bool) *Sample {
	s := &Sample{Target: "pebble", Step: st, Engine: "pebble", UnixMs: t, Final: final, RateName: "ips", Rate: 1000,
		Ops: 10 * n, Commits: n, Retries: 1, ClientCPUNs: 2_500_000_000, ObserverCPUNs: 1_000_000}
	s.markUnmeasured() // then the figures measured here
	s.ReadBytes, s.WrittenBytes, s.Flushes, s.ContextSwitches, s.ClientRSSBytes = 4096, 8192, 3, 7, 1<<20
	k := Kind{Name: "insert", Role: "write", Unit: "rows", Ops: n, Units: 10 * n, Count: n, SumNs: n * 150_000, Buckets: make([]int64, len(Bounds))}
	for i, b := range Bounds {
		if b >= 200_000 {
			k.Buckets[i] = n
		}
	}
	s.Kinds = []Kind{k}
	return s
}

func scrape(t *testing.T, r *Registry) string {
	t.Helper()
	var b bytes.Buffer
	if err := r.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestRegistryExposition(t *testing.T) {
	r := NewRegistry(Run{ID: "20261121T120000Z-insert", Label: "insert", Workload: "insert", Version: "v1"})
	r.Observe(sample("l.i0", 1000, 0, false))
	r.Observe(sample("l.i0", 2000, 40, true))
	r.StepDone(&results.Step{Target: "pebble", Step: "l.i0", Status: results.StatusOK})
	r.Observe(sample("qr100", 3000, 5, false))
	got := scrape(t, r)
	l := `run_id="20261121T120000Z-insert",run_label="insert",workload="insert",target="pebble",engine="pebble",step=`
	for _, want := range []string{
		"# TYPE rumbench_run info\n",
		`rumbench_run_info{run_id="20261121T120000Z-insert",run_label="insert",workload="insert",version="v1"} 1` + "\n",
		// The finished step keeps its final counts; the running one is the current step.
		`rumbench_step_running{` + l + `"l.i0"} 0` + "\n",
		`rumbench_step_running{` + l + `"qr100"} 1` + "\n",
		`rumbench_rate_per_second{` + l + `"qr100",rate_name="ips"} 1000` + "\n",
		`rumbench_ops_total{` + l + `"l.i0"} 400` + "\n",
		`rumbench_operations_total{` + l + `"l.i0",kind="insert",role="write"} 40` + "\n",
		`rumbench_operation_units_total{` + l + `"l.i0",kind="insert",unit="rows"} 400` + "\n",
		"# TYPE rumbench_response_seconds histogram\n# UNIT rumbench_response_seconds seconds\n",
		`rumbench_response_seconds_bucket{` + l + `"l.i0",kind="insert",le="0.0001"} 0` + "\n",
		`rumbench_response_seconds_bucket{` + l + `"l.i0",kind="insert",le="0.0002"} 40` + "\n",
		`rumbench_response_seconds_bucket{` + l + `"l.i0",kind="insert",le="+Inf"} 40` + "\n",
		`rumbench_response_seconds_count{` + l + `"l.i0",kind="insert"} 40` + "\n",
		`rumbench_response_seconds_sum{` + l + `"l.i0",kind="insert"} 0.006` + "\n",
		`rumbench_errors_total{` + l + `"l.i0",error="retried"} 1` + "\n",
		`rumbench_errors_total{` + l + `"l.i0",error="failed"} 0` + "\n",
		`rumbench_client_cpu_seconds_total{` + l + `"l.i0"} 2.5` + "\n",
		`rumbench_device_written_bytes_total{` + l + `"l.i0"} 8192` + "\n",
		`rumbench_context_switches_total{` + l + `"l.i0"} 7` + "\n",
		`rumbench_client_rss_bytes{` + l + `"qr100"} 1048576` + "\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("exposition lacks %q:\n%s", want, got)
		}
	}
	// A finished step's gauges are gone (its counters stay); figures not measured have no
	// series; the exposition ends with # EOF.
	for _, gone := range []string{`rumbench_rate_per_second{` + l + `"l.i0"`, `rumbench_client_rss_bytes{` + l + `"l.i0"`} {
		if strings.Contains(got, gone) {
			t.Errorf("exposition has %s of a finished step", gone)
		}
	}
	for _, absent := range []string{"rumbench_server_rss_bytes", "rumbench_syncs", "rumbench_stall", "rumbench_memory_pressure_ratio"} {
		if strings.Contains(got, absent) {
			t.Errorf("exposition has %s, which was not measured", absent)
		}
	}
	if !strings.HasSuffix(got, "# EOF\n") {
		t.Errorf("exposition does not end with # EOF")
	}
	// A failed step counts its failure.
	r.StepDone(&results.Step{Target: "pebble", Step: "qr100", Status: results.StatusFailed})
	if got := scrape(t, r); !strings.Contains(got, `rumbench_errors_total{`+l+`"qr100",error="failed"} 1`) ||
		!strings.Contains(got, `rumbench_step_running{`+l+`"qr100"} 0`) {
		t.Errorf("failed step:\n%s", got)
	}
}

// TestLabelValues checks that a label never carries a password nor more than 60 characters.
func TestLabelValues(t *testing.T) {
	long := strings.Repeat("x", 70)
	r := NewRegistry(Run{ID: "r", Label: long, Workload: "w", Shard: "1/4"})
	s := sample("st", 1, 1, false)
	s.Target = "postgres://bench:s3cret@db1:5432/bench"
	r.Observe(s)
	got := scrape(t, r)
	if strings.Contains(got, "s3cret") {
		t.Errorf("a password reached a label:\n%s", got)
	}
	if want := `run_label="` + strings.Repeat("x", 59) + `…"`; !strings.Contains(got, want) {
		t.Errorf("long label not cut to 60 characters:\n%s", got)
	}
	if !strings.Contains(got, `shard="1/4"`) {
		t.Errorf("no shard label:\n%s", got)
	}
	if got := LabelValue("a\x1b[2Jb"); got != `a\x1b[2Jb` {
		t.Errorf("LabelValue of an escape sequence: %q", got)
	}
	if LabelValue("pebble@8") != "pebble@8" {
		t.Errorf("LabelValue changed a plain value")
	}
}

func TestRegistryBound(t *testing.T) {
	r := NewRegistry(Run{ID: "r"})
	for i := range MaxSteps + 10 {
		s := sample("st"+strings.Repeat("a", i%3), int64(i), 1, true)
		s.Rep = i + 1
		r.Observe(s)
		r.StepDone(&results.Step{Target: s.Target, Rep: s.Rep, Step: s.Step, Status: results.StatusOK})
	}
	r.Observe(sample("running", 1, 1, false))
	if len(r.entries) != MaxSteps {
		t.Errorf("%d entries kept, want %d", len(r.entries), MaxSteps)
	}
	if e := r.entries[len(r.entries)-1]; e.step != "running" {
		t.Errorf("the running step was dropped")
	}
}

// TestAwaitScrape: without a scraper the end of a run does not wait; with one it waits for the
// scrape after the last sample.
func TestAwaitScrape(t *testing.T) {
	r := NewRegistry(Run{ID: "r"})
	r.Observe(sample("st", 1, 1, true))
	if d, ok := r.AwaitScrape(context.Background()); d > 100*time.Millisecond || ok {
		t.Errorf("no scraper: waited %v (%v)", d, ok)
	}
	r.Write(io.Discard)
	r.Observe(sample("st", 2, 2, true)) // a sample after the scrape: one more is awaited
	go func() {
		time.Sleep(50 * time.Millisecond)
		r.Write(io.Discard)
	}()
	if _, ok := r.AwaitScrape(context.Background()); !ok {
		t.Errorf("the scrape after the last sample was not seen")
	}
	if d, ok := r.AwaitScrape(context.Background()); d > 100*time.Millisecond || !ok {
		t.Errorf("scraped since the last sample: waited %v (%v)", d, ok)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r.Observe(sample("st", 3, 3, true))
	if _, ok := r.AwaitScrape(ctx); ok {
		t.Errorf("an interrupted wait says the scrape came")
	}
}

func TestCheckAddr(t *testing.T) {
	for _, c := range []struct {
		addr string
		any  bool
		err  string
	}{
		{"127.0.0.1:0", false, ""},
		{"localhost:9400", false, ""},
		{"[::1]:9400", false, ""},
		{"0.0.0.0:9400", false, "listens beyond this host: add --metrics-listen-any"},
		{":9400", false, "listens beyond this host"},
		{":9400", true, ""},
		{"192.0.2.1:9400", true, ""},
		{"9400", false, "want HOST:PORT"},
		{"127.0.0.1:70000", false, "the port must be a number from 0 to 65535"},
		{"example.com:9400", true, "the host must be an IP address or localhost"},
	} {
		err := CheckAddr("--metrics-listen", c.addr, c.any)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.addr, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s (any %v): error %v, want one saying %q", c.addr, c.any, err, c.err)
		}
	}
}

// TestEndpoint serves a registry on a free loopback port and reads it as a scraper does.
func TestEndpoint(t *testing.T) {
	r := NewRegistry(Run{ID: "r"})
	r.Observe(sample("st", 1, 1, false))
	l, err := Listen("--metrics-listen", "127.0.0.1:0", false, Handler(r))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	resp, err := http.Get(l.URL(Path))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != openmetrics.ContentType ||
		!strings.Contains(string(body), "rumbench_ops_total") || r.Scrapes() != 1 {
		t.Errorf("GET %s: %d %s, %d scrapes:\n%s", Path, resp.StatusCode, resp.Header.Get("Content-Type"), r.Scrapes(), body)
	}
	resp, err = http.Post(l.URL(Path), "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", resp.StatusCode)
	}
	resp, err = http.Get(l.URL("/other"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /other: %d", resp.StatusCode)
	}
}
