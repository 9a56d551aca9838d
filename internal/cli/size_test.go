package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/sysstat"
)

// TestSizeIsData loads a few rows into pebble, sqlite and bbolt with --keep-data and checks the
// space figures against the data directory: log_bytes is the engine's log files (pebble's WAL,
// SQLite's -wal; bbolt has none), db_bytes the rest (the directory's tables, as they are after
// the run), bytes_per_row db_bytes per row; each write step settled (a memtable flush for
// pebble, a WAL checkpoint for SQLite) and says so.
func TestSizeIsData(t *testing.T) {
	out, data, d := dirs(t)
	tr := run(t, nil, append([]string{"run", "--engine", "pebble,sqlite,bbolt", "--steps", "l.i0", "--rows", "20000",
		"--keep-data", "--quiet", "--store", "none"}, d...)...)
	if tr.code != 0 {
		t.Fatalf("exit %d: %s", tr.code, tr.stderr)
	}
	_, m, steps := readRun(t, out)
	logs := map[string][]string{}
	for _, tg := range m.Targets {
		logs[tg.Label] = tg.Engine.LogFiles
	}
	settled := map[string]string{"pebble": "memtable flush; syncfs", "sqlite": "wal_checkpoint(PASSIVE)", "bbolt": "syncfs"}
	for _, s := range steps {
		u, err := sysstat.DirUsageOf(filepath.Join(data, s.Target), logs[s.Target])
		if err != nil {
			t.Fatal(err)
		}
		// Closing the engine writes its logs (pebble) or removes them (SQLite's WAL), but the
		// tables of a settled step stay as they were.
		if s.DBBytes != u.Allocated-u.LogAllocated {
			t.Errorf("%s: db_bytes %d; the directory now %d of which logs %d: want db_bytes its tables' %d",
				s.Target, s.DBBytes, u.Allocated, u.LogAllocated, u.Allocated-u.LogAllocated)
		}
		if s.Rows != 20000 || s.BytesPerRow != float64(s.DBBytes)/float64(s.Rows) {
			t.Errorf("%s: %d rows, %g bytes per row of %d bytes: want db_bytes / 20000", s.Target, s.Rows, s.BytesPerRow, s.DBBytes)
		}
		if !strings.Contains(s.Settled, settled[s.Target]) || s.SettleSecs <= 0 {
			t.Errorf("%s: settled %q in %gs, want %q", s.Target, s.Settled, s.SettleSecs, settled[s.Target])
		}
	}
	wal, _ := filepath.Glob(filepath.Join(data, "pebble", "*.log"))
	if len(logs["pebble"]) == 0 || len(wal) == 0 || len(logs["bbolt"]) != 0 {
		t.Errorf("log files: pebble %v (WAL files %v), bbolt %v", logs["pebble"], wal, logs["bbolt"])
	}
	for _, s := range steps {
		if (s.Target == "pebble" || s.Target == "sqlite") && s.LogBytes == 0 {
			t.Errorf("%s: no log bytes, though it writes a WAL", s.Target)
		}
		if s.Target == "bbolt" && s.LogBytes != 0 {
			t.Errorf("bbolt: %d log bytes, want 0", s.LogBytes)
		}
	}
	os.RemoveAll(data)
}
