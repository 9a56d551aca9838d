package report

import (
	"html/template"
	"math"
	"strings"

	"github.com/rumbench/rumbench/internal/hist"
	"github.com/rumbench/rumbench/internal/metric"
)

// BucketPercentile is the upper bound (ns) of the histogram bucket holding percentile p (0..100)
// of buckets (ascending le_ns, as steps.json holds them); p = 100 gives the largest bucket, an
// empty histogram 0.
func BucketPercentile(buckets []hist.Bucket, p float64) int64 {
	var total int64
	for _, b := range buckets {
		total += b.Count
	}
	if total == 0 {
		return 0
	}
	rank := int64(math.Ceil(p / 100 * float64(total)))
	if rank < 1 {
		rank = 1
	}
	var cum int64
	for _, b := range buckets {
		cum += b.Count
		if cum >= rank {
			return b.UpperNs
		}
	}
	return buckets[len(buckets)-1].UpperNs
}

// RelativeBand is the neutral band of a ratio to the base: within 1 ± RelativeBand (0.95 to
// 1.05) a relative cell is not colored.
const RelativeBand = 0.05

// relativeClass is the CSS class of a ratio v of a metric whose direction is better: "better"
// (green) or "worse" (red) than the base, "" within RelativeBand of 1 or for a Neutral metric.
func relativeClass(v float64, better metric.Better) string {
	up := v > 1+RelativeBand
	if !up && !(v < 1-RelativeBand) { // in the band, or NaN
		return ""
	}
	switch {
	case better == metric.Higher && up, better == metric.Lower && !up:
		return "better"
	case better == metric.Higher, better == metric.Lower:
		return "worse"
	}
	return ""
}

