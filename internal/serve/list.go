package serve

import (
	"bytes"
	"context"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/store"
)

// listPage is the data of the list of runs.
type listPage struct {
	Filter  map[string]string
	Runs    []listRow
	Total   int
	Limited bool
}

// listRow is one run of the list.
type listRow struct {
	ID, Label, Workload, Targets, Start, Duration, Status string
	Steps                                                 int
}

// filter reads the list's filters from a request: workload, engine and label (names, as
// input.CheckName has them), since and until (dates YYYY-MM-DD, UTC; until includes its day).
func filter(r *http.Request) (store.Filter, map[string]string, error) {
	q := r.URL.Query()
	vals := map[string]string{}
	for _, k := range []string{"workload", "engine", "label", "since", "until"} {
		vals[k] = strings.TrimSpace(q.Get(k))
	}
	f := store.Filter{Workload: vals["workload"], Engine: vals["engine"], Label: vals["label"]}
	for _, k := range []string{"workload", "engine", "label"} {
		if v := vals[k]; v != "" {
			if err := input.CheckName(v); err != nil {
				return f, vals, badf("%s %q: %v", k, input.Short(v), err)
			}
		}
	}
	for _, d := range []struct {
		key string
		to  *time.Time
		end bool
	}{{"since", &f.Since, false}, {"until", &f.Until, true}} {
		v := vals[d.key]
		if v == "" {
			continue
		}
		t, err := time.Parse("2006-01-02", v)
		if err != nil {
			return f, vals, badf("%s %q: want a date YYYY-MM-DD (UTC)", d.key, input.Short(v))
		}
		if d.end {
			t = t.AddDate(0, 0, 1)
		}
		*d.to = t
	}
	return f, vals, nil
}

// list serves / : the runs of the store, newest first, with the filters' form and a form that
// compares the runs ticked.
func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	if !get(w, r) {
		return
	}
	if r.URL.Path != "/" {
		http.Error(w, "not found: the pages are /, /run/ID and /compare", http.StatusNotFound)
		return
	}
	f, vals, err := filter(r)
	if err != nil {
		fail(w, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	sums, err := s.st.List(ctx, f)
	if err != nil {
		fail(w, err)
		return
	}
	p := listPage{Filter: vals, Total: len(sums)}
	if len(sums) > MaxListed {
		sums, p.Limited = sums[:MaxListed], true
	}
	for _, sm := range sums {
		p.Runs = append(p.Runs, listRow{ID: sm.RunID, Label: sm.Label, Workload: sm.Workload, Targets: strings.Join(sm.Targets, ", "),
			Start: sm.Start.UTC().Format("2006-01-02 15:04:05"), Duration: duration(sm), Status: sm.Status, Steps: sm.Steps})
	}
	var b bytes.Buffer
	if err := listTemplate.Execute(&b, p); err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(b.Bytes())
}

// duration is a run's length as the list shows it ("-" while it runs).
func duration(r store.RunSummary) string {
	if r.End.IsZero() {
		return "-"
	}
	d := r.End.Sub(r.Start)
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

var listTemplate = template.Must(template.New("list").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>rumbench runs</title>
<style>
body{font-family:system-ui,sans-serif;margin:16px;color:#222}h1{font-size:20px}
table{border-collapse:collapse;font-size:13px}th,td{border:1px solid #ddd;padding:3px 8px;text-align:left}th{background:#f4f4f4}
form.filters{margin:10px 0}form.filters label{margin-right:10px;font-size:13px}input[type=text]{width:9em}
.note{color:#666;font-size:12px}td.running{color:#06c;font-weight:bold}td.failed,td.abandoned{color:#a00}
</style></head><body>
<h1>rumbench runs</h1>
<form class="filters" method="get" action="/">
<label>workload <input type="text" name="workload" value="{{.Filter.workload}}"></label>
<label>engine <input type="text" name="engine" value="{{.Filter.engine}}"></label>
<label>label <input type="text" name="label" value="{{.Filter.label}}"></label>
<label>since <input type="date" name="since" value="{{.Filter.since}}"></label>
<label>until <input type="date" name="until" value="{{.Filter.until}}"></label>
<button type="submit">filter</button> <a href="/">all runs</a>
</form>
<form method="get" action="/compare" id="compare">
<p class="note">{{.Total}} runs{{if .Limited}}, the newest {{len .Runs}} shown{{end}}. Tick two or more to compare them: relative to the first ticked, in the list's order.</p>
<table id="runs"><thead><tr><th></th><th>run</th><th>label</th><th>workload</th><th>targets</th><th>start (UTC)</th><th>duration</th><th>status</th><th>steps</th></tr></thead>
<tbody>{{range .Runs}}<tr><td><input type="checkbox" name="run" value="{{.ID}}"></td><td><a href="/run/{{.ID}}">{{.ID}}</a></td><td>{{.Label}}</td><td>{{.Workload}}</td><td>{{.Targets}}</td><td>{{.Start}}</td><td>{{.Duration}}</td><td class="{{.Status}}">{{.Status}}</td><td>{{.Steps}}</td></tr>
{{end}}</tbody></table>
<p><button type="submit">compare</button></p>
</form>
</body></html>
`))
