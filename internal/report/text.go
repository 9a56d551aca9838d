// Package report renders results: per-step tables with one row per target, in the shape of the
// insert benchmark's published tables, relative comparisons between targets and runs, and a
// self-contained HTML report. It reads result records and never runs anything.
package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/rumbench/rumbench/internal/results"
)

// column is one column of a step table: its header, the unit of its figures and how to get the
// cell from a step record.
type column struct {
	head, unit string
	cell       func(s *results.Step) Cell
}

// rateColumns are the throughput columns (colored by quartile in HTML).
var rateColumns = map[string]bool{"ips": true, "qps": true, "rate": true}

// storage renders a storage figure, missing when the device was not measured.
func storage(f func(s *results.Step) float64) func(s *results.Step) Cell {
	return func(s *results.Step) Cell {
		if s.Device == "" {
			return MissingCell()
		}
		return NumCell(f(s))
	}
}

// numOf renders a figure of a step.
func numOf(f func(s *results.Step) float64) func(s *results.Step) Cell {
	return func(s *results.Step) Cell { return NumCell(f(s)) }
}

// managed renders a figure of a managed server's process, missing for other targets.
func managed(f func(s *results.Step) float64) func(s *results.Step) Cell {
	return func(s *results.Step) Cell {
		if s.Server != "managed" {
			return MissingCell()
		}
		return NumCell(f(s))
	}
}

// counter renders a server counter figure, missing without a server or when it reports none (-1).
func counter(f func(s *results.Step) float64) func(s *results.Step) Cell {
	return func(s *results.Step) Cell {
		if v := f(s); s.Server != "" && v >= 0 {
			return NumCell(v)
		}
		return MissingCell()
	}
}

var (
	colTarget = column{"target", "", func(s *results.Step) Cell {
		if s.Status != results.StatusOK {
			return TextCell(s.Target + " (" + s.Status + ")")
		}
		return TextCell(s.Target)
	}}
	colSecs  = column{"secs", "s", numOf(func(s *results.Step) float64 { return s.Secs })}
	colRows  = column{"rows", "rows", func(s *results.Step) Cell { return IntCell(s.Rows) }}
	colDBMB  = column{"db_MB", "MiB", numOf(func(s *results.Step) float64 { return float64(s.DBBytes) / (1 << 20) })}
	colEngMB = column{"eng_MB", "MiB", func(s *results.Step) Cell {
		if s.EngineDBBytes == 0 {
			return MissingCell()
		}
		return NumCell(float64(s.EngineDBBytes) / (1 << 20))
	}}
	colBPR   = column{"B/row", "bytes/row", numOf(func(s *results.Step) float64 { return s.BytesPerRow })}
	colRMBs  = column{"rMB/s", "MB/s", storage(func(s *results.Step) float64 { return s.ReadMBPerSec })}
	colWMBs  = column{"wMB/s", "MB/s", storage(func(s *results.Step) float64 { return s.WriteMBPerSec })}
	colGBw   = column{"GBw", "GB", storage(func(s *results.Step) float64 { return s.GBWritten })}
	colRKBo  = column{"rKB/op", "KB/op", storage(func(s *results.Step) float64 { return s.ReadKBPerOp })}
	colWKBi  = column{"wKB/i", "KB/insert", storage(func(s *results.Step) float64 { return s.WriteKBPerInsert })}
	colDKBo  = column{"dKB/op", "KB/op", storage(func(s *results.Step) float64 { return s.DiscardKBPerOp })}
	colFlo   = column{"fl/op", "flushes/op", storage(func(s *results.Step) float64 { return s.FlushesPerOp })}
	colCPU   = column{"cpu_us/op", "µs/op", numOf(func(s *results.Step) float64 { return s.HostCPUUsPerOp })}
	colCCPU  = column{"ccpu_us/op", "µs/op", numOf(func(s *results.Step) float64 { return s.ClientCPUUsPerOp })}
	colCS    = column{"cs/op", "switches/op", numOf(func(s *results.Step) float64 { return s.CSPerOp })}
	colRSS   = column{"rss_MB", "MiB", numOf(func(s *results.Step) float64 { return s.ClientRSSMB })}
	colP50   = column{"rate_p50", "ops/s", numOf(func(s *results.Step) float64 { return s.RateP50 })}
	colP99   = column{"rate_p99", "ops/s", numOf(func(s *results.Step) float64 { return s.RateP99 })}
	colIPS   = column{"ips", "rows/s", numOf(func(s *results.Step) float64 { return s.IPS })}
	colQPS   = column{"qps", "queries/s", numOf(func(s *results.Step) float64 { return s.QPS })}
	colRate  = column{"rate", "ops/s", numOf(func(s *results.Step) float64 { return s.Rate })}
	colEPS   = column{"events/s", "events/s", numOf(func(s *results.Step) float64 { return s.EventsPerSec })}
	colStmts = column{"statements", "statements", func(s *results.Step) Cell { return IntCell(s.Statements) }}
	colWKBo  = column{"wKB/op", "KB/op", storage(func(s *results.Step) float64 { return s.WriteKBPerOp })}
	colMaxI  = column{"max_i_ms", "ms", numOf(func(s *results.Step) float64 { return s.MaxInsertUs / 1e3 })}
	colMaxQ  = column{"max_q_ms", "ms", numOf(func(s *results.Step) float64 { return s.MaxQueryUs / 1e3 })}
	colTgt   = column{"ips_target", "rows/s", numOf(func(s *results.Step) float64 { return s.TargetIPS })}
	colTgtOK = column{"met", "", func(s *results.Step) Cell {
		if s.TargetMet == nil {
			return MissingCell()
		}
		if *s.TargetMet {
			return TextCell("yes")
		}
		return TextCell("NO")
	}}
)

