package report_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/rumbench/rumbench/internal/cli"
	"github.com/rumbench/rumbench/internal/report"
	"github.com/rumbench/rumbench/internal/report/browsertest"
	"github.com/rumbench/rumbench/internal/results"
)

// layoutState is where the summary stands on the page.
type layoutState struct {
	SummaryFirst bool `json:"summaryFirst"` // the first table of the page is the summary's
	Tables       int  `json:"tables"`
}

const layoutJS = `(() => {
  const tables = Array.from(document.querySelectorAll('table'));
  const sum = document.querySelector('#summary-table table');
  const top = sum ? sum.getBoundingClientRect().top : Infinity;
  return {summaryFirst: !!sum && tables[0] === sum && tables.every(t => t === sum || t.getBoundingClientRect().top > top),
    tables: tables.length};
})()`

// cellColor is a numeric table cell as rendered: its text, computed background and whether it
// is in the summary or a comparison table.
type cellColor struct {
	Text       string `json:"text"`
	Background string `json:"bg"`
	Where      string `json:"where"`
}

const colorsJS = `(() => Array.from(document.querySelectorAll('td.num')).map(td => ({
  text: td.textContent, bg: getComputedStyle(td).backgroundColor,
  where: td.closest('#summary-table') ? 'summary' : 'comparison'})))()`

// rgb parses the computed background "rgb(r, g, b)".
func (c cellColor) rgb(t *testing.T) [3]int {
	var v [3]int
	if _, err := fmt.Sscanf(c.Background, "rgb(%d, %d, %d)", &v[0], &v[1], &v[2]); err != nil {
		t.Errorf("cell %s: background %q: %v", c.Text, c.Background, err)
	}
	return v
}

