package cshim

import (
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unsafe"

	_ "github.com/mattn/go-sqlite3"

	"github.com/rumbench/rumbench/internal/syncacct"
)

// sqliteCommits runs n autocommit inserts on a fresh SQLite database in dir with the journal
// mode and synchronous=FULL, and returns the counter deltas over the inserts.
func sqliteCommits(t *testing.T, dir, journal string, n int, latency time.Duration) (syncacct.Sample, time.Duration) {
	t.Helper()
	ip, err := StartInProcess(dir, syncacct.SQLitePatterns, latency)
	if err != nil {
		t.Fatal(err)
	}
	defer ip.Stop()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "t.db")+"?_journal_mode="+journal+"&_synchronous=full")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB)"); err != nil {
		t.Fatal(err)
	}
	var a, b syncacct.Sample
	ip.Read(&a)
	t0 := time.Now()
	for i := 0; i < n; i++ {
		if _, err := db.Exec("INSERT INTO t VALUES (?, randomblob(100))", i); err != nil {
			t.Fatal(err)
		}
	}
	el := time.Since(t0)
	ip.Read(&b)
	return diff(&b, &a), el
}

func diff(b, a *syncacct.Sample) syncacct.Sample { return b.Sub(*a) }

func perCommit(c syncacct.Counts, n int) float64 { return float64(c.Syncs()) / float64(n) }

// SQLite with synchronous=FULL: a rollback-journal commit syncs the journal twice, its
// directory once and the database once; a WAL commit syncs the WAL once.
func TestInProcessSQLiteJournalModes(t *testing.T) {
	const n = 100
	del, _ := sqliteCommits(t, t.TempDir(), "delete", n, 0)
	wal, _ := sqliteCommits(t, t.TempDir(), "wal", n, 0)
	t.Logf("delete: log %+v data %+v other %+v", del.Class[0], del.Class[1], del.Class[2])
	t.Logf("wal:    log %+v data %+v other %+v", wal.Class[0], wal.Class[1], wal.Class[2])
	check := func(what string, got, lo, hi float64) {
		t.Helper()
		if got < lo || got > hi {
			t.Errorf("%s = %.2f, want %.2f..%.2f", what, got, lo, hi)
		}
	}
	check("delete: syncs/commit", perCommit(del.Total(), n), 3.9, 4.1)
	check("delete: log syncs/commit", perCommit(del.Class[syncacct.Log], n), 1.95, 2.05)
	check("delete: data syncs/commit", perCommit(del.Class[syncacct.Data], n), 0.95, 1.05)
	check("delete: other (directory) syncs/commit", perCommit(del.Class[syncacct.Other], n), 0.95, 1.05)
	check("wal: syncs/commit", perCommit(wal.Total(), n), 0.95, 1.1)
	check("wal: log syncs/commit", perCommit(wal.Class[syncacct.Log], n), 0.95, 1.1)
	// Every commit writes at least a page to the WAL (4 KiB plus a 24-byte frame header).
	check("wal: log bytes/commit", float64(wal.Class[syncacct.Log].WriteBytes)/n, 4096, 3*4120)
	if wal.Class[syncacct.Data].WriteBytes != 0 {
		t.Errorf("wal: %d bytes written to the database file between checkpoints, want 0", wal.Class[syncacct.Data].WriteBytes)
	}
}

// The injected latency is slept once per sync and recorded: 4 syncs per delete-mode commit.
func TestInProcessLatency(t *testing.T) {
	const n = 20
	lat := 2 * time.Millisecond
	d, el := sqliteCommits(t, t.TempDir(), "delete", n, lat)
	tot := d.Total()
	if min := time.Duration(tot.Syncs()) * lat; time.Duration(tot.DelayNs) < min {
		t.Errorf("delay %v for %d syncs, want at least %v", time.Duration(tot.DelayNs), tot.Syncs(), min)
	}
	if el < time.Duration(tot.DelayNs) {
		t.Errorf("inserts took %v, less than the %v injected", el, time.Duration(tot.DelayNs))
	}
}

