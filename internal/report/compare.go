package report

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rumbench/rumbench/internal/metric"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/stats"
)

// Series is one compared column: a target of a run.
type Series struct {
	RunID  string `json:"run_id"`
	Target string `json:"target"`
	// Label is the column's name: the target label when one run is compared, r<N>/target (N the
	// run's position, from 1) when several are.
	Label string `json:"label"`
	// steps holds the target's records of each step, one per repetition.
	steps map[string]Reps
}

// Row is one line of a comparison block: a test (or a metric) across the series. Abs holds the
// figures (NaN: not measured), Rel the ratios to the base series (Ratio).
type Row struct {
	Name string    `json:"name"`
	Abs  []float64 `json:"-"`
	Rel  []float64 `json:"-"`
	// Samples are each series' figures, one per repetition (nil: not measured); Abs is their
	// median.
	Samples [][]float64 `json:"-"`
	// Metric is the row's metric in a per-step block (nil in a group block: the block's).
	Metric *metric.Metric `json:"-"`
	// Step is the step the row's figures are of.
	Step string `json:"-"`
}

// Block is one comparison table: for grouped steps one metric over the steps of a group, for
// ungrouped steps every metric of one step.
type Block struct {
	// Title says what the block holds ("point queries: qps", "l.i1").
	Title string
	// Group is the step group (sysbench's point, range, range_agg, write), empty for ungrouped steps.
	Group string
	// Metric is the compared metric of a group block; Step the step of an ungrouped block.
	Metric *metric.Metric
	Step   string
	// RowHead is the header of the row names: "test" or "metric".
	RowHead string
	Rows    []Row
}

// Comparison is the figures of several targets (of one or several runs) side by side, with the
// ratios of each to a base.
type Comparison struct {
	// Grouped is true when the runs' steps carry a group: blocks are then per metric and group,
	// with a row per step; otherwise per step, with a row per metric.
	Grouped bool
	Series  []Series
	// Base is the index in Series of the base.
	Base   int
	Blocks []Block
	// Alpha is the significance level of the test that marks a difference from the base as
	// real in repeated runs (0: DefaultAlpha).
	Alpha float64
}

// DefaultAlpha is the significance level of a comparison of repeated runs: a ratio whose
// Mann-Whitney p-value is at least this is marked "~" (no significant difference).
const DefaultAlpha = 0.05

// ErrUnknownBase is returned (wrapped) by Compare when the base names no compared series.
var ErrUnknownBase = errors.New("unknown base")

// ErrNothingToCompare is returned (wrapped) by Compare when the runs hold one target only, or
// runs of different workloads.
var ErrNothingToCompare = errors.New("nothing to compare")

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
	var workloads []string
	for _, r := range runs {
		if !slices.Contains(workloads, r.Manifest.Workload) {
			workloads = append(workloads, r.Manifest.Workload)
		}
	}
	if len(workloads) > 1 {
		return nil, fmt.Errorf("%w: the runs are of different workloads (%s)", ErrNothingToCompare, strings.Join(workloads, ", "))
	}
	c.Series, c.Grouped = collectSeries(runs)
	if len(c.Series) == 0 {
		return nil, errors.New("report: the runs hold no step results to compare")
	}
	if len(c.Series) == 1 {
		return nil, fmt.Errorf("%w: one target only (%s); compare needs two targets, in one run or across runs", ErrNothingToCompare, c.Series[0].Label)
	}
	b, err := c.findBase(base)
	if err != nil {
		return nil, err
	}
	c.Base = b
	if c.Grouped {
		c.groupBlocks(runs)
	} else {
		c.stepBlocks(runs)
	}
	return c, nil
}

// collectSeries returns every target of runs as a series, in order (labelled r<N>/target when
// there are several runs), and whether a step carries a group. The counts of a sweep that loaded
// once are whole series: each has its engine's load (foldSweepLoads).
func collectSeries(runs []*results.Run) (series []Series, grouped bool) {
	series, grouped = targetSeries(runs)
	return foldSweepLoads(runs, series), grouped
}

