package runner

import (
	"fmt"

	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/syncacct"
	"github.com/rumbench/rumbench/internal/table"
)

// Cross-check of the hooks' syncs per commit. Against the server's own fsync counter: a
// shortfall beyond serverTolerance (relative) plus absTolerance. Against the device's flushes,
// which are system-wide (other tenants flush too) and legitimately exceed the syncs (an fsync
// that extends a file also commits the file system journal): only when the hooks see almost no
// syncs (below deviceNone per commit) while the device flushes at least deviceMin per commit.
const (
	serverTolerance = 0.25
	absTolerance    = 0.05
	deviceNone      = 0.1
	deviceMin       = 0.5
)

// takeAcct reads the engine's sync accounting into s, when it has it on.
func takeAcct(e table.Engine, s *snapshot) {
	s.acctOK = false
	if r, ok := e.(syncacct.Reporter); ok && r.SyncCoverage().Source != "" {
		s.acctOK = r.SyncSample(&s.acct) == nil
	}
}

// commitCount is the step's write transactions: what the workload recorded with Meter.Commit,
// else the calls of its write and delete kinds (one transaction each in the insert benchmark).
func (c *collector) commitCount(a, b *snapshot) int64 {
	if n := b.commits - a.commits; n > 0 {
		return n
	}
	var n int64
	for k, kd := range c.st.Kinds {
		if kd.Role == results.RoleWrite || kd.Role == results.RoleDelete {
			n += b.kinds[k].ops - a.kinds[k].ops
		}
	}
	return n
}

// syscallFigures fills r.Syscalls from the accounting samples of the window [a, b].
func (c *collector) syscallFigures(r *results.Step, a, b *snapshot, ops float64) {
	if !a.acctOK || !b.acctOK {
		return
	}
	rep := c.tgt.Engine.(syncacct.Reporter)
	cov := rep.SyncCoverage()
	d := b.acct.Sub(a.acct)
	t := d.Total()
	commits := c.commitCount(a, b)
	cm := float64(commits)
	sc := &results.Syscalls{
		Source: cov.Source, Complete: cov.Complete, Note: cov.Note,
		InjectedLatencyUs: float64(c.tgt.SyncLatency.Nanoseconds()) / 1e3,
		Commits:           commits,
		Syncs:             int64(t.Syncs()), Fsyncs: int64(t.Fsync), Fdatasyncs: int64(t.Fdatasync),
		SyncFileRanges: int64(t.SyncFileRange), Msyncs: int64(t.Msync), Syncfs: int64(t.Syncfs + t.Sync),
		DsyncWrites: int64(t.DsyncWrites), WriteCalls: int64(t.Writes),
		LogBytes:               int64(d.Class[syncacct.Log].WriteBytes),
		DataBytes:              int64(d.Class[syncacct.Data].WriteBytes),
		OtherBytes:             int64(d.Class[syncacct.Other].WriteBytes),
		SyncUs:                 per(float64(t.SyncNs)/1e3, float64(t.Syncs())),
		DelaySecs:              float64(t.DelayNs) / 1e9,
		DeviceFlushesPerCommit: -1, ServerFsyncsPerCommit: -1,
	}
	sc.SyncsPerCommit = per(float64(sc.Syncs), cm)
	sc.LogSyncsPerCommit = per(float64(d.Class[syncacct.Log].Syncs()), cm)
	sc.DataSyncsPerCommit = per(float64(d.Class[syncacct.Data].Syncs()), cm)
	sc.OtherSyncsPerCommit = per(float64(d.Class[syncacct.Other].Syncs()), cm)
	sc.LogBytesPerOp = per(float64(sc.LogBytes), ops)
	sc.DataBytesPerOp = per(float64(sc.DataBytes), ops)
	sc.LogBytesPerCommit = per(float64(sc.LogBytes), cm)
	if r.Device != "" && a.sys.DiskOK && b.sys.DiskOK {
		sc.DeviceFlushesPerCommit = per(float64(b.sys.Disk.FlushIOs-a.sys.Disk.FlushIOs), cm)
	}
	if a.srvOK && b.srvOK && a.srv.Fsyncs >= 0 && b.srv.Fsyncs >= 0 {
		sc.ServerFsyncsPerCommit = per(float64(b.srv.Fsyncs-a.srv.Fsyncs), cm)
	}
	sc.Disagree = disagreements(sc)
	r.Syscalls = sc
}

// disagreements lists the sources whose syncs per commit the hooks fall short of.
func disagreements(sc *results.Syscalls) []string {
	if sc.Commits <= 0 || sc.Source == "none" {
		return nil
	}
	var out []string
	if s := sc.ServerFsyncsPerCommit; s >= 0 && sc.SyncsPerCommit < s*(1-serverTolerance)-absTolerance {
		out = append(out, fmt.Sprintf("server reports %.3g fsyncs/commit, hooks saw %.3g", s, sc.SyncsPerCommit))
	}
	if f := sc.DeviceFlushesPerCommit; f >= deviceMin && sc.SyncsPerCommit < deviceNone {
		out = append(out, fmt.Sprintf("device flushed %.3g times/commit, hooks saw %.3g syncs", f, sc.SyncsPerCommit))
	}
	return out
}
