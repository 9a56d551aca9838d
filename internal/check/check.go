// Package check evaluates pass/fail gates on a run's figures (--check): expressions such as
// "qps>=20000", "l.i1:p99_us<=5000" or "ratio(ips)>=0.95", each evaluated per step and target,
// on the median when a target was repeated. A name is what the tables show: the step's headline
// rate under the workload's name for it (ips, qps, Krps ...) or a metric of the catalog
// (rumbench metrics), a latency with its unit (p99_us, max_ms). A check without a step that
// names a rate covers the steps whose headline rate it is: "ips>=5000" checks the load steps'
// inserts, not the background writers of the query steps (their ips is checked by naming the
// step, "qr100:ips>=90"). It also writes the outcome as a JUnit XML report for CI systems.
package check

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rumbench/rumbench/internal/metric"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/stats"
)

// Expr is one parsed check.
type Expr struct {
	// Text is the check as given.
	Text string
	// Step limits the check to one step ("" for every step that has the figure).
	Step string
	// Name is the figure's name as given (qps, p99_us, wKB/i); Ratio marks ratio(Name), the
	// figure relative to the comparison's base.
	Name  string
	Ratio bool
	// Headline says that Name is a workload's rate name (ips, qps, rps ...): without a Step,
	// the check covers only the steps whose headline rate it names, not the steps where the
	// same name is another figure (a query step's ips, the rate of its background writers).
	Headline bool
	// At, when > 0, is a client count of a concurrency sweep (NAME@N): the check applies to the
	// series of that count only. The sweep figures speedup (the rate over the rate at the
	// sweep's smallest count) and eff (speedup per client, 1 linear) are named with it only.
	At int
	// Op is one of >=, <=, >, <, ==, !=; Value the bound, in the figure's unit as named (µs for
	// p99_us, ms for p99_ms).
	Op    string
	Value float64
}

var ops = []string{">=", "<=", "==", "!=", ">", "<"}

// Sweep figures, named with a count (speedup@8, eff@8): see Expr.At.
const (
	Speedup    = "speedup"
	Efficiency = "eff"
)

// maxAt bounds the count of NAME@N.
const maxAt = 1 << 20

// Parse parses "[STEP:]NAME OP NUMBER" or "[STEP:]ratio(NAME) OP NUMBER", where NAME may end in
// "@N", a client count of a concurrency sweep (qps@8, speedup@8, eff@8); spaces are allowed
// around the operator. NAME is a catalog metric or one of rates, the names workloads give their
// headline rate. The error says what is wrong and what is valid.
func Parse(text string, rates []string) (Expr, error) {
	e := Expr{Text: text}
	s := strings.TrimSpace(text)
	at, op := -1, ""
	for _, o := range ops {
		if i := strings.Index(s, o); i >= 0 && (at < 0 || i < at || (i == at && len(o) > len(op))) {
			at, op = i, o
		}
	}
	if at <= 0 {
		return e, fmt.Errorf("--check %q: want [STEP:]NAME OP NUMBER with OP one of >= <= > < == != (e.g. qps>=20000, l.i1:p99_us<=5000, ratio(ips)>=0.95)", text)
	}
	lhs, rhs := strings.TrimSpace(s[:at]), strings.TrimSpace(s[at+len(op):])
	v, err := strconv.ParseFloat(rhs, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return e, fmt.Errorf("--check %q: %q is not a number", text, rhs)
	}
	e.Op, e.Value = op, v
	if i := strings.LastIndex(lhs, ":"); i >= 0 {
		e.Step, lhs = lhs[:i], lhs[i+1:]
		if e.Step == "" {
			return e, fmt.Errorf("--check %q: empty step before ':'", text)
		}
	}
	if inner, ok := strings.CutPrefix(lhs, "ratio("); ok {
		name, closed := strings.CutSuffix(inner, ")")
		if !closed {
			return e, fmt.Errorf("--check %q: ratio( without its )", text)
		}
		e.Ratio, lhs = true, name
	}
	if name, at, ok := strings.Cut(lhs, "@"); ok {
		n, err := strconv.Atoi(at)
		if err != nil || n < 1 || n > maxAt {
			return e, fmt.Errorf("--check %q: %q after @ is not a client count (want NAME@N, N a count of the sweep, e.g. speedup@8>=4)", text, at)
		}
		e.At, lhs = n, name
		if lhs == Speedup || lhs == Efficiency {
			if e.Ratio {
				return e, fmt.Errorf("--check %q: %s is a ratio already: drop ratio()", text, lhs)
			}
			e.Name = lhs
			return e, nil
		}
	} else if lhs == Capacity {
		if e.Ratio || e.Step != "" {
			return e, fmt.Errorf("--check %q: capacity is a target's, over its steps: give it alone (capacity>=5000)", text)
		}
		e.Name = lhs
		return e, nil
	} else if lhs == Speedup || lhs == Efficiency {
		return e, fmt.Errorf("--check %q: %s needs the count it is at: %s@N (e.g. speedup@8>=4)", text, lhs, lhs)
	}
	if lhs == "" {
		return e, fmt.Errorf("--check %q: no figure name before %s", text, op)
	}
	e.Name = lhs
	e.Headline = slices.Contains(rates, lhs)
	if !e.Headline {
		if _, ok := metric.Lookup(lhs); !ok {
			return e, fmt.Errorf("--check %q: unknown figure %q (a metric of rumbench metrics, a latency with its unit as p99_us, or a workload's rate name)", text, lhs)
		}
	}
	return e, nil
}

