package pebble

import (
	"context"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/engine"
)

// TestOptionBounds: an option outside the range pebble can open with is refused with its name
// and the range, before anything opens.
func TestOptionBounds(t *testing.T) {
	for _, c := range []struct{ key, value, want string }{
		{"memtable_mb", "0", "memtable_mb=0: must be 1..4095"},
		{"memtable_mb", "99999999999", "memtable_mb=99999999999: must be 1..4095"},
		{"l0_compaction_threshold", "13", "l0_compaction_threshold=13: must be 1..12"},
		{"compaction_concurrency", "100000", "compaction_concurrency=100000: must be 1..1024"},
		{"bloom_bits", "100000", "bloom_bits=100000: must be 0..100"},
		{"bloom_bits", "-1", "bloom_bits=-1: must be 0..100"},
	} {
		_, err := parse(map[string]string{c.key: c.value})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s=%s: %v, want %q", c.key, c.value, err, c.want)
		}
	}
	if _, err := parse(map[string]string{"memtable_mb": "4095", "l0_compaction_threshold": "12", "bloom_bits": "0"}); err != nil {
		t.Errorf("the bounds themselves: %v", err)
	}
}

// TestMemtablesUnderCap: under a cap the two memtables take what the engine's share leaves
// beside the cache (at most the default); without one, or given, memtable_mb is as it was.
func TestMemtablesUnderCap(t *testing.T) {
	for _, c := range []struct {
		memory int64
		extra  map[string]string
		want   string
	}{
		{0, nil, "64"},
		{128 << 20, nil, "48"}, // the iobound profile: a 256 MiB cap, 32 MiB of cache
		{8 << 30, nil, "64"},
		{128 << 20, map[string]string{"memtable_mb": "64"}, "64"},
	} {
		eng, err := open(context.Background(), engine.Options{Dir: t.TempDir(), CacheBytes: 32 << 20, MemoryBytes: c.memory, Extra: c.extra})
		if err != nil {
			t.Fatal(err)
		}
		if got := eng.Info().Options["memtable_mb"]; got != c.want {
			t.Errorf("memory %d, options %v: memtable_mb %s, want %s", c.memory, c.extra, got, c.want)
		}
		eng.Close()
	}
}
