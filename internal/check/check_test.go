package check

import (
	"bytes"
	"encoding/xml"
	"math"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/results"
)

var rates = []string{"ips", "qps"}

func TestParse(t *testing.T) {
	for text, want := range map[string]Expr{
		"qps>=20000":                  {Name: "qps", Headline: true, Op: ">=", Value: 20000},
		"l.i1:p99_us <= 5000":         {Step: "l.i1", Name: "p99_us", Op: "<=", Value: 5000},
		"ratio(ips)>=0.95":            {Name: "ips", Headline: true, Ratio: true, Op: ">=", Value: 0.95},
		"read-only_range=100:qps>1e3": {Step: "read-only_range=100", Name: "qps", Headline: true, Op: ">", Value: 1000},
		"wKB/i<1":                     {Name: "wKB/i", Op: "<", Value: 1},
		"l.i0:ratio(cpu_us/op) != 2":  {Step: "l.i0", Name: "cpu_us/op", Ratio: true, Op: "!=", Value: 2},
		"p99.99_ms==3":                {Name: "p99.99_ms", Op: "==", Value: 3},
		"speedup@8>=4":                {Name: "speedup", At: 8, Op: ">=", Value: 4},
		"point-query:eff@4 > 0.5":     {Step: "point-query", Name: "eff", At: 4, Op: ">", Value: 0.5},
		"qps@2>=100":                  {Name: "qps", Headline: true, At: 2, Op: ">=", Value: 100},
	} {
		got, err := Parse(text, rates)
		want.Text = text
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", text, got, err, want)
		}
	}
	for text, msg := range map[string]string{
		"qps":             "want [STEP:]NAME OP NUMBER",
		">=3":             "want [STEP:]NAME OP NUMBER",
		"qps>=fast":       `"fast" is not a number`,
		"qps>=NaN":        `"NaN" is not a number`,
		"ipz>=1":          `unknown figure "ipz"`,
		":qps>=1":         "empty step",
		"ratio(qps>=1":    "ratio( without its )",
		"l.i1:ratio()>=1": "no figure name",
		"speedup>=4":      "needs the count it is at: speedup@N",
		"speedup@x>=4":    `"x" after @ is not a client count`,
		"eff@0>=1":        `"0" after @ is not a client count`,
		"ratio(eff@2)>=1": "is a ratio already",
	} {
		if _, err := Parse(text, rates); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("Parse(%q) error %v, want one saying %q", text, err, msg)
		}
	}
}

func step(target, name string, rep int, ips, p99 float64) *results.Step {
	return &results.Step{Target: target, Step: name, Rep: rep, Status: results.StatusOK, RateName: "ips", Rate: ips, IPS: ips,
		RateKinds: []string{"insert"}, Kinds: []results.Kind{{Name: "insert", Role: results.RoleWrite, Ops: 100, MaxUs: 2 * p99}},
		Latency: []results.Latency{{Kind: "insert", Count: 100, P99Us: p99, Percentiles: map[string]float64{"p99.99": 3 * p99}}}}
}

func TestEvaluate(t *testing.T) {
	series := []Series{
		{Label: "pebble", Steps: []*results.Step{step("pebble", "l.i0", 1, 1000, 400), step("pebble", "l.i0", 2, 1200, 500),
			step("pebble", "l.i0", 3, 1100, 450), step("pebble", "l.i1", 1, 900, 800)}},
		{Label: "bbolt", Steps: []*results.Step{step("bbolt", "l.i0", 1, 500, 4000), step("bbolt", "l.i1", 1, 100, 9000)}},
	}
	parse := func(s string) Expr {
		e, err := Parse(s, rates)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	rs := Evaluate([]Expr{parse("ips>=600"), parse("l.i1:p99_ms<=5"), parse("ratio(ips)>=0.2"), parse("p99.99_us<2000"), parse("l.x:ips>1")}, series, 0)
	type row struct {
		step, target string
		value        float64
		n            int
		pass         bool
	}
	want := []row{
		{"l.i0", "pebble", 1100, 3, true}, {"l.i1", "pebble", 900, 1, true}, {"l.i0", "bbolt", 500, 1, false}, {"l.i1", "bbolt", 100, 1, false},
		{"l.i1", "pebble", 0.8, 1, true}, {"l.i1", "bbolt", 9, 1, false},
		{"l.i0", "bbolt", 500.0 / 1100, 1, true}, {"l.i1", "bbolt", 100.0 / 900, 1, false},
		{"l.i0", "pebble", 1350, 3, true}, {"l.i1", "pebble", 2400, 1, false}, {"l.i0", "bbolt", 12000, 1, false}, {"l.i1", "bbolt", 27000, 1, false},
	}
	if len(rs) != len(want)+1 {
		t.Fatalf("%d results, want %d: %+v", len(rs), len(want)+1, rs)
	}
	for i, w := range want {
		r := rs[i]
		if r.Step != w.step || r.Target != w.target || math.Abs(r.Value-w.value) > 1e-9 || r.N != w.n || r.Pass != w.pass {
			t.Errorf("result %d (%s) = %+v, want %+v", i, r.Expr.Text, r, w)
		}
	}
	// A check that matched nothing fails, saying so.
	if last := rs[len(rs)-1]; last.Pass || !strings.Contains(last.Why, "no target measured ips in step l.x") {
		t.Errorf("unmatched check: %+v", last)
	}
	if Failed(rs) != 8 {
		t.Errorf("Failed = %d, want 8", Failed(rs))
	}
	// Without a base, a ratio check cannot pass.
	if rs := Evaluate([]Expr{parse("ratio(ips)>=0.2")}, series, -1); len(rs) != 1 || rs[0].Pass || !strings.Contains(rs[0].Why, "compare") {
		t.Errorf("ratio without base: %+v", rs)
	}

	var buf bytes.Buffer
	if err := JUnit(&buf, "run1", rs); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suite    struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("junit: %v\n%s", err, buf.String())
	}
	if doc.Tests != 13 || doc.Failures != 8 || doc.Suite.Name != "run1" || len(doc.Suite.Cases) != 13 {
		t.Fatalf("junit: %d tests, %d failures, suite %q:\n%s", doc.Tests, doc.Failures, doc.Suite.Name, buf.String())
	}
	c := doc.Suite.Cases[5]
	if c.Name != "l.i1 bbolt: l.i1:p99_ms<=5" || c.Failure == nil || c.Failure.Message != "p99_ms = 9, want <= 5" {
		t.Errorf("junit case 5: %+v %+v", c, c.Failure)
	}
}

