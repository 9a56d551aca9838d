package recipe

import (
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/results"
	_ "github.com/rumbench/rumbench/internal/workload/all"
)

// TestShipped parses every shipped recipe: each has a quick and a full scale, and its
// findings name targets its parts make.
func TestShipped(t *testing.T) {
	all, err := List()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		t.Fatal("no shipped recipes")
	}
	for _, r := range all {
		if r.Scales[Quick] == "" || r.Scales[Full] == "" {
			t.Errorf("%s: scales %v, want quick and full said", r.Name, r.Scales)
		}
		if len(r.Findings) == 0 {
			t.Errorf("%s: no findings", r.Name)
		}
		for _, p := range r.Parts {
			for _, s := range Scales {
				data, err := r.RunFile(p, s)
				if err != nil {
					t.Fatalf("%s %s %s: %v", r.Name, p.Name, s, err)
				}
				if !strings.Contains(string(data), "label: "+r.Name+"-"+p.Name) {
					t.Errorf("%s %s: run file without its label:\n%s", r.Name, p.Name, data)
				}
			}
		}
		src, ok := Source(r.Name)
		if !ok || !IsRecipe(src) {
			t.Errorf("%s: Source %v, IsRecipe false", r.Name, ok)
		}
	}
}

const tiny = `
name: tiny
title: a tiny recipe
report: a report
scales: {quick: "1/10", full: "all"}
parts:
  - name: a
    flags: {workload: insert, engine: [pebble, sqlite], rows: 1000}
    scale:
      full: {rows: 10000}
  - name: b
    flags: {workload: insert, engine: pebble, clients: 2}
base: a/pebble
tables:
  - {kind: steps, step: l.i1, columns: [ips, wKB/i], headers: {wKB/i: bwpi}, published: [{label: "x (2014)", ips: "23308"}]}
  - {kind: intervals, step: l.i1, intervals: 2}
findings:
  - {claim: "sqlite is slower", target: a/sqlite, check: "l.i1:ratio(ips)<1", published: "0.5"}
  - {claim: "two clients are faster", target: b/pebble, check: "ips>=150"}
  - {claim: "bbolt", target: a/bbolt, check: "ips>0"}
`

// TestParseErrors: each broken recipe is refused with a message that says what is valid.
func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ from, to, want string }{
		{"name: tiny", "name: Tiny!", "want 1 to 64 of a-z 0-9 -"},
		{"kind: steps", "kind: pie", "want steps, relative, latency, intervals or scaling"},
		{`check: "ips>=150"`, `check: "ipz>=150"`, "unknown figure"},
		{"quick: \"1/10\"", "huge: \"1/10\"", "unknown scale"},
		{"    scale:\n      full:", "    scale:\n      ful:", "unknown scale"},
		{"columns: [ips, wKB/i]", "columns: [ips, nope]", "not a figure"},
		{"title: a tiny recipe", "titel: a tiny recipe", "line 3: field titel not found"},
		{"title: a tiny recipe", "title: [a, list]", "cannot unmarshal !!seq into string"},
		{"  - name: b", "  - name: a", "want a unique"},
	} {
		src := strings.Replace(tiny, c.from, c.to, 1)
		if src == tiny {
			t.Fatalf("%q not in the recipe", c.from)
		}
		_, err := Parse([]byte(src))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s → %s: error %v, want one line with %q", c.from, c.to, err, c.want)
		}
	}
	if _, err := Parse([]byte(tiny)); err != nil {
		t.Fatal(err)
	}
}

