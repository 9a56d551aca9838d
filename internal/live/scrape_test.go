package live_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/cli"
	"github.com/rumbench/rumbench/internal/live"
	"github.com/rumbench/rumbench/internal/results"
)

// addrWatch is a run's stderr: it keeps the text and hands over the metrics address the run
// prints.
type addrWatch struct {
	mu   sync.Mutex
	b    bytes.Buffer
	addr chan string
	sent bool
}

var metricsLine = regexp.MustCompile(`rumbench: metrics at http://([0-9.:]+)/metrics`)

func (w *addrWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	if m := metricsLine.FindStringSubmatch(w.b.String()); m != nil && !w.sent {
		w.sent = true
		w.addr <- m[1]
	}
	return len(p), nil
}

func (w *addrWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// scrapedRun runs the insert benchmark's load and query steps (l.i0 and qr100 of 6 s, no
// warm-up, --syscalls) on pebble and a private PostgreSQL with --metrics-listen 127.0.0.1:0,
// the address it prints given to p as its scrape target, and returns the run as recorded.
func scrapedRun(t *testing.T, p *prometheus) *results.Run {
	out := t.TempDir()
	data, err := os.MkdirTemp("", "rumbench-live-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(data, 0o755) // the managed server runs as the postgres user
	t.Cleanup(func() { os.RemoveAll(data) })
	stderr := &addrWatch{addr: make(chan string, 1)}
	var stdout bytes.Buffer
	done := make(chan int)
	go func() {
		done <- cli.Main(cli.Env{Stdout: &stdout, Stderr: stderr, Getenv: os.Getenv, Now: time.Now,
			Args: []string{"run", "--engine", "pebble,postgres", "--steps", "l.i0,qr100", "--rows", "20000", "--query-secs", "6",
				"--warmup-secs", "0", "--syscalls", "--metrics-listen", "127.0.0.1:0", "--out", out, "--data-dir", data, "--store", "none", "--quiet"},
			Context: func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }})
	}()
	select {
	case addr := <-stderr.addr:
		p.setTarget(addr)
		if up, targets := p.targetUp(t, 30*time.Second); !up {
			log, _ := os.ReadFile(p.log)
			t.Errorf("prometheus did not scrape %s: %s\n%s", addr, targets, log)
		}
	case code := <-done:
		t.Fatalf("run ended (exit %d) before it printed its metrics address:\n%s", code, stderr)
	}
	if code := <-done; code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, stdout.String(), stderr)
	}
	var dir string
	for _, l := range strings.Split(stdout.String(), "\n") {
		if d, ok := strings.CutPrefix(l, "results: "); ok {
			dir = d
		}
	}
	r, err := results.Load(dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if len(r.Steps) != 4 {
		t.Fatalf("%d step records, want 2 targets × 2 steps", len(r.Steps))
	}
	return r
}

// maxTick is the most a step's ops grew in one interval: a scrape's worth of them.
func maxTick(r *results.Run, s *results.Step) float64 {
	var m float64
	for _, iv := range r.Intervals {
		if iv.Target == s.Target && iv.Step == s.Step {
			m = max(m, iv.Rate*iv.Secs)
		}
	}
	return m
}

