package report

import (
	"fmt"

	"github.com/rumbench/rumbench/internal/results"
)

// FaultTable renders the faults injected into the runs' steps (rumbench run --fault) and the
// acknowledged writes checked after them: a row per fault, the step's check on its last (a
// repeated run's target labelled "target #N"); nil when no step of the runs had a fault.
func FaultTable(runs []*results.Run) *Table {
	var steps []*results.Step
	for _, r := range runs {
		for i := range r.Steps {
			steps = append(steps, &r.Steps[i])
		}
	}
	return faultTable(steps)
}

// faultTable is FaultTable of steps.
func faultTable(steps []*results.Step) *Table {
	t := &Table{Title: "faults", Kind: Plain,
		Note: "unavail: first failure to first success after it; recover: until the per-second rate is back to 90% of its median over the 30 s before; lost: acknowledged writes not found after the step",
		Columns: []Column{{Name: "target"}, {Name: "step"}, {Name: "fault"}, {Name: "at", Unit: "s"},
			{Name: "unavail", Unit: "s"}, {Name: "recover", Unit: "s"}, {Name: "failed", Unit: "ops"}, {Name: "unknown", Unit: "ops"},
			{Name: "ready", Unit: "s", Meaning: "the server's start after a kill or restart: its crash recovery"},
			{Name: "p99_rec", Unit: "µs", Meaning: "p99 response time from the fault to the recovery"},
			{Name: "acked", Unit: "writes"}, {Name: "lost", Unit: "writes"}}}
	{
		for _, s := range steps {
			for j := range s.Faults {
				f := &s.Faults[j]
				name := f.Kind
				if f.ForSecs > 0 {
					name += fmt.Sprintf("+%gs", f.ForSecs)
				}
				if f.Node != "" {
					name += ":" + f.Node
				}
				row := []Cell{TextCell(repLabel(s.Target, s.Rep)), TextCell(s.Step), TextCell(name), NumCell(f.AtSecs), NumCell(f.UnavailSecs)}
				switch {
				case f.RecoverSecs != nil:
					row = append(row, NumCell(*f.RecoverSecs))
				case f.Unrecovered:
					row = append(row, TextCell("not by the end"))
				default:
					row = append(row, MissingCell())
				}
				row = append(row, IntCell(f.Failed), IntCell(f.Unknown))
				if f.ServerReadySecs > 0 {
					row = append(row, NumCell(f.ServerReadySecs))
				} else {
					row = append(row, MissingCell())
				}
				if f.RecoveryP99Us > 0 {
					row = append(row, NumCell(f.RecoveryP99Us))
				} else {
					row = append(row, MissingCell())
				}
				row = append(row, ackCells(s.AckCheck, j == len(s.Faults)-1)...)
				t.Rows = append(t.Rows, row)
				if f.Error != "" {
					t.Footer = append(t.Footer, fmt.Sprintf("%s %s %s: %s", repLabel(s.Target, s.Rep), s.Step, f.Kind, f.Error))
				}
			}
			if a := s.AckCheck; a != nil && len(s.Faults) > 0 {
				t.Footer = append(t.Footer, fmt.Sprintf("%s %s: acknowledged writes: %s", repLabel(s.Target, s.Rep), s.Step, a.How))
			}
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return t
}

// ackCells are the acked and lost cells of a step's check, on its last fault's row (last).
func ackCells(a *results.AckCheck, last bool) []Cell {
	if a == nil || !last {
		return []Cell{MissingCell(), MissingCell()}
	}
	lost := MissingCell()
	if a.Checked {
		lost = IntCell(a.Lost)
	}
	return []Cell{IntCell(a.Acknowledged), lost}
}

// faultMarks are a per-second chart's vertical lines at the faults of step of target (its
// repetition rep) among steps (ECharts markLine), nil when none: the throughput and the max
// response time charts draw them.
func faultMarks(steps []results.Step, step, target string, rep int) map[string]any {
	var data []map[string]any
	for i := range steps {
		s := &steps[i]
		if s.Step != step || s.Target != target || s.Rep != rep {
			continue
		}
		for _, f := range s.Faults {
			data = append(data, map[string]any{"xAxis": round3(f.AtSecs), "name": f.Kind})
		}
	}
	if data == nil {
		return nil
	}
	return map[string]any{"symbol": "none", "silent": true, "data": data,
		"label": map[string]any{"formatter": "{b}"}, "lineStyle": map[string]any{"type": "dashed", "color": "#c00"}}
}
