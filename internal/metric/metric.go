// Package metric is the catalog of rumbench's figures: every figure a report, a comparison, a
// benchmark line or the progress line prints is declared here once, with its name (the one
// name it has everywhere), its steps.json field, unit, meaning, formula, the rule for "not
// measured", which direction is better and the steps it applies to. Outputs select figures
// from the catalog by name; `rumbench metrics` prints it and docs/metrics.md's glossary is
// generated from it.
package metric

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/textwrap"
)

// Better says which direction of a figure is an improvement.
type Better int8

const (
	// Neutral figures are neither better high nor low (sizes of work, counts).
	Neutral Better = iota
	// Higher is better (rates).
	Higher
	// Lower is better (costs, response times).
	Lower
)

// String returns "higher", "lower" or "-".
func (b Better) String() string {
	switch b {
	case Higher:
		return "higher"
	case Lower:
		return "lower"
	}
	return "-"
}

// Metric is one figure.
type Metric struct {
	// Name is the figure's one name: the column header (for a latency with its unit appended,
	// "_ms" or "_us", chosen per column), the row name in comparisons, the unit in benchmark
	// lines and the label in the progress line.
	Name string
	// Field is where the figure is in steps.json ("host_cpu_us_per_op", "syscalls.syncs_per_commit";
	// "kinds[].max_us" for one derived from the per-kind records).
	Field string
	// Unit is the unit of Value ("µs/op", "KB/insert"); a latency's Value is in µs.
	Unit string
	// Meaning says what the figure is in one line; Formula how it is computed.
	Meaning, Formula string
	// Missing says when the figure is not measured (printed "-"); empty: always measured.
	Missing string
	// Steps says which steps have the figure (its column appears when one row has it).
	Steps  string
	Better Better
	// Latency marks a response time in µs: tables print the column in ms, or in µs when every
	// value is below 1 ms, with the unit in the header.
	Latency bool
	// Integer prints the figure as a whole number.
	Integer bool
	// Rate marks a throughput (colored by quartile in HTML tables).
	Rate bool
	// YesNo prints the figure as "yes" (1) or "NO" (0).
	YesNo bool
	// Words, when set, prints the figure as a label: Words[v] for the value v (0, 1, 2...), the
	// last word for any larger value (cached / IO-bound / cache-bound).
	Words []string
	// Applies says whether a step has the figure at all; nil: every step.
	Applies func(s *results.Step) bool
	// Value returns the step's figure and whether it was measured.
	Value func(s *results.Step) (float64, bool)
	// Interval returns the figure of an interval record; nil when the figure has none per interval.
	Interval func(iv *results.Interval) (float64, bool)
}

// AppliesTo says whether the step has the figure.
func (m *Metric) AppliesTo(s *results.Step) bool { return m.Applies == nil || m.Applies(s) }

// Header returns the column header for values in unit ("ms" or "us" for a latency; ignored
// otherwise).
func (m *Metric) Header(latencyUnit string) string {
	if m.Latency {
		return m.Name + "_" + latencyUnit
	}
	return m.Name
}

var (
	catalog []*Metric
	byName  = map[string]*Metric{}
)

// add registers metrics; a name given twice is a programming error.
func add(ms ...*Metric) {
	for _, m := range ms {
		if _, dup := byName[m.Name]; dup {
			panic("metric: " + m.Name + " declared twice")
		}
		byName[m.Name] = m
		catalog = append(catalog, m)
	}
}

// All returns every metric in catalog order.
func All() []*Metric { return catalog }

// Lookup returns the metric named name. Latency columns may be named with their unit
// ("p99_ms", "max_us").
func Lookup(name string) (*Metric, bool) {
	if m, ok := byName[name]; ok {
		return m, true
	}
	for _, suffix := range []string{"_ms", "_us"} {
		if base, ok := strings.CutSuffix(name, suffix); ok {
			if m, ok := byName[base]; ok && m.Latency {
				return m, true
			}
			if IsPercentile(base) {
				return byName["pN"], true
			}
		}
	}
	return nil, false
}

// MustGet returns the metric named name and panics when there is none (table layouts name
// metrics in code).
func MustGet(name string) *Metric {
	m, ok := byName[name]
	if !ok {
		panic("metric: no metric " + name)
	}
	return m
}