// pass says whether v satisfies e's bound.
func (e Expr) pass(v float64) bool {
	switch e.Op {
	case ">=":
		return v >= e.Value
	case "<=":
		return v <= e.Value
	case ">":
		return v > e.Value
	case "<":
		return v < e.Value
	case "==":
		return v == e.Value
	}
	return v != e.Value
}

// Value is the figure name of step s in the unit the name says, and whether s has it: the
// headline rate when name is the step's rate name, else the catalog metric (a latency named
// with _ms is converted from µs).
func Value(name string, s *results.Step) (float64, bool) {
	if name == s.RateName || name == "rate" {
		return s.Rate, true
	}
	m, ok := metric.Lookup(name)
	if !ok || !m.AppliesTo(s) {
		return 0, false
	}
	var v float64
	if m.Name == "pN" {
		base := strings.TrimSuffix(strings.TrimSuffix(name, "_us"), "_ms")
		l := metric.RateLatency(s)
		if l == nil {
			return 0, false
		}
		if v, ok = metric.Percentile(l, base); !ok {
			return 0, false
		}
	} else if m.Value == nil {
		return 0, false
	} else if v, ok = m.Value(s); !ok {
		return 0, false
	}
	if m.Latency && strings.HasSuffix(name, "_ms") {
		v /= 1e3
	}
	return v, true
}

// Result is one check on one step and target (or compared series).
type Result struct {
	Expr   Expr
	Step   string
	Target string
	// Value is the figure (the median of the repetitions), N how many repetitions had it.
	Value float64
	N     int
	Pass  bool
	// Noisy says the figure, a rate, is within its noise of the bound (its step's noise%, or for
	// a ratio that of both rates): the check can neither pass nor fail on it, and does not pass.
	// Noise is that noise, a fraction of the figure.
	Noisy bool
	Noise float64
	// Why says what failed when no figure was there to check.
	Why string
}

// Series is one column of figures a check runs over: a target of a run, with its step records
// (several for repeated runs).
type Series struct {
	Label string
	Steps []*results.Step
	// Of and Clients place the series in a concurrency sweep: it is Of's series at Clients
	// clients ("" and 0 outside a sweep).
	Of      string
	Clients int
	// Rate places the series in a sweep of rates: Of's series at this fixed rate (0 outside
	// one); SLO is the run's latency goal (--slo), nil when none was given.
	Rate float64
	SLO  *results.SLO
}

