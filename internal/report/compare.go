package report

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/rumbench/rumbench/internal/results"
)

// Series is one compared column: a target of a run.
type Series struct {
	RunID  string `json:"run_id"`
	Target string `json:"target"`
	// Label is the column's name: the target label when one run is compared, r<N>/target (N the
	// run's position, from 1) when several are.
	Label string `json:"label"`
	steps map[string]*results.Step
}

// Metric is a figure compared across series.
type Metric struct {
	// Key is the steps.json field ("rate_per_sec"); Name the short header ("qps", "cpu/o").
	Key, Name, Unit string
	// get returns the figure of a step, false when it was not measured.
	get func(s *results.Step) (float64, bool)
}

// Row is one line of a comparison block: a test (or a metric) across the series. Abs holds the
// figures (NaN: not measured), Rel the ratios to the base series (Ratio).
type Row struct {
	Name string    `json:"name"`
	Abs  []float64 `json:"-"`
	Rel  []float64 `json:"-"`
}

// Block is one comparison table: for sysbench one metric over the tests of a group, for the
// insert benchmark every metric of one step.
type Block struct {
	// Title says what the block holds ("point queries: qps", "l.i1").
	Title string
	// Group is the sysbench group (point, range, range_agg, write), empty for insert steps.
	Group string
	// Metric is the compared metric of a sysbench block; Step the step of an insert block.
	Metric *Metric
	Step   string
	// RowHead is the header of the row names: "test" or "metric".
	RowHead string
	Rows    []Row
}

// Comparison is the figures of several targets (of one or several runs) side by side, with the
// ratios of each to a base.
type Comparison struct {
	// Sysbench is true when the runs' steps carry a sysbench group: blocks are then per metric
	// and group, with a row per test; otherwise per step, with a row per metric.
	Sysbench bool
	Series   []Series
	// Base is the index in Series of the base.
	Base   int
	Blocks []Block
}

// ErrUnknownBase is returned (wrapped) by Compare when the base names no compared series.
var ErrUnknownBase = errors.New("unknown base")

// Ratio is value/base as the reference prints it: 1 when both are 0, +Inf when only the base is
// 0, NaN when either is not measured (NaN).
func Ratio(v, base float64) float64 {
	switch {
	case math.IsNaN(v) || math.IsNaN(base):
		return math.NaN()
	case base == 0 && v == 0:
		return 1
	case base == 0:
		return math.Inf(1)
	}
	return v / base
}

// Compare builds the comparison of every target of runs. base selects the base series: "" for
// the first target of the first run, else a column label, a target label (its first series) or a
// run id or unique run id prefix (that run's first target).
func Compare(runs []*results.Run, base string) (*Comparison, error) {
	c := &Comparison{}
	for ri, r := range runs {
		seen := map[string]int{}
		for i := range r.Steps {
			s := &r.Steps[i]
			if s.Group != "" {
				c.Sysbench = true
			}
			k, ok := seen[s.Target]
			if !ok {
				k = len(c.Series)
				seen[s.Target] = k
				label := s.Target
				if len(runs) > 1 {
					label = fmt.Sprintf("r%d/%s", ri+1, s.Target)
				}
				c.Series = append(c.Series, Series{RunID: r.Manifest.RunID, Target: s.Target, Label: label,
					steps: map[string]*results.Step{}})
			}
			c.Series[k].steps[s.Step] = s
		}
	}
	if len(c.Series) == 0 {
		return nil, errors.New("report: the runs hold no step results to compare")
	}
	b, err := c.findBase(base)
	if err != nil {
		return nil, err
	}
	c.Base = b
	if c.Sysbench {
		c.sysbenchBlocks(runs)
	} else {
		c.insertBlocks(runs)
	}
	return c, nil
}

func (c *Comparison) findBase(base string) (int, error) {
	if base == "" {
		return 0, nil
	}
	for i, s := range c.Series {
		if s.Label == base {
			return i, nil
		}
	}
	for i, s := range c.Series {
		if s.Target == base || s.RunID+"/"+s.Target == base {
			return i, nil
		}
	}
	match, runs := -1, 0
	last := ""
	for i, s := range c.Series {
		if strings.HasPrefix(s.RunID, base) && s.RunID != last {
			if match < 0 {
				match = i
			}
			runs++
			last = s.RunID
		}
	}
	if runs == 1 {
		return match, nil
	}
	labels := make([]string, len(c.Series))
	for i, s := range c.Series {
		labels[i] = s.Label
	}
	return 0, fmt.Errorf("%w %q (valid: a target, a run id or one of %s)", ErrUnknownBase, base, strings.Join(labels, ", "))
}

