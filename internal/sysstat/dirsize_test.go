package sysstat

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDirUsageLogs checks that the entries LogFiles match are summed apart and inside the
// totals: a file by base name, a directory with everything below it, a path pattern.
func TestDirUsageLogs(t *testing.T) {
	dir := t.TempDir()
	write := func(rel string, n int) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("000001.sst", 10000)
	write("000002.log", 3000)
	write("pg_wal/000000010000000000000001", 5000)
	write("pg_wal/archive_status/x", 7)
	write("data/ib_logfile0", 2000)
	write("other/ib_logfile0", 11)
	u, err := DirUsageOf(dir, LogFiles{"*.log", "pg_wal", "data/ib_logfile*"})
	if err != nil {
		t.Fatal(err)
	}
	want := int64(3000 + 5000 + 7 + 2000)
	for _, d := range []string{"pg_wal", "pg_wal/archive_status"} { // the directories count too
		fi, err := os.Stat(filepath.Join(dir, d))
		if err != nil {
			t.Fatal(err)
		}
		want += fi.Size()
	}
	if u.LogApparent != want {
		t.Errorf("log apparent %d, want %d (the .log file, pg_wal and all below it, data/ib_logfile0)", u.LogApparent, want)
	}
	all, _, err := DirSize(dir)
	if err != nil || u.Allocated != all || u.LogAllocated <= 0 || u.LogAllocated >= u.Allocated {
		t.Errorf("allocated %d (DirSize %d, %v), log %d: want the log part inside the total", u.Allocated, all, err, u.LogAllocated)
	}
	none, err := DirUsageOf(dir, nil)
	if err != nil || none.LogAllocated != 0 || none.LogApparent != 0 || none.Allocated != u.Allocated {
		t.Errorf("no patterns: %+v, %v", none, err)
	}
}