// serverColumns are added to a step's table when a target runs on a server.
var serverColumns = []column{
	{"scpu_us/op", "µs/op", managed(func(s *results.Step) float64 { return s.ServerCPUUsPerOp })},
	{"srss_MB", "MiB", managed(func(s *results.Step) float64 { return s.ServerRSSMB })},
	{"spss_MB", "MiB", managed(func(s *results.Step) float64 { return s.ServerPSSMB })},
	{"logB/op", "bytes/op", counter(func(s *results.Step) float64 { return s.LogBytesPerOp })},
	{"fsync/op", "fsyncs/op", counter(func(s *results.Step) float64 { return s.ServerFsyncsPerOp })},
}

// loadColumns are the columns of a load step (rate = inserts/s), queryColumns of a query step
// (rate = queries/s; CPU, reads and context switches per query; writes per insert).
var (
	loadColumns     = []column{colTarget, colIPS, colSecs, colRows, colDBMB, colEngMB, colBPR, colRMBs, colWMBs, colGBw, colRKBo, colWKBi, colDKBo, colFlo, colCPU, colCCPU, colCS, colRSS, colMaxI, colP50, colP99}
	indexColumns    = []column{colTarget, colRate, colSecs, colRows, colDBMB, colEngMB, colBPR, colRMBs, colWMBs, colGBw, colWKBi, colCPU, colCCPU, colCS, colRSS}
	sysbenchColumns = []column{colTarget, colRate, colEPS, colStmts, colSecs, colRows, colDBMB, colEngMB, colRMBs, colWMBs, colRKBo, colWKBo, colFlo, colCPU, colCCPU, colCS, colRSS, colMaxQ, colP50, colP99}
	queryColumns    = []column{colTarget, colQPS, colIPS, colTgt, colTgtOK, colSecs, colRows, colDBMB, colEngMB, colRMBs, colWMBs, colRKBo, colWKBi, colCPU, colCCPU, colCS, colRSS, colMaxQ, colMaxI, colP50, colP99}
)