// stepOrder is the names of the steps of runs in order of first appearance: all of them, or
// those of one sysbench group.
func stepOrder(runs []*results.Run, group string, all bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range runs {
		for _, s := range r.Steps {
			if !seen[s.Step] && (all || s.Group == group) {
				seen[s.Step] = true
				out = append(out, s.Step)
			}
		}
	}
	return out
}

// row builds the row of one metric of one step across the series; ok is false when no series
// has the figure.
func (c *Comparison) row(name, step string, m *Metric) (Row, bool) {
	r := Row{Name: name, Abs: make([]float64, len(c.Series)), Rel: make([]float64, len(c.Series))}
	found := false
	for i, s := range c.Series {
		r.Abs[i] = math.NaN()
		if st := s.steps[step]; st != nil && st.Status != results.StatusFailed {
			if v, ok := m.get(st); ok {
				r.Abs[i] = v
				found = true
			}
		}
	}
	for i := range r.Abs {
		r.Rel[i] = Ratio(r.Abs[i], r.Abs[c.Base])
	}
	return r, found
}

// SysbenchGroups are the sysbench groups in the reference's order, with their titles.
var SysbenchGroups = []struct{ Name, Title string }{
	{"point", "point queries"},
	{"range", "range queries without aggregation"},
	{"range_agg", "range queries with aggregation"},
	{"write", "writes"},
}

func (c *Comparison) sysbenchBlocks(runs []*results.Run) {
	groups := SysbenchGroups
	known := map[string]bool{}
	for _, g := range groups {
		known[g.Name] = true
	}
	for _, r := range runs {
		for _, s := range r.Steps {
			if !known[s.Group] {
				known[s.Group] = true
				title := s.Group
				if title == "" {
					title = "load (rate = rows/s)" // the load and index steps have no group
				}
				groups = append(groups, struct{ Name, Title string }{s.Group, title})
			}
		}
	}
	for _, m := range sysbenchMetrics {
		for _, g := range groups {
			b := Block{Title: g.Title + ": " + m.Name, Group: g.Name, Metric: m, RowHead: "test"}
			for _, step := range stepOrder(runs, g.Name, false) {
				if r, ok := c.row(step, step, m); ok {
					b.Rows = append(b.Rows, r)
				}
			}
			if len(b.Rows) > 0 {
				c.Blocks = append(c.Blocks, b)
			}
		}
	}
}

func (c *Comparison) insertBlocks(runs []*results.Run) {
	for _, step := range stepOrder(runs, "", true) {
		b := Block{Title: step, Step: step, RowHead: "metric"}
		for _, m := range insertMetrics {
			name := m.Name
			if m == metInsRat {
				name = c.rateName(step)
			}
			if r, ok := c.row(name, step, m); ok {
				b.Rows = append(b.Rows, r)
			}
		}
		if len(b.Rows) > 0 {
			c.Blocks = append(c.Blocks, b)
		}
	}
}

// rateName names the rate of an insert benchmark step: qps for query steps, ips otherwise.
func (c *Comparison) rateName(step string) string {
	for _, s := range c.Series {
		if st := s.steps[step]; st != nil && isQuery(st) {
			return "qps"
		}
	}
	return "ips"
}

// always, storageFig, managedFig and counterFig read a figure and say whether it was measured.
func always(f func(s *results.Step) float64) func(*results.Step) (float64, bool) {
	return func(s *results.Step) (float64, bool) { return f(s), true }
}

func storageFig(f func(s *results.Step) float64) func(*results.Step) (float64, bool) {
	return func(s *results.Step) (float64, bool) { return f(s), s.Device != "" }
}

func managedFig(f func(s *results.Step) float64) func(*results.Step) (float64, bool) {
	return func(s *results.Step) (float64, bool) { return f(s), s.Server == "managed" }
}

func counterFig(f func(s *results.Step) float64) func(*results.Step) (float64, bool) {
	return func(s *results.Step) (float64, bool) { v := f(s); return v, s.Server != "" && v >= 0 }
}

func isQuery(s *results.Step) bool {
	return len(s.RateKinds) > 0 && strings.HasSuffix(s.RateKinds[0], "query")
}