// IsPercentile says whether name is a response-time percentile ("p99", "p99.99").
func IsPercentile(name string) bool {
	rest, ok := strings.CutPrefix(name, "p")
	if !ok || rest == "" {
		return false
	}
	for _, c := range rest {
		if (c < '0' || c > '9') && c != '.' {
			return false
		}
	}
	return true
}

// Glossary writes the catalog as a plain table, or one metric's full entry when name is given.
func Glossary(w io.Writer, name string) error {
	if t, ok := topics[name]; ok {
		_, err := io.WriteString(w, t)
		return err
	}
	if name != "" {
		m, ok := Lookup(name)
		if !ok {
			return fmt.Errorf("unknown metric %q (rumbench metrics lists them)", name)
		}
		fmt.Fprintln(w, m.Name)
		entry := [][2]string{{"field", m.Field}, {"unit", m.Unit}, {"meaning", m.Meaning}, {"formula", m.Formula},
			{"better", m.Better.String()}, {"steps", orDash(m.Steps)}}
		if m.Missing != "" {
			entry = append(entry, [2]string{`"-"`, m.Missing})
		}
		if m.Latency {
			entry = append(entry, [2]string{"printed", fmt.Sprintf("in ms (%s_ms), or in µs (%s_us) when every value of the column is below 1 ms", m.Name, m.Name)})
		}
		for _, e := range entry {
			fmt.Fprintln(w, textwrap.Hang(fmt.Sprintf("  %-8s ", e[0]+":"), e[1], textwrap.Width))
		}
		return nil
	}
	width := 0
	for _, m := range catalog {
		width = max(width, len(m.Name))
	}
	// A unit longer than its column is on the name's line, the meaning below it.
	const unitWidth = 15
	for _, m := range catalog {
		prefix := fmt.Sprintf("%-*s  %-*s ", width, m.Name, unitWidth, m.Unit)
		if utf8.RuneCountInString(m.Unit) > unitWidth {
			fmt.Fprintf(w, "%-*s  %s\n", width, m.Name, m.Unit)
			prefix = strings.Repeat(" ", width+2+unitWidth+1)
		}
		fmt.Fprintln(w, textwrap.Hang(prefix, m.Meaning, textwrap.Width))
	}
	fmt.Fprintln(w, "\nrumbench metrics NAME shows a metric's field, formula, direction and when it is not measured.")
	return nil
}

// Markdown writes the catalog as the Markdown table of docs/metrics.md.
func Markdown(w io.Writer) {
	fmt.Fprintln(w, "| name | steps.json field | unit | meaning | formula | better | not measured (`-`) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	esc := func(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
	for _, m := range catalog {
		name := "`" + m.Name + "`"
		if m.Latency {
			name = "`" + m.Name + "_ms` / `" + m.Name + "_us`"
		}
		fmt.Fprintf(w, "| %s | `%s` | %s | %s | %s | %s | %s |\n", name, m.Field, esc(m.Unit), esc(m.Meaning),
			esc(m.Formula), m.Better, esc(orDash(m.Missing)))
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// IsTopic says whether name is a topic Glossary explains (e.g. "repeat") rather than a metric.
func IsTopic(name string) bool { _, ok := topics[name]; return ok }

// topics are the explanations `rumbench metrics NAME` prints for a NAME that is not a metric.
var topics = map[string]string{
	"repeat": `repeat: figures of repeated runs (--repeat N)
  Every target runs N times, interleaved (A B A B ...), each repetition with its own load.
  A figure is the median of its N values. Its interval is distribution-free: the order
  statistics [x(k), x(N+1-k)] with the largest k whose coverage 1 - 2·P(Binomial(N, 1/2) <= k-1)
  is at least 95%. From N = 6 that is a 95% interval (N = 6..8: [min, max]; N = 10: the 2nd
  smallest to the 2nd largest); below 6 no interval reaches 95% and [min, max] is shown with its
  own coverage (N = 3: 75%, N = 5: 93.8%), said under the table.
  Tables print "median ±x%", x the larger distance of a bound from the median; CSV and TSV add
  <column>_lo, _hi and _n; JSON writes {"value", "lo", "hi", "n", "conf"}.
  compare: a ratio is median/median of the base; its interval is [lo/hi_base, hi/lo_base]. The
  two sets of repetitions are tested with the Mann-Whitney U test (two-sided; exact for small
  samples, ties included; the normal approximation beyond); "~" marks a ratio whose p-value is at
  least --alpha (0.05): no significant difference. At 0.05 it takes 4 repetitions a side to find
  one (the smallest p of 3 against 3 is 0.1).
`,
}
