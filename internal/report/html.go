package report

import (
	_ "embed" // echarts.min.js
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"

	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/stats"
)

// echartsJS is Apache ECharts 5.6.0 (dist/echarts.min.js of the npm package; Apache-2.0, see
// assets/echarts.LICENSE and assets/echarts.NOTICE), inlined so a report opens offline.
//
//go:embed assets/echarts.min.js
var echartsJS string

// HTMLOptions tunes the HTML report.
type HTMLOptions struct {
	// Base is the comparison base (see Compare); "" for the first target of the first run.
	Base string
	// Alpha is the significance level of the comparison of repeated runs (0: DefaultAlpha).
	Alpha float64
	// Live, when set, is the URL of the page's charts as HTMLCharts writes them (a run in
	// progress, served by rumbench serve): the page polls it every 2 s and redraws its charts,
	// and reloads itself when a chart comes or goes or the run is no longer running.
	Live string
}

// chart is one echarts chart: the id of its div and its option object.
type chart struct {
	ID     string         `json:"id"`
	Option map[string]any `json:"option"`
}

// htmlStep is the part of the page for one step.
type htmlStep struct {
	Name   string
	Charts []chart
	Tables []template.HTML
}

// htmlRun is a run's manifest, shown collapsed.
type htmlRun struct {
	Label, ID, Status string
	Manifest          string
}

type htmlPage struct {
	Title      string
	ECharts    template.JS
	Runs       []htmlRun
	Compare    []chart
	CompareTab []template.HTML
	BaseLabel  string
	// Summary is the summary table (SummaryTable), Legend the line that explains the colors
	// of relative cells.
	Summary template.HTML
	Legend  string
	// Scaling is a concurrency sweep's view: per step, throughput against the client count
	// and the scaling table (ScalingTables).
	Scaling []htmlStep
	Steps   []htmlStep
	Charts  []chart
	// Live is HTMLOptions.Live.
	Live string
}

// RelativeLegend explains the colors of the relative cells of the HTML report.
var RelativeLegend = fmt.Sprintf("Colors of a ratio to the base: green better, red worse, by the metric's direction (↑ higher is better, ↓ lower is better: a cpu_us/op of 2.00 is worse, an ips of 2.00 better); none within ±%.0f%% of the base (%.2f to %.2f), for a metric with no direction, or for a difference marked ~ (not significant).",
	100*RelativeBand, 1-RelativeBand, 1+RelativeBand)

// HTML writes one self-contained HTML file (echarts inlined, no network access needed) for runs:
// the summary first (SummaryTable, relative to opt.Base); for several targets or runs the
// relative-QPS bar charts and the relative tables; per step the
// per-second throughput and maximum response time of every target overlaid, the response-time
// percentile curves from the histograms, the step tables (colored as the reference colors them)
// and the background writers' target check; each run's manifest in a collapsed block.
func HTML(w io.Writer, runs []*results.Run, opt HTMLOptions) error {
	p, err := buildPage(runs, opt)
	if err != nil {
		return err
	}
	return pageTemplate.Execute(w, p)
}

// HTMLCharts writes, as JSON, the charts the HTML report of runs draws: {"status": the first
// run's status, "charts": [{"id", "option"}]}, what a live page (HTMLOptions.Live) polls.
func HTMLCharts(w io.Writer, runs []*results.Run, opt HTMLOptions) error {
	p, err := buildPage(runs, opt)
	if err != nil {
		return err
	}
	status := ""
	if len(runs) > 0 {
		status = runs[0].Manifest.Status
	}
	return json.NewEncoder(w).Encode(map[string]any{"status": status, "charts": p.Charts})
}