// foldSweepLoads makes each count of a sweep that loaded once a whole row: the series of
// target@N gets the records of the steps that only its target ran (the load of the data it ran
// on), and the target's own series, which holds nothing else, is dropped.
func foldSweepLoads(runs []*results.Run, series []Series) []Series {
	of := map[[2]string]string{} // run id, count target -> the target it is of
	for _, r := range runs {
		if sw := r.Manifest.Sweep; sw != nil && sw.LoadOnce {
			for _, t := range r.Manifest.Targets {
				if t.Of != "" {
					of[[2]string{r.Manifest.RunID, t.Label}] = t.Of
				}
			}
		}
	}
	if len(of) == 0 {
		return series
	}
	loads := map[[2]string]Series{}
	for _, s := range series {
		loads[[2]string{s.RunID, s.Target}] = s
	}
	dropped := map[[2]string]bool{}
	var out []Series
	for _, s := range series {
		o, ok := of[[2]string{s.RunID, s.Target}]
		if !ok {
			out = append(out, s)
			continue
		}
		key := [2]string{s.RunID, o}
		dropped[key] = true
		for step, recs := range loads[key].steps {
			if _, own := s.steps[step]; !own {
				s.steps[step] = recs
			}
		}
		out = append(out, s)
	}
	return slices.DeleteFunc(out, func(s Series) bool { return dropped[[2]string{s.RunID, s.Target}] })
}