// TestScrapedByPrometheus runs a real run with --metrics-listen 127.0.0.1:0 scraped every
// second by a private Prometheus, then asks that Prometheus: each step's final ops and each
// kind's measured count are the step records' (the histogram's count exactly; the ops of a
// timed step may add the operations of units begun as its window closed, counted in the
// progress and not in the window), the ops' increase over a step is the record's within a
// scrape's worth, the p99 from the classic buckets is the record's within the bucket's width,
// the labels are the run's and carry no address nor anything long; every query of the Grafana
// dashboard (docs/grafana/rumbench.json) returns data; and the run's series written by report
// --format openmetrics and loaded with promtool into a second Prometheus give the same counts.
func TestScrapedByPrometheus(t *testing.T) {
	p := startPrometheus(t, "")
	r := scrapedRun(t, p)
	id := r.Manifest.RunID
	now := time.Now()
	sel := func(s *results.Step) string {
		return fmt.Sprintf(`run_id=%q,target=%q,step=%q`, id, s.Target, s.Step)
	}
	first := p.firstScrape(t, id, now)
	increased := 0
	for i := range r.Steps {
		s := &r.Steps[i]
		ops := p.one(t, fmt.Sprintf(`last_over_time(rumbench_ops_total{%s}[1h])`, sel(s)), now)
		tick := maxTick(r, s)
		if s.Step == "l.i0" && ops != float64(s.Ops) || ops < float64(s.Ops) || ops > float64(s.Ops)+tick {
			t.Errorf("%s %s: last scraped ops %.0f, the record's %d (a tick's worth %.0f)", s.Target, s.Step, ops, s.Ops, tick)
		}
		for _, k := range s.Kinds {
			n := p.one(t, fmt.Sprintf(`last_over_time(rumbench_response_seconds_count{%s,kind=%q}[1h])`, sel(s), k.Name), now)
			all := p.one(t, fmt.Sprintf(`last_over_time(rumbench_operations_total{%s,kind=%q}[1h])`, sel(s), k.Name), now)
			if n != float64(k.Ops) || all < n {
				t.Errorf("%s %s %s: histogram count %.0f, operations %.0f; the record's %d", s.Target, s.Step, k.Name, n, all, k.Ops)
			}
		}
		if s.Step != "qr100" {
			continue
		}
		// The increase over a step the scraper saw from its start (extrapolated by Prometheus
		// to the range's edges).
		began := s.Start.Add(-time.Duration(s.WarmupSec * float64(time.Second)))
		if began.Before(first.Add(time.Second)) {
			t.Logf("%s %s began before the first scrape (%v): its increase is not checked", s.Target, s.Step, first)
		} else {
			increased++
			from, to := began.Add(-time.Second), s.End.Add(2*time.Second)
			inc := p.one(t, fmt.Sprintf(`increase(rumbench_ops_total{%s}[%dms])`, sel(s), to.Sub(from).Milliseconds()), to)
			t.Logf("%s %s: increase %.0f, record %d, a tick %.0f", s.Target, s.Step, inc, s.Ops, tick)
			if math.Abs(inc-float64(s.Ops)) > 2*tick {
				t.Errorf("%s %s: increase of the ops %.0f, the record's %d: more than a scrape's worth (%.0f) apart", s.Target, s.Step, inc, s.Ops, tick)
			}
		}
		// p99 from the classic buckets against the record's (from the full histogram).
		var rec results.Latency
		for _, l := range s.Latency {
			if l.Kind == "range_query" {
				rec = l
			}
		}
		hq := p.one(t, fmt.Sprintf(`histogram_quantile(0.99, sum by (le) (last_over_time(rumbench_response_seconds_bucket{%s,kind="range_query"}[1h])))`, sel(s)), now)
		lo, hi := bucketOf(hq)
		p99 := rec.P99Us / 1e6
		t.Logf("%s %s: p99 %.6fs from the buckets (bucket %g..%g), %.6fs recorded", s.Target, s.Step, hq, lo, hi, p99)
		if math.Abs(hq-p99) > hi-lo+p99/64 {
			t.Errorf("%s %s: p99 %.6fs from the buckets, %.6fs recorded: more than the bucket's width (%g..%g) apart", s.Target, s.Step, hq, p99, lo, hi)
		}
	}
	if increased == 0 {
		t.Errorf("no query step began after the first scrape (%v): none had its increase checked", first)
	}
	checkLabels(t, p, r)
	checkDashboard(t, p, r)
	checkBackfill(t, r)
}

// bucketOf returns the classic bucket that holds v seconds: its lower and upper bounds.
func bucketOf(v float64) (float64, float64) {
	lo := 0.0
	for _, b := range live.Bounds {
		hi := float64(b) / 1e9
		if v <= hi {
			return lo, hi
		}
		lo = hi
	}
	return lo, math.Inf(1)
}

// checkLabels checks every series of the run: its labels are the run's, the target's, the
// step's and a kind's (with Prometheus' job and instance), their values the run's own, none
// longer than 60 characters, none holding an address or a password.
func checkLabels(t *testing.T, p *prometheus, r *results.Run) {
	res := p.series(t, fmt.Sprintf(`{run_id=%q}`, r.Manifest.RunID), r.Manifest.Start.Add(-time.Minute), time.Now())
	if len(res) == 0 {
		t.Fatal("no series of the run")
	}
	allowed := []string{"__name__", "run_id", "run_label", "workload", "target", "engine", "step", "kind", "role", "unit", "rate_name", "error", "version", "job", "instance", "le"}
	names := map[string]bool{}
	for _, m := range res {
		names[m["__name__"]] = true
		for k, v := range m {
			if !slices.Contains(allowed, k) {
				t.Errorf("series %v: label %s", m, k)
			}
			if len([]rune(v)) > live.MaxLabelChars || strings.Contains(v, "://") || strings.Contains(v, "@") || strings.Contains(v, "password") {
				t.Errorf("series %v: label %s=%q", m, k, v)
			}
		}
		if m["run_label"] != r.Manifest.Label || m["workload"] != "insert" {
			t.Errorf("series %v: run labels", m)
		}
		if tg := m["target"]; tg != "" && (tg != "pebble" && tg != "postgres" || m["engine"] != tg ||
			m["step"] != "l.i0" && m["step"] != "qr100") {
			t.Errorf("series %v: target labels", m)
		}
		if m["__name__"] == "rumbench_run_info" && m["version"] == "" {
			t.Errorf("series %v: no version", m)
		}
	}
	for _, want := range []string{"rumbench_run_info", "rumbench_step_running", "rumbench_ops_total", "rumbench_operations_total",
		"rumbench_response_seconds_bucket", "rumbench_device_written_bytes_total", "rumbench_syncs_total", "rumbench_commits_total",
		"rumbench_client_cpu_seconds_total", "rumbench_server_cpu_seconds_total", "rumbench_context_switches_total",
		"rumbench_stall_seconds_total", "rumbench_server_rss_bytes", "rumbench_errors_total"} {
		if !names[want] {
			t.Errorf("no %s series in the run (have %v)", want, names)
		}
	}
}

