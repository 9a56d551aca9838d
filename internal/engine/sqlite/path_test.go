package sqlite

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/engine/sqlfam"
)

// TestDirWithURIOptions: a data directory whose name a SQLite URI would read as options
// (mode=memory) or a fragment holds the database file all the same.
func TestDirWithURIOptions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d?mode=memory&x=%41#f")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	eng, err := open(context.Background(), engine.Options{Dir: dir, CacheBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if _, err := os.Stat(filepath.Join(dir, "sqlite.db")); err != nil {
		t.Errorf("no database file in the data directory: %v", err)
	}
}

// TestMemoryShare: under a cap, SQLite's soft heap limit (process-wide, every connection's
// cache) is the engine's share, and the manifest's options say so; without one it is unset.
func TestMemoryShare(t *testing.T) {
	defer func() { // the limit is the process's: later tests run without it
		db, _ := sql.Open("sqlite3", ":memory:")
		db.Exec("PRAGMA soft_heap_limit=0")
		db.Close()
	}()
	for _, memory := range []int64{0, 48 << 20} {
		eng, err := open(context.Background(), engine.Options{Dir: t.TempDir(), CacheBytes: 8 << 20, MemoryBytes: memory})
		if err != nil {
			t.Fatal(err)
		}
		var limit int64
		if err := eng.(*sqlfam.Engine).DB().QueryRow("PRAGMA soft_heap_limit").Scan(&limit); err != nil {
			t.Fatal(err)
		}
		if limit != memory {
			t.Errorf("memory %d: soft_heap_limit %d", memory, limit)
		}
		if got, want := eng.Info().Options["soft_heap_limit_mb"], map[int64]string{48 << 20: "48 (all connections, --memory-limit)"}[memory]; got != want {
			t.Errorf("memory %d: option soft_heap_limit_mb %q, want %q", memory, got, want)
		}
		eng.Close()
	}
}
