package synctest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/bench"
	_ "github.com/rumbench/rumbench/internal/engine/all"
	"github.com/rumbench/rumbench/internal/report"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/syncacct"
	"github.com/rumbench/rumbench/internal/workload/insert"
)

// commits is the number of one-row insert transactions each case runs: enough for the per-commit
// figures to settle, few enough for a fast test.
const commits = 300

// runLoad runs l.i0 with one row per commit on the targets and returns the step records.
func runLoad(t *testing.T, acct syncacct.Config, targets ...results.Target) []results.Step {
	t.Helper()
	root := t.TempDir()
	os.Chmod(filepath.Dir(root), 0o755) // a server's OS user must traverse it when running as root
	os.Chmod(root, 0o755)
	wl, err := insert.New(insert.Config{Clients: 1, Rows: commits, RowsPerCommit: 1, QuerySecs: 1, Steps: "l.i0"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	out, err := bench.Run(context.Background(), bench.Config{
		Workload: wl, Targets: targets, CacheMB: 16, Repeat: 1, Sync: true, SyncAcct: acct,
		DataDir: filepath.Join(root, "data"), Out: filepath.Join(root, "out"), RunID: "t", Label: "t",
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Steps) != len(targets) {
		t.Fatalf("%d step records, want %d", len(out.Steps), len(targets))
	}
	var buf bytes.Buffer
	if err := report.Text(&buf, out.Steps, report.Wide); err != nil {
		t.Fatal(err)
	}
	t.Logf("report:\n%s", buf.String())
	if !strings.Contains(buf.String(), "syncs per commit") {
		t.Error("the text report has no sync accounting table")
	}
	return out.Steps
}

func within(t *testing.T, what string, got, lo, hi float64) {
	t.Helper()
	if got < lo || got > hi {
		t.Errorf("%s = %.3f, want %.2f..%.2f", what, got, lo, hi)
	}
}

func figures(t *testing.T, s results.Step) *results.Syscalls {
	t.Helper()
	if s.Syscalls == nil {
		t.Fatalf("%s: no syscalls figures", s.Target)
	}
	if s.Syscalls.Commits != commits {
		t.Errorf("%s: commits = %d, want %d (one per insert statement)", s.Target, s.Syscalls.Commits, commits)
	}
	return s.Syscalls
}

// SQLite with synchronous=FULL: rollback journal about 4 syncs per commit (journal 2, database 1,
// directory 1), WAL about 1.
func TestSQLiteJournalModes(t *testing.T) {
	steps := runLoad(t, syncacct.Config{Enabled: true},
		results.NewTarget("delete", "sqlite", map[string]string{"journal_mode": "delete"}),
		results.NewTarget("wal", "sqlite", map[string]string{"journal_mode": "wal"}))
	del, wal := figures(t, steps[0]), figures(t, steps[1])
	within(t, "delete syncs/commit", del.SyncsPerCommit, 3.9, 4.2)
	within(t, "delete log syncs/commit", del.LogSyncsPerCommit, 1.95, 2.1)
	within(t, "delete data syncs/commit", del.DataSyncsPerCommit, 0.95, 1.05)
	within(t, "delete other (directory) syncs/commit", del.OtherSyncsPerCommit, 0.95, 1.05)
	within(t, "wal syncs/commit", wal.SyncsPerCommit, 0.95, 1.15)
	within(t, "wal log syncs/commit", wal.LogSyncsPerCommit, 0.95, 1.15)
	for _, x := range []*results.Syscalls{del, wal} {
		if x.Source != "inprocess" || !x.Complete || x.LogBytesPerOp <= 0 {
			t.Errorf("source %q complete %v log bytes/op %g: want inprocess, complete, > 0", x.Source, x.Complete, x.LogBytesPerOp)
		}
	}
}

// The injected latency is slept once per sync: the delay is syncs × latency (a sleep lasts at
// least its duration), and it is recorded in the step.
func TestInjectedLatency(t *testing.T) {
	lat := time.Millisecond
	steps := runLoad(t, syncacct.Config{Enabled: true, Latency: lat},
		results.NewTarget("sqlite", "sqlite", map[string]string{"journal_mode": "wal"}),
		results.NewTarget("pebble", "pebble", nil))
	for _, s := range steps {
		x := figures(t, s)
		if x.InjectedLatencyUs != 1000 {
			t.Errorf("%s: injected_latency_us = %g, want 1000", s.Target, x.InjectedLatencyUs)
		}
		// Slept delays: a loaded host lengthens them, so the ceiling (200 times) only catches a
		// wrong unit.
		if min := float64(x.Syncs) * lat.Seconds(); x.DelaySecs < min || x.DelaySecs > 200*min {
			t.Errorf("%s: delay %.3fs for %d syncs, want at least %.3fs", s.Target, x.DelaySecs, x.Syncs, min)
		}
		within(t, s.Target+" syncs/commit", x.SyncsPerCommit, 0.95, 1.2)
		within(t, s.Target+" log syncs/commit", x.LogSyncsPerCommit, 0.95, 1.1)
	}
}

// LMDB's C code is compiled into rumbench as SQLite's is, so the same in-process hooks count
// it: two syncs of the data file per commit (the pages, then the meta page), the latency injected
// into both.
func TestLMDBInProcess(t *testing.T) {
	lat := time.Millisecond
	steps := runLoad(t, syncacct.Config{Enabled: true, Latency: lat}, results.NewTarget("lmdb", "lmdb", nil))
	x := figures(t, steps[0])
	if x.Source != "inprocess" || !x.Complete {
		t.Errorf("lmdb: source %q complete %v", x.Source, x.Complete)
	}
	within(t, "lmdb syncs/commit", x.SyncsPerCommit, 1.95, 2.1)
	within(t, "lmdb data syncs/commit", x.DataSyncsPerCommit, 1.95, 2.1)
	if x.DataBytesPerOp <= 0 || x.LogSyncsPerCommit != 0 {
		t.Errorf("lmdb: data bytes/op %g, log syncs/commit %g", x.DataBytesPerOp, x.LogSyncsPerCommit)
	}
	if min := float64(x.Syncs) * lat.Seconds(); x.DelaySecs < min {
		t.Errorf("lmdb: delay %.3fs for %d syncs", x.DelaySecs, x.Syncs)
	}
}

// bbolt cannot be counted: the figures say so instead of reporting zeros as if measured.
func TestBboltNotCounted(t *testing.T) {
	steps := runLoad(t, syncacct.Config{Enabled: true}, results.NewTarget("bbolt", "bbolt", nil))
	x := figures(t, steps[0])
	if x.Source != "none" || x.Complete || !strings.Contains(x.Note, "Go system calls") {
		t.Errorf("bbolt: source %q complete %v note %q; want none, incomplete, a note", x.Source, x.Complete, x.Note)
	}
}

// MariaDB with the binlog and sync_binlog=1 syncs the binlog and the redo log at each commit
// (2 syncs), without the binlog only the redo log (1). The --server-config file turns the binlog
// on over rumbench's skip-log-bin.
func TestMariaDBBinlog(t *testing.T) {
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	on, off := filepath.Join(dir, "binlog.cnf"), filepath.Join(dir, "nobinlog.cnf")
	os.WriteFile(on, []byte("[mysqld]\nlog_bin = binlog\nsync_binlog = 1\n"), 0o644)
	os.WriteFile(off, []byte("[mysqld]\nskip-log-bin\n"), 0o644)
	steps := runLoad(t, syncacct.Config{Enabled: true},
		results.NewTarget("binlog", "mysql", map[string]string{"server_config": on}),
		results.NewTarget("nobinlog", "mysql", map[string]string{"server_config": off}))
	bin, nob := figures(t, steps[0]), figures(t, steps[1])
	within(t, "binlog syncs/commit", bin.SyncsPerCommit, 1.95, 2.2)
	within(t, "binlog log syncs/commit", bin.LogSyncsPerCommit, 1.95, 2.1)
	within(t, "no binlog syncs/commit", nob.SyncsPerCommit, 0.95, 1.2)
	within(t, "no binlog log syncs/commit", nob.LogSyncsPerCommit, 0.95, 1.05)
	// The server's own counters (InnoDB log and data fsyncs) do not count the binlog's syncs.
	within(t, "no binlog server fsyncs/commit", nob.ServerFsyncsPerCommit, 0.95, 1.2)
	for _, x := range []*results.Syscalls{bin, nob} {
		if x.Source != "preload" || x.Complete || len(x.Disagree) > 0 && strings.Contains(x.Disagree[0], "server") {
			t.Errorf("source %q complete %v disagree %v: want preload, incomplete (InnoDB async I/O), agreeing with the server", x.Source, x.Complete, x.Disagree)
		}
	}
}

// PostgreSQL syncs its WAL once per commit with one client; the hooks agree with pg_stat_wal.
// With wal_sync_method=open_datasync the WAL is opened O_DSYNC: its writes are the syncs.
func TestPostgresWAL(t *testing.T) {
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	dsync := filepath.Join(dir, "dsync.conf")
	os.WriteFile(dsync, []byte("wal_sync_method = open_datasync\n"), 0o644)
	steps := runLoad(t, syncacct.Config{Enabled: true}, results.NewTarget("postgres", "postgres", nil),
		results.NewTarget("postgres:dsync", "postgres", map[string]string{"server_config": dsync}))
	d := figures(t, steps[1])
	within(t, "open_datasync: syncs/commit", d.SyncsPerCommit, 0.95, 1.3)
	within(t, "open_datasync: O_DSYNC writes/commit", float64(d.DsyncWrites)/commits, 0.95, 1.3)
	if d.Fdatasyncs > commits/10 {
		t.Errorf("open_datasync: %d fdatasync calls, want almost none", d.Fdatasyncs)
	}
	x := figures(t, steps[0])
	within(t, "syncs/commit", x.SyncsPerCommit, 0.95, 1.2)
	within(t, "log syncs/commit", x.LogSyncsPerCommit, 0.95, 1.1)
	if x.ServerFsyncsPerCommit < 0 || len(x.Disagree) > 0 && strings.Contains(x.Disagree[0], "server") {
		t.Errorf("server fsyncs/commit %g, disagree %v: want the server's count, in agreement", x.ServerFsyncsPerCommit, x.Disagree)
	}
	// A commit rewrites the WAL page it ends in: at least one 8 KiB page per commit.
	if x.LogBytesPerOp < 8192 {
		t.Errorf("log bytes/op = %g, want >= 8192", x.LogBytesPerOp)
	}
}
