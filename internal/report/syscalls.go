package report

import (
	"fmt"

	"github.com/rumbench/rumbench/internal/results"
)

// SyscallTable is a step's sync accounting (--syscalls), nil when no target has it: syncs per
// commit from the hooks by file class, next to the device's flushes and the server's fsyncs per
// commit, log and data bytes per op, the mean sync time and the injected delay. A "!" in the
// check column marks a shortfall against another source; "incomplete" marks hooks that cannot
// see every path. The reasons are the footer.
func SyscallTable(step string, rows []*results.Step) *Table {
	t := &Table{Title: step + ": syncs per commit", Note: "hooks by file class; device flushes; server fsyncs; bytes per op",
		Columns: []Column{{Name: "target"}, {Name: "source"}, {Name: "commits", Unit: "commits"},
			{Name: "sync/c", Unit: "syncs/commit"}, {Name: "log/c", Unit: "syncs/commit"}, {Name: "data/c", Unit: "syncs/commit"},
			{Name: "other/c", Unit: "syncs/commit"}, {Name: "dev_fl/c", Unit: "flushes/commit"}, {Name: "srv_fs/c", Unit: "fsyncs/commit"},
			{Name: "logB/op", Unit: "bytes/op"}, {Name: "dataB/op", Unit: "bytes/op"}, {Name: "sync_us", Unit: "µs"},
			{Name: "delay_s", Unit: "s"}, {Name: "check"}}}
	opt := func(v float64) Cell {
		if v < 0 {
			return MissingCell()
		}
		return NumCell(v)
	}
	for _, s := range rows {
		x := s.Syscalls
		if x == nil {
			continue
		}
		check := TextCell("ok")
		switch {
		case x.Source == "none":
			check = TextCell("not counted")
		case len(x.Disagree) > 0:
			check = TextCell("!")
			check.Flag = "bad"
		case !x.Complete:
			check = TextCell("incomplete")
		}
		who := s.Target
		if s.Rep > 0 {
			who = fmt.Sprintf("%s #%d", s.Target, s.Rep)
		}
		t.Rows = append(t.Rows, []Cell{TextCell(who), TextCell(x.Source), IntCell(x.Commits),
			NumCell(x.SyncsPerCommit), NumCell(x.LogSyncsPerCommit), NumCell(x.DataSyncsPerCommit), NumCell(x.OtherSyncsPerCommit),
			opt(x.DeviceFlushesPerCommit), opt(x.ServerFsyncsPerCommit), NumCell(x.LogBytesPerOp), NumCell(x.DataBytesPerOp),
			NumCell(x.SyncUs), NumCell(x.DelaySecs), check})
		if x.Note != "" {
			t.Footer = append(t.Footer, s.Target+": "+x.Note)
		}
		for _, d := range x.Disagree {
			t.Footer = append(t.Footer, s.Target+": ! "+d)
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return t
}

// stepRows returns the records of step name.
func stepRows(steps []results.Step, name string) []*results.Step {
	var rows []*results.Step
	for i := range steps {
		if steps[i].Step == name {
			rows = append(rows, &steps[i])
		}
	}
	return rows
}