// TestSweepChecks: speedup@N is the rate at N clients over the rate at the sweep's smallest
// count, per target and step; eff@N that per client; NAME@N the figure at N clients only.
func TestSweepChecks(t *testing.T) {
	rec := func(target, step string, rate float64) *results.Step {
		return &results.Step{Target: target, Step: step, Status: "ok", Rate: rate, RateName: "qps"}
	}
	series := []Series{
		{Label: "pebble@2", Of: "pebble", Clients: 2, Steps: []*results.Step{rec("pebble@2", "a", 100), rec("pebble@2", "b", 10)}},
		{Label: "pebble@4", Of: "pebble", Clients: 4, Steps: []*results.Step{rec("pebble@4", "a", 300), rec("pebble@4", "b", 10)}},
		{Label: "sqlite@2", Of: "sqlite", Clients: 2, Steps: []*results.Step{rec("sqlite@2", "a", 50)}},
		{Label: "sqlite@4", Of: "sqlite", Clients: 4, Steps: []*results.Step{rec("sqlite@4", "a", 50)}},
	}
	parse := func(s string) Expr {
		e, err := Parse(s, rates)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	got := map[string]float64{}
	for _, r := range Evaluate([]Expr{parse("speedup@4>=2"), parse("a:eff@4>=0.5"), parse("qps@4>=100"), parse("speedup@2==1")}, series, -1) {
		got[r.Expr.Text+" "+r.Step+" "+r.Target] = r.Value
		if r.Why != "" {
			t.Errorf("%s: %s", r.Expr.Text, r.Why)
		}
	}
	want := map[string]float64{
		"speedup@4>=2 a pebble": 3, "speedup@4>=2 b pebble": 1, "speedup@4>=2 a sqlite": 1,
		"a:eff@4>=0.5 a pebble": 1.5, "a:eff@4>=0.5 a sqlite": 0.5,
		"qps@4>=100 a pebble@4": 300, "qps@4>=100 b pebble@4": 10, "qps@4>=100 a sqlite@4": 50,
		"speedup@2==1 a pebble": 1, "speedup@2==1 b pebble": 1, "speedup@2==1 a sqlite": 1,
	}
	if len(got) != len(want) {
		t.Errorf("results %v, want %v", got, want)
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || math.Abs(g-v) > 1e-12 {
			t.Errorf("%s = %v (present %v), want %v", k, g, ok, v)
		}
	}
	// A count no target ran fails with the reason.
	rs := Evaluate([]Expr{parse("speedup@8>=1")}, series, -1)
	if len(rs) != 1 || rs[0].Pass || !strings.Contains(rs[0].Why, "no target ran 8 clients") {
		t.Errorf("speedup@8 on a sweep of 2,4: %+v", rs)
	}
}

// TestHeadlineScope: a check on a rate name without a step covers the steps whose headline
// rate it names. A query step's ips (its paced background writers' rate) is checked only when
// the check names the step; so ratio(ips)>=0.95 covers the load steps and not the query steps,
// where every engine keeps to the writers' pace.
func TestHeadlineScope(t *testing.T) {
	query := func(target, name string, qps, ips float64) *results.Step {
		return &results.Step{Target: target, Step: name, Status: results.StatusOK, RateName: "qps", Rate: qps, QPS: 0, IPS: ips,
			RateKinds: []string{"range_query"}, Kinds: []results.Kind{{Name: "range_query", Role: results.RoleRead, Ops: 100},
				{Name: "insert", Role: results.RoleWrite, Ops: 10, Units: 10}}}
	}
	series := []Series{
		{Label: "pebble", Steps: []*results.Step{step("pebble", "l.i0", 0, 1000, 400), step("pebble", "l.i1", 0, 900, 800),
			query("pebble", "qr100", 5000, 100), query("pebble", "qp100", 4000, 100)}},
		{Label: "bbolt", Steps: []*results.Step{step("bbolt", "l.i0", 0, 500, 4000), step("bbolt", "l.i1", 0, 100, 9000),
			query("bbolt", "qr100", 2500, 99), query("bbolt", "qp100", 8000, 100)}},
	}
	parse := func(s string) Expr {
		e, err := Parse(s, rates)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	covered := func(rs []Result) string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Step+" "+r.Target)
		}
		return strings.Join(out, ", ")
	}
	for _, c := range []struct {
		check, covered string
		failed         int
	}{
		// The load steps only: bbolt's 0.5 and 0.11 of pebble's inserts fail.
		{"ratio(ips)>=0.95", "l.i0 bbolt, l.i1 bbolt", 2},
		{"ips>=600", "l.i0 pebble, l.i1 pebble, l.i0 bbolt, l.i1 bbolt", 2},
		// The query steps only.
		{"ratio(qps)>=0.95", "qr100 bbolt, qp100 bbolt", 1},
		// Named, a query step's ips is its background writers'.
		{"qr100:ratio(ips)>=0.95", "qr100 bbolt", 0},
		{"qp100:ips>=100", "qp100 pebble, qp100 bbolt", 0},
	} {
		rs := Evaluate([]Expr{parse(c.check)}, series, 0)
		if got := covered(rs); got != c.covered || Failed(rs) != c.failed {
			t.Errorf("%s covered %q with %d failed, want %q with %d", c.check, got, Failed(rs), c.covered, c.failed)
		}
	}
	// A rate name that is no step's headline matches nothing, and says how to name a step.
	rs := Evaluate([]Expr{parse("ips>=1")}, series[:1:1], -1)
	rs2 := Evaluate([]Expr{parse("ips>=1")}, []Series{{Label: "pebble", Steps: series[0].Steps[2:]}}, -1)
	if len(rs) != 2 || len(rs2) != 1 || rs2[0].Pass || rs2[0].Why != "no step has ips as its headline rate (where ips is another figure, name the step: STEP:ips)" {
		t.Errorf("ips over query steps only: %+v", rs2)
	}
}

