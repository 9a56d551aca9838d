package workload

import "testing"

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
	per := map[string]float64{"mysql": 100e6, "sqlite": 100e6}
	if mb, ok := CacheFor("mysql", per, 3, 0); !ok || mb != 512 { // 1.25 × 300 MB
		t.Errorf("mysql: %d %v, want 512", mb, ok)
	}
	for _, e := range []string{"sqlite", "pebble"} { // no factor; no figure
		if mb, ok := CacheFor(e, per, 3, 0); ok {
			t.Errorf("%s: %d, want no rule", e, mb)
		}
	}
}
