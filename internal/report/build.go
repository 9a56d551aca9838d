package report

import (
	"github.com/rumbench/rumbench/internal/metric"
	"github.com/rumbench/rumbench/internal/results"
)

// builder fills a table column by column: n rows, each column's cells computed at once so that
// a latency column can choose its unit (ms, or µs when every value is below 1 ms).
type builder struct {
	t *Table
}

func newBuilder(t *Table, n int) *builder {
	t.Rows = make([][]Cell, n)
	return &builder{t: t}
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

// metric adds the column of m with the values value gives (in m's unit; µs for a latency).
// header and unit, when not empty, replace m's (the rate column is named by the workload).
func (b *builder) metric(m *metric.Metric, header, unit string, value func(i int) (float64, bool)) {
	scale := 1.0
	if header == "" {
		header = m.Name
	}
	if unit == "" {
		unit = m.Unit
	}
	if m.Latency {
		latencyUnit := "us"
		unit = "µs"
		for i := range b.t.Rows {
			if v, ok := value(i); ok && v >= 1000 {
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
	for i := range b.t.Rows {
		v, ok := value(i)
		var c Cell
		switch {
		case !ok:
			c = MissingCell()
		case m.Words[1] != "" && v != 0:
			c = TextCell(m.Words[1])
		case m.Words[1] != "":
			c = TextCell(m.Words[0])
		case m.YesNo && v != 0:
			c = TextCell("yes")
		case m.YesNo:
			c = TextCell("NO")
		case m.Integer:
			c = IntCell(int64(v))
		default:
			c = NumCell(v / scale)
		}
		b.t.Rows[i] = append(b.t.Rows[i], c)
	}
}

// stepMetric adds the column of m over step rows, when m applies to one of them at least.
func (b *builder) stepMetric(m *metric.Metric, rows []*results.Step) {
	if !appliesToAny(m, rows) {
		return
	}
	header, unit := "", ""
	if m.Name == "rate" {
		header, unit = rateNameOf(rows)
	}
	b.metric(m, header, unit, func(i int) (float64, bool) { return m.Value(rows[i]) })
}

func appliesToAny(m *metric.Metric, rows []*results.Step) bool {
	for _, s := range rows {
		if m.AppliesTo(s) {
			return true
		}
	}
	return false
}