// Evaluate runs every check over the series; ratio checks divide by the series at index base
// (base < 0: no base, ratio checks fail) and skip the base itself. A check on a rate name
// without a step covers the steps whose headline rate it names (Expr.Headline). A check that
// finds its figure nowhere fails, so a gate cannot pass by matching nothing.
func Evaluate(exprs []Expr, series []Series, base int) []Result {
	var out []Result
	for _, e := range exprs {
		n := len(out)
		for si, sr := range series {
			if e.Ratio && (base < 0 || si == base) {
				continue
			}
			if e.At > 0 && sr.Clients != e.At {
				continue
			}
			if e.Name == Speedup || e.Name == Efficiency {
				out = append(out, sweepResults(e, series, si)...)
				continue
			}
			if e.Name == Capacity {
				if si == 0 {
					out = append(out, capacityResults(e, series)...)
				}
				continue
			}
			for _, step := range stepsOf(sr.Steps) {
				if e.Step != "" && step != e.Step || !e.covers(sr.Steps, step) {
					continue
				}
				v, reps := median(e.Name, sr.Steps, step)
				if reps == 0 {
					continue
				}
				noise, known := rateNoise(e.Name, sr.Steps, step)
				if e.Ratio {
					b, breps := median(e.Name, series[base].Steps, step)
					if breps == 0 {
						continue
					}
					v = Ratio(v, b)
					bn, bk := rateNoise(e.Name, series[base].Steps, step)
					noise, known = math.Hypot(noise, bn), known && bk
				}
				r := Result{Expr: e, Step: step, Target: sr.Label, Value: v, N: reps, Pass: e.pass(v)}
				if known && e.Op != "==" && e.Op != "!=" && v > 0 && e.Value > 0 && math.Abs(math.Log(v/e.Value)) <= noise {
					r.Noisy, r.Noise, r.Pass = true, noise, false
				}
				out = append(out, r)
			}
		}
		if len(out) == n {
			why := "no step measured " + e.Name
			switch {
			case e.At > 0 && !slices.ContainsFunc(series, func(s Series) bool { return s.Clients == e.At }):
				why = fmt.Sprintf("no target ran %d clients (a sweep's counts, as --threads 1,2,4,8 gives them)", e.At)
			case e.At > 0:
				why = fmt.Sprintf("no step measured %s at %d clients", e.Name, e.At)
			case e.Name == Capacity:
				why = "no target swept rates: capacity is the highest rate of --rate 1000,2000,... that met --slo"
			case e.Ratio && base < 0:
				why = "ratio() needs a comparison: use it with rumbench compare"
			case e.Step != "":
				why = fmt.Sprintf("no target measured %s in step %s", e.Name, e.Step)
			case e.Headline:
				why = fmt.Sprintf("no step has %s as its headline rate (where %s is another figure, name the step: STEP:%s)", e.Name, e.Name, e.Name)
			}
			out = append(out, Result{Expr: e, Step: e.Step, Value: math.NaN(), Why: why})
		}
	}
	return out
}

// SeriesOf returns a series per target of run, in order of their first record, each labelled
// label(target) and placed in the run's concurrency sweep (Series.Of as label(of)).
func SeriesOf(run *results.Run, label func(target string) string) []Series {
	var out []Series
	at := map[string]int{}
	for i := range run.Steps {
		s := &run.Steps[i]
		k, ok := at[s.Target]
		if !ok {
			k = len(out)
			at[s.Target] = k
			sr := Series{Label: label(s.Target)}
			if run.Manifest != nil {
				sr.SLO = run.Manifest.SLO
				for _, t := range run.Manifest.Targets {
					if t.Label == s.Target && t.Clients > 0 {
						sr.Of, sr.Clients = label(t.Of), t.Clients
					}
					if t.Label == s.Target && t.Rate > 0 {
						sr.Of, sr.Rate = label(t.Of), t.Rate
					}
				}
			}
			out = append(out, sr)
		}
		out[k].Steps = append(out[k].Steps, s)
	}
	return out
}

// covers says whether the check covers step (of the records steps): every step, but for a
// rate name without a step only those whose headline rate it names.
func (e Expr) covers(steps []*results.Step, step string) bool {
	if !e.Headline || e.Step != "" {
		return true
	}
	for _, s := range steps {
		if s.Step == step {
			return s.RateName == e.Name
		}
	}
	return false
}

// sweepResults evaluates a sweep figure (speedup, eff) on series si, a count of a sweep: per
// step, its rate over the rate of the same target's series at the sweep's smallest count.
func sweepResults(e Expr, series []Series, si int) []Result {
	sr := series[si]
	first := -1
	for i, s := range series {
		if s.Of == sr.Of && s.Clients > 0 && (first < 0 || s.Clients < series[first].Clients) {
			first = i
		}
	}
	if first < 0 {
		return nil
	}
	var out []Result
	for _, step := range stepsOf(sr.Steps) {
		if e.Step != "" && step != e.Step {
			continue
		}
		v, reps := median("rate", sr.Steps, step)
		b, breps := median("rate", series[first].Steps, step)
		if reps == 0 || breps == 0 {
			continue
		}
		v = Ratio(v, b)
		if e.Name == Efficiency {
			v *= float64(series[first].Clients) / float64(sr.Clients)
		}
		out = append(out, Result{Expr: e, Step: step, Target: sr.Of, Value: v, N: min(reps, breps), Pass: e.pass(v)})
	}
	return out
}

