package workload

import (
	"testing"

	"github.com/rumbench/rumbench/internal/engine"
)

func TestCacheMiB(t *testing.T) {
	for _, c := range []struct {
		need      float64
		max, want int64
	}{
		{0, 0, 64}, {64 << 20, 0, 64}, {64<<20 + 1, 0, 128}, {300e6, 0, 512}, {300e6, 256 << 20, 256},
		{300e6, 10 << 20, 64}, {1e30, 0, 1 << 40},
	} {
		if got := CacheMiB(c.need, c.max); got != c.want {
			t.Errorf("CacheMiB(%g, %d) = %d, want %d", c.need, c.max, got, c.want)
		}
	}
}

func TestCacheFor(t *testing.T) {
	// Two engines of this test: one whose cache holds its files' pages plus a quarter, one
	// without a rule.
	engine.Register(engine.Spec{Name: "cachefor-pages", CachePerFileByte: 1.25})
	engine.Register(engine.Spec{Name: "cachefor-none"})
	per := map[string]float64{"cachefor-pages": 100e6, "cachefor-none": 100e6}
	if mb, ok := CacheFor("cachefor-pages", per, 3, 0); !ok || mb != 512 { // 1.25 × 300 MB
		t.Errorf("cachefor-pages: %d %v, want 512", mb, ok)
	}
	for _, e := range []string{"cachefor-none", "cachefor-unknown"} { // no rule; no figure
		if mb, ok := CacheFor(e, per, 3, 0); ok {
			t.Errorf("%s: %d, want no rule", e, mb)
		}
	}
}

// TestDiskFor: the bytes of a workload's data on an engine from its measured figure, and the
// least measured figure, said as such, for an engine without one.
func TestDiskFor(t *testing.T) {
	per := map[string]float64{"postgres": 158.3e6, "pebble": 72.2e6, "rocksdb": 75.8e6}
	if b, how := DiskFor("postgres", per, 10, "10 warehouses", "warehouse"); b != 1583e6 || how != "10 warehouses × 158.3 MB measured per warehouse on postgres" {
		t.Errorf("postgres: %g %q", b, how)
	}
	if b, how := DiskFor("sqlite", per, 2, "2 units", "unit"); b != 144.4e6 || how != "2 units × 72.2 MB per unit at least (the least measured, on pebble; sqlite has no figure)" {
		t.Errorf("sqlite: %g %q", b, how)
	}
}