// cellClasses returns the CSS class of every cell of t. Absolute tables color their rate
// columns as the reference does: the bottom quartile of the column's range red (not when the
// minimum is at least 80% of the maximum), the top quartile green. Relative tables color each
// ratio by its metric's direction (relativeClass): better than the base green, worse red, not
// within RelativeBand of 1, not a Neutral metric, and not a ratio marked "~" (no significant
// difference in repeated runs). A cell's Flag (bad, gray) wins.
func cellClasses(t *Table) [][]string {
	cls := make([][]string, len(t.Rows))
	for r, row := range t.Rows {
		cls[r] = make([]string, len(row))
		for c, cell := range row {
			switch {
			case cell.Flag != "":
				cls[r][c] = cell.Flag
			case t.Kind == Relative && cell.Numeric && cell.Verdict == "":
				cls[r][c] = relativeClass(cell.Value, cell.Better)
			}
		}
	}
	if t.Kind != Absolute || len(t.Rows) < 2 {
		return cls
	}
	for c, col := range t.Columns {
		if !col.Rate {
			continue
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, row := range t.Rows {
			if c < len(row) && row[c].Numeric {
				lo, hi = math.Min(lo, row[c].Value), math.Max(hi, row[c].Value)
			}
		}
		span := hi - lo
		if !(span > 0) {
			continue
		}
		for r, row := range t.Rows {
			if c >= len(row) || !row[c].Numeric || cls[r][c] != "" {
				continue
			}
			switch v := row[c].Value; {
			case v >= hi-span/4:
				cls[r][c] = "top"
			case v <= lo+span/4 && lo < 0.8*hi:
				cls[r][c] = "bottom"
			}
		}
	}
	return cls
}

// tableHTML renders t as an HTML table with the reference's colors (cellClasses).
func tableHTML(t *Table) template.HTML {
	var b strings.Builder
	esc := template.HTMLEscapeString
	b.WriteString(`<div class="tbl">`)
	if t.Title != "" {
		b.WriteString("<h4>" + esc(t.Title))
		if t.Note != "" {
			b.WriteString(` <span class="note">(` + esc(t.Note) + `)</span>`)
		}
		b.WriteString("</h4>")
	}
	b.WriteString("<table><thead><tr>")
	for _, c := range t.Columns {
		b.WriteString(`<th title="` + esc(headerTip(c)) + `">` + esc(c.Name) + "</th>")
	}
	b.WriteString("</tr></thead><tbody>")
	cls := cellClasses(t)
	for r, row := range t.Rows {
		b.WriteString("<tr>")
		for c, cell := range row {
			class := cls[r][c]
			if cell.Numeric || cell.Missing {
				class = strings.TrimSpace(class + " num")
			}
			if class != "" {
				b.WriteString(`<td class="` + class + `">`)
			} else {
				b.WriteString("<td>")
			}
			b.WriteString(esc(cell.Text) + "</td>")
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</tbody></table>")
	for _, l := range t.Footer {
		b.WriteString(`<p class="err">` + esc(l) + "</p>")
	}
	b.WriteString("</div>")
	return template.HTML(b.String())
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body{font-family:system-ui,sans-serif;margin:16px;color:#222}
h1{font-size:20px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ccc}h4{font-size:13px;margin:10px 0 4px}
.charts{display:flex;flex-wrap:wrap;gap:8px}.chart{width:560px;height:320px;border:1px solid #eee}
table{border-collapse:collapse;font-size:12px}th,td{border:1px solid #ddd;padding:2px 6px}th{background:#f4f4f4}
td.num{text-align:right;font-variant-numeric:tabular-nums}
td.top{background:#b6e3b6}td.bottom{background:#f2b1b1}td.better{background:#a8dca8}td.worse{background:#f4a6a6}
td.bad{background:#f2b1b1;font-weight:bold}td.gray{background:#d0d0d0}
.note{font-weight:normal;color:#666}.err{color:#a00;font-size:12px;margin:2px}.tbl{overflow-x:auto}
details{margin:6px 0}pre{font-size:11px;background:#f8f8f8;padding:6px;overflow-x:auto}
</style>
<script>{{.ECharts}}</script>
</head><body>
<h1>{{.Title}}</h1>
<ul>{{range .Runs}}<li>{{.Label}}: {{.ID}}{{if .Status}} ({{.Status}}){{end}}</li>{{end}}</ul>
{{if .Live}}<p class="note" id="live-note">The run is in progress: its charts are redrawn every 2 s, and the page reloads when a step ends.</p>{{end}}
{{if .Summary}}<h2 id="summary">Summary</h2>
{{if .Legend}}<p class="note legend">{{.Legend}}</p>{{end}}
<div id="summary-table">{{.Summary}}</div>{{end}}
{{if .Scaling}}<h2 id="scaling">Scaling</h2>
<p class="note">Throughput by client count (a concurrency sweep), one line per target; speedup is over the smallest count, eff the speedup per client (1.00 is linear).</p>
{{range .Scaling}}<h4>{{.Name}}</h4><div class="charts">{{range .Charts}}<div class="chart" id="{{.ID}}"></div>{{end}}</div>
{{range .Tables}}{{.}}{{end}}{{end}}{{end}}
{{if .Compare}}<h2 id="comparison">Comparison (relative to {{.BaseLabel}})</h2>
<p class="note">Each value is value(column) / value(base); 0/0 is 1, x/0 is inf. {{.Legend}}</p>
<div class="charts">{{range .Compare}}<div class="chart" id="{{.ID}}"></div>{{end}}</div>
{{range .CompareTab}}{{.}}{{end}}{{end}}
{{range .Steps}}<h2>{{.Name}}</h2>
<div class="charts">{{range .Charts}}<div class="chart" id="{{.ID}}"></div>{{end}}</div>
{{range .Tables}}{{.}}{{end}}{{end}}
<h2>Runs</h2>
{{range .Runs}}<details><summary>{{.Label}}: {{.ID}} manifest (run.json)</summary><pre>{{.Manifest}}</pre></details>{{end}}
<script>
var rumbenchCharts = {{.Charts}};
rumbenchCharts.forEach(function (c) {
  var el = document.getElementById(c.id);
  el.setAttribute("data-chart", "1");
  echarts.init(el).setOption(c.option);
});
</script>
{{if .Live}}<script>
(function () {
  var url = {{.Live}};
  function ids(list) { return list.map(function (c) { return c.id; }).join(","); }
  var shown = ids(rumbenchCharts);
  function poll() {
    fetch(url, {cache: "no-store"}).then(function (r) { return r.json(); }).then(function (d) {
      if (d.status !== "running" || ids(d.charts) !== shown) { location.reload(); return; }
      d.charts.forEach(function (c) {
        var inst = echarts.getInstanceByDom(document.getElementById(c.id));
        if (inst) { inst.setOption(c.option, true); }
      });
      setTimeout(poll, 2000);
    }).catch(function () { setTimeout(poll, 5000); });
  }
  setTimeout(poll, 2000);
})();
</script>{{end}}
</body></html>
`))

// headerTip is a column header's tooltip: the metric's meaning and its unit.
func headerTip(c Column) string {
	switch {
	case c.Meaning != "" && c.Unit != "":
		return c.Meaning + " (" + c.Unit + ")"
	case c.Meaning != "":
		return c.Meaning
	}
	return c.Unit
}