var (
	metCPU    = &Metric{"host_cpu_us_per_op", "cpu/o", "µs/op", always(func(s *results.Step) float64 { return s.HostCPUUsPerOp })}
	metCCPU   = &Metric{"client_cpu_us_per_op", "ccpu/o", "µs/op", always(func(s *results.Step) float64 { return s.ClientCPUUsPerOp })}
	metSCPU   = &Metric{"server_cpu_us_per_op", "scpu/o", "µs/op", managedFig(func(s *results.Step) float64 { return s.ServerCPUUsPerOp })}
	metCS     = &Metric{"cs_per_op", "cs/o", "switches/op", always(func(s *results.Step) float64 { return s.CSPerOp })}
	metRKB    = &Metric{"read_kb_per_op", "rKB/o", "KB/op", storageFig(func(s *results.Step) float64 { return s.ReadKBPerOp })}
	metWKB    = &Metric{"write_kb_per_op", "wKB/o", "KB/op", storageFig(func(s *results.Step) float64 { return s.WriteKBPerOp })}
	metFlush  = &Metric{"flushes_per_op", "flushes/o", "flushes/op", storageFig(func(s *results.Step) float64 { return s.FlushesPerOp })}
	metSyncs  = &Metric{"server_fsyncs_per_op", "syncs/o", "fsyncs/op", counterFig(func(s *results.Step) float64 { return s.ServerFsyncsPerOp })}
	metRate   = &Metric{"rate_per_sec", "qps", "ops/s", always(func(s *results.Step) float64 { return s.Rate })}
	metInsRat = &Metric{"rate_per_sec", "rate", "ops/s", always(func(s *results.Step) float64 { return s.Rate })}
)

// sysbenchMetrics are compared per group: QPS first, then the efficiency metrics.
var sysbenchMetrics = []*Metric{metRate, metCPU, metCCPU, metSCPU, metCS, metRKB, metWKB, metFlush, metSyncs}

// insertMetrics are compared per step: the rate (ips, indexed rows/s or qps), the background
// insert rate of query steps, the efficiency metrics, size and the largest response time.
var insertMetrics = []*Metric{metInsRat,
	{"ips", "bg_ips", "rows/s", func(s *results.Step) (float64, bool) { return s.IPS, isQuery(s) }},
	metCPU, metCCPU, metSCPU, metCS, metRKB,
	{"write_kb_per_insert", "wKB/i", "KB/insert", storageFig(func(s *results.Step) float64 { return s.WriteKBPerInsert })},
	metFlush, metSyncs,
	{"db_bytes", "db_MB", "MiB", always(func(s *results.Step) float64 { return float64(s.DBBytes) / (1 << 20) })},
	{"max_us", "max_ms", "ms", always(func(s *results.Step) float64 {
		if isQuery(s) {
			return s.MaxQueryUs / 1e3
		}
		return s.MaxInsertUs / 1e3
	})},
}

// Tables renders the comparison as tables. Relative tables (absolute false) have a column per
// series other than the base, each cell the ratio printed with two decimals ("inf" when only the
// base is 0); absolute tables have a column per series, the base first.
func (c *Comparison) Tables(absolute bool) []*Table {
	cols := c.columns(absolute)
	base := c.Series[c.Base].Label
	out := make([]*Table, 0, len(c.Blocks))
	for _, b := range c.Blocks {
		t := &Table{Title: b.Title, Columns: []Column{{Name: b.RowHead}}}
		unit := ""
		if b.Metric != nil {
			unit = b.Metric.Unit
		}
		if absolute {
			if unit != "" {
				t.Note = "absolute, " + unit
			} else {
				t.Note = "absolute"
			}
		} else {
			t.Kind = Relative
			t.Note = "relative to " + base
			unit = ""
		}
		for _, i := range cols {
			t.Columns = append(t.Columns, Column{Name: c.Series[i].Label, Unit: unit})
		}
		for _, r := range b.Rows {
			row := []Cell{TextCell(r.Name)}
			for _, i := range cols {
				switch {
				case !absolute:
					row = append(row, RatioCell(r.Rel[i]))
				case math.IsNaN(r.Abs[i]):
					row = append(row, MissingCell())
				default:
					row = append(row, NumCell(r.Abs[i]))
				}
			}
			t.Rows = append(t.Rows, row)
		}
		out = append(out, t)
	}
	return out
}

// columns is the order of the series in a table: the base first for absolute tables, left out of
// relative ones (unless it is the only series).
func (c *Comparison) columns(absolute bool) []int {
	out := []int{}
	if absolute || len(c.Series) == 1 {
		out = append(out, c.Base)
	}
	for i := range c.Series {
		if i != c.Base {
			out = append(out, i)
		}
	}
	return out
}

// Document is the comparison as a document: one section with the compared series and base, and
// the tables.
func (c *Comparison) Document(absolute bool) *Document {
	sec := Section{Title: "comparison"}
	for i, s := range c.Series {
		role := ""
		if i == c.Base {
			role = " (base)"
		}
		if s.Label != s.Target {
			role = " = " + s.RunID + "/" + s.Target + role
		}
		sec.Lines = append(sec.Lines, fmt.Sprintf("col-%d: %s%s", i+1, s.Label, role))
	}
	sec.Tables = c.Tables(absolute)
	return &Document{Sections: []Section{sec}}
}
