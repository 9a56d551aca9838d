package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/results"
)

// repeatedRun is a sysbench run with every target measured once per value of qps (one
// repetition each, interleaved as --repeat records them).
func repeatedRun(id string, qps map[string][]float64, order []string) *results.Run {
	var steps []results.Step
	n := len(qps[order[0]])
	for rep := 1; rep <= n; rep++ {
		for _, tg := range order {
			s := sbStep(tg, "point-query", "point", qps[tg][rep-1], 50, 0)
			s.Rep = rep
			steps = append(steps, s)
		}
	}
	return &results.Run{Dir: "results/" + id, Manifest: &results.Manifest{SchemaVersion: 2, RunID: id, Workload: "sysbench", Groups: sysbenchGroups}, Steps: steps}
}

func TestRepeatedTables(t *testing.T) {
	r := repeatedRun("rep", map[string][]float64{
		"a": {1000, 1100, 900, 1050, 950, 1020},
		"b": {500, 500, 500, 500, 500, 500},
	}, []string{"a", "b"})
	tables := GroupTables(r.Steps, sysbenchGroups, Wide)
	if len(tables) != 1 || len(tables[0].Rows) != 2 {
		t.Fatalf("want one table of two rows (one per target), got %d tables", len(tables))
	}
	tb := tables[0]
	rate := tb.Rows[0][2] // test, target, qps
	if rate.Interval == nil || rate.Value != 1010 || rate.Interval.Lo != 900 || rate.Interval.Hi != 1100 || rate.Interval.N != 6 {
		t.Fatalf("a's qps cell = %+v %+v, want median 1010 in [900, 1100] of 6", rate, rate.Interval)
	}
	if rate.Text != "1010 ±11%" { // (1100-1010)/1010 = 8.9%, (1010-900)/1010 = 10.9%
		t.Errorf("a's qps text = %q", rate.Text)
	}
	if b := tb.Rows[1][2]; b.Text != "500" || b.Interval == nil {
		t.Errorf("b's qps (every repetition 500) = %q, want 500 without ±", b.Text)
	}
	foot := strings.Join(tb.Footer, "\n")
	if !strings.Contains(foot, "median of 6 repetitions and its 95% confidence interval") {
		t.Errorf("footer %q does not say what ± is", foot)
	}
	// CSV adds the bounds; JSON writes them.
	var buf bytes.Buffer
	if err := Render(&buf, "csv", &Document{Sections: []Section{{Tables: tables}}}); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head := strings.Join(recs[0], ",")
	if !strings.Contains(head, ",qps,qps_lo,qps_hi,qps_n,") {
		t.Fatalf("csv header %q has no interval columns", head)
	}
	if got := strings.Join(recs[1][3:7], ","); got != "1010,900,1100,6" {
		t.Errorf("csv a: qps,lo,hi,n = %s", got)
	}
	buf.Reset()
	if err := Render(&buf, "json", &Document{Sections: []Section{{Tables: tables}}}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Sections []struct {
			Tables []struct {
				Rows [][]json.RawMessage `json:"rows"`
			} `json:"tables"`
		} `json:"sections"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var cell struct {
		Value, Lo, Hi, Conf float64
		N                   int
	}
	if err := json.Unmarshal(doc.Sections[0].Tables[0].Rows[0][2], &cell); err != nil || cell.Value != 1010 || cell.Lo != 900 || cell.N != 6 || cell.Conf < 0.95 {
		t.Errorf("json a's qps = %s (%v)", doc.Sections[0].Tables[0].Rows[0][2], err)
	}
}

// Repeated runs compared: a clear difference is significant, repetitions of one distribution
// are not, and too few repetitions cannot be.
func TestCompareRepeated(t *testing.T) {
	r := repeatedRun("rep", map[string][]float64{
		"a": {1000, 1040, 980, 1010, 990},
		"b": {520, 500, 490, 530, 510}, // every one below every a: p = 2/252
		"c": {1005, 985, 1030, 995, 1020},
	}, []string{"a", "b", "c"})
	c, err := Compare([]*results.Run{r}, "a")
	if err != nil {
		t.Fatal(err)
	}
	rel := c.Tables(false)[0] // point queries: qps, relative to a
	if len(rel.Rows) != 1 || len(rel.Rows[0]) != 3 {
		t.Fatalf("relative table %+v", rel.Rows)
	}
	b, cc := rel.Rows[0][1], rel.Rows[0][2]
	if b.Verdict != "" || b.P > 0.01 || b.Value != 0.51 {
		t.Errorf("b vs a: %q p=%g verdict %q, want 0.51 significant", b.Text, b.P, b.Verdict)
	}
	// b's interval: [490/1040, 530/980]
	if b.Interval == nil || b.Interval.Lo != 490.0/1040 || b.Interval.Hi != 530.0/980 {
		t.Errorf("b's ratio interval = %+v", b.Interval)
	}
	if cc.Verdict != "~" || !strings.HasSuffix(cc.Text, " ~") || cc.P < 0.05 {
		t.Errorf("c vs a: %q p=%g, want ~", cc.Text, cc.P)
	}
	abs := c.Tables(true)[0]
	if got := abs.Rows[0][1]; got.Value != 1000 || got.Interval == nil {
		t.Errorf("absolute a = %+v", got)
	}
	// Three repetitions a side cannot show a difference at 0.05 (the smallest p is 0.1).
	r3 := repeatedRun("rep3", map[string][]float64{"a": {1000, 1001, 1002}, "b": {10, 11, 12}}, []string{"a", "b"})
	c3, _ := Compare([]*results.Run{r3}, "a")
	if cell := c3.Tables(false)[0].Rows[0][1]; cell.Verdict != "~" || cell.P != 0.1 {
		t.Errorf("3 vs 3: %q p=%g, want ~ with p 0.1", cell.Text, cell.P)
	}
	// Across runs: the same target in two runs.
	r2 := repeatedRun("rep-b", map[string][]float64{"a": {1010, 995, 1000, 1030, 985}}, []string{"a"})
	cx, err := Compare([]*results.Run{r, r2}, "r1/a")
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range cx.Tables(false)[0].Rows {
		if cell := row[len(row)-1]; cell.Verdict != "~" {
			t.Errorf("r2/a vs r1/a: %q, want ~", cell.Text)
		}
	}
}

// TestRepeatedClusterRows: the endpoints, replication and fault tables of a repeated run label
// each repetition's rows "target #N", as the charts do; a run without --repeat keeps the label.
func TestRepeatedClusterRows(t *testing.T) {
	var steps []*results.Step
	for rep := range 3 {
		steps = append(steps, &results.Step{Target: "postgres", Step: "update-index", Rep: rep,
			Endpoints:   []results.Endpoint{{Name: "primary", Role: "primary"}},
			Replication: &results.Replication{Kind: "streaming", Replicas: 2},
			Faults:      []results.Fault{{Kind: "kill-primary", AtSecs: 20}}})
	}
	want := []string{"postgres", "postgres #1", "postgres #2"}
	tables := append(clusterTables(steps), faultTable(steps))
	if len(tables) != 3 {
		t.Fatalf("%d tables, want endpoints, replication and faults", len(tables))
	}
	for _, tb := range tables {
		for i, w := range want {
			if got := tb.Rows[i][0].Text; got != w {
				t.Errorf("%s row %d: target %q, want %q", tb.Title, i, got, w)
			}
		}
	}
}
