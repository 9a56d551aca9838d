package bbolt

import (
	"strings"
	"testing"
)

// TestOptionBounds: initial_mmap_size past bbolt's largest mmap (its size in bytes overflowed)
// and fill_percent out of range are refused.
func TestOptionBounds(t *testing.T) {
	for _, extra := range []map[string]string{
		{"initial_mmap_size": "99999999999999"},
		{"initial_mmap_size": "-1"},
		{"fill_percent": "5"},
	} {
		if _, err := parse(extra); err == nil || !strings.Contains(err.Error(), "initial_mmap_size 0..268435455") {
			t.Errorf("%v: %v, want the ranges", extra, err)
		}
	}
	if _, err := parse(map[string]string{"initial_mmap_size": "268435455"}); err != nil {
		t.Errorf("the bound itself: %v", err)
	}
}