// buildPage computes the HTML report's page for runs.
func buildPage(runs []*results.Run, opt HTMLOptions) (*htmlPage, error) {
	p := &htmlPage{Title: "rumbench report", ECharts: template.JS(echartsJS), Live: opt.Live}
	if len(runs) == 1 {
		p.Title = "rumbench " + runs[0].Manifest.RunID
	}
	for i, r := range runs {
		m, err := json.MarshalIndent(r.Manifest, "", "  ")
		if err != nil {
			return nil, err
		}
		p.Runs = append(p.Runs, htmlRun{Label: fmt.Sprintf("r%d", i+1), ID: r.Manifest.RunID, Status: r.Manifest.Status,
			Manifest: string(m)})
	}
	sum, err := SummaryTable(runs, opt.Base)
	if err != nil {
		return nil, err
	}
	if sum != nil {
		p.Summary = tableHTML(sum)
		if sum.Kind == Relative {
			p.Legend = RelativeLegend
		}
	}
	if c, err := Compare(runs, opt.Base); err == nil && len(c.Series) > 1 {
		c.Alpha = opt.Alpha
		p.BaseLabel = c.Series[c.Base].Label
		p.Compare = compareCharts(c)
		for _, t := range c.Tables(false) {
			p.CompareTab = append(p.CompareTab, tableHTML(t))
		}
	} else if err != nil && !errors.Is(err, ErrNothingToCompare) && len(runs) > 0 && hasSteps(runs) {
		return nil, err
	}
	p.Scaling = append(scalingSections(runs), rateSections(runs)...)
	p.Steps = stepSections(runs)
	p.Charts = append(p.Charts, p.Compare...)
	for _, s := range p.Scaling {
		p.Charts = append(p.Charts, s.Charts...)
	}
	for _, s := range p.Steps {
		p.Charts = append(p.Charts, s.Charts...)
	}
	return p, nil
}

// scalingSections is the view of the runs' concurrency sweeps: per step, a chart of the rate
// against the client count (one line per target, the x axis in powers of two) above its
// scaling table; nil when no run swept a count.
func scalingSections(runs []*results.Run) []htmlStep {
	sweeps := Sweeps(runs)
	tables := scalingTables(sweeps)
	var out []htmlStep
	for i, s := range sweeps {
		var series []map[string]any
		for _, l := range s.Lines {
			data := make([][2]float64, len(l.Points))
			for k, p := range l.Points {
				data[k] = [2]float64{float64(p.Clients), round3(p.Rate)}
			}
			series = append(series, map[string]any{"name": l.Label, "type": "line", "showSymbol": true, "data": data})
		}
		o := lineChart(s.Step+": "+s.RateName+" by clients", s.RateName, false, series)
		o["xAxis"] = map[string]any{"type": "log", "logBase": 2, "name": "clients"}
		out = append(out, htmlStep{Name: s.Step, Charts: []chart{{fmt.Sprintf("sc%d", i), o}}, Tables: []template.HTML{tableHTML(tables[i])}})
	}
	return out
}

// rateSections is the view of the runs' sweeps of rates: per step, a chart of latency against
// the rate the clients achieved (one line per target from the intended start, p99, and a dashed
// one of its service time) above its table; nil when no run swept rates.
func rateSections(runs []*results.Run) []htmlStep {
	rrs := rateRuns(runs)
	sweeps := rateSweeps(rrs)
	tables := rateTables(sweeps, rrs)
	ach, p99, svc := slices.Index(rateFigures, "achieved"), slices.Index(rateFigures, "p99"), slices.Index(rateFigures, "svc_p99")
	var out []htmlStep
	for i, s := range sweeps {
		var series []map[string]any
		for _, l := range s.Lines {
			var resp, serv [][2]float64
			for _, p := range l.Points {
				x := p.Figures[ach]
				if math.IsNaN(x) {
					continue
				}
				if v := p.Figures[p99]; !math.IsNaN(v) {
					resp = append(resp, [2]float64{round3(x), round3(v / 1e3)})
				}
				if v := p.Figures[svc]; !math.IsNaN(v) {
					serv = append(serv, [2]float64{round3(x), round3(v / 1e3)})
				}
			}
			series = append(series, map[string]any{"name": l.Label + " p99", "type": "line", "showSymbol": true, "data": resp},
				map[string]any{"name": l.Label + " service p99", "type": "line", "showSymbol": true, "data": serv,
					"lineStyle": map[string]any{"type": "dashed"}})
		}
		o := lineChart(s.Step+": p99 latency (ms) by achieved rate", "ms", true, series)
		o["xAxis"] = map[string]any{"type": "value", "name": "per second"}
		out = append(out, htmlStep{Name: s.Step, Charts: []chart{{fmt.Sprintf("rt%d", i), o}}, Tables: []template.HTML{tableHTML(tables[i])}})
	}
	return out
}

