package report

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/hist"
	"github.com/rumbench/rumbench/internal/results"
)

func TestBucketPercentile(t *testing.T) {
	b := []hist.Bucket{{UpperNs: 100, Count: 50}, {UpperNs: 200, Count: 40}, {UpperNs: 1000, Count: 9}, {UpperNs: 5000, Count: 1}}
	for _, tc := range []struct {
		p    float64
		want int64
	}{{0, 100}, {50, 100}, {50.5, 200}, {90, 200}, {99, 1000}, {99.9, 5000}, {100, 5000}} {
		if got := BucketPercentile(b, tc.p); got != tc.want {
			t.Errorf("p%g = %d, want %d", tc.p, got, tc.want)
		}
	}
	if got := BucketPercentile(nil, 50); got != 0 {
		t.Errorf("empty histogram: %d", got)
	}
}

func TestHTMLPage(t *testing.T) {
	r := sampleRun()
	r.Steps[0].Latency[0].Buckets = []hist.Bucket{{UpperNs: 400_000, Count: 1500}, {UpperNs: 4_700_000, Count: 500}}
	r.Intervals = []results.Interval{
		{Target: "pebble", Step: "l.i0", T: 1, Rate: 160000, Kinds: []results.Kind{kind("insert", results.RoleWrite, 10, 1000, 4000)}},
		{Target: "sqlite", Step: "l.i0", T: 1, Rate: 130000, Kinds: []results.Kind{kind("insert", results.RoleWrite, 10, 1000, 9000)}},
		{Target: "pebble", Step: "qr100", T: 1, Rate: 35000, Kinds: []results.Kind{kind("range_query", results.RoleRead, 100, 1000, 900)}},
	}
	var b bytes.Buffer
	if err := HTML(&b, []*results.Run{r}, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if !strings.Contains(page, echartsJS) || strings.Contains(page, "<script src") {
		t.Error("echarts is not inlined, or a script is loaded from elsewhere")
	}
	// l.i0: throughput, max and percentiles; qr100: throughput and max (no histogram); the
	// comparison: one bar chart.
	ids := regexp.MustCompile(`<div class="chart" id="([^"]+)">`).FindAllStringSubmatch(page, -1)
	var got []string
	for _, m := range ids {
		got = append(got, m[1])
	}
	if want := "cmp0 s0-rate s0-max s0-lat s1-rate s1-max"; strings.Join(got, " ") != want {
		t.Errorf("chart divs %q, want %q", strings.Join(got, " "), want)
	}
	for _, want := range []string{
		`<td class="top num">167564</td>`, // l.i0 ips: the top quartile
		`<td class="num">135360</td>`,     // no red: the minimum is 81% of the maximum
		`<td class="gray num">5.00</td>`,  // bbolt's qps while its writers missed the target
		`<td class="bad num">20.0</td>`,   // 20% of the target ips
		`<td class="bad">NO</td>`,         // target_met false
		"<summary>r1: 20261121T120000Z-insert manifest (run.json)</summary>",
		"bbolt error: writer pi1: disk full",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
}

func TestHTMLRelativeColors(t *testing.T) {
	var b bytes.Buffer
	if err := HTML(&b, []*results.Run{sampleRun()}, HTMLOptions{Base: "sqlite"}); err != nil {
		t.Fatal(err)
	}
	// pebble loads 1.24× sqlite's rate and spends 0.76× its CPU per row: both better (green).
	for _, want := range []string{`<td class="better num">1.24</td>`, `<td class="better num">0.76</td>`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("page lacks %s", want)
		}
	}
}

func TestQuartileColors(t *testing.T) {
	tb := &Table{Kind: Absolute, Columns: []Column{{Name: "target"}, {Name: "ips", Rate: true}, {Name: "cpu"}}}
	for i, v := range []float64{100, 20, 60, 95} {
		tb.Rows = append(tb.Rows, []Cell{TextCell("t"), NumCell(v), NumCell(float64(i))})
	}
	cls := cellClasses(tb)
	got := []string{cls[0][1], cls[1][1], cls[2][1], cls[3][1], cls[3][2]}
	if want := []string{"top", "bottom", "", "top", ""}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("classes %q, want %q", got, want)
	}
}