// TestRunFile: a scale's flags override the part's, and the label is the recipe's and part's.
func TestRunFile(t *testing.T) {
	r, err := Parse([]byte(tiny))
	if err != nil {
		t.Fatal(err)
	}
	data, err := r.RunFile(r.Parts[0], Full)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for _, want := range []string{"rows: 10000", "label: tiny-a", "engine: [pebble, sqlite]"} {
		if !strings.Contains(s, want) {
			t.Errorf("run file lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "rows: 1000\n") {
		t.Errorf("the part's rows kept beside the scale's:\n%s", s)
	}
}

func step(target, name string, ips, wkb float64, rows int64) results.Step {
	return results.Step{Target: target, Step: name, Status: results.StatusOK, RateName: "ips", Rate: ips, IPS: ips, Rows: rows,
		WriteKBPerInsert: wkb, Secs: 10, Ops: int64(ips * 10), RateKinds: []string{"insert"},
		Kinds: []results.Kind{{Name: "insert", Role: results.RoleWrite, Ops: int64(ips * 10), Units: int64(ips * 10)}}}
}

// TestEvaluate evaluates the findings over hand-made runs: labels part/target, a ratio against
// the base, a target that did not run, the published row beside the measured ones and the
// per-interval rows.
func TestEvaluate(t *testing.T) {
	r, err := Parse([]byte(tiny))
	if err != nil {
		t.Fatal(err)
	}
	a := &results.Run{Dir: "ra", Manifest: &results.Manifest{}, Steps: []results.Step{step("pebble", "l.i1", 200, 2, 2000), step("sqlite", "l.i1", 50, 20, 2000)}}
	for i := range 4 {
		a.Intervals = append(a.Intervals, results.Interval{Target: "pebble", Step: "l.i1", Secs: 2.5, IPS: 200, WriteMBPerSec: 1, DBBytes: int64(1<<20) * int64(i+1)})
	}
	b := &results.Run{Dir: "rb", Manifest: &results.Manifest{}, Steps: []results.Step{step("pebble", "l.i1", 100, 2, 1000)}}
	doc, verdicts := r.Evaluate([]PartRun{{"a", a}, {"b", b}}, Quick)
	want := []struct{ outcome, measured string }{
		{Reproduced, "0.25"},
		{NotReproduced, "100"},
		{NotMeasured, "target a/bbolt did not run"},
	}
	for i, w := range want {
		if verdicts[i].Outcome != w.outcome || verdicts[i].Measured != w.measured {
			t.Errorf("finding %d: %s (%s), want %s (%s)", i, verdicts[i].Outcome, verdicts[i].Measured, w.outcome, w.measured)
		}
	}
	if l := verdicts[0].Line(); l != "finding: sqlite is slower: reproduced (l.i1:ratio(ips)<1 vs a/pebble: 0.25; published: 0.5)" {
		t.Errorf("line %q", l)
	}
	tables := doc.Sections[0].Tables
	st := tables[0]
	if st.Columns[2].Name != "bwpi" || len(st.Rows) != 4 || st.Rows[0][0].Text != "a/pebble" || st.Rows[3][0].Text != "published: x (2014)" || st.Rows[3][1].Text != "23308" {
		t.Errorf("steps table: columns %v rows %v", st.Columns, st.Rows)
	}
	iv := tables[1]
	// pebble's 2,000 rows in two parts of 1,000: 5 s, 5 MiB written, 5 KB per row at 1 MiB/s
	// over 200 rows/s; size at the end of each part 2 and 4 MiB over 1,000 and 2,000 rows held.
	if len(iv.Rows) != 2 {
		t.Fatalf("intervals rows %v", iv.Rows)
	}
	for i, w := range [][]string{{"a/pebble", "0→1k", "2.00", "2097", "1.00", "5.00", "5.00", "200", "5.12"}, {"a/pebble", "1k→2k", "4.00", "2097", "1.00", "5.00", "5.00", "200", "5.12"}} {
		for j, c := range iv.Rows[i] {
			if c.Text != w[j] {
				t.Errorf("intervals row %d column %s: %q, want %q", i, iv.Columns[j].Name, c.Text, w[j])
			}
		}
	}
}

// TestIdleHostFinding: a finding marked idle-host is decided on an idle host and not decided
// when a step it covers, of the target or of the base, ran on a busy host.
func TestIdleHostFinding(t *testing.T) {
	src := strings.Replace(tiny, `published: "0.5"}`, `published: "0.5", idle-host: true}`, 1)
	r, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		busy             string
		outcome, measure string
	}{
		{"", Reproduced, "0.25"},
		{"pebble", NeedsIdleHost, "0.25, on a busy host"},
		{"sqlite", NeedsIdleHost, "0.25, on a busy host"},
	} {
		a := &results.Run{Dir: "ra", Manifest: &results.Manifest{}, Steps: []results.Step{step("pebble", "l.i1", 200, 2, 2000), step("sqlite", "l.i1", 50, 20, 2000)}}
		for i := range a.Steps {
			other := 3.0
			if a.Steps[i].Target == c.busy {
				other = 45
			}
			a.Steps[i].OtherCPUPct = &other
		}
		_, verdicts := r.Evaluate([]PartRun{{"a", a}}, Quick)
		if v := verdicts[0]; v.Outcome != c.outcome || v.Measured != c.measure {
			t.Errorf("busy %q: %s (%s), want %s (%s)", c.busy, v.Outcome, v.Measured, c.outcome, c.measure)
		}
	}
}