// dashboard is the part of a Grafana dashboard the check reads.
type dashboard struct {
	Annotations struct {
		List []struct {
			Name string `json:"name"`
			Expr string `json:"expr"`
		} `json:"list"`
	} `json:"annotations"`
	Panels []struct {
		Title   string `json:"title"`
		Targets []struct {
			RefID string `json:"refId"`
			Expr  string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
}

// checkDashboard runs every query of the dashboard (its panels' and its step annotation's),
// its variables set to the run, over the run's time: each returns data.
func checkDashboard(t *testing.T, p *prometheus, r *results.Run) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "grafana", "rumbench.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("docs/grafana/rumbench.json: %v", err)
	}
	vars := strings.NewReplacer("$__rate_interval", "5s", "$run_id", regexp.QuoteMeta(r.Manifest.RunID), "$target", ".*")
	type query struct{ what, expr string }
	var qs []query
	for _, a := range d.Annotations.List {
		qs = append(qs, query{"annotation " + a.Name, a.Expr})
	}
	for _, pn := range d.Panels {
		for _, tg := range pn.Targets {
			qs = append(qs, query{pn.Title + " " + tg.RefID, tg.Expr})
		}
	}
	if len(d.Panels) < 7 || len(qs) < 10 {
		t.Errorf("dashboard: %d panels, %d queries", len(d.Panels), len(qs))
	}
	for _, q := range qs {
		res := p.query(t, vars.Replace(q.expr), r.Manifest.Start, r.Manifest.End, time.Second)
		values := 0
		for _, s := range res {
			for _, v := range s.Values {
				if !math.IsNaN(v) && !math.IsInf(v, 0) {
					values++
				}
			}
		}
		t.Logf("dashboard %s: %d series, %d values", q.what, len(res), values)
		if values == 0 {
			t.Errorf("dashboard %s: no data for %s", q.what, q.expr)
		}
	}
}

// checkBackfill writes the run's series with report --format openmetrics, loads them with
// promtool into a new TSDB, starts a Prometheus on it and checks the counts there.
func checkBackfill(t *testing.T, r *results.Run) {
	file := filepath.Join(t.TempDir(), "run.om")
	var stdout, stderr bytes.Buffer
	if code := cli.Main(cli.Env{Stdout: &stdout, Stderr: &stderr, Getenv: os.Getenv, Now: time.Now,
		Args:    []string{"report", r.Dir, "--format", "openmetrics", "-o", file},
		Context: func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }}); code != 0 {
		t.Fatalf("report --format openmetrics: exit %d: %s", code, stderr.String())
	}
	tsdb := filepath.Join(t.TempDir(), "tsdb")
	if out, err := exec.Command("promtool", "tsdb", "create-blocks-from", "openmetrics", file, tsdb).CombinedOutput(); err != nil {
		t.Fatalf("promtool tsdb create-blocks-from openmetrics: %v\n%s", err, out)
	}
	p := startPrometheus(t, tsdb)
	at := r.Manifest.End.Add(time.Second)
	for i := range r.Steps {
		s := &r.Steps[i]
		sel := fmt.Sprintf(`run_id=%q,target=%q,step=%q`, r.Manifest.RunID, s.Target, s.Step)
		if s.Step == "l.i0" {
			if ops := p.one(t, fmt.Sprintf(`last_over_time(rumbench_ops_total{%s}[1h])`, sel), at); ops != float64(s.Ops) {
				t.Errorf("loaded %s %s: ops %.0f, the record's %d", s.Target, s.Step, ops, s.Ops)
			}
		}
		for _, k := range s.Kinds {
			if n := p.one(t, fmt.Sprintf(`last_over_time(rumbench_response_seconds_count{%s,kind=%q}[1h])`, sel, k.Name), at); n != float64(k.Ops) {
				t.Errorf("loaded %s %s %s: histogram count %.0f, the record's %d", s.Target, s.Step, k.Name, n, k.Ops)
			}
		}
	}
	if n := len(p.query(t, fmt.Sprintf(`rumbench_rate_per_second{run_id=%q}`, r.Manifest.RunID), r.Manifest.Start, r.Manifest.End, time.Second)); n != 4 {
		t.Errorf("loaded run: %d rate series, want 2 targets × 2 steps", n)
	}
}
