// Package report renders results: per-step tables with one row per target, in the shape of the
// insert benchmark's published tables, group tables with a row per step and target (sysbench's
// test groups), relative comparisons between targets and runs, and a self-contained HTML
// report. Every figure it prints is a metric of the catalog (internal/metric), selected by
// name; it reads result records and never runs anything.
package report

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rumbench/rumbench/internal/metric"
	"github.com/rumbench/rumbench/internal/results"
)

// stepView is the metrics of a step table, in order; a column appears when its metric applies
// to one of the table's rows.
var stepView = []string{"rate", "ips", "dps", "qps", "noise%", "cv%", "ips_target", "met",
	"rate_asked", "offered", "achieved", "kept", "lag_ms", "lag_s", "backlog", "skipped", "svc_p99", "secs", "settle_s", "rows", "db_MB", "log_MB", "eng_MB", "B/row",
	"rMB/s", "wMB/s", "GBw", "rKB/op", "wKB/op", "wKB/i", "debt_MB", "dKB/op", "fl/op", "srv_fsync/op", "srv_logB/op",
	"tcpu_us/op", "ccpu_us/op", "scpu_us/op", "cpu_us/op", "other%", "cs/op", "rss_MB", "srss_MB", "spss_MB", "obs%",
	"db/mem", "regime", "stall_us/op", "appevict/op", "cache_MB", "anon_MB", "majflt/op", "refault/op", "psi_some", "psi_full", "oom",
	"max", "max_i", "rate_p50", "rate_p99", "retries"}

// View chooses the columns of the step and group tables.
type View int

const (
	// Brief is the figures a reader compares first, as the reference reports' tables give
	// them: the rates, the size, the reads, writes and syncs per operation, the target's own
	// CPU and memory, and the worst response time; a column that flags trouble (a missed
	// insert target, a regime other than cached, OOM kills, retries, other processes' CPU on
	// a busy host) joins when one of its rows does.
	// run prints it, and report's text and Markdown.
	Brief View = iota
	// Wide is every figure that applies to one of the rows (run and report with --wide;
	// report's csv, tsv, json and html).
	Wide
)

// briefStep is the metrics of stepView that Brief shows whenever they apply. The CPU is the
// target's own (tcpu_us/op: without a server the process is the engine and the client), its
// parts ccpu_us/op and scpu_us/op beside a server's; the host's (cpu_us/op), which counts
// other processes too, is Wide's.
var briefStep = map[string]bool{"rate": true, "ips": true, "dps": true, "qps": true, "noise%": true, "db_MB": true, "B/row": true,
	"rKB/op": true, "wKB/op": true, "wKB/i": true, "fl/op": true, "tcpu_us/op": true, "ccpu_us/op": true, "scpu_us/op": true,
	"rss_MB": true, "srss_MB": true, "max": true, "max_i": true, "achieved": true, "lag_ms": true, "svc_p99": true}

// briefGroup is the metrics of groupView that Brief shows whenever they apply.
var briefGroup = map[string]bool{"achieved": true, "lag_ms": true, "svc_p99": true, "max": true, "tcpu_us/op": true, "ccpu_us/op": true, "scpu_us/op": true,
	"rKB/op": true, "wKB/op": true, "fl/op": true}

// flags says, for the metrics Brief shows only when they flag something, which values do.
var flags = map[string]func(v float64) bool{
	"met":     func(v float64) bool { return v == 0 },
	"kept":    func(v float64) bool { return v == 0 },
	"skipped": func(v float64) bool { return v > 0 },
	"regime":  func(v float64) bool { return v > 0 },
	"oom":     func(v float64) bool { return v > 0 },
	"retries": func(v float64) bool { return v > 0 },
	"cv%":     func(v float64) bool { return v > NoisyCVPct },
}

// NoisyCVPct is the coefficient of variation of a step's rate over its slices of time above
// which the step is noisy: its cv% joins the brief table and the summary marks it.
const NoisyCVPct = 10

// shows says whether the column of m is in view over rows: every column that applies in Wide;
// in Brief those of brief, and those of flags when one of the rows has a value they flag (the
// insert rate's target beside a missed one, the stall time beside a regime other than cached,
// other processes' CPU when a row ran on a busy host).
func shows(view View, brief map[string]bool, m *metric.Metric, rows []Reps) bool {
	if view == Wide {
		return true
	}
	switch m.Name {
	case "ccpu_us/op":
		return brief[m.Name] && appliesToAny(metric.MustGet("scpu_us/op"), rows)
	case "ips_target": // beside a missed target
		return shows(view, brief, metric.MustGet("met"), rows)
	case "stall_us/op": // beside a regime other than cached
		return shows(view, brief, metric.MustGet("regime"), rows)
	case "other%": // beside a step on a busy host
		return slices.ContainsFunc(rows, func(r Reps) bool { return slices.ContainsFunc(r, metric.BusyHost) })
	}
	if brief[m.Name] {
		return true
	}
	flagged := flags[m.Name]
	if flagged == nil {
		return false
	}
	for _, r := range rows {
		for _, s := range r {
			if v, ok := m.Value(s); ok && m.AppliesTo(s) && flagged(v) {
				return true
			}
		}
	}
	return false
}