func columnsFor(s *results.Step) ([]column, string) {
	switch {
	case s.Group != "":
		return sysbenchColumns, "rate = QPS (statements/s, Krps for scan), per-op figures per statement"
	case len(s.RateKinds) == 1 && s.RateKinds[0] == "create_index":
		return indexColumns, "rate = indexed rows/s (inserts + index build), per-op figures per indexed row"
	case len(s.RateKinds) > 0 && strings.HasSuffix(s.RateKinds[0], "query"):
		return queryColumns, "per-op figures per query, wKB/i per background insert"
	}
	return loadColumns, "per-op figures per inserted row"
}

// StepTables returns two tables per step (in order of first appearance), each with one row per
// target: the step's figures (titled with the step name) and its response times (untitled, with
// the step errors as footer).
func StepTables(steps []results.Step) []*Table {
	var order []string
	byStep := map[string][]*results.Step{}
	for i := range steps {
		s := &steps[i]
		if _, seen := byStep[s.Step]; !seen {
			order = append(order, s.Step)
		}
		byStep[s.Step] = append(byStep[s.Step], s)
	}
	out := make([]*Table, 0, 2*len(order))
	for _, name := range order {
		out = append(out, stepTable(name, byStep[name]), latencyTable(name, byStep[name]))
	}
	return out
}

// stepTable is the figures of one step, one row per target.
func stepTable(name string, rows []*results.Step) *Table {
	cols, legend := columnsFor(rows[0])
	for _, r := range rows {
		if r.Server != "" {
			cols = append(cols[:len(cols):len(cols)], serverColumns...)
			break
		}
	}
	t := &Table{Title: name, Note: legend, Kind: Absolute}
	for _, c := range cols {
		t.Columns = append(t.Columns, Column{Name: c.head, Unit: c.unit, Rate: rateColumns[c.head]})
	}
	for _, s := range rows {
		row := make([]Cell, len(cols))
		for i, c := range cols {
			row[i] = c.cell(s)
			if rateColumns[c.head] && c.head != "ips" && s.TargetMet != nil && !*s.TargetMet {
				row[i].Flag = "gray" // measured while the writers missed their target
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// Text writes one table per step (in order of first appearance) with one row per target,
// followed by the response-time table of the step.
func Text(w io.Writer, steps []results.Step) error {
	tables := StepTables(steps)
	for i := 0; i < len(tables); i += 2 {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := WriteText(w, tables[i], tables[i+1]); err != nil {
			return err
		}
		if st := SyscallTable(tables[i].Title, stepRows(steps, tables[i].Title)); st != nil {
			if err := WriteText(w, st); err != nil {
				return err
			}
		}
	}
	return nil
}

// latencyTable is the response-time percentiles (ms) of every operation kind of a step, with
// the step errors as footer.
func latencyTable(step string, rows []*results.Step) *Table {
	t := &Table{Key: step + " latency", Columns: []Column{{Name: "target"}, {Name: "op"}, {Name: "count", Unit: "ops"},
		{Name: "p50_ms", Unit: "ms"}, {Name: "p90_ms", Unit: "ms"}, {Name: "p99_ms", Unit: "ms"},
		{Name: "p99.9_ms", Unit: "ms"}, {Name: "max_ms", Unit: "ms"}}}
	ms := func(us float64) Cell { return NumCell(us / 1e3) }
	for _, s := range rows {
		for _, l := range s.Latency {
			t.Rows = append(t.Rows, []Cell{TextCell(s.Target), TextCell(l.Kind), IntCell(l.Count),
				ms(l.P50Us), ms(l.P90Us), ms(l.P99Us), ms(l.P999Us), ms(l.MaxUs)})
		}
	}
	for _, s := range rows {
		if s.Error != "" {
			t.Footer = append(t.Footer, s.Target+" error: "+s.Error)
		}
	}
	return t
}