// writeColorsPage writes the HTML report of a hand-built run of two targets to path: sqlite
// loads 1.43× pebble's rows per second at 5× its CPU per row.
func writeColorsPage(path string) error {
	step := func(target string, ips, cpu float64) results.Step {
		return results.Step{Target: target, Engine: target, Step: "l.i0", Status: "ok", Secs: 1, RateName: "ips", RateUnit: "rows/s",
			RateKinds: []string{"insert"}, Rate: ips, IPS: ips, HostCPUUsPerOp: cpu,
			Kinds: []results.Kind{{Name: "insert", Role: results.RoleWrite, Unit: "rows", Ops: 10, Units: 1000, MaxUs: 100}}}
	}
	run := &results.Run{Dir: filepath.Dir(path), Manifest: &results.Manifest{RunID: "20261121T120000Z-insert", Workload: "insert",
		Summary: []string{"l.i0"}, Headline: []string{"l.i0:cpu_us/op"}},
		Steps: []results.Step{step("pebble", 1000, 2), step("sqlite", 1430, 10)}}
	var b bytes.Buffer
	if err := report.HTML(&b, []*results.Run{run}, report.HTMLOptions{}); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// sweepReport makes a real tiny concurrency sweep (sysbench point-query at 1 and 2 threads on
// sqlite and pebble) and returns the absolute path of its report.html.
func sweepReport(t *testing.T) string {
	out, data := t.TempDir(), t.TempDir()
	var stdout, stderr bytes.Buffer
	code := cli.Main(cli.Env{Stdout: &stdout, Stderr: &stderr, Getenv: os.Getenv, Now: time.Now,
		Args: []string{"run", "--workload", "sysbench", "--tests", "point-query", "--table-size", "1000", "--read-secs", "0.5",
			"--warmup-secs", "0", "--threads", "1,2", "--engine", "sqlite,pebble", "--out", out, "--data-dir", data, "--store", "none", "--quiet"},
		Context: func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }})
	if code != 0 {
		t.Fatalf("sweep run: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	for _, l := range strings.Split(stdout.String(), "\n") {
		if p, ok := strings.CutPrefix(l, "report: "); ok {
			abs, err := filepath.Abs(p)
			if err != nil {
				t.Fatal(err)
			}
			return abs
		}
	}
	t.Fatalf("sweep run printed no report path:\n%s", stdout.String())
	return ""
}

// TestHTMLInBrowser makes a real tiny run (two repetitions: the interval charts too), opens its report.html in headless Chromium and checks
// that every chart rendered with data, the summary is the first table and the page logged no
// error; then checks on a hand-built report that a relative cell renders green when better and
// red when worse by its metric's direction; the screenshot is kept in
// $RUMBENCH_ARTIFACTS (default a new temporary directory).
func TestHTMLInBrowser(t *testing.T) {
	out, data := t.TempDir(), t.TempDir()
	var stdout, stderr bytes.Buffer
	code := cli.Main(cli.Env{Stdout: &stdout, Stderr: &stderr, Getenv: os.Getenv, Now: time.Now,
		Args: []string{"run", "--engine", "null,sqlite", "--steps", "l.i0,l.x,qr100", "--rows", "3000",
			"--query-secs", "2", "--repeat", "2", "--out", out, "--data-dir", data, "--quiet"},
		Context: func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }})
	if code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	var page string
	for _, l := range strings.Split(stdout.String(), "\n") {
		if p, ok := strings.CutPrefix(l, "report: "); ok {
			page = p
		}
	}
	if page == "" {
		t.Fatalf("run printed no report path:\n%s", stdout.String())
	}
	abs, err := filepath.Abs(page)
	if err != nil {
		t.Fatal(err)
	}

	ctx, console := browsertest.New(t, 90*time.Second)

	var charts []browsertest.ChartState
	var shot []byte
	var first layoutState
	if err := chromedp.Run(ctx,
		chromedp.Navigate("file://"+abs),
		chromedp.WaitVisible("body > h1", chromedp.ByQuery),
		chromedp.Sleep(300*time.Millisecond), // echarts paints on the next animation frame
		chromedp.Evaluate(browsertest.InspectJS, &charts),
		chromedp.Evaluate(layoutJS, &first),
		chromedp.FullScreenshot(&shot, 100),
	); err != nil {
		t.Fatal(err)
	}
	if !first.SummaryFirst || first.Tables < 2 {
		t.Errorf("the summary is not above the other tables (%d tables)", first.Tables)
	}

	// Colors by direction, on a page whose ratios are known: sqlite's ips is 1.43× pebble's
	// (better: green), its cpu_us/op 5× (worse: red), in the summary and in the comparison.
	colors := filepath.Join(t.TempDir(), "colors.html")
	if err := writeColorsPage(colors); err != nil {
		t.Fatal(err)
	}
	var cells []cellColor
	if err := chromedp.Run(ctx,
		chromedp.Navigate("file://"+colors),
		chromedp.WaitVisible("body > h1", chromedp.ByQuery),
		chromedp.Evaluate(colorsJS, &cells),
	); err != nil {
		t.Fatal(err)
	}
	found := map[string]int{}
	for _, c := range cells {
		switch c.Text {
		case "1.43": // ips↑
			found["1.43 "+c.Where]++
			if rgb := c.rgb(t); !(rgb[1] > rgb[0]+30 && rgb[1] > rgb[2]+30) {
				t.Errorf("a better ips cell (1.43, %s) is %s, want green-ish", c.Where, c.Background)
			}
		case "5.00": // cpu_us/op↓
			found["5.00 "+c.Where]++
			if rgb := c.rgb(t); !(rgb[0] > rgb[1]+30 && rgb[0] > rgb[2]+30) {
				t.Errorf("a worse cpu_us/op cell (5.00, %s) is %s, want red-ish", c.Where, c.Background)
			}
		}
	}
	for _, k := range []string{"1.43 summary", "5.00 summary", "1.43 comparison", "5.00 comparison"} {
		if found[k] == 0 {
			t.Errorf("no %s cell on the colors page: %+v", k, cells)
		}
	}

	// A concurrency sweep: its scaling chart (rate by clients, a line per engine, a point per
	// count) renders above its table.
	sweepPage := sweepReport(t)
	var sweepCharts []browsertest.ChartState
	if err := chromedp.Run(ctx,
		chromedp.Navigate("file://"+sweepPage),
		chromedp.WaitVisible("body > h1", chromedp.ByQuery),
		chromedp.Sleep(300*time.Millisecond),
		chromedp.Evaluate(browsertest.InspectJS, &sweepCharts),
	); err != nil {
		t.Fatal(err)
	}
	scaling := 0
	for _, c := range sweepCharts {
		if !strings.HasPrefix(c.ID, "sc") {
			continue
		}
		scaling++
		if len(c.Series) != 2 || c.Series[0] != 2 || c.Series[1] != 2 {
			t.Errorf("scaling chart %s: series %v, want 2 engines × 2 counts", c.ID, c.Series)
		}
		if c.Pixels == 0 || c.Painted < c.Pixels/200 {
			t.Errorf("scaling chart %s looks blank: %d of %d pixels painted", c.ID, c.Painted, c.Pixels)
		}
	}
	if scaling != 1 {
		t.Errorf("%d scaling charts, want 1 (one step swept): %+v", scaling, sweepCharts)
	}

	dir := os.Getenv("RUMBENCH_ARTIFACTS")
	if dir == "" {
		if dir, err = os.MkdirTemp("", "rumbench-artifacts-"); err != nil {
			t.Fatal(err)
		}
	}
	png := filepath.Join(dir, "report.png")
	if err := os.WriteFile(png, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", png, len(shot))

	// Three steps × (median and interval of the repetitions, throughput, max response time,
	// percentiles), plus the comparison bars.
	if len(charts) != 13 {
		t.Errorf("%d charts, want 13: %+v", len(charts), charts)
	}
	for _, c := range charts {
		if len(c.Series) == 0 {
			t.Errorf("chart %s has no series", c.ID)
		}
		for i, n := range c.Series {
			if n == 0 {
				t.Errorf("chart %s: series %d has no data", c.ID, i)
			}
		}
		// Axes, labels and lines: a blank canvas paints nothing.
		if c.Pixels == 0 || c.Painted < c.Pixels/200 {
			t.Errorf("chart %s looks blank: %d of %d pixels painted", c.ID, c.Painted, c.Pixels)
		}
	}
	for _, e := range console.Errors() {
		t.Errorf("page logged %s", e)
	}
}
