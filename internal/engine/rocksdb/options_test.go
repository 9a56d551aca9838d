//go:build rocksdb

package rocksdb

import (
	"context"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/engine"
)

// TestOptionBounds: a size or count past what a run can use is refused with its name and range
// (memtable_mb in bytes overflowed, max_background_jobs asked for that many threads).
func TestOptionBounds(t *testing.T) {
	for _, c := range []struct{ key, value, want string }{
		{"memtable_mb", "9999999999999", "memtable_mb=9999999999999: must be 1..1048576"},
		{"bloom_bits", "1000000", "bloom_bits=1000000: must be 0..100"},
		{"max_background_jobs", "0", "max_background_jobs=0: must be 1..1024"},
	} {
		_, err := parse(map[string]string{c.key: c.value})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s=%s: %v, want %q", c.key, c.value, err, c.want)
		}
	}
}

// TestMemoryUnderCap: under a cap the two memtables take what the engine's share leaves beside
// the cache (at most the default) and the index and filter blocks go in the block cache;
// without one, or with memtable_mb given, the memtables are as they were.
func TestMemoryUnderCap(t *testing.T) {
	for _, c := range []struct {
		memory       int64
		extra        map[string]string
		want, blocks string
	}{
		{0, nil, "64", ""},
		{128 << 20, nil, "48", "in the block cache (--memory-limit)"},
		{128 << 20, map[string]string{"memtable_mb": "64"}, "64", "in the block cache (--memory-limit)"},
	} {
		eng, err := open(context.Background(), engine.Options{Dir: t.TempDir(), CacheBytes: 32 << 20, MemoryBytes: c.memory, Extra: c.extra})
		if err != nil {
			t.Fatal(err)
		}
		o := eng.Info().Options
		if o["memtable_mb"] != c.want || o["index_filter_blocks"] != c.blocks {
			t.Errorf("memory %d, options %v: memtable_mb %q, index_filter_blocks %q; want %q, %q", c.memory, c.extra, o["memtable_mb"], o["index_filter_blocks"], c.want, c.blocks)
		}
		eng.Close()
	}
}
