package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/rumbench/rumbench/internal/results"
)

// syscallTable writes a step's sync accounting (--syscalls), when any target has it: syncs per
// commit from the hooks by file class, next to the device's flushes and the server's fsyncs per
// commit, log and data bytes per op, the mean sync time and the injected delay. A "!" in the
// check column marks a shortfall against another source; "incomplete" marks hooks that cannot
// see every path. The reasons follow the table.
func syscallTable(w io.Writer, rows []*results.Step) error {
	any := false
	for _, s := range rows {
		any = any || s.Syscalls != nil
	}
	if !any {
		return nil
	}
	fmt.Fprintln(w, "syncs per commit (hooks by file class; device flushes; server fsyncs), bytes per op:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "target\tsource\tcommits\tsync/c\tlog/c\tdata/c\tother/c\tdev_fl/c\tsrv_fs/c\tlogB/op\tdataB/op\tsync_us\tdelay_s\tcheck\t")
	opt := func(v float64) string {
		if v < 0 {
			return "-"
		}
		return num(v)
	}
	var notes []string
	for _, s := range rows {
		x := s.Syscalls
		if x == nil {
			continue
		}
		check := "ok"
		switch {
		case x.Source == "none":
			check = "not counted"
		case len(x.Disagree) > 0:
			check = "!"
		case !x.Complete:
			check = "incomplete"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", s.Target, x.Source, x.Commits,
			num(x.SyncsPerCommit), num(x.LogSyncsPerCommit), num(x.DataSyncsPerCommit), num(x.OtherSyncsPerCommit),
			opt(x.DeviceFlushesPerCommit), opt(x.ServerFsyncsPerCommit), num(x.LogBytesPerOp), num(x.DataBytesPerOp),
			num(x.SyncUs), num(x.DelaySecs), check)
		if x.Note != "" {
			notes = append(notes, s.Target+": "+x.Note)
		}
		for _, d := range x.Disagree {
			notes = append(notes, s.Target+": ! "+d)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintln(w, "  "+n)
	}
	return nil
}