func TestInProcessFilesOutsideRoot(t *testing.T) {
	root, other := t.TempDir(), t.TempDir()
	ip, err := StartInProcess(root, syncacct.SQLitePatterns, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := StartInProcess(root, syncacct.SQLitePatterns, 0); err == nil {
		t.Error("a second in-process session started while one is active")
	}
	ip.Stop()
	// After Stop, nothing is counted.
	d, _ := sqliteCommits(t, other, "wal", 5, 0)
	if d.Total().Syncs() == 0 {
		t.Fatal("no syncs counted under the root")
	}
	ip, _ = StartInProcess(root, syncacct.SQLitePatterns, 0)
	var a, b syncacct.Sample
	ip.Read(&a)
	db, _ := sql.Open("sqlite3", "file:"+filepath.Join(other, "x.db")+"?_journal_mode=wal&_synchronous=full")
	db.Exec("CREATE TABLE t (k INTEGER PRIMARY KEY)")
	db.Close()
	ip.Read(&b)
	ip.Stop()
	if got := diff(&b, &a).Total(); got.Syncs() != 0 || got.WriteBytes != 0 {
		t.Errorf("files outside the root were counted: %+v", got)
	}
}

// The preloaded library in a dynamically linked C program (dd): O_DSYNC writes, fdatasync and
// bytes, per class, counted across the processes of a shell pipeline.
func TestPreloadDD(t *testing.T) {
	if _, err := exec.LookPath("dd"); err != nil {
		t.Skip("dd not installed")
	}
	root := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	pl, err := NewPreload(root, syncacct.Patterns{Log: []string{"*.log"}, Data: []string{"*.dat"}}, time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer pl.Close()
	script := fmt.Sprintf(`dd if=/dev/zero of=%[1]s/a.log bs=4096 count=10 oflag=dsync 2>/dev/null &&
dd if=/dev/zero of=%[1]s/b.dat bs=1000 count=7 conv=fdatasync 2>/dev/null &&
dd if=/dev/zero of=%[1]s/c.txt bs=100 count=3 conv=fsync 2>/dev/null &&
dd if=/dev/zero of=%[2]s/outside.log bs=100 count=3 conv=fsync 2>/dev/null`, root, t.TempDir())
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Env = append(os.Environ(), pl.Env()...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if words := (*[2]uint64)(unsafe.Pointer(&pl.mem[0])); words[0] != syncacct.Magic || words[1] != syncacct.Version {
		t.Errorf("counter file header %x %d, want the magic %x and version %d (C and Go layouts differ)", words[0], words[1], uint64(syncacct.Magic), syncacct.Version)
	}
	var s syncacct.Sample
	pl.Read(&s)
	lg, dt, ot := s.Class[syncacct.Log], s.Class[syncacct.Data], s.Class[syncacct.Other]
	if s.Attached < 4 {
		t.Errorf("attached = %d, want >= 4 (sh and 4 dd processes)", s.Attached)
	}
	if lg.DsyncWrites != 10 || lg.Writes != 10 || lg.WriteBytes != 40960 {
		t.Errorf("log: %+v, want 10 O_DSYNC writes of 4096 bytes", lg)
	}
	if dt.Fdatasync != 1 || dt.WriteBytes != 7000 || dt.Syncs() != 1 {
		t.Errorf("data: %+v, want 1 fdatasync and 7000 bytes", dt)
	}
	if ot.Fsync != 1 || ot.WriteBytes != 300 {
		t.Errorf("other: %+v, want 1 fsync and 300 bytes (outside.log is outside the root)", ot)
	}
	// The delays are slept, so a loaded host makes them longer, never shorter: the ceiling (100
	// times) only catches a wrong unit or a delay counted many times over.
	want := 12 * time.Millisecond // 10 + 1 + 1 syncs
	if got := time.Duration(lg.DelayNs + dt.DelayNs + ot.DelayNs); got < want || got > 100*want {
		t.Errorf("injected delay %v, want about %v", got, want)
	}
}

// Without a prebuilt library, Library compiles the embedded source into the user cache once.
func TestLibraryCompilesEmbeddedSource(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not installed")
	}
	cache := t.TempDir()
	t.Setenv(LibraryEnv, "")
	t.Setenv("XDG_CACHE_HOME", cache)
	p, err := Library()
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(p) != filepath.Join(cache, "rumbench") || !strings.HasPrefix(filepath.Base(p), "librumsync-") {
		t.Errorf("library at %s, want a hashed name in %s/rumbench", p, cache)
	}
	st1, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := Library()
	st2, _ := os.Stat(p2)
	if err != nil || p2 != p || !st2.ModTime().Equal(st1.ModTime()) {
		t.Errorf("second call: %s %v, want the cached %s unchanged", p2, err, p)
	}
	t.Setenv(LibraryEnv, filepath.Join(cache, "missing.so"))
	if _, err := Library(); err == nil || !strings.Contains(err.Error(), LibraryEnv) {
		t.Errorf("a missing $%s: error %v, want one naming it", LibraryEnv, err)
	}
}
