package recipe

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rumbench/rumbench/internal/check"
	"github.com/rumbench/rumbench/internal/metric"
	"github.com/rumbench/rumbench/internal/report"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/workload"
)

// PartRun is a finished (or stopped) run of a part.
type PartRun struct {
	Part string
	Run  *results.Run
}

// Verdict is a finding's outcome.
type Verdict struct {
	Claim string `json:"claim"`
	// Outcome is "reproduced", "not reproduced", "not measured", "within noise" or "needs an
	// idle host".
	Outcome string `json:"outcome"`
	// Measured says the figures the check saw ("2.01", "0.05–0.31 over 9 steps") or why there
	// were none; Published is the report's figure, as the recipe states it.
	Measured  string `json:"measured"`
	Published string `json:"published,omitempty"`
	Check     string `json:"check"`
	Target    string `json:"target"`
	Base      string `json:"base,omitempty"`
}

// Outcomes. WithinNoise is a finding whose figures meet its bound only within their noise (a
// rate's noise%, see check.Result.Noisy), or miss it by no more: neither reproduced nor not.
// NeedsIdleHost is a finding marked idle-host measured on a step that ran on a busy host:
// not decided.
const (
	Reproduced    = "reproduced"
	NotReproduced = "not reproduced"
	NotMeasured   = "not measured"
	WithinNoise   = "within noise"
	NeedsIdleHost = "needs an idle host"
)

// Line is the verdict as the run prints it: "finding: CLAIM: reproduced (measured 2.01;
// published 2)".
func (v Verdict) Line() string {
	pub := ""
	if v.Published != "" {
		pub = "; published: " + v.Published
	}
	return fmt.Sprintf("finding: %s: %s (%s: %s%s)", v.Claim, v.Outcome, v.against(), v.Measured, pub)
}

// against is the check with the base it divides by ("ratio(qps)>=1.5 vs mysql:binlog.cnf").
func (v Verdict) against() string {
	if v.Base == "" {
		return v.Check
	}
	return v.Check + " vs " + v.Base
}

// Label names a target of part in the recipe's tables and findings: the target's own label
// when the recipe has one part, else "part/target".
func (r *Recipe) Label(part, target string) string {
	if len(r.Parts) == 1 {
		return target
	}
	return part + "/" + target
}

// series are the targets of the runs in run order, as check series.
func (r *Recipe) series(runs []PartRun) []check.Series {
	var out []check.Series
	for _, pr := range runs {
		out = append(out, check.SeriesOf(pr.Run, func(target string) string { return r.Label(pr.Part, target) })...)
	}
	return out
}

func seriesIndex(series []check.Series, label string) int {
	return slices.IndexFunc(series, func(s check.Series) bool { return s.Label == label })
}

// Evaluate builds the recipe's document over the parts' runs (those that ran; a part that did
// not run leaves its figures "-" and its findings not measured) and the findings' verdicts.
// scale is the scale the parts ran at.
func (r *Recipe) Evaluate(runs []PartRun, scale string) (*report.Document, []Verdict) {
	series := r.series(runs)
	sec := report.Section{Title: fmt.Sprintf("recipe %s: %s", r.Name, r.Title)}
	sec.Lines = append(sec.Lines, "reproduces: "+r.Report)
	if r.Question != "" {
		sec.Lines = append(sec.Lines, "question: "+r.Question)
	}
	scaleText := scale
	if what := r.Scales[scale]; what != "" {
		scaleText += ": " + what
	}
	sec.Lines = append(sec.Lines, "scale: "+scaleText)
	for _, d := range r.Differences {
		sec.Lines = append(sec.Lines, "differs: "+d)
	}
	for _, pr := range runs {
		sec.Lines = append(sec.Lines, fmt.Sprintf("part %s: run %s", pr.Part, pr.Run.Dir))
	}
	if r.Base != "" {
		sec.Lines = append(sec.Lines, "base: "+r.Base)
	}
	sec.Lines = append(sec.Lines, "published figures are the report's, labelled \"published\"; every other figure was measured by this run")
	for _, t := range r.Tables {
		switch t.Kind {
		case "steps":
			sec.Tables = append(sec.Tables, r.stepsTable(t, series))
		case "relative":
			sec.Tables = append(sec.Tables, r.relativeTables(t, series, runs)...)
		case "latency":
			sec.Tables = append(sec.Tables, latencyTable(t, series))
		case "intervals":
			sec.Tables = append(sec.Tables, r.intervalsTable(t, runs))
		case "scaling":
			sec.Tables = append(sec.Tables, scalingTables(t, runs)...)
		}
	}
	return &report.Document{Sections: []report.Section{sec}}, r.verdicts(series, runs)
}

