package report

import (
	"bytes"
	"testing"

	"github.com/rumbench/rumbench/internal/results"
)

// syscallSteps are one step on three targets with sync accounting: counted and agreeing, short of
// the server's count, and not counted at all.
func syscallSteps() []results.Step {
	base := func(target string) results.Step {
		return results.Step{Target: target, Engine: target, Step: "l.i0", Status: "ok", Secs: 2, RateKinds: []string{"insert"},
			Ops: 500, IPS: 250, Rows: 500, Device: "vda"}
	}
	sq, my, bb := base("sqlite"), base("mysql"), base("bbolt")
	sq.Syscalls = &results.Syscalls{Source: "inprocess", Complete: true, Commits: 500, Syncs: 2000,
		SyncsPerCommit: 4, LogSyncsPerCommit: 2, DataSyncsPerCommit: 1, OtherSyncsPerCommit: 1,
		LogBytesPerOp: 21126, DataBytesPerOp: 20660, SyncUs: 902, DelaySecs: 2.36,
		DeviceFlushesPerCommit: 4.28, ServerFsyncsPerCommit: -1}
	my.Syscalls = &results.Syscalls{Source: "preload", Note: "InnoDB writes data pages with asynchronous I/O", Commits: 500,
		SyncsPerCommit: 0.5, LogSyncsPerCommit: 0.5, LogBytesPerOp: 4575, SyncUs: 517,
		DeviceFlushesPerCommit: 1.02, ServerFsyncsPerCommit: 1.02,
		Disagree: []string{"server reports 1.02 fsyncs/commit, hooks saw 0.5"}}
	bb.Syscalls = &results.Syscalls{Source: "none", Note: "bbolt syncs with Go system calls", Commits: 500,
		DeviceFlushesPerCommit: 2.2, ServerFsyncsPerCommit: -1}
	return []results.Step{sq, my, bb}
}

func TestSyscallTableGolden(t *testing.T) {
	var b bytes.Buffer
	if err := Text(&b, syscallSteps(), Wide); err != nil {
		t.Fatal(err)
	}
	golden(t, "syscalls.golden", b.Bytes())
	// Without accounting there is no table.
	b.Reset()
	steps := syscallSteps()
	for i := range steps {
		steps[i].Syscalls = nil
	}
	Text(&b, steps, Wide)
	if bytes.Contains(b.Bytes(), []byte("syncs per commit")) {
		t.Error("a syncs-per-commit table without accounting")
	}
}