// Ratio is v relative to base, as checks and comparisons divide: 0/0 is 1, x/0 is +Inf.
func Ratio(v, base float64) float64 {
	switch {
	case base == 0 && v == 0:
		return 1
	case base == 0:
		return math.Inf(1)
	}
	return v / base
}

// stepsOf returns the step names in order of first appearance.
func stepsOf(steps []*results.Step) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range steps {
		if !seen[s.Step] {
			seen[s.Step] = true
			out = append(out, s.Step)
		}
	}
	return out
}

// Median is the median of figure name (as Value reads it) over the records of step (failed
// ones left out), and how many had it (0: none, and the median is 0).
func Median(name string, steps []*results.Step, step string) (float64, int) {
	return median(name, steps, step)
}

// median is the median of name over the records of step (failed ones left out), and how many
// had it.
func median(name string, steps []*results.Step, step string) (float64, int) {
	var xs []float64
	for _, s := range steps {
		if s.Step != step || s.Status == results.StatusFailed {
			continue
		}
		if v, ok := Value(name, s); ok {
			xs = append(xs, v)
		}
	}
	if len(xs) == 0 {
		return 0, 0
	}
	return stats.Summarize(xs).Median, len(xs)
}

// rateNoise is the noise of the figure name in step, a fraction of it, when name is the step's
// rate and every record of it has its noise (results.Step.RateNoisePct): the mean over the
// repetitions divided by the square root of their number.
func rateNoise(name string, steps []*results.Step, step string) (float64, bool) {
	var sum float64
	n := 0
	for _, s := range steps {
		if s.Step != step || s.Status == results.StatusFailed {
			continue
		}
		if name != s.RateName && name != "rate" || s.RateSlices == 0 {
			return 0, false
		}
		sum += s.RateNoisePct / 100
		n++
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n) / math.Sqrt(float64(n)), true
}

// Failed counts the results that did not pass.
func Failed(rs []Result) int {
	n := 0
	for _, r := range rs {
		if !r.Pass {
			n++
		}
	}
	return n
}

// junit is the JUnit XML schema subset CI systems read (Jenkins, GitLab, GitHub actions).
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Output    string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// JUnit writes rs as a JUnit XML report: one test suite named suite (the run id), one test
// case per check, step and target, named "STEP TARGET: CHECK", failing with the measured value.
func JUnit(w io.Writer, suite string, rs []Result) error {
	s := junitSuite{Name: suite, Tests: len(rs), Failures: Failed(rs)}
	for _, r := range rs {
		c := junitCase{Name: caseName(r), Classname: "rumbench." + suite}
		if r.Pass {
			c.Output = Describe(r)
		} else {
			c.Failure = &junitFailure{Message: Describe(r), Type: "check", Text: Describe(r)}
		}
		s.Cases = append(s.Cases, c)
	}
	doc := junitSuites{Tests: s.Tests, Failures: s.Failures, Suites: []junitSuite{s}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func caseName(r Result) string {
	where := strings.TrimSpace(r.Step + " " + r.Target)
	if where == "" {
		return r.Expr.Text
	}
	return where + ": " + r.Expr.Text
}

// Describe says what was measured against the bound, e.g. "ips = 12345 (median of 5), want
// >= 20000", or why nothing was.
func Describe(r Result) string {
	if r.Why != "" {
		return r.Why
	}
	name := r.Expr.Name
	if r.Expr.Ratio {
		name = "ratio(" + name + ")"
	}
	of := ""
	if r.N > 1 {
		of = fmt.Sprintf(" (median of %d)", r.N)
	}
	d := fmt.Sprintf("%s = %s%s, want %s %s", name, strconv.FormatFloat(r.Value, 'g', 6, 64), of, r.Expr.Op, strconv.FormatFloat(r.Expr.Value, 'g', -1, 64))
	if r.Noisy {
		d += fmt.Sprintf(": within its noise (±%.1f%%), the margin cannot be told from noise (lengthen the step, or --repeat it)", r.Noise*100)
	}
	return d
}