func hasSteps(runs []*results.Run) bool {
	for _, r := range runs {
		if len(r.Steps) > 0 {
			return true
		}
	}
	return false
}

// seriesLabel names a target of run ri as Compare does.
func seriesLabel(nruns, ri int, target string) string {
	if nruns > 1 {
		return fmt.Sprintf("r%d/%s", ri+1, target)
	}
	return target
}

// stepSections builds the charts and tables of every step (in order of first appearance),
// then the charts of steps that have intervals and no record yet (a run in progress).
func stepSections(runs []*results.Run) []htmlStep {
	order := stepOrder(runs, "", true)
	for _, r := range runs {
		for _, iv := range r.Intervals {
			if !slices.Contains(order, iv.Step) {
				order = append(order, iv.Step)
			}
		}
	}
	var all []results.Step
	for ri, r := range runs {
		for _, s := range r.Steps {
			s.Target = seriesLabel(len(runs), ri, s.Target)
			all = append(all, s)
		}
	}
	tables := StepTables(all, Wide)
	byName := map[string][]*Table{}
	for _, t := range tables {
		if t.Title != "" {
			byName[t.Title] = append(byName[t.Title], t)
		}
	}
	out := make([]htmlStep, 0, len(order))
	for i, name := range order {
		hs := htmlStep{Name: name}
		id := func(kind string) string { return fmt.Sprintf("s%d-%s", i, kind) }
		if o := intervalChart(runs, name); o != nil {
			hs.Charts = append(hs.Charts, chart{id("ci"), o})
		}
		for _, c := range []chart{{id("rate"), throughputChart(runs, name)}, {id("lag"), lagChart(runs, name)}, {id("repl"), replLagChart(runs, name)},
			{id("max"), maxChart(runs, name)}, {id("lat"), latencyChart(runs, name)}} {
			if len(c.Option["series"].([]map[string]any)) > 0 { // a step that measured nothing has no chart
				hs.Charts = append(hs.Charts, c)
			}
		}
		for k := 0; k+1 < len(tables); k += 2 {
			if tables[k].Title == name {
				hs.Tables = append(hs.Tables, tableHTML(tables[k]), tableHTML(tables[k+1]))
			}
		}
		if t := targetCheckTable(all, name); t != nil {
			hs.Tables = append(hs.Tables, tableHTML(t))
		}
		if t := faultTable(stepRows(all, name)); t != nil {
			hs.Tables = append(hs.Tables, tableHTML(t))
		}
		for _, t := range clusterTables(stepRows(all, name)) {
			hs.Tables = append(hs.Tables, tableHTML(t))
		}
		if t := SyscallTable(name, stepRows(all, name)); t != nil {
			hs.Tables = append(hs.Tables, tableHTML(t))
		}
		out = append(out, hs)
	}
	return out
}