// scalingTables are the scaling tables (report.ScalingTables) of the parts that swept a client
// count, of step t.Step (every swept step when empty), titled with the part's name.
func scalingTables(t TableSpec, runs []PartRun) []*report.Table {
	var out []*report.Table
	for _, pr := range runs {
		for _, st := range report.ScalingTables([]*results.Run{pr.Run}) {
			if t.Step != "" && st.Title != "scaling: "+t.Step {
				continue
			}
			st.Title = pr.Part + " " + st.Title
			if t.Title != "" {
				st.Title = t.Title + ", " + st.Title
			}
			if t.Note != "" {
				st.Footer = append(st.Footer, t.Note)
			}
			out = append(out, st)
		}
	}
	return out
}

// FindingsTable is the verdicts as a table (for Markdown and JSON; text prints Verdict.Line).
func FindingsTable(verdicts []Verdict) *report.Table {
	ft := &report.Table{Title: "findings", Columns: []report.Column{{Name: "finding"}, {Name: "outcome"}, {Name: "target"}, {Name: "check"}, {Name: "measured"}, {Name: "published"}}}
	for _, v := range verdicts {
		ft.Rows = append(ft.Rows, []report.Cell{report.TextCell(v.Claim), report.TextCell(v.Outcome), report.TextCell(v.Target), report.TextCell(v.against()),
			report.TextCell(v.Measured), report.TextCell(v.Published)})
	}
	return ft
}

// figureColumn is a table column of figure name, with its header and unit.
func figureColumn(name string, headers map[string]string) report.Column {
	c := report.Column{Name: name}
	if h := headers[name]; h != "" {
		c.Name = h
	}
	if m, ok := metric.Lookup(name); ok {
		c.Unit, c.Meaning, c.Rate = m.Unit, m.Meaning, m.Rate
		return c
	}
	if rt, ok := workload.LookupRate(name); ok {
		c.Unit, c.Meaning, c.Rate = rt.Unit, rt.Meaning, true
	}
	return c
}

// figureCell is the median of name over the series' records of step.
func figureCell(name string, sr check.Series, step string) report.Cell {
	v, n := check.Median(name, sr.Steps, step)
	if n == 0 {
		return report.MissingCell()
	}
	if m, ok := metric.Lookup(name); ok {
		switch {
		case len(m.Words) > 0: // regime: cached, IO-bound...
			return report.TextCell(m.Words[min(max(int(v), 0), len(m.Words)-1)])
		case m.YesNo && v != 0:
			return report.TextCell("yes")
		case m.YesNo:
			return report.TextCell("NO")
		case m.Integer:
			return report.IntCell(int64(v))
		}
	}
	return report.NumCell(v)
}

// publishedRows renders published rows under columns keys (a row's label first); a column
// renamed by headers is found under either name.
func publishedRows(pub []map[string]string, keys []string, headers map[string]string) [][]report.Cell {
	var out [][]report.Cell
	for _, p := range pub {
		row := []report.Cell{report.TextCell("published: " + p["label"])}
		for _, k := range keys {
			v, ok := p[k]
			if h := headers[k]; !ok && h != "" {
				v, ok = p[h]
			}
			if ok {
				row = append(row, report.TextCell(v))
			} else {
				row = append(row, report.MissingCell())
			}
		}
		out = append(out, row)
	}
	return out
}

// latencyTable is the per-operation response times of step t.Step, a row per target and kind.
func latencyTable(t TableSpec, series []check.Series) *report.Table {
	var rows []*results.Step
	for _, sr := range series {
		for _, s := range sr.Steps {
			if s.Step == t.Step {
				c := *s
				c.Target = sr.Label
				rows = append(rows, &c)
			}
		}
	}
	tb := report.LatencyTable(t.Step, rows)
	tb.Title, tb.Note = t.Title, "step "+t.Step+": response times per operation"
	if tb.Title == "" {
		tb.Title = t.Step + " response times"
	}
	if t.Note != "" {
		tb.Footer = append(tb.Footer, t.Note)
	}
	return tb
}

