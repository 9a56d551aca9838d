// Package report renders results: per-step comparison tables with one row per target, in the
// shape of the insert benchmark's published tables. It reads result records and never runs
// anything.
package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/rumbench/rumbench/internal/results"
)

// column is one column of a step table: a header and how to get the cell from a step record.
type column struct {
	head string
	cell func(s *results.Step) string
}

func num(v float64) string {
	switch a := math.Abs(v); {
	case v == 0:
		return "0"
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case a >= 0.01:
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
	return strconv.FormatFloat(v, 'g', 2, 64)
}

// storage renders a storage figure, "-" when the device was not measured.
func storage(f func(s *results.Step) float64) func(s *results.Step) string {
	return func(s *results.Step) string {
		if s.Device == "" {
			return "-"
		}
		return num(f(s))
	}
}

var (
	colTarget = column{"target", func(s *results.Step) string {
		if s.Status != results.StatusOK {
			return s.Target + " (" + s.Status + ")"
		}
		return s.Target
	}}
	colSecs  = column{"secs", func(s *results.Step) string { return num(s.Secs) }}
	colRows  = column{"rows", func(s *results.Step) string { return strconv.FormatInt(s.Rows, 10) }}
	colDBMB  = column{"db_MB", func(s *results.Step) string { return num(float64(s.DBBytes) / (1 << 20)) }}
	colEngMB = column{"eng_MB", func(s *results.Step) string {
		if s.EngineDBBytes == 0 {
			return "-"
		}
		return num(float64(s.EngineDBBytes) / (1 << 20))
	}}
	colBPR   = column{"B/row", func(s *results.Step) string { return num(s.BytesPerRow) }}
	colRMBs  = column{"rMB/s", storage(func(s *results.Step) float64 { return s.ReadMBPerSec })}
	colWMBs  = column{"wMB/s", storage(func(s *results.Step) float64 { return s.WriteMBPerSec })}
	colGBw   = column{"GBw", storage(func(s *results.Step) float64 { return s.GBWritten })}
	colRKBo  = column{"rKB/op", storage(func(s *results.Step) float64 { return s.ReadKBPerOp })}
	colWKBi  = column{"wKB/i", storage(func(s *results.Step) float64 { return s.WriteKBPerInsert })}
	colDKBo  = column{"dKB/op", storage(func(s *results.Step) float64 { return s.DiscardKBPerOp })}
	colFlo   = column{"fl/op", storage(func(s *results.Step) float64 { return s.FlushesPerOp })}
	colCPU   = column{"cpu_us/op", func(s *results.Step) string { return num(s.HostCPUUsPerOp) }}
	colCCPU  = column{"ccpu_us/op", func(s *results.Step) string { return num(s.ClientCPUUsPerOp) }}
	colCS    = column{"cs/op", func(s *results.Step) string { return num(s.CSPerOp) }}
	colRSS   = column{"rss_MB", func(s *results.Step) string { return num(s.ClientRSSMB) }}
	colP50   = column{"rate_p50", func(s *results.Step) string { return num(s.RateP50) }}
	colP99   = column{"rate_p99", func(s *results.Step) string { return num(s.RateP99) }}
	colIPS   = column{"ips", func(s *results.Step) string { return num(s.IPS) }}
	colQPS   = column{"qps", func(s *results.Step) string { return num(s.QPS) }}
	colRate  = column{"rate", func(s *results.Step) string { return num(s.Rate) }}
	colMaxI  = column{"max_i_ms", func(s *results.Step) string { return num(s.MaxInsertUs / 1e3) }}
	colMaxQ  = column{"max_q_ms", func(s *results.Step) string { return num(s.MaxQueryUs / 1e3) }}
	colTgt   = column{"ips_target", func(s *results.Step) string { return num(s.TargetIPS) }}
	colTgtOK = column{"met", func(s *results.Step) string {
		if s.TargetMet == nil {
			return "-"
		}
		if *s.TargetMet {
			return "yes"
		}
		return "NO"
	}}
)

// serverColumns are added to a step's table when a target runs on a server.
var serverColumns = []column{
	{"scpu_us/op", func(s *results.Step) string {
		if s.Server != "managed" {
			return "-"
		}
		return num(s.ServerCPUUsPerOp)
	}},
	{"srss_MB", func(s *results.Step) string {
		if s.Server != "managed" {
			return "-"
		}
		return num(s.ServerRSSMB)
	}},
	{"spss_MB", func(s *results.Step) string {
		if s.Server != "managed" {
			return "-"
		}
		return num(s.ServerPSSMB)
	}},
	{"logB/op", func(s *results.Step) string {
		if s.Server == "" || s.LogBytesPerOp < 0 {
			return "-"
		}
		return num(s.LogBytesPerOp)
	}},
	{"fsync/op", func(s *results.Step) string {
		if s.Server == "" || s.ServerFsyncsPerOp < 0 {
			return "-"
		}
		return num(s.ServerFsyncsPerOp)
	}},
}

// loadColumns are the columns of a load step (rate = inserts/s), queryColumns of a query step
// (rate = queries/s; CPU, reads and context switches per query; writes per insert).
var (
	loadColumns  = []column{colTarget, colIPS, colSecs, colRows, colDBMB, colEngMB, colBPR, colRMBs, colWMBs, colGBw, colRKBo, colWKBi, colDKBo, colFlo, colCPU, colCCPU, colCS, colRSS, colMaxI, colP50, colP99}
	indexColumns = []column{colTarget, colRate, colSecs, colRows, colDBMB, colEngMB, colBPR, colRMBs, colWMBs, colGBw, colWKBi, colCPU, colCCPU, colCS, colRSS}
	queryColumns = []column{colTarget, colQPS, colIPS, colTgt, colTgtOK, colSecs, colRows, colDBMB, colEngMB, colRMBs, colWMBs, colRKBo, colWKBi, colCPU, colCCPU, colCS, colRSS, colMaxQ, colMaxI, colP50, colP99}
)

func columnsFor(s *results.Step) ([]column, string) {
	switch {
	case len(s.RateKinds) == 1 && s.RateKinds[0] == "create_index":
		return indexColumns, "rate = indexed rows/s (inserts + index build), per-op figures per indexed row"
	case len(s.RateKinds) > 0 && strings.HasSuffix(s.RateKinds[0], "query"):
		return queryColumns, "per-op figures per query, wKB/i per background insert"
	}
	return loadColumns, "per-op figures per inserted row"
}

// Text writes one table per step (in order of first appearance) with one row per target,
// followed by the response-time table of the step.
func Text(w io.Writer, steps []results.Step) error {
	var order []string
	byStep := map[string][]*results.Step{}
	for i := range steps {
		s := &steps[i]
		if _, seen := byStep[s.Step]; !seen {
			order = append(order, s.Step)
		}
		byStep[s.Step] = append(byStep[s.Step], s)
	}
	for i, name := range order {
		if i > 0 {
			fmt.Fprintln(w)
		}
		rows := byStep[name]
		cols, legend := columnsFor(rows[0])
		for _, r := range rows {
			if r.Server != "" {
				cols = append(cols[:len(cols):len(cols)], serverColumns...)
				break
			}
		}
		fmt.Fprintf(w, "== %s (%s)\n", name, legend)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		for i, c := range cols {
			if i > 0 {
				fmt.Fprint(tw, "\t")
			}
			fmt.Fprint(tw, c.head)
		}
		fmt.Fprintln(tw, "\t")
		for _, s := range rows {
			for i, c := range cols {
				if i > 0 {
					fmt.Fprint(tw, "\t")
				}
				fmt.Fprint(tw, c.cell(s))
			}
			fmt.Fprintln(tw, "\t")
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if err := latencyTable(w, rows); err != nil {
			return err
		}
		if err := syscallTable(w, rows); err != nil {
			return err
		}
	}
	return nil
}

// latencyTable writes the response-time percentiles (ms) of every operation kind of a step.
func latencyTable(w io.Writer, rows []*results.Step) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "target\top\tcount\tp50_ms\tp90_ms\tp99_ms\tp99.9_ms\tmax_ms\t")
	ms := func(us float64) string { return num(us / 1e3) }
	for _, s := range rows {
		for _, l := range s.Latency {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t\n", s.Target, l.Kind, l.Count,
				ms(l.P50Us), ms(l.P90Us), ms(l.P99Us), ms(l.P999Us), ms(l.MaxUs))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range rows {
		if s.Error != "" {
			fmt.Fprintf(w, "  %s error: %s\n", s.Target, s.Error)
		}
	}
	return nil
}