// targetCheckTable is the background writers' target check of a paced step: the insert rate
// against its target, red below 95% (the reference's SLA); nil when the step is not paced.
func targetCheckTable(steps []results.Step, name string) *Table {
	t := &Table{Title: name + ": background insert target", Columns: []Column{{Name: "target"},
		{Name: "target_ips", Unit: "rows/s"}, {Name: "ips", Unit: "rows/s"}, {Name: "% of target", Unit: "%"}, {Name: "met"}}}
	for i := range steps {
		s := &steps[i]
		if s.Step != name || s.TargetIPS <= 0 {
			continue
		}
		met := TextCell("yes")
		if s.TargetMet != nil && !*s.TargetMet {
			met = TextCell("NO")
			met.Flag = "bad"
		}
		pct := NumCell(100 * s.IPS / s.TargetIPS)
		if s.IPS < 0.95*s.TargetIPS {
			pct.Flag = "bad"
		}
		t.Rows = append(t.Rows, []Cell{TextCell(s.Target), NumCell(s.TargetIPS), NumCell(s.IPS), pct, met})
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return t
}

// lineChart is the option of a line chart over seconds.
func lineChart(title, yName string, logY bool, series []map[string]any) map[string]any {
	yAxis := map[string]any{"type": "value", "name": yName}
	if logY {
		yAxis["type"], yAxis["min"] = "log", "dataMin"
	}
	return map[string]any{
		"animation": false,
		"title":     map[string]any{"text": title, "textStyle": map[string]any{"fontSize": 13}},
		"tooltip":   map[string]any{"trigger": "axis"},
		"legend":    map[string]any{"top": 22, "type": "scroll"},
		"grid":      map[string]any{"top": 60, "left": 60, "right": 20, "bottom": 40},
		"xAxis":     map[string]any{"type": "value", "name": "s", "min": 0},
		"yAxis":     yAxis,
		"series":    series,
	}
}

func line(name string, data [][2]float64) map[string]any {
	return map[string]any{"name": name, "type": "line", "showSymbol": len(data) < 3, "data": data}
}

// throughputChart overlays the per-second rate (rate_per_sec of intervals.jsonl) of every target.
func throughputChart(runs []*results.Run, step string) map[string]any {
	var series []map[string]any
	for ri, r := range runs {
		for _, tg := range targetsOf(r) {
			for _, rep := range repsOf(r, tg) {
				var data [][2]float64
				for _, iv := range r.Intervals {
					if iv.Step == step && iv.Target == tg && iv.Rep == rep {
						data = append(data, [2]float64{round3(iv.T), round3(iv.Rate)})
					}
				}
				if len(data) > 0 {
					l := line(repLabel(seriesLabel(len(runs), ri, tg), rep), data)
					if marks := faultMarks(r.Steps, step, tg, rep); marks != nil {
						l["markLine"] = marks // the faults (--fault), at their times
					}
					series = append(series, l)
				}
			}
		}
	}
	return lineChart(step+": throughput per second", "ops/s", false, series)
}

// lagChart overlays how far behind their fixed rate's schedule the clients were at each second
// (lag_secs of intervals.jsonl), s: a line per target that fell behind at all; none for a step
// that kept its schedule or was not run at a fixed rate (atRate).
func lagChart(runs []*results.Run, step string) map[string]any {
	var series []map[string]any
	for ri, r := range runs {
		if !atRate(r, step) {
			continue
		}
		for _, tg := range targetsOf(r) {
			for _, rep := range repsOf(r, tg) {
				var data [][2]float64
				behind := false
				for _, iv := range r.Intervals {
					if iv.Step == step && iv.Target == tg && iv.Rep == rep {
						data = append(data, [2]float64{round3(iv.T), round3(iv.LagSecs)})
						behind = behind || iv.LagSecs > 0
					}
				}
				if behind {
					series = append(series, line(repLabel(seriesLabel(len(runs), ri, tg), rep), data))
				}
			}
		}
	}
	return lineChart(step+": schedule lag at each second (--rate)", "s", false, series)
}

// atRate says whether run r ran step at a fixed rate (--rate): a record of the step has its
// schedule, or, before any record, the run was given a rate. The paced writers of a step with
// rates of their own (the insert benchmark's query steps) have lag figures too, but no chart.
func atRate(r *results.Run, step string) bool {
	seen := false
	for i := range r.Steps {
		if r.Steps[i].Step == step {
			seen = true
			if r.Steps[i].Schedule != nil {
				return true
			}
		}
	}
	if seen || r.Manifest == nil {
		return false
	}
	_, ok := r.Manifest.Config["rate"]
	return ok
}

// repsOf returns the repetitions of target tg in run r (0 alone in a run without repeats).
func repsOf(r *results.Run, tg string) []int {
	var out []int
	for _, s := range r.Steps {
		if s.Target == tg && !slices.Contains(out, s.Rep) {
			out = append(out, s.Rep)
		}
	}
	for _, iv := range r.Intervals {
		if iv.Target == tg && !slices.Contains(out, iv.Rep) {
			out = append(out, iv.Rep)
		}
	}
	slices.Sort(out)
	return out
}

// repLabel names repetition rep of a series: "pebble #2", the label alone without repeats.
func repLabel(label string, rep int) string {
	if rep == 0 {
		return label
	}
	return fmt.Sprintf("%s #%d", label, rep)
}

// intervalChart draws, for a step of repeated runs, each target's median rate as a bar with its
// confidence interval as an error bar (a boxplot whose box is the median alone); nil when the
// step has no target measured more than once.
func intervalChart(runs []*results.Run, step string) map[string]any {
	var cats []string
	var medians []any
	var bars [][]float64
	for ri, r := range runs {
		for _, tg := range targetsOf(r) {
			var xs []float64
			for i := range r.Steps {
				if s := &r.Steps[i]; s.Step == step && s.Target == tg && s.Status == results.StatusOK {
					xs = append(xs, s.Rate)
				}
			}
			if len(xs) < 2 {
				continue
			}
			sm := stats.Summarize(xs)
			cats = append(cats, seriesLabel(len(runs), ri, tg))
			medians = append(medians, round3(sm.Median))
			bars = append(bars, []float64{round3(sm.Lo), round3(sm.Median), round3(sm.Median), round3(sm.Median), round3(sm.Hi)})
		}
	}
	if len(cats) == 0 {
		return nil
	}
	return map[string]any{
		"animation": false,
		"title":     map[string]any{"text": step + ": rate, median and interval of the repetitions", "textStyle": map[string]any{"fontSize": 13}},
		"tooltip":   map[string]any{"trigger": "item"},
		"grid":      map[string]any{"top": 40, "left": 70, "right": 20, "bottom": 40},
		"xAxis":     map[string]any{"type": "category", "data": cats},
		"yAxis":     map[string]any{"type": "value", "name": "ops/s"},
		"series": []map[string]any{
			{"name": "median", "type": "bar", "data": medians, "barMaxWidth": 40},
			{"name": "interval", "type": "boxplot", "data": bars, "boxWidth": []any{4, 10}},
		},
	}
}

// maxChart overlays the largest response time of each second, ms: one line per target and
// operation kind (named after the target alone when the step has one kind).
func maxChart(runs []*results.Run, step string) map[string]any {
	var series []map[string]any
	for ri, r := range runs {
		for _, tg := range targetsOf(r) {
			for _, rep := range repsOf(r, tg) {
				var kinds []string
				data := map[string][][2]float64{}
				for _, iv := range r.Intervals {
					if iv.Step != step || iv.Target != tg || iv.Rep != rep {
						continue
					}
					for _, k := range iv.Kinds {
						if k.Ops == 0 && k.Units == 0 && k.MaxUs == 0 {
							continue
						}
						if _, seen := data[k.Name]; !seen {
							kinds = append(kinds, k.Name)
						}
						data[k.Name] = append(data[k.Name], [2]float64{round3(iv.T), round3(k.MaxUs / 1e3)})
					}
				}
				label := repLabel(seriesLabel(len(runs), ri, tg), rep)
				for i, k := range kinds {
					name := label
					if len(kinds) > 1 {
						name += " " + k
					}
					l := line(name, data[k])
					if marks := faultMarks(r.Steps, step, tg, rep); marks != nil && i == 0 {
						l["markLine"] = marks // the faults (--fault), once per target
					}
					series = append(series, l)
				}
			}
		}
	}
	return lineChart(step+": max response time per second", "ms", false, series)
}

// percentiles are the points of the latency curves.
var percentiles = []struct {
	name string
	p    float64
}{{"p50", 50}, {"p75", 75}, {"p90", 90}, {"p95", 95}, {"p99", 99}, {"p99.9", 99.9}, {"p99.99", 99.99}, {"max", 100}}

// latencyChart draws, per target and operation kind, the response time (µs, log scale) at each
// percentile, computed from the histogram buckets of steps.json.
func latencyChart(runs []*results.Run, step string) map[string]any {
	cats := make([]string, len(percentiles))
	for i, p := range percentiles {
		cats[i] = p.name
	}
	var series []map[string]any
	for ri, r := range runs {
		for _, s := range r.Steps {
			if s.Step != step {
				continue
			}
			for _, l := range s.Latency {
				if len(l.Buckets) == 0 {
					continue
				}
				data := make([]float64, len(percentiles))
				for i, p := range percentiles {
					data[i] = round3(float64(BucketPercentile(l.Buckets, p.p)) / 1e3)
				}
				series = append(series, map[string]any{"name": repLabel(seriesLabel(len(runs), ri, s.Target), s.Rep) + " " + l.Kind,
					"type": "line", "data": data})
			}
		}
	}
	o := lineChart(step+": response time percentiles (histogram)", "µs", true, series)
	o["xAxis"] = map[string]any{"type": "category", "data": cats, "boundaryGap": false}
	return o
}

// round3 keeps about 3 decimals, enough for a chart and a smaller page.
func round3(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return math.Round(v*1000) / 1000
}

// targetsOf is the targets of a run in the order of its steps.
func targetsOf(r *results.Run) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range r.Steps {
		if !seen[s.Target] {
			seen[s.Target] = true
			out = append(out, s.Target)
		}
	}
	for _, iv := range r.Intervals {
		if !seen[iv.Target] {
			seen[iv.Target] = true
			out = append(out, iv.Target)
		}
	}
	return out
}

