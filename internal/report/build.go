package report

import (
	"fmt"
	"math"

	"github.com/rumbench/rumbench/internal/metric"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/stats"
)

// Reps is one target's records of one step: one per repetition (--repeat), in order; a run
// without repeats has one. The first stands for the others where a single record is needed (the
// target's name, the step's note).
type Reps []*results.Step

// groupReps gathers rows into one Reps per target and step, in order of first appearance.
func groupReps(rows []*results.Step) []Reps {
	var out []Reps
	at := map[[2]string]int{}
	for _, s := range rows {
		k := [2]string{s.Step, s.Target}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], s)
	}
	return out
}

// status is the status shown for the target: ok when every repetition is, else the first
// other one.
func (r Reps) status() string {
	for _, s := range r {
		if s.Status != results.StatusOK {
			return s.Status
		}
	}
	return results.StatusOK
}

// builder fills a table column by column: n rows, each column's cells computed at once so that
// a latency column can choose its unit (ms, or µs when every value is below 1 ms). A row's
// figure may have several samples (one per repetition): the cell is then their median with its
// interval, and the builder remembers the intervals' sizes and coverage for the footer.
type builder struct {
	t *Table
	// minN, maxN and minConf describe the intervals in the table (minN = 0: none).
	minN, maxN int
	minConf    float64
}

func newBuilder(t *Table, n int) *builder {
	t.Rows = make([][]Cell, n)
	return &builder{t: t}
}

// one is the samples of a figure measured once: v when ok, none otherwise.
func one(v float64, ok bool) []float64 {
	if !ok {
		return nil
	}
	return []float64{v}
}

// text adds a text column.
func (b *builder) text(name string, cell func(i int) Cell) {
	m, _ := metric.Lookup(name)
	col := Column{Name: name}
	if m != nil {
		col.Meaning = m.Meaning
	}
	b.t.Columns = append(b.t.Columns, col)
	for i := range b.t.Rows {
		b.t.Rows[i] = append(b.t.Rows[i], cell(i))
	}
}

// metric adds the column of m with the samples samples gives for each row (in m's unit; µs for
// a latency): none is a missing figure, one is the figure, more are summarized (median and
// interval). header and unit, when not empty, replace m's (the rate column is named by the
// workload).
func (b *builder) metric(m *metric.Metric, header, unit string, samples func(i int) []float64) {
	scale := 1.0
	if header == "" {
		header = m.Name
	}
	if unit == "" {
		unit = m.Unit
	}
	values := make([][]float64, len(b.t.Rows))
	for i := range values {
		values[i] = samples(i)
	}
	if m.Latency {
		latencyUnit := "us"
		unit = "µs"
		for _, xs := range values {
			if len(xs) > 0 && stats.Summarize(xs).Median >= 1000 {
				latencyUnit, unit, scale = "ms", "ms", 1e3
				break
			}
		}
		if header == m.Name {
			header = m.Header(latencyUnit)
		} else {
			header += "_" + latencyUnit
		}
	}
	b.t.Columns = append(b.t.Columns, Column{Name: header, Unit: unit, Meaning: m.Meaning, Rate: m.Rate})
	for i, xs := range values {
		b.t.Rows[i] = append(b.t.Rows[i], b.cell(m, xs, scale))
	}
}

// cell renders the samples xs of m, divided by scale.
func (b *builder) cell(m *metric.Metric, xs []float64, scale float64) Cell {
	if len(xs) == 0 {
		return MissingCell()
	}
	s := stats.Summarize(xs)
	v := s.Median
	switch {
	case len(m.Words) > 0:
		return TextCell(m.Words[min(max(int(v), 0), len(m.Words)-1)])
	case m.YesNo:
		if s.Min != 0 { // every repetition
			return TextCell("yes")
		}
		return TextCell("NO")
	case len(xs) == 1 && m.Integer:
		return IntCell(int64(v))
	case len(xs) == 1:
		return NumCell(v / scale)
	}
	s.Median, s.Lo, s.Hi, s.Min, s.Max = s.Median/scale, s.Lo/scale, s.Hi/scale, s.Min/scale, s.Max/scale
	if b.minN == 0 || s.N < b.minN {
		b.minN = s.N
	}
	b.maxN = max(b.maxN, s.N)
	if b.minConf == 0 || s.Conf < b.minConf {
		b.minConf = s.Conf
	}
	return IntervalCell(s)
}

// intervalNote is the footer line that says what the ± of the table's cells are, "" when it
// has none.
func (b *builder) intervalNote() string {
	if b.minN == 0 {
		return ""
	}
	n := fmt.Sprint(b.minN)
	if b.maxN != b.minN {
		n = fmt.Sprintf("%d-%d", b.minN, b.maxN)
	}
	if b.minConf >= stats.Level {
		return fmt.Sprintf("±: median of %s repetitions and its %.0f%% confidence interval (rumbench metrics repeat)", n, 100*stats.Level)
	}
	return fmt.Sprintf("±: median of %s repetitions and the interval [min, max], of %.1f%% confidence: %d or more repetitions give %.0f%% (rumbench metrics repeat)",
		n, 100*b.minConf, minRepsForLevel(), 100*stats.Level)
}

// minRepsForLevel is the smallest number of repetitions whose interval reaches stats.Level.
func minRepsForLevel() int {
	for n := 2; ; n++ {
		if 1-2*math.Pow(0.5, float64(n)) >= stats.Level {
			return n
		}
	}
}

// stepMetric adds the column of m over rows (each a target's repetitions), when m applies to
// one of them at least.
func (b *builder) stepMetric(m *metric.Metric, rows []Reps) {
	if !appliesToAny(m, rows) {
		return
	}
	header, unit := "", ""
	if m.Name == "rate" {
		header, unit = rateNameOf(firsts(rows))
	}
	b.metric(m, header, unit, func(i int) []float64 {
		var xs []float64
		for _, s := range rows[i] {
			if v, ok := m.Value(s); ok {
				xs = append(xs, v)
			}
		}
		return xs
	})
}

// firsts returns the first record of each row.
func firsts(rows []Reps) []*results.Step {
	out := make([]*results.Step, len(rows))
	for i, r := range rows {
		out[i] = r[0]
	}
	return out
}

func appliesToAny(m *metric.Metric, rows []Reps) bool {
	for _, r := range rows {
		for _, s := range r {
			if m.AppliesTo(s) {
				return true
			}
		}
	}
	return false
}