// targetSeries returns every target of runs that has a record as a series, in order.
func targetSeries(runs []*results.Run) (series []Series, grouped bool) {
	for ri, r := range runs {
		seen := map[string]int{}
		for i := range r.Steps {
			s := &r.Steps[i]
			if s.Group != "" {
				grouped = true
			}
			k, ok := seen[s.Target]
			if !ok {
				k = len(series)
				seen[s.Target] = k
				label := s.Target
				if len(runs) > 1 {
					label = fmt.Sprintf("r%d/%s", ri+1, s.Target)
				}
				series = append(series, Series{RunID: r.Manifest.RunID, Target: s.Target, Label: label,
					steps: map[string]Reps{}})
			}
			series[k].steps[s.Step] = append(series[k].steps[s.Step], s)
		}
	}
	return series, grouped
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
// those of one group.
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
// has the figure. A series' figure is the median of its repetitions (failed ones left out).
func (c *Comparison) row(name, step string, m *metric.Metric) (Row, bool) {
	n := len(c.Series)
	r := Row{Name: name, Step: step, Abs: make([]float64, n), Rel: make([]float64, n), Samples: make([][]float64, n)}
	found := false
	for i, s := range c.Series {
		r.Abs[i] = math.NaN()
		for _, st := range s.steps[step] {
			if st.Status == results.StatusFailed || !m.AppliesTo(st) {
				continue
			}
			if v, ok := m.Value(st); ok {
				r.Samples[i] = append(r.Samples[i], v)
			}
		}
		if len(r.Samples[i]) > 0 {
			r.Abs[i] = stats.Summarize(r.Samples[i]).Median
			found = true
		}
	}
	for i := range r.Abs {
		r.Rel[i] = Ratio(r.Abs[i], r.Abs[c.Base])
	}
	return r, found
}

// noiseNote is the footer of a table with a rate ratio within noise.
const noiseNote = "~ beside a rate: the ratio is within the noise of the two rates (noise%: the 95% interval of a step's rate from its slices of time)"

// rateWithinNoise says whether series i's rate in row r (a rate row) is within the noise of
// its own and the base's rate: |ln ratio| at most √(nᵢ² + n_base²); false when a noise is
// not known.
func (c *Comparison) rateWithinNoise(r Row, i int) bool {
	ni, ok1 := rateNoise(c.Series[i], r.Step)
	nb, ok2 := rateNoise(c.Series[c.Base], r.Step)
	return ok1 && ok2 && r.Rel[i] > 0 && math.Abs(math.Log(r.Rel[i])) <= math.Hypot(ni, nb)
}

// relCell renders the ratio of series i to the base in row r. When both were repeated it
// carries the ratio's interval (the ratio of the medians' interval bounds, widest way round:
// [lo_i/hi_base, hi_i/lo_base]) and the Mann-Whitney U test's verdict: "~" after the ratio
// when the difference is not significant at alpha.
func (c *Comparison) relCell(r Row, i int) Cell {
	cell := RatioCell(r.Rel[i])
	a, b := r.Samples[i], r.Samples[c.Base]
	if cell.Missing || len(a) < 2 || len(b) < 2 {
		return cell
	}
	sa, sb := stats.Summarize(a), stats.Summarize(b)
	iv := stats.Summary{N: min(sa.N, sb.N), Median: r.Rel[i], Lo: math.NaN(), Hi: math.NaN(), Conf: sa.Conf * sb.Conf}
	if sb.Lo > 0 && sb.Hi > 0 && sa.Lo >= 0 {
		iv.Lo, iv.Hi = sa.Lo/sb.Hi, sa.Hi/sb.Lo
		iv.Min, iv.Max = iv.Lo, iv.Hi
	}
	cell.Interval = &iv
	cell.P = stats.MannWhitney(a, b)
	if pct := iv.HalfWidthPct(); !math.IsNaN(pct) && iv.Lo != iv.Hi {
		cell.Text += " " + plusMinus(pct)
	}
	if cell.P >= c.alpha() {
		cell.Verdict = "~"
		cell.Text += " ~"
	}
	return cell
}

// absCell renders series i's figure in row r, divided by scale: the median with its interval
// when the series was repeated.
func (c *Comparison) absCell(r Row, i int, scale float64) Cell {
	switch xs := r.Samples[i]; {
	case len(xs) == 0:
		return MissingCell()
	case len(xs) == 1:
		return NumCell(xs[0] / scale)
	default:
		s := stats.Summarize(xs)
		s.Median, s.Lo, s.Hi, s.Min, s.Max = s.Median/scale, s.Lo/scale, s.Hi/scale, s.Min/scale, s.Max/scale
		return IntervalCell(s)
	}
}

func (c *Comparison) alpha() float64 {
	if c.Alpha > 0 {
		return c.Alpha
	}
	return DefaultAlpha
}

// repeated says whether a series of the comparison has a step measured more than once.
func (c *Comparison) repeated() bool {
	for _, s := range c.Series {
		for _, r := range s.steps {
			if len(r) > 1 {
				return true
			}
		}
	}
	return false
}

// groupMetrics are compared per group: the rate first, then the efficiency metrics.
var groupMetrics = []string{"rate", "tcpu_us/op", "cpu_us/op", "ccpu_us/op", "scpu_us/op", "cs/op", "rKB/op", "wKB/op", "fl/op", "srv_fsync/op"}

// stepMetrics are compared per step: the rate, the background insert rate of query steps, the
// efficiency metrics, size and the largest response time.
var stepMetrics = []string{"rate", "ips", "tcpu_us/op", "cpu_us/op", "ccpu_us/op", "scpu_us/op", "cs/op", "rKB/op", "wKB/op", "wKB/i",
	"fl/op", "srv_fsync/op", "db_MB", "max"}

// groupsOfRuns returns the step groups of runs in report order.
func groupsOfRuns(runs []*results.Run) []results.Group {
	var declared, all []results.Group
	var steps []results.Step
	for _, r := range runs {
		for _, g := range r.Manifest.Groups {
			if !slices.Contains(declared, g) {
				declared = append(declared, g)
			}
		}
		steps = append(steps, r.Steps...)
	}
	all = groupsOf(steps, declared)
	// Steps without a group (the load) are compared as one more group.
	for _, s := range steps {
		if s.Group == "" {
			return append(all, results.Group{Name: "", Title: "ungrouped steps"})
		}
	}
	return all
}

func (c *Comparison) groupBlocks(runs []*results.Run) {
	groups := groupsOfRuns(runs)
	for _, name := range groupMetrics {
		m := metric.MustGet(name)
		for _, g := range groups {
			b := Block{Title: g.Title + ": " + c.metricName(m, g.Name), Group: g.Name, Metric: m, RowHead: "test"}
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

// metricName is the name m has in the blocks of group: the rate is named by the workload.
func (c *Comparison) metricName(m *metric.Metric, group string) string {
	if m.Name != "rate" {
		return m.Name
	}
	var rows []*results.Step
	for _, s := range c.Series {
		for _, st := range s.steps {
			if st[0].Group == group {
				rows = append(rows, st[0])
			}
		}
	}
	name, _ := rateNameOf(rows)
	return name
}

// rateNameOf is the name and unit of the headline rate of rows as their workload names it; rows
// that mix names (sysbench's scan is in Krps) get the most common one ("rate" when none).
func rateNameOf(rows []*results.Step) (string, string) {
	count, unit := map[string]int{}, map[string]string{}
	for _, s := range rows {
		if s.RateName != "" {
			count[s.RateName]++
			unit[s.RateName] = s.RateUnit
		}
	}
	best, n, tie := "rate", 0, false
	for name, c := range count {
		switch {
		case c > n:
			best, n, tie = name, c, false
		case c == n:
			tie = true
		}
	}
	if best == "rate" || tie {
		return "rate", "ops/s"
	}
	return best, unit[best]
}

func (c *Comparison) stepBlocks(runs []*results.Run) {
	for _, step := range stepOrder(runs, "", true) {
		b := Block{Title: step, Step: step, RowHead: "metric"}
		for _, name := range stepMetrics {
			m := metric.MustGet(name)
			rowName := m.Name
			if m.Name == "rate" {
				var rows []*results.Step
				for _, s := range c.Series {
					if st := s.steps[step]; st != nil {
						rows = append(rows, st[0])
					}
				}
				rowName, _ = rateNameOf(rows)
			}
			if r, ok := c.row(rowName, step, m); ok {
				r.Metric = m
				b.Rows = append(b.Rows, r)
			}
		}
		if len(b.Rows) > 0 {
			c.Blocks = append(c.Blocks, b)
		}
	}
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
		noisy := false // a rate ratio within the noise of its rates
		for _, r := range b.Rows {
			name, scale := r.Name, 1.0
			if r.Metric != nil && r.Metric.Latency {
				name = r.Metric.Header("us")
				for _, v := range r.Abs {
					if v >= 1000 {
						name, scale = r.Metric.Header("ms"), 1e3
						break
					}
				}
			}
			row := []Cell{TextCell(name)}
			for _, i := range cols {
				if absolute {
					row = append(row, c.absCell(r, i, scale))
				} else {
					cell := c.relCell(r, i)
					m := cmp.Or(r.Metric, b.Metric)
					if m != nil {
						cell.Better = m.Better // the direction HTML colors the ratio by
					}
					if m != nil && m.Name == "rate" && cell.Verdict == "" && !cell.Missing && c.rateWithinNoise(r, i) {
						cell.Verdict, cell.Text = "~", cell.Text+" ~"
						noisy = true
					}
					row = append(row, cell)
				}
			}
			t.Rows = append(t.Rows, row)
		}
		if c.repeated() {
			t.Footer = append(t.Footer, c.repeatNote(absolute))
		}
		if noisy {
			t.Footer = append(t.Footer, noiseNote)
		}
		out = append(out, t)
	}
	return out
}

// repeatNote is the footer of a table of repeated runs: what its ± and ~ mean.
func (c *Comparison) repeatNote(absolute bool) string {
	if absolute {
		return "±: the median of the repetitions and its confidence interval (rumbench metrics repeat)"
	}
	return fmt.Sprintf("±: interval of the ratio of medians; ~: no significant difference from the base (Mann-Whitney U test, p >= %g; needs 4+ repetitions a side to show one at 0.05)", c.alpha())
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
