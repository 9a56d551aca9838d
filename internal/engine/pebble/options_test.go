package pebble

import (
	"strings"
	"testing"
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