// latencyView is the metrics of a latency table, per operation kind.
var latencyView = []string{"count", "p50", "p90", "p99", "p99.9", "max"}

// MetricsHint is the line that points a reader of the tables to the glossary.
const MetricsHint = "columns: rumbench metrics [NAME] says what each one means and how it is computed"

// WideHint follows the brief view's tables: where the other figures are.
const WideHint = "brief tables: --wide (run, or rumbench report RUN --wide) prints every figure; report --format csv or json holds them all"

// targetCell is a row's target, with its status when it is not ok and the busy host mark
// when other processes took more than metric.BusyHostPct of the host's CPUs in one of its
// repetitions.
func targetCell(r Reps) Cell {
	var marks []string
	if st := r.status(); st != results.StatusOK {
		marks = append(marks, st)
	}
	if slices.ContainsFunc(r, metric.BusyHost) {
		marks = append(marks, metric.BusyHostMark)
	}
	if len(marks) > 0 {
		return TextCell(r[0].Target + " (" + strings.Join(marks, ", ") + ")")
	}
	return TextCell(r[0].Target)
}

// busyNote is the footer line that names the rows run on a busy host, with the most other
// processes took of its CPUs in each; "" when none was.
func busyNote(rows []Reps, withStep bool) string {
	var names []string
	for _, r := range rows {
		most := -1.0
		for _, s := range r {
			if v, _ := metric.OtherCPUPct(s); metric.BusyHost(s) {
				most = max(most, v)
			}
		}
		if most < 0 {
			continue
		}
		who := r[0].Target
		if withStep {
			who = r[0].Step + " " + who
		}
		names = append(names, fmt.Sprintf("%s (other%% %s)", who, num(most)))
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("%s: %s: other processes took more than %g%% of the host's CPUs: the rates and response times shared the CPUs with them (tcpu_us/op leaves their CPU out, cpu_us/op counts it; rumbench metrics other%%)",
		metric.BusyHostMark, strings.Join(names, ", "), metric.BusyHostPct)
}

// StepTables returns, for every ungrouped step in order of first appearance, its table (a row
// per target, the columns of view) and its response-time table.
func StepTables(steps []results.Step, view View) []*Table {
	var order []string
	byStep := map[string][]*results.Step{}
	for i := range steps {
		s := &steps[i]
		if s.Group != "" {
			continue
		}
		if _, seen := byStep[s.Step]; !seen {
			order = append(order, s.Step)
		}
		byStep[s.Step] = append(byStep[s.Step], s)
	}
	out := make([]*Table, 0, 2*len(order))
	for _, name := range order {
		out = append(out, stepTable(name, byStep[name], view), latencyTable(name, byStep[name]))
	}
	return out
}

// stepTable is the figures of one step, one row per target, the columns of view.
func stepTable(name string, steps []*results.Step, view View) *Table {
	rows := groupReps(steps)
	t := &Table{Title: name, Note: steps[0].Note, Kind: Absolute}
	b := newBuilder(t, len(rows))
	b.text("target", func(i int) Cell { return targetCell(rows[i]) })
	for _, n := range stepView {
		if m := metric.MustGet(n); shows(view, briefStep, m, rows) {
			b.stepMetric(m, rows)
		}
	}
	for i, r := range rows {
		missed := false
		for _, s := range r {
			missed = missed || (s.TargetMet != nil && !*s.TargetMet)
		}
		if !missed {
			continue
		}
		for j, c := range t.Columns {
			if c.Rate && c.Name != "ips" {
				t.Rows[i][j].Flag = "gray" // measured while the writers missed their target
			}
		}
	}
	if n := b.intervalNote(); n != "" {
		t.Footer = append(t.Footer, n)
	}
	if n := busyNote(rows, false); n != "" {
		t.Footer = append(t.Footer, n)
	}
	for _, s := range steps {
		for _, r := range s.Remarks {
			t.Footer = append(t.Footer, s.Target+": "+r)
		}
	}
	if n := unsettledNote(steps); n != "" {
		t.Footer = append(t.Footer, n)
	}
	return t
}

// unsettledNote names the targets whose step wrote rows and ended by itself without settling
// (--settle off, a long step under --settle auto, a run written before steps settled): their
// write figures leave out what the engine deferred past the step's end.
func unsettledNote(steps []*results.Step) string {
	var names []string
	for _, s := range steps {
		wrote := s.IPS > 0 || s.DPS > 0
		ended := s.Status == results.StatusOK || s.Status == results.StatusDegraded || s.Status == results.StatusTimeLimit
		if wrote && ended && s.Settled == "" && !slices.Contains(names, s.Target) {
			names = append(names, s.Target)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "not settled: " + strings.Join(names, ", ") + ": the writes the engine deferred past the step's end (memtable flush, checkpoint) are not in its figures (--settle)"
}

// Text writes the step tables of steps (StepTables, the columns of view) as aligned text, each
// step's syscall table after it when the step has one.
func Text(w io.Writer, steps []results.Step, view View) error {
	tables := StepTables(steps, view)
	for i := 0; i < len(tables); i += 2 {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := WriteText(w, tables[i], tables[i+1]); err != nil {
			return err
		}
		if st := SyscallTable(tables[i].Title, stepRows(steps, tables[i].Title)); st != nil {
			if err := WriteText(w, st); err != nil {
				return err
			}
		}
	}
	return nil
}

// LatencyTable is the response-time percentiles (ms, or µs when below 1 ms) of every operation
// kind of step, a row per target (each record's Target) and kind, the step errors as footer.
func LatencyTable(step string, rows []*results.Step) *Table { return latencyTable(step, rows) }

// latencyTable is the response-time percentiles of every operation kind of a step, with the
// step errors as footer.
func latencyTable(step string, rows []*results.Step) *Table {
	// A row per target and kind, with the latencies of every repetition.
	type row struct {
		target string
		kind   string
		lats   []*results.Latency
	}
	var lrows []*row
	at := map[[2]string]*row{}
	var all []*results.Latency
	for _, s := range rows {
		for i := range s.Latency {
			l := &s.Latency[i]
			k := [2]string{s.Target, l.Kind}
			r := at[k]
			if r == nil {
				r = &row{target: s.Target, kind: l.Kind}
				at[k] = r
				lrows = append(lrows, r)
			}
			r.lats = append(r.lats, l)
			all = append(all, l)
		}
	}
	t := &Table{Key: step + " latency"}
	b := newBuilder(t, len(lrows))
	b.text("target", func(i int) Cell { return TextCell(lrows[i].target) })
	b.text("op", func(i int) Cell { return TextCell(lrows[i].kind) })
	view := latencyView
	if extra := extraPercentiles(all); len(extra) > 0 {
		view = append(append(slices.Clone(view[:len(view)-1]), extra...), view[len(view)-1])
	}
	for _, n := range view {
		m, ok := metric.Lookup(n)
		if !ok {
			m, _ = metric.Lookup(n + "_us")
		}
		b.metric(m, n, "", func(i int) []float64 {
			var xs []float64
			for _, l := range lrows[i].lats {
				switch n {
				case "count":
					xs = append(xs, float64(l.Count))
				case "max":
					xs = append(xs, l.MaxUs)
				default:
					if v, ok := metric.Percentile(l, n); ok {
						xs = append(xs, v)
					}
				}
			}
			return xs
		})
	}
	t.Footer = append(t.Footer, problems(rows, false)...)
	if n := b.intervalNote(); n != "" {
		t.Footer = append(t.Footer, n)
	}
	return t
}

func extraPercentiles(lats []*results.Latency) []string {
	seen := map[string]float64{}
	for _, l := range lats {
		for k := range l.Percentiles {
			if v, err := strconv.ParseFloat(strings.TrimPrefix(k, "p"), 64); err == nil && v > 99.9 {
				seen[k] = v
			}
		}
	}
	names := make([]string, 0, len(seen))
	for k := range seen {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return seen[names[i]] < seen[names[j]] })
	return names
}

// problems are the footer lines of rows: errors and the reasons a step's figures cannot be
// trusted (degraded), each with its target (and step, in a group table).
func problems(rows []*results.Step, withStep bool) []string {
	var out []string
	for _, s := range rows {
		who := s.Target
		if withStep {
			who = s.Step + " " + s.Target
		}
		if s.Rep > 0 {
			who += fmt.Sprintf(" (repetition %d)", s.Rep)
		}
		if s.Error != "" {
			out = append(out, who+" error: "+s.Error)
		}
		for _, why := range s.Degraded {
			out = append(out, who+" degraded: "+why)
		}
	}
	return out
}
