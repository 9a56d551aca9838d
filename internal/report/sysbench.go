package report

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/rumbench/rumbench/internal/results"
)

// sysbenchGroups are the reference's four groups, in its order, with their titles.
var sysbenchGroups = []struct{ key, title string }{
	{"point", "point queries"},
	{"range", "range queries without aggregation"},
	{"range_agg", "range queries with aggregation"},
	{"write", "writes"},
}

// IsSysbench says whether a step is a sysbench test (it has a group).
func IsSysbench(s *results.Step) bool { return s.Group != "" }

// eventLatency returns the step's per-event latency record.
func eventLatency(s *results.Step) *results.Latency {
	for i := range s.Latency {
		if s.Latency[i].Kind == "event" {
			return &s.Latency[i]
		}
	}
	return &results.Latency{}
}

// percentileNames returns the percentiles to print: those chosen with --percentiles (sorted),
// or p50, p95, p99, p99.9.
func percentileNames(steps []*results.Step) []string {
	seen := map[string]float64{}
	for _, s := range steps {
		for k := range eventLatency(s).Percentiles {
			v, _ := strconv.ParseFloat(strings.TrimPrefix(k, "p"), 64)
			seen[k] = v
		}
	}
	if len(seen) == 0 {
		return []string{"p50", "p95", "p99", "p99.9"}
	}
	names := make([]string, 0, len(seen))
	for k := range seen {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return seen[names[i]] < seen[names[j]] })
	return names
}

func percentileUs(l *results.Latency, name string) float64 {
	if v, ok := l.Percentiles[name]; ok {
		return v
	}
	switch name {
	case "p50":
		return l.P50Us
	case "p95":
		return l.P95Us
	case "p99":
		return l.P99Us
	case "p99.9":
		return l.P999Us
	}
	return 0
}

// Sysbench writes one table per test group: a row per test × target with QPS as the reference
// counts it (statements/s, BEGIN and COMMIT included; Krps for scan), events/s, per-event
// response times in ms, and the per-statement efficiency figures. Steps without a group are
// left out.
func Sysbench(w io.Writer, steps []results.Step) error {
	for _, g := range sysbenchGroups {
		var rows []*results.Step
		for i := range steps {
			if steps[i].Group == g.key {
				rows = append(rows, &steps[i])
			}
		}
		if len(rows) == 0 {
			continue
		}
		server := false
		for _, s := range rows {
			server = server || s.Server != ""
		}
		pcts := percentileNames(rows)
		head := []string{"test", "target", "qps", "eps"}
		for _, p := range pcts {
			head = append(head, p+"_ms")
		}
		head = append(head, "max_ms", "cpu/o", "ccpu/o")
		if server {
			head = append(head, "scpu/o")
		}
		head = append(head, "cs/o", "rKB/o", "wKB/o", "fl/o")
		if server {
			head = append(head, "fsync/o")
		}
		fmt.Fprintf(w, "== sysbench: %s (qps = statements/s incl. BEGIN/COMMIT, scan: Krps; per-op figures per statement)\n", g.title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
		for _, s := range rows {
			l := eventLatency(s)
			cells := []string{s.Step, colTarget.cell(s), num(s.Rate), num(s.EventsPerSec)}
			for _, p := range pcts {
				cells = append(cells, num(percentileUs(l, p)/1e3))
			}
			cells = append(cells, num(l.MaxUs/1e3), num(s.HostCPUUsPerOp), num(s.ClientCPUUsPerOp))
			if server {
				cells = append(cells, num(s.ServerCPUUsPerOp))
			}
			cells = append(cells, num(s.CSPerOp), colRKBo.cell(s),
				storage(func(s *results.Step) float64 { return s.WriteKBPerOp })(s), colFlo.cell(s))
			if server {
				cells = append(cells, counter(s.ServerFsyncsPerOp))
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	return nil
}

// counter renders a server counter figure, "-" when the server does not report it.
func counter(v float64) string {
	if v < 0 {
		return "-"
	}
	return num(v)
}
