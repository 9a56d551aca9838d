package report

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/rumbench/rumbench/internal/results"
)

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

// percentileCell is percentile name of l in ms, missing when l does not have it.
func percentileCell(l *results.Latency, name string) Cell {
	if v, ok := l.Percentiles[name]; ok {
		return NumCell(v / 1e3)
	}
	switch name {
	case "p50":
		return NumCell(l.P50Us / 1e3)
	case "p95":
		return NumCell(l.P95Us / 1e3)
	case "p99":
		return NumCell(l.P99Us / 1e3)
	case "p99.9":
		return NumCell(l.P999Us / 1e3)
	}
	return MissingCell()
}

// SysbenchTables returns one table per test group, in the reference's group order: a row per
// test × target with QPS as the reference counts it (statements/s, BEGIN and COMMIT included;
// Krps for scan), events/s, per-event response times in ms, and the per-statement efficiency
// figures. Steps without a group are left out.
func SysbenchTables(steps []results.Step) []*Table {
	var out []*Table
	for _, g := range SysbenchGroups {
		var rows []*results.Step
		for i := range steps {
			if steps[i].Group == g.Name {
				rows = append(rows, &steps[i])
			}
		}
		if len(rows) == 0 {
			continue
		}
		server, syncs, retries := false, false, false
		for _, s := range rows {
			server = server || s.Server != ""
			syncs = syncs || s.Syscalls != nil
			retries = retries || s.Retries > 0
		}
		pcts := percentileNames(rows)
		t := &Table{Title: "sysbench: " + g.Title, Kind: Absolute,
			Note: "qps = statements/s incl. BEGIN/COMMIT, scan: Krps; per-op figures per statement"}
		t.Columns = []Column{{Name: "test"}, {Name: "target"}, {Name: "qps", Unit: "statements/s", Rate: true}, {Name: "eps", Unit: "events/s"}}
		for _, p := range pcts {
			t.Columns = append(t.Columns, Column{Name: p + "_ms", Unit: "ms"})
		}
		t.Columns = append(t.Columns, Column{Name: "max_ms", Unit: "ms"}, Column{Name: "cpu/o", Unit: "µs/op"}, Column{Name: "ccpu/o", Unit: "µs/op"})
		if server {
			t.Columns = append(t.Columns, Column{Name: "scpu/o", Unit: "µs/op"})
		}
		t.Columns = append(t.Columns, Column{Name: "cs/o", Unit: "switches/op"}, Column{Name: "rKB/o", Unit: "KB/op"},
			Column{Name: "wKB/o", Unit: "KB/op"}, Column{Name: "fl/o", Unit: "flushes/op"})
		if server {
			t.Columns = append(t.Columns, Column{Name: "fsync/o", Unit: "fsyncs/op"})
		}
		if syncs {
			t.Columns = append(t.Columns, Column{Name: "sync/c", Unit: "syncs/commit"})
		}
		if retries {
			t.Columns = append(t.Columns, Column{Name: "retries", Unit: "events"})
		}
		for _, s := range rows {
			l := eventLatency(s)
			cells := []Cell{TextCell(s.Step), colTarget.cell(s), NumCell(s.Rate), NumCell(s.EventsPerSec)}
			for _, p := range pcts {
				cells = append(cells, percentileCell(l, p))
			}
			cells = append(cells, NumCell(l.MaxUs/1e3), NumCell(s.HostCPUUsPerOp), NumCell(s.ClientCPUUsPerOp))
			if server {
				cells = append(cells, managed(func(s *results.Step) float64 { return s.ServerCPUUsPerOp })(s))
			}
			cells = append(cells, NumCell(s.CSPerOp), colRKBo.cell(s), colWKBo.cell(s), colFlo.cell(s))
			if server {
				cells = append(cells, counter(func(s *results.Step) float64 { return s.ServerFsyncsPerOp })(s))
			}
			if syncs {
				if s.Syscalls != nil && s.Syscalls.Commits > 0 {
					cells = append(cells, NumCell(s.Syscalls.SyncsPerCommit))
				} else {
					cells = append(cells, MissingCell())
				}
			}
			if retries {
				cells = append(cells, IntCell(s.Retries))
			}
			t.Rows = append(t.Rows, cells)
		}
		out = append(out, t)
	}
	return out
}

// Sysbench writes SysbenchTables as aligned text.
func Sysbench(w io.Writer, steps []results.Step) error {
	for _, t := range SysbenchTables(steps) {
		if err := WriteText(w, t); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	return nil
}
