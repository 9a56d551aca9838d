package report

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/rumbench/rumbench/internal/metric"
	"github.com/rumbench/rumbench/internal/results"
)

// groupView is the metrics of a group table after the percentiles; a column appears when its
// metric applies to one of the rows.
var groupView = []string{"achieved", "kept", "lag_ms", "skipped", "svc_p99", "max", "tcpu_us/op", "ccpu_us/op", "scpu_us/op", "cpu_us/op", "other%", "cs/op", "rKB/op", "wKB/op", "fl/op",
	"srv_fsync/op", "sync/c", "obs%", "retries"}

// percentileNames returns the percentiles to print: those chosen with --percentiles (sorted),
// or p50, p95, p99, p99.9 (Brief: p50, p99).
func percentileNames(steps []*results.Step, view View) []string {
	seen := map[string]float64{}
	for _, s := range steps {
		if l := metric.RateLatency(s); l != nil {
			for k := range l.Percentiles {
				v, _ := strconv.ParseFloat(strings.TrimPrefix(k, "p"), 64)
				seen[k] = v
			}
		}
	}
	switch {
	case len(seen) == 0 && view == Brief:
		return []string{"p50", "p99"}
	case len(seen) == 0:
		return []string{"p50", "p95", "p99", "p99.9"}
	}
	names := make([]string, 0, len(seen))
	for k := range seen {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return seen[names[i]] < seen[names[j]] })
	return names
}

// groupsOf returns the groups of steps in order: the declared groups that have steps, then
// any other group names in order of first appearance.
func groupsOf(steps []results.Step, declared []results.Group) []results.Group {
	present := map[string]bool{}
	var extra []results.Group
	for _, s := range steps {
		if s.Group == "" || present[s.Group] {
			continue
		}
		present[s.Group] = true
		known := false
		for _, g := range declared {
			known = known || g.Name == s.Group
		}
		if !known {
			extra = append(extra, results.Group{Name: s.Group, Title: s.Group})
		}
	}
	var out []results.Group
	for _, g := range declared {
		if present[g.Name] {
			out = append(out, g)
		}
	}
	return append(out, extra...)
}

// GroupTables returns one table per step group (in the declared order): a row per step ×
// target with the headline rate as the workload names it, calls per second, the rate's
// response-time percentiles and the per-op efficiency figures, the columns of view (Brief: p50
// and p99 of the default percentiles). Ungrouped steps are left out.
func GroupTables(steps []results.Step, groups []results.Group, view View) []*Table {
	var out []*Table
	for _, g := range groupsOf(steps, groups) {
		var steps1 []*results.Step
		for i := range steps {
			if steps[i].Group == g.Name {
				steps1 = append(steps1, &steps[i])
			}
		}
		rows := groupReps(steps1)
		t := &Table{Title: g.Title, Kind: Absolute, Note: steps1[0].Note}
		b := newBuilder(t, len(rows))
		b.text("test", func(i int) Cell { return TextCell(rows[i][0].Step) })
		b.text("target", func(i int) Cell { return targetCell(rows[i]) })
		b.stepMetric(metric.MustGet("rate"), rows)
		b.stepMetric(metric.MustGet("eps"), rows)
		for _, p := range percentileNames(steps1, view) {
			m, _ := metric.Lookup(p + "_ms")
			b.metric(m, p, "", func(i int) []float64 {
				var xs []float64
				for _, s := range rows[i] {
					if l := metric.RateLatency(s); l != nil {
						if v, ok := metric.Percentile(l, p); ok {
							xs = append(xs, v)
						}
					}
				}
				return xs
			})
		}
		for _, n := range groupView {
			if m := metric.MustGet(n); shows(view, briefGroup, m, rows) {
				b.stepMetric(m, rows)
			}
		}
		t.Footer = problems(steps1, true)
		if n := b.intervalNote(); n != "" {
			t.Footer = append(t.Footer, n)
		}
		if n := busyNote(rows, true); n != "" {
			t.Footer = append(t.Footer, n)
		}
		out = append(out, t)
	}
	return out
}

// Groups writes GroupTables (the columns of view) as aligned text, each followed by an empty
// line.
func Groups(w io.Writer, steps []results.Step, groups []results.Group, view View) error {
	for _, t := range GroupTables(steps, groups, view) {
		if err := WriteText(w, t); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	return nil
}
