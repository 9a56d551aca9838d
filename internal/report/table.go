package report

import (
	"math"
	"strconv"

	"github.com/rumbench/rumbench/internal/metric"
	"github.com/rumbench/rumbench/internal/stats"
)

// Table is a titled table of cells, the one model every output format renders: aligned text,
// Markdown, CSV, TSV, JSON and HTML.
type Table struct {
	// Title names the table ("l.i0", "point: relative QPS"); an empty title prints no heading.
	Title string `json:"title,omitempty"`
	// Key names the table in machine formats (CSV, TSV, JSON) when it has no title.
	Key string `json:"key,omitempty"`
	// Note qualifies the title (what the per-op figures are per, what the base is).
	Note    string   `json:"note,omitempty"`
	Columns []Column `json:"columns"`
	Rows    [][]Cell `json:"rows"`
	// Footer holds lines printed after the rows (step errors).
	Footer []string `json:"footer,omitempty"`
	// Kind tells HTML how to color the numeric cells: Absolute (quartiles of each numeric column),
	// Relative (ratios against a base) or none.
	Kind TableKind `json:"-"`
}

// TableKind selects the coloring of a table's numeric cells.
type TableKind int

// Table kinds.
const (
	// Plain tables are not colored.
	Plain TableKind = iota
	// Absolute tables color the bottom quartile of each rate column's range red and the top
	// quartile green (no red when the column's minimum is at least 80% of its maximum).
	Absolute
	// Relative tables color each ratio by its cell's direction (Cell.Better): better than the
	// base green, worse red; within RelativeBand of 1, and Neutral cells, not colored.
	Relative
)

// Column is a table column: its header as printed and the unit of its numbers ("" for text
// columns and plain counts).
type Column struct {
	Name string `json:"name"`
	Unit string `json:"unit,omitempty"`
	// Meaning is the column's one-line meaning from the metric catalog (HTML header tooltip).
	Meaning string `json:"-"`
	// Rate marks a throughput column, the one HTML colors by quartile in absolute tables.
	Rate bool `json:"-"`
}

// Cell is one table cell. A numeric cell keeps its Value for machine formats (JSON, CSV, TSV) and
// its Text for display; a text cell has only Text; a missing figure has Missing set and Text "-".
type Cell struct {
	Text    string
	Value   float64
	Numeric bool
	Missing bool
	// Flag marks a cell for HTML: "bad" (red: a missed target) or "gray" (a rate measured while
	// the background writers missed their target).
	Flag string
	// Interval, when not nil, is the summary of the repetitions whose median is Value: the
	// text shows "±x%", CSV and TSV add the bounds as columns, JSON writes them.
	Interval *stats.Summary
	// Verdict, in a relative table of repeated runs, says whether the difference from the base
	// is significant: "~" when it is not (the Mann-Whitney U test's P is at least the alpha of
	// the comparison), "" when it is. P is that test's p-value, 0 when not tested.
	Verdict string
	P       float64
	// Better is the direction of the metric of a ratio cell in a Relative table: HTML colors
	// the cell as better or worse than the base by it (Neutral: not colored, as the base row
	// of a summary, which holds absolute figures).
	Better metric.Better
}

// IntervalCell shows the median of s with its interval as "median ±x%", the larger distance of
// a bound from the median in percent of it (no ± when every repetition measured the same).
func IntervalCell(s stats.Summary) Cell {
	c := NumCell(s.Median)
	switch {
	case s.Min == s.Max:
	case s.Median == 0:
		c.Text += " [" + num(s.Lo) + ", " + num(s.Hi) + "]"
	default:
		c.Text += " " + plusMinus(s.HalfWidthPct())
	}
	c.Interval = &s
	return c
}

// plusMinus renders a half-width in percent: ±12%, ±3.4%, ±0.5%.
func plusMinus(pct float64) string {
	switch {
	case math.IsNaN(pct):
		return "±?"
	case pct >= 10:
		return "±" + strconv.FormatFloat(pct, 'f', 0, 64) + "%"
	}
	return "±" + strconv.FormatFloat(pct, 'f', 1, 64) + "%"
}

// TextCell returns a text cell.
func TextCell(s string) Cell { return Cell{Text: s} }

// NumCell returns a numeric cell displayed with about three significant digits.
func NumCell(v float64) Cell { return Cell{Text: num(v), Value: v, Numeric: true} }

// IntCell returns a numeric cell displayed as an integer.
func IntCell(v int64) Cell {
	return Cell{Text: strconv.FormatInt(v, 10), Value: float64(v), Numeric: true}
}

// RatioCell returns a numeric cell displayed with two decimals, or two significant digits
// when that shows fewer (0.0038, not 0.00); +Inf prints "inf" and NaN (no figure) is a missing
// cell.
func RatioCell(v float64) Cell {
	switch {
	case math.IsNaN(v):
		return MissingCell()
	case math.IsInf(v, 1):
		return Cell{Text: "inf", Value: v, Numeric: true}
	case v != 0 && math.Abs(v) < MinShown:
		return Cell{Text: num(v), Value: v, Numeric: true}
	case v != 0 && math.Abs(v) < 0.1:
		return Cell{Text: sig2(v), Value: v, Numeric: true}
	}
	return Cell{Text: strconv.FormatFloat(v, 'f', 2, 64), Value: v, Numeric: true}
}

// sig2 renders v (0 < |v| < 0.1) with two significant digits in plain notation.
func sig2(v float64) string {
	digits := 1 - int(math.Floor(math.Log10(math.Abs(v))))
	return strconv.FormatFloat(v, 'f', digits, 64)
}

// MissingCell returns the cell of a figure that was not measured.
func MissingCell() Cell { return Cell{Text: "-", Missing: true} }

// machine returns the cell as machine formats write it: full precision for numbers, "inf" for
// infinity, "" for a missing figure.
func (c Cell) machine() string {
	switch {
	case c.Missing:
		return ""
	case !c.Numeric:
		return c.Text
	case math.IsInf(c.Value, 1):
		return "inf"
	case math.IsInf(c.Value, -1):
		return "-inf"
	}
	return strconv.FormatFloat(c.Value, 'g', -1, 64)
}

// num renders a figure with about three significant digits, in plain notation: the decimals
// are those of the figure once rounded (99.96 is "100", not "100.0"); a figure nearer zero
// than MinShown is "<0.000001" (or ">-0.000001").
func num(v float64) string {
	a := math.Abs(v)
	switch {
	case v == 0:
		return "0"
	case a < MinShown && v > 0:
		return "<" + strconv.FormatFloat(MinShown, 'f', -1, 64)
	case a < MinShown:
		return ">-" + strconv.FormatFloat(MinShown, 'f', -1, 64)
	}
	digits := decimals(a)
	s := strconv.FormatFloat(v, 'f', digits, 64)
	if r, err := strconv.ParseFloat(s, 64); err == nil && decimals(math.Abs(r)) < digits {
		s = strconv.FormatFloat(v, 'f', decimals(math.Abs(r)), 64)
	}
	return s
}

// MinShown is the smallest magnitude a table prints in figures (MinShown itself is
// "0.0000010"); below it a cell says "<0.000001". Machine formats keep every figure whole.
const MinShown = 1e-6

// decimals is how many decimals num gives a figure of magnitude a (> 0): about three
// significant digits, two below 0.01.
func decimals(a float64) int {
	switch {
	case a >= 100:
		return 0
	case a >= 10:
		return 1
	case a >= 1:
		return 2
	case a >= 0.01:
		return 3
	}
	return 1 - int(math.Floor(math.Log10(a)))
}