func TestHTMLSysbenchRuns(t *testing.T) {
	runs := []*results.Run{sysbenchRun("20261121T120000Z-sb", 1), sysbenchRun("20261122T120000Z-sb", 1.1)}
	for _, r := range runs {
		for i := range r.Steps {
			s := &r.Steps[i]
			for k := 1; k <= 3; k++ {
				r.Intervals = append(r.Intervals, results.Interval{Target: s.Target, Step: s.Step, T: float64(k),
					Secs: 1, Rate: s.Rate * (1 + 0.05*float64(k)), Kinds: []results.Kind{{Name: "event", Ops: int64(k), MaxUs: 100 * float64(k)}}})
			}
		}
	}
	var b bytes.Buffer
	if err := HTML(&b, runs, HTMLOptions{Base: "r1/mysql"}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	// One relative-QPS bar chart per group, in the reference's order, then per test the
	// throughput and max response time charts (the synthetic steps have no histogram).
	ids := regexp.MustCompile(`<div class="chart" id="(cmp[0-9]+)">`).FindAllStringSubmatch(page, -1)
	if len(ids) != 4 {
		t.Errorf("%d comparison charts, want 4 (point, range, range_agg, write)", len(ids))
	}
	for _, want := range []string{"point queries: qps relative to r1/mysql", "writes: qps relative to r1/mysql",
		`"name":"r2/myrocks"`, "<h2>update-index</h2>", `id="s5-max"`,
		`<td class="better num">3.30</td>`, // r2/myrocks's point-query qps: 3.3× the base's
		`<td class="worse num">3.30</td>`,  // its update-index cpu_us/op: 3.3× the base's
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if dir := os.Getenv("RUMBENCH_ARTIFACTS"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, "sysbench-compare.html"), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestHTMLLive: a run in progress whose current step has intervals and no record yet gets
// that step's per-second charts; HTMLCharts writes the page's charts with the run's status,
// and a page with Live polls its URL.
func TestHTMLLive(t *testing.T) {
	r := sampleRun()
	r.Manifest.Status = results.StatusRunning
	r.Intervals = []results.Interval{
		{Target: "pebble", Step: "l.i0", T: 1, Rate: 160000, Kinds: []results.Kind{kind("insert", results.RoleWrite, 10, 1000, 4000)}},
		{Target: "pebble", Step: "l.i1", T: 1, Rate: 90000, Kinds: []results.Kind{kind("insert", results.RoleWrite, 10, 1000, 3000)}},
		{Target: "pebble", Step: "l.i1", T: 2, Rate: 95000, Kinds: []results.Kind{kind("insert", results.RoleWrite, 20, 2000, 3000)}},
	}
	var b bytes.Buffer
	if err := HTMLCharts(&b, []*results.Run{r}, HTMLOptions{Live: "/run/x/charts"}); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	if !strings.HasPrefix(got, `{"charts":[`) || !strings.Contains(got, `"status":"running"`) ||
		!strings.Contains(got, `"text":"l.i1: throughput per second"`) || !strings.Contains(got, `[[1,90000],[2,95000]]`) {
		t.Errorf("charts of a run in progress:\n%.2000s", got)
	}
	b.Reset()
	if err := HTML(&b, []*results.Run{r}, HTMLOptions{Live: "/run/x/charts"}); err != nil {
		t.Fatal(err)
	}
	if page := b.String(); !strings.Contains(page, `var url = "/run/x/charts";`) || !strings.Contains(page, `id="live-note"`) {
		t.Errorf("live page lacks its poll: %s", page[len(page)-1500:])
	}
	b.Reset()
	if err := HTML(&b, []*results.Run{r}, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "live-note") {
		t.Errorf("a page without Live polls")
	}
}