// compareCharts are the relative-rate bar charts: one per sysbench group (a bar per test), or one
// over the steps of the insert benchmark; a bar per compared series, the base left out.
func compareCharts(c *Comparison) []chart {
	cols := c.columns(false)
	bars := func(id, title string, cats []string, rows []Row) chart {
		var series []map[string]any
		for _, i := range cols {
			data := make([]any, len(rows))
			for k, r := range rows {
				if v := r.Rel[i]; !math.IsNaN(v) && !math.IsInf(v, 0) {
					data[k] = math.Round(v*100) / 100
				}
			}
			series = append(series, map[string]any{"name": c.Series[i].Label, "type": "bar", "data": data,
				"label": map[string]any{"show": len(rows)*len(cols) <= 24, "position": "top", "fontSize": 10}})
		}
		series[0]["markLine"] = map[string]any{"silent": true, "symbol": "none", "data": []any{map[string]any{"yAxis": 1}},
			"lineStyle": map[string]any{"color": "#888"}}
		return chart{id, map[string]any{
			"animation": false,
			"title":     map[string]any{"text": title, "textStyle": map[string]any{"fontSize": 13}},
			"tooltip":   map[string]any{"trigger": "axis"},
			"legend":    map[string]any{"top": 22, "type": "scroll"},
			"grid":      map[string]any{"top": 60, "left": 50, "right": 20, "bottom": 60},
			"xAxis":     map[string]any{"type": "category", "data": cats, "axisLabel": map[string]any{"interval": 0, "rotate": 20}},
			"yAxis":     map[string]any{"type": "value"},
			"series":    series,
		}}
	}
	var out []chart
	if c.Grouped {
		for i, b := range c.Blocks {
			if b.Metric == nil || b.Metric.Name != "rate" {
				continue
			}
			cats := make([]string, len(b.Rows))
			for k, r := range b.Rows {
				cats[k] = r.Name
			}
			out = append(out, bars(fmt.Sprintf("cmp%d", i), b.Title+" relative to "+c.Series[c.Base].Label, cats, b.Rows))
		}
		return out
	}
	var cats []string
	var rows []Row
	for _, b := range c.Blocks {
		if len(b.Rows) > 0 && b.Rows[0].Metric != nil && b.Rows[0].Metric.Name == "rate" {
			cats = append(cats, b.Step)
			rows = append(rows, b.Rows[0])
		}
	}
	if len(rows) > 0 {
		out = append(out, bars("cmp0", "rate per step relative to "+c.Series[c.Base].Label, cats, rows))
	}
	return out
}
