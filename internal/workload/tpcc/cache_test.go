package tpcc

import (
	"testing"

	"github.com/rumbench/rumbench/internal/workload"
)

// TestCacheMB: each profile's caches hold its warehouses with the run's growth, bounded by the
// ceiling; engines without a rule keep the run's cache.
func TestCacheMB(t *testing.T) {
	for _, c := range []struct {
		profile, engine string
		max, want       int64
		ok              bool
	}{
		{"quick", "mysql", 0, 512, true},
		{"quick", "postgres", 0, 256, true},
		{"quick", "wiredtiger", 0, 512, true},
		{"quick", "pebble", 0, 512, true},
		{"small", "mysql", 0, 4096, true},
		{"standard", "mysql", 8 << 30, 8192, true},
		{"quick", "sqlite", 0, 0, false},
		{"quick", "bbolt", 0, 0, false},
	} {
		w, err := newDefinition().Build(workload.Shared{Profile: c.profile, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		p := w.(workload.CachePlanner)
		if mb, ok := p.CacheMB(c.engine, c.max); mb != c.want || ok != c.ok || p.Regime() != workload.RegimeCached {
			t.Errorf("%s %s (max %d): %d MiB %v %s, want %d %v cached", c.profile, c.engine, c.max, mb, ok, p.Regime(), c.want, c.ok)
		}
	}
}