func (r *Recipe) stepsTable(t TableSpec, series []check.Series) *report.Table {
	tb := &report.Table{Title: t.Title, Note: "step " + t.Step, Kind: report.Absolute}
	if tb.Title == "" {
		tb.Title = t.Step
	}
	tb.Columns = append(tb.Columns, report.Column{Name: "target"})
	for _, c := range t.Columns {
		tb.Columns = append(tb.Columns, figureColumn(c, t.Headers))
	}
	for _, sr := range series {
		if !slices.ContainsFunc(sr.Steps, func(s *results.Step) bool { return s.Step == t.Step }) {
			continue
		}
		row := []report.Cell{report.TextCell(sr.Label)}
		for _, c := range t.Columns {
			row = append(row, figureCell(c, sr, t.Step))
		}
		tb.Rows = append(tb.Rows, row)
	}
	tb.Rows = append(tb.Rows, publishedRows(t.Published, t.Columns, t.Headers)...)
	if t.Note != "" {
		tb.Footer = append(tb.Footer, t.Note)
	}
	return tb
}

// relativeTables are metric (default the headline rate) of each target over the base's, a row
// per step in the base's order; one table per step group when the steps are grouped.
func (r *Recipe) relativeTables(t TableSpec, series []check.Series, runs []PartRun) []*report.Table {
	name := t.Metric
	if name == "" {
		name = "rate"
	}
	base := seriesIndex(series, r.Base)
	if base < 0 {
		return []*report.Table{{Title: t.Title, Footer: []string{fmt.Sprintf("no base: target %s did not run", r.Base)}}}
	}
	var others []int
	for i := range series {
		if i != base {
			others = append(others, i)
		}
	}
	var groups []results.Group
	for _, pr := range runs {
		if len(pr.Run.Manifest.Groups) > 0 {
			groups = pr.Run.Manifest.Groups
			break
		}
	}
	type block struct {
		title string
		group string
		steps []string
	}
	var blocks []block
	if len(groups) == 0 {
		b := block{title: t.Title}
		for _, s := range series[base].Steps {
			if !slices.Contains(b.steps, s.Step) {
				b.steps = append(b.steps, s.Step)
			}
		}
		blocks = append(blocks, b)
	}
	for _, g := range groups {
		b := block{title: strings.TrimSpace(t.Title + " " + g.Name), group: g.Name}
		for _, s := range series[base].Steps {
			if s.Group == g.Name && !slices.Contains(b.steps, s.Step) {
				b.steps = append(b.steps, s.Step)
			}
		}
		if len(b.steps) > 0 {
			blocks = append(blocks, b)
		}
	}
	var out []*report.Table
	for _, b := range blocks {
		tb := &report.Table{Title: b.title, Note: fmt.Sprintf("%s relative to %s", name, r.Base), Kind: report.Relative}
		tb.Columns = append(tb.Columns, report.Column{Name: "step"})
		var keys []string
		for _, i := range others {
			tb.Columns = append(tb.Columns, report.Column{Name: series[i].Label})
			keys = append(keys, series[i].Label)
		}
		for _, step := range b.steps {
			bv, bn := check.Median(name, series[base].Steps, step)
			if bn == 0 {
				continue // a step the base did not measure (a test not run)
			}
			row := []report.Cell{report.TextCell(step)}
			for _, i := range others {
				v, n := check.Median(name, series[i].Steps, step)
				if n == 0 || bn == 0 {
					row = append(row, report.MissingCell())
					continue
				}
				row = append(row, report.RatioCell(check.Ratio(v, bv)))
			}
			tb.Rows = append(tb.Rows, row)
		}
		var pub []map[string]string
		for _, p := range t.Published {
			if p["group"] == b.group {
				pub = append(pub, p)
			}
		}
		tb.Rows = append(tb.Rows, publishedRows(pub, keys, nil)...)
		if t.Note != "" {
			tb.Footer = append(tb.Footer, t.Note)
		}
		out = append(out, tb)
	}
	return out
}

