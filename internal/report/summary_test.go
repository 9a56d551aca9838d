package report

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/metric"
	"github.com/rumbench/rumbench/internal/results"
)

// summaryGrid renders t as rows of cell texts, the header first, for exact comparisons.
func summaryGrid(t *Table) [][]string {
	head := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		head[i] = c.Name
	}
	out := [][]string{head}
	for _, row := range t.Rows {
		texts := make([]string, len(row))
		for i, c := range row {
			texts[i] = c.Text
		}
		out = append(out, texts)
	}
	return out
}

func checkGrid(t *testing.T, tb *Table, want [][]string) {
	t.Helper()
	got := summaryGrid(tb)
	if len(got) != len(want) {
		t.Fatalf("summary has %d lines, want %d:\n%q", len(got), len(want), got)
	}
	for i := range want {
		if strings.Join(got[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("summary line %d = %q, want %q", i, got[i], want[i])
		}
	}
}

// insertSummaryRun is an insert benchmark run on three targets with hand-picked figures: sqlite
// has half pebble's rates and twice its costs, bbolt a quarter of pebble's l.i1 rate and no
// storage figures (no device).
func insertSummaryRun() *results.Run {
	step := func(target, name string, rate, cpu, wkbi float64, dev string) results.Step {
		s := results.Step{Target: target, Engine: target, Step: name, Status: "ok", Secs: 1, RateName: "ips", RateUnit: "rows/s",
			RateKinds: []string{"insert"}, Kinds: []results.Kind{kind("insert", results.RoleWrite, 10, 1000, 100)},
			Rate: rate, IPS: rate, HostCPUUsPerOp: cpu, WriteKBPerInsert: wkbi, Device: dev, DBBytes: int64(cpu) << 20}
		if name[0] == 'q' {
			s.RateName, s.RateUnit, s.RateKinds, s.QPS = "qps", "queries/s", []string{"range_query"}, rate
			s.Kinds = append(s.Kinds, kind("range_query", results.RoleRead, 10, 100, 100))
		}
		return s
	}
	var steps []results.Step
	for _, tg := range []struct {
		name      string
		f         float64
		dev       string
		l1Quarter bool
	}{{"pebble", 1, "vda", false}, {"sqlite", 2, "vda", false}, {"bbolt", 1, "", true}} {
		l1 := 20000 / tg.f
		if tg.l1Quarter {
			l1 = 5000
		}
		steps = append(steps,
			step(tg.name, "l.i0", 100000/tg.f, 4*tg.f, 0.5*tg.f, tg.dev),
			step(tg.name, "l.i1", l1, 10*tg.f, 2*tg.f, tg.dev),
			step(tg.name, "qr100", 3000/tg.f, 30*tg.f, 0, tg.dev),
		)
	}
	return &results.Run{Dir: "results/x", Manifest: &results.Manifest{RunID: "20261121T120000Z-insert", Workload: "insert",
		// qp100 did not run: no column; sync/c was not measured (no --syscalls): no column.
		Summary:  []string{"l.i0", "l.i1", "qp100", "qr100"},
		Headline: []string{"l.i1:wKB/i", "l.i1:cpu_us/op", "l.i1:sync/c", "l.i1:db_MB"}}, Steps: steps}
}

func TestSummaryInsert(t *testing.T) {
	tb, err := SummaryTable([]*results.Run{insertSummaryRun()}, "")
	if err != nil {
		t.Fatal(err)
	}
	if tb.Title != "summary" || tb.Note != "relative to pebble; ↑ higher is better, ↓ lower is better" || tb.Kind != Relative {
		t.Errorf("title %q, note %q, kind %v", tb.Title, tb.Note, tb.Kind)
	}
	checkGrid(t, tb, [][]string{
		{"target", "l.i0 ips↑", "l.i1 ips↑", "qr100 qps↑", "wKB/i↓", "cpu_us/op↓", "db_MB↓"},
		{"pebble", "100000", "20000", "3000", "2.00", "10.0", "10.0"}, // the base: absolute figures
		{"sqlite", "0.50", "0.50", "0.50", "2.00", "2.00", "2.00"},
		{"bbolt", "1.00", "0.25", "1.00", "-", "1.00", "1.00"}, // no device: wKB/i not measured
	})
	// Ratios keep their exact value; the base row is not colored, the others by direction.
	if c := tb.Rows[1][1]; c.Value != 0.5 || c.Better != metric.Higher {
		t.Errorf("sqlite l.i0 cell %+v, want 0.5, higher is better", c)
	}
	if c := tb.Rows[1][5]; c.Value != 2 || c.Better != metric.Lower {
		t.Errorf("sqlite cpu_us/op cell %+v, want 2, lower is better", c)
	}
	if c := tb.Rows[0][1]; c.Better != metric.Neutral {
		t.Errorf("base cell %+v is colored", c)
	}
	if !strings.Contains(strings.Join(tb.Footer, "\n"), "wKB/i, cpu_us/op, db_MB: of l.i1") {
		t.Errorf("footer %q does not say the headline figures are of l.i1", tb.Footer)
	}
	cls := cellClasses(tb)
	if got := strings.Join([]string{cls[0][1], cls[1][1], cls[1][5], cls[2][2]}, ","); got != ",worse,worse,worse" {
		t.Errorf("classes %q, want base uncolored, then worse, worse, worse", got)
	}

	// Another base: pebble's rates are then 2× sqlite's (better), its costs half (better).
	tb, err = SummaryTable([]*results.Run{insertSummaryRun()}, "sqlite")
	if err != nil {
		t.Fatal(err)
	}
	if got := summaryGrid(tb)[2]; strings.Join(got, "|") != "pebble|2.00|2.00|2.00|0.50|0.50|0.50" {
		t.Errorf("pebble against sqlite: %q", got)
	}
	if _, err := SummaryTable([]*results.Run{insertSummaryRun()}, "nosuch"); err == nil {
		t.Error("an unknown base is no error")
	}
}

func TestSummaryOneTarget(t *testing.T) {
	r := insertSummaryRun()
	r.Steps = r.Steps[:3] // pebble alone
	tb, err := SummaryTable([]*results.Run{r}, "")
	if err != nil {
		t.Fatal(err)
	}
	if tb.Kind == Relative || tb.Note != "↑ higher is better, ↓ lower is better" || len(tb.Footer) != 1 {
		t.Errorf("one target: kind %v, note %q, footer %q", tb.Kind, tb.Note, tb.Footer)
	}
	checkGrid(t, tb, [][]string{
		{"target", "l.i0 ips↑", "l.i1 ips↑", "qr100 qps↑", "wKB/i↓", "cpu_us/op↓", "db_MB↓"},
		{"pebble", "100000", "20000", "3000", "2.00", "10.0", "10.0"},
	})
	if tb.Columns[1].Unit != "rows/s" || tb.Columns[5].Unit != "µs/op" {
		t.Errorf("units %q, %q", tb.Columns[1].Unit, tb.Columns[5].Unit)
	}
}

func TestSummarySysbench(t *testing.T) {
	// mysql (the base), postgres (×2 the read rates, ½ the update-index rate) and myrocks (×3).
	r := sysbenchRun("20261121T120000Z-sb", 1)
	r.Manifest.Headline = []string{"cpu_us/op", "write:wKB/op", "write:sync/c"}
	tb, err := SummaryTable([]*results.Run{r}, "")
	if err != nil {
		t.Fatal(err)
	}
	// point: geomean(10000, 8000) = 8944 on the base, the ratios' geomean f elsewhere; write:
	// update-index 1/f, insert 1: √(1/f). cpu_us/op over the six tests: (f⁻⁴·f·1)^(1/6) = f^-½.
	// write:wKB/op: update-index f, insert 1: √f. sync/c was not measured: no column.
	checkGrid(t, tb, [][]string{
		{"target", "point qps↑", "range qps↑", "range_agg qps↑", "write qps↑", "cpu_us/op↓", "wKB/op↓"},
		{"mysql", "8944", "4000", "2000", "3873", "83.8", "2.83"},
		{"postgres", "2.00", "2.00", "2.00", "0.71", "0.71", "1.41"},
		{"myrocks", "3.00", "3.00", "3.00", "0.58", "0.58", "1.73"},
	})
	if v := tb.Rows[1][4].Value; math.Abs(v-math.Sqrt(0.5)) > 1e-12 {
		t.Errorf("postgres write ratio %v, want √½", v)
	}
	footer := strings.Join(tb.Footer, "\n")
	for _, want := range []string{"point, range, range_agg, write: geometric mean over the group's tests",
		"cpu_us/op: geometric mean over the tests", "wKB/op: geometric mean over the write tests"} {
		if !strings.Contains(footer, want) {
			t.Errorf("footer lacks %q:\n%s", want, footer)
		}
	}
}

func TestSummaryOldRun(t *testing.T) {
	// A run recorded before Manifest.Summary and Headline: the first 8 steps, rates only.
	r := sampleRun()
	tb, err := SummaryTable([]*results.Run{r}, "")
	if err != nil {
		t.Fatal(err)
	}
	checkGrid(t, tb, [][]string{
		{"target", "l.i0 ips↑", "qr100 qps↑"},
		{"pebble", "167564", "35562"},
		{"sqlite", "0.81", "-"},
		{"bbolt (failed)", "-", "-"},
	})
}

func TestGeomean(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{{[]float64{2, 8}, 4}, {[]float64{0.7}, 0.7}, {[]float64{3, 0}, 0}, {[]float64{3, math.Inf(1)}, math.Inf(1)}} {
		if got := geomean(tc.xs); math.Abs(got-tc.want) > 1e-12 && got != tc.want {
			t.Errorf("geomean(%v) = %v, want %v", tc.xs, got, tc.want)
		}
	}
	if got := geomean(nil); !math.IsNaN(got) {
		t.Errorf("geomean() = %v, want NaN", got)
	}
}

func TestRelativeClass(t *testing.T) {
	for _, tc := range []struct {
		v      float64
		better metric.Better
		want   string
	}{
		{1.43, metric.Higher, "better"}, {0.5, metric.Higher, "worse"},
		{1.43, metric.Lower, "worse"}, {0.5, metric.Lower, "better"},
		{1.04, metric.Higher, ""}, {0.96, metric.Lower, ""}, // the neutral band
		{5, metric.Neutral, ""}, {math.Inf(1), metric.Lower, "worse"}, {math.NaN(), metric.Higher, ""},
	} {
		if got := relativeClass(tc.v, tc.better); got != tc.want {
			t.Errorf("relativeClass(%v, %v) = %q, want %q", tc.v, tc.better, got, tc.want)
		}
	}
	// In a page: the classes of relative cells, whatever the table.
	tb := &Table{Kind: Relative, Columns: []Column{{Name: "metric"}, {Name: "sqlite"}}}
	for _, c := range []struct {
		name   string
		v      float64
		better metric.Better
	}{{"ips", 1.43, metric.Higher}, {"ips", 0.5, metric.Higher}, {"cpu_us/op", 1.43, metric.Lower}, {"cpu_us/op", 0.5, metric.Lower}} {
		cell := RatioCell(c.v)
		cell.Better = c.better
		tb.Rows = append(tb.Rows, []Cell{TextCell(c.name), cell})
	}
	page := string(tableHTML(tb))
	for _, want := range []string{`<td>ips</td><td class="better num">1.43</td>`, `<td>ips</td><td class="worse num">0.50</td>`,
		`<td>cpu_us/op</td><td class="worse num">1.43</td>`, `<td>cpu_us/op</td><td class="better num">0.50</td>`} {
		if !strings.Contains(page, want) {
			t.Errorf("table lacks %s:\n%s", want, page)
		}
	}
}

func TestHTMLSummaryFirst(t *testing.T) {
	var b bytes.Buffer
	if err := HTML(&b, []*results.Run{insertSummaryRun()}, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	sum, cmp := strings.Index(page, `<h2 id="summary">`), strings.Index(page, `<h2 id="comparison">Comparison`)
	if sum < 0 || cmp < 0 || sum > cmp || strings.Index(page, "<table") < sum {
		t.Errorf("the summary (at %d) is not the first table, before the comparison (at %d)", sum, cmp)
	}
	if !strings.Contains(page, RelativeLegend[:40]) {
		t.Error("page lacks the color legend")
	}
}

// TestSummaryNoise: a rate ratio within the noise of the two rates is marked ~ (neutral in
// HTML); one outside it is not; a step whose rate moved by more than 10% marks its target noisy.
func TestSummaryNoise(t *testing.T) {
	run := insertSummaryRun()
	for i := range run.Steps {
		s := &run.Steps[i]
		s.RateSlices, s.RateNoisePct, s.RateCVPct = 10, 5, 7
		switch {
		case s.Target == "bbolt" && s.Step == "l.i0":
			s.Rate = 97000 // 0.97 of pebble's, within √(5%²+5%²) = 7.1%
		case s.Target == "bbolt" && s.Step == "qr100":
			s.Rate, s.RateCVPct = 3300, 25 // 1.10: outside the noise; its rate moved by 25%
		}
	}
	tb, err := SummaryTable([]*results.Run{run}, "")
	if err != nil {
		t.Fatal(err)
	}
	checkGrid(t, tb, [][]string{
		{"target", "l.i0 ips↑", "l.i1 ips↑", "qr100 qps↑", "wKB/i↓", "cpu_us/op↓", "db_MB↓"},
		{"pebble", "100000", "20000", "3000", "2.00", "10.0", "10.0"},
		{"sqlite", "0.50", "0.50", "0.50", "2.00", "2.00", "2.00"},
		{"bbolt (noisy)", "0.97 ~", "0.25", "1.10", "-", "1.00", "1.00"},
	})
	if c := tb.Rows[2][1]; c.Verdict != "~" || cellClasses(tb)[2][1] != "" {
		t.Errorf("within noise: verdict %q class %q, want ~ and no colour", c.Verdict, cellClasses(tb)[2][1])
	}
	foot := strings.Join(tb.Footer, "\n")
	if !strings.Contains(foot, noiseNote) || !strings.Contains(foot, "noisy: bbolt in qr100:") {
		t.Errorf("footer %q", foot)
	}
	// Without slices (a step too short to cut, or a run recorded before) nothing is marked.
	for i := range run.Steps {
		run.Steps[i].RateSlices = 0
	}
	tb, _ = SummaryTable([]*results.Run{run}, "")
	if got := summaryGrid(tb)[3]; got[0] != "bbolt" || got[1] != "0.97" {
		t.Errorf("unknown noise: %q", got)
	}
}

// TestCompareNoise: compare marks a rate ratio of single runs within the two rates' noise ~.
func TestCompareNoise(t *testing.T) {
	run := insertSummaryRun()
	for i := range run.Steps {
		s := &run.Steps[i]
		s.RateSlices, s.RateNoisePct = 10, 5
		if s.Target == "bbolt" && s.Step == "l.i0" {
			s.Rate = 97000
		}
	}
	c, err := Compare([]*results.Run{run}, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range c.Tables(false) {
		if tb.Title != "l.i0" {
			continue
		}
		got := summaryGrid(tb)
		if got[1][0] != "ips" || got[1][2] != "0.97 ~" || got[1][1] != "0.50" || !slices.Contains(tb.Footer, noiseNote) {
			t.Errorf("l.i0: %q, footer %q", got, tb.Footer)
		}
		return
	}
	t.Error("no l.i0 table")
}
