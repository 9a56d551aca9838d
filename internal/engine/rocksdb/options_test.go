//go:build rocksdb

package rocksdb

import (
	"strings"
	"testing"
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