// intervalsTable cuts step t.Step of each target into t.Intervals parts of equal rows written
// (by the per-second records) and gives each part the insert benchmark's per-interval figures.
func (r *Recipe) intervalsTable(t TableSpec, runs []PartRun) *report.Table {
	n := t.Intervals
	if n == 0 {
		n = 5
	}
	tb := &report.Table{Title: t.Title, Note: fmt.Sprintf("step %s in %d parts of equal rows", t.Step, n), Kind: report.Absolute}
	if tb.Title == "" {
		tb.Title = t.Step + " by interval"
	}
	keys := []string{"rows", "size_MB", "B/row", "MB/s", "MBw", "secs", "ips", "wKB/i"}
	tb.Columns = []report.Column{{Name: "target"}, {Name: "rows"}, {Name: "size_MB", Unit: "MiB"}, {Name: "B/row", Unit: "bytes/row"},
		{Name: "MB/s", Unit: "MiB/s"}, {Name: "MBw", Unit: "MiB"}, {Name: "secs", Unit: "s"}, {Name: "ips", Unit: "rows/s", Rate: true},
		{Name: "wKB/i", Unit: "KB/insert"}}
	for _, pr := range runs {
		var targets []string
		for _, s := range pr.Run.Steps {
			if s.Step == t.Step && !slices.Contains(targets, s.Target) {
				targets = append(targets, s.Target)
			}
		}
		for _, target := range targets {
			tb.Rows = append(tb.Rows, intervalRows(r.Label(pr.Part, target), pr.Run, target, t.Step, n)...)
		}
	}
	tb.Rows = append(tb.Rows, publishedRows(t.Published, keys, nil)...)
	tb.Footer = append(tb.Footer, "rows written per part from the per-second records (ips × secs); size and B/row at the part's end; MBw from the device's write rate; the step's settling is left out (it is in the step's own table)")
	if t.Note != "" {
		tb.Footer = append(tb.Footer, t.Note)
	}
	return tb
}

// intervalRows are the rows of one target's step in n parts.
func intervalRows(label string, run *results.Run, target, step string, n int) [][]report.Cell {
	var ivs []*results.Interval
	rep := -1
	for i := range run.Intervals {
		iv := &run.Intervals[i]
		if iv.Target != target || iv.Step != step || iv.Settle {
			continue
		}
		if rep < 0 {
			rep = iv.Rep
		}
		if iv.Rep == rep {
			ivs = append(ivs, iv)
		}
	}
	var st *results.Step
	for i := range run.Steps {
		if s := &run.Steps[i]; s.Target == target && s.Step == step && (rep < 0 || s.Rep == rep) {
			st = s
		}
	}
	if len(ivs) == 0 || st == nil {
		return nil
	}
	var total float64
	for _, iv := range ivs {
		total += iv.IPS * iv.Secs
	}
	rowsBefore := float64(st.Rows) - total
	var out [][]report.Cell
	var done, rows, mbw, secs float64
	part, at := 1, 0.0
	for i, iv := range ivs {
		rows += iv.IPS * iv.Secs
		mbw += iv.WriteMBPerSec * iv.Secs
		secs += iv.Secs
		if i < len(ivs)-1 && done+rows < total*float64(part)/float64(n) {
			continue
		}
		held := rowsBefore + done + rows
		row := []report.Cell{report.TextCell(label), report.TextCell(fmt.Sprintf("%s→%s", count(at), count(done+rows))),
			report.NumCell(float64(iv.DBBytes) / (1 << 20))}
		if held > 0 {
			row = append(row, report.NumCell(float64(iv.DBBytes)/held))
		} else {
			row = append(row, report.MissingCell())
		}
		row = append(row, report.NumCell(mbw/secs), report.NumCell(mbw), report.NumCell(secs), report.NumCell(rows/secs))
		if rows > 0 {
			row = append(row, report.NumCell(mbw*1024/rows))
		} else {
			row = append(row, report.MissingCell())
		}
		out = append(out, row)
		done += rows
		at = done
		rows, mbw, secs = 0, 0, 0
		for part < n && done >= total*float64(part)/float64(n) {
			part++
		}
	}
	return out
}

