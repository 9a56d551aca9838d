package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/metric"
	"github.com/rumbench/rumbench/internal/results"
)

// RunsDocument is the report of whole runs: one section per run, titled with its id, with its
// context lines (workload, targets, status), its summary (SummaryTable, relative to its first
// target) and its step tables (StepTables, GroupTables) with the columns of view.
func RunsDocument(runs []*results.Run, view View) *Document {
	doc := &Document{}
	for _, r := range runs {
		m := r.Manifest
		sec := Section{Title: "run " + m.RunID}
		sec.Lines = append(sec.Lines, "workload: "+m.Workload+" "+describeConfig(m.WorkloadConfig))
		labels := make([]string, len(m.Targets))
		for i, t := range m.Targets {
			labels[i] = t.Label
			if t.Engine.Version != "" {
				labels[i] += " (" + t.Engine.Name + " " + t.Engine.Version + ")"
			}
		}
		sec.Lines = append(sec.Lines, "targets: "+strings.Join(labels, ", "))
		status := m.Status
		if m.Error != "" {
			status += ": " + m.Error
		}
		sec.Lines = append(sec.Lines, "status: "+status+", started "+m.Start.UTC().Format("2006-01-02 15:04:05Z"))
		for _, t := range m.Targets {
			if t.Check != "" {
				sec.Lines = append(sec.Lines, "invariants "+t.Label+": "+t.Check)
			}
		}
		sec.Lines = append(sec.Lines, MetricsHint)
		if view == Brief {
			sec.Lines = append(sec.Lines, WideHint)
		}
		// The summary first (a reader of the report starts there), then the tables as run
		// prints them: grouped steps get one table per group (a row per step × target).
		if sum, err := SummaryTable([]*results.Run{r}, ""); err == nil && sum != nil {
			sec.Tables = append(sec.Tables, sum)
		}
		sec.Tables = append(sec.Tables, ScalingTables([]*results.Run{r})...)
		sec.Tables = append(sec.Tables, RateTables([]*results.Run{r})...)
		if ft := FaultTable([]*results.Run{r}); ft != nil {
			sec.Tables = append(sec.Tables, ft)
		}
		sec.Tables = append(sec.Tables, ClusterTables([]*results.Run{r})...)
		sec.Tables = append(sec.Tables, StepTables(r.Steps, view)...)
		sec.Tables = append(sec.Tables, GroupTables(r.Steps, m.Groups, view)...)
		for _, name := range stepOrder([]*results.Run{r}, "", true) {
			if st := SyscallTable(name, stepRows(r.Steps, name)); st != nil {
				sec.Tables = append(sec.Tables, st)
			}
		}
		doc.Sections = append(doc.Sections, sec)
	}
	return doc
}

// describeConfig renders a configuration map in one line, keys sorted.
func describeConfig(cfg map[string]any) string {
	keys := make([]string, 0, len(cfg))
	for k := range cfg {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		v := cfg[k]
		if f, ok := v.(float64); ok && f == math.Trunc(f) && math.Abs(f) < 1e15 {
			v = int64(f) // JSON numbers read back as float64: print whole numbers as such
		}
		parts[i] = fmt.Sprintf("%s=%v", k, v)
	}
	return strings.Join(parts, " ")
}

// GoBench writes the runs' step figures in the Go benchmark format, which benchstat reads: per
// run a "run: <id>" configuration line, then one line per target × step,
// "Benchmark<Workload>/step=<step>/target=<target> 1 <value> <unit> ...". Compare two runs with
// "benchstat old.txt new.txt", or targets of one run with "benchstat -col /target file.txt".
// Figures that were not measured are left out of the line; failed steps are left out.
func GoBench(w io.Writer, runs []*results.Run) error {
	bw := bufio.NewWriter(w)
	for i, r := range runs {
		m := r.Manifest
		if i == 0 {
			fmt.Fprintf(bw, "goos: linux\npkg: rumbench/%s\n", benchKey(m.Workload))
			if m.Host.CPUs > 0 {
				fmt.Fprintf(bw, "cpus: %d\n", m.Host.CPUs)
			}
		}
		fmt.Fprintf(bw, "run: %s\n", input.Printable(m.RunID))
		name := "Benchmark" + capitalize(benchKey(m.Workload))
		for k := range r.Steps {
			s := &r.Steps[k]
			if s.Status == results.StatusFailed {
				continue
			}
			fmt.Fprintf(bw, "%s/step=%s/target=%s 1", name, benchKey(s.Step), benchKey(s.Target))
			for _, f := range benchFigures(s) {
				fmt.Fprintf(bw, " %s %s", benchValue(f.v), input.Printable(f.unit))
			}
			fmt.Fprintln(bw)
		}
	}
	return bw.Flush()
}

type benchFigure struct {
	v    float64
	unit string
}

// benchMetrics are the figures of a step line after the rate, each when it applies to the
// step and was measured; a latency is written in ms.
var benchMetrics = []string{"ips", "cpu_us/op", "ccpu_us/op", "cs/op", "scpu_us/op", "rKB/op", "wKB/op", "wKB/i", "db_MB", "max"}

// benchFigures are the figures of one step line: the rate first, its unit the workload's name
// for it (ips, qps, Krps), then the catalog figures of benchMetrics under their catalog names.
func benchFigures(s *results.Step) []benchFigure {
	unit := s.RateName
	if unit == "" {
		unit = "rate"
	}
	out := []benchFigure{{s.Rate, unit}}
	for _, name := range benchMetrics {
		m := metric.MustGet(name)
		if !m.AppliesTo(s) {
			continue
		}
		v, ok := m.Value(s)
		if !ok || (m.Latency && v <= 0) {
			continue
		}
		if m.Latency {
			out = append(out, benchFigure{v / 1e3, m.Header("ms")})
			continue
		}
		out = append(out, benchFigure{v, m.Name})
	}
	return out
}

func benchValue(v float64) string { return fmt.Sprintf("%.6g", v) }

// benchKey makes a name part safe for the benchmark format (no spaces, no slashes) and for a
// terminal (input.Printable).
func benchKey(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r == '/' {
			return '_'
		}
		return r
	}, input.Printable(s))
}

func capitalize(s string) string {
	if s == "" {
		return "Run"
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