// TestWithinNoise: a rate check whose bound lies within the rate's noise neither passes nor
// fails silently: it is Noisy, not passed, and says so; one outside the noise is decided.
func TestWithinNoise(t *testing.T) {
	rec := func(target string, rate float64) *results.Step {
		return &results.Step{Target: target, Step: "l.i1", Status: results.StatusOK, RateName: "ips", Rate: rate,
			RateSlices: 10, RateNoisePct: 5}
	}
	series := []Series{{Label: "pebble", Steps: []*results.Step{rec("pebble", 100)}}, {Label: "bbolt", Steps: []*results.Step{rec("bbolt", 97)}}}
	for _, tc := range []struct {
		text        string
		noisy, pass bool
	}{
		{"ips>=98", true, false},          // 100 against 98: 2% inside ±5%
		{"ips>=90", false, true},          // 11% away: passes
		{"ips>=120", false, false},        // 18% away: fails
		{"ratio(ips)>=0.95", true, false}, // 0.97: within ±7.1% (both rates' noise)
		{"ratio(ips)>=0.80", false, true},
	} {
		e, err := Parse(tc.text, []string{"ips"})
		if err != nil {
			t.Fatal(err)
		}
		var got []Result
		for _, r := range Evaluate([]Expr{e}, series, 0) {
			if r.Target == "bbolt" || !e.Ratio && r.Target == "pebble" {
				got = append(got, r)
			}
		}
		r := got[0]
		if r.Noisy != tc.noisy || r.Pass != tc.pass || tc.noisy != strings.Contains(Describe(r), "within its noise") {
			t.Errorf("%s: noisy %v pass %v (%s)", tc.text, r.Noisy, r.Pass, Describe(r))
		}
	}
	// A step whose noise is unknown (too short to cut) is decided on its figure.
	series[0].Steps[0].RateSlices = 0
	e, _ := Parse("ips>=98", []string{"ips"})
	if r := Evaluate([]Expr{e}, series[:1], -1)[0]; r.Noisy || !r.Pass {
		t.Errorf("unknown noise: %+v", r)
	}
}