// count renders a row count as 12k, 3.4M.
func count(v float64) string {
	switch {
	case v >= 1e9:
		return strconv.FormatFloat(v/1e9, 'g', 3, 64) + "G"
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 3, 64) + "M"
	case v >= 1e3:
		return strconv.FormatFloat(v/1e3, 'g', 3, 64) + "k"
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// verdicts evaluates the findings.
func (r *Recipe) verdicts(series []check.Series, runs []PartRun) []Verdict {
	var out []Verdict
	for _, f := range r.Findings {
		v := Verdict{Claim: f.Claim, Published: f.Published, Check: f.Check, Target: f.Target, Outcome: NotMeasured}
		e, err := check.Parse(f.Check, workload.RateNames())
		if err != nil {
			v.Measured = err.Error()
			out = append(out, v)
			continue
		}
		if len(f.Steps) > 0 {
			e.Headline = false // the finding names its steps: a rate name is the figure of each
		}
		ti := seriesIndex(series, f.Target)
		var sel []check.Series
		if e.Name == check.Speedup || e.Name == check.Efficiency {
			// A sweep figure of target f.Target: its counts' series.
			for i, s := range series {
				if s.Of == f.Target && s.Clients > 0 {
					if sel == nil {
						ti = i
					}
					sel = append(sel, s)
				}
			}
		} else if ti >= 0 {
			sel = []check.Series{series[ti]}
		}
		if len(sel) == 0 {
			v.Measured = "target " + f.Target + " did not run"
			out = append(out, v)
			continue
		}
		base := -1
		if e.Ratio {
			v.Base = f.Base
			if v.Base == "" {
				v.Base = r.Base
			}
			bi := seriesIndex(series, v.Base)
			if bi < 0 {
				v.Measured = "base " + v.Base + " did not run"
				out = append(out, v)
				continue
			}
			sel, base = []check.Series{series[bi], series[ti]}, 0
		}
		var vals []float64
		pass, noisy, busy := true, false, false
		for _, res := range check.Evaluate([]check.Expr{e}, sel, base) {
			if res.Target != f.Target || math.IsNaN(res.Value) || !inSteps(f.Steps, res.Step, series[ti]) {
				continue
			}
			vals = append(vals, res.Value)
			pass = pass && (res.Pass || res.Noisy)
			noisy = noisy || res.Noisy
			busy = busy || slices.ContainsFunc(sel, func(s check.Series) bool { return busyOn(s, res.Step) })
		}
		if len(vals) == 0 {
			v.Measured = "no step of " + f.Target + " measured " + e.Name
			if len(f.Steps) > 0 {
				v.Measured += " in " + strings.Join(f.Steps, ", ")
			}
			out = append(out, v)
			continue
		}
		switch {
		case f.IdleHost && busy:
			v.Outcome = NeedsIdleHost
		case !pass:
			v.Outcome = NotReproduced
		case noisy:
			v.Outcome = WithinNoise
		default:
			v.Outcome = Reproduced
		}
		v.Measured = spread(vals, e.Ratio)
		if busy {
			v.Measured += ", on a busy host"
		}
		out = append(out, v)
	}
	return out
}

// busyOn says whether step of sr (a repetition of it) ran on a busy host.
func busyOn(sr check.Series, step string) bool {
	return slices.ContainsFunc(sr.Steps, func(s *results.Step) bool { return s.Step == step && metric.BusyHost(s) })
}

// inSteps says whether step is one of steps, or in one of their groups (no steps: any).
func inSteps(steps []string, step string, sr check.Series) bool {
	if len(steps) == 0 || slices.Contains(steps, step) {
		return true
	}
	for _, s := range sr.Steps {
		if s.Step == step && s.Group != "" && slices.Contains(steps, s.Group) {
			return true
		}
	}
	return false
}

// spread renders the figures a check saw: one figure, or "min–max over N steps"; ratios with
// two decimals.
func spread(vals []float64, ratio bool) string {
	cell := report.NumCell
	if ratio {
		cell = report.RatioCell
	}
	if len(vals) == 1 {
		return cell(vals[0]).Text
	}
	return fmt.Sprintf("%s–%s over %d steps", cell(slices.Min(vals)).Text, cell(slices.Max(vals)).Text, len(vals))
}
