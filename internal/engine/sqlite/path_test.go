package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rumbench/rumbench/internal/engine"
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
