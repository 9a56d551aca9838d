package insert

import "testing"

// TestCacheRule: a cached profile sizes each engine's cache from its bytes per row at the
// benchmark's largest table, in powers of two MiB from 64, under the host's ceiling; an
// IO-bound profile and engines without a rule leave it to the run.
func TestCacheRule(t *testing.T) {
	prof := func(name string, clients int) Config {
		c := settings.Defaults(name)
		c.Clients, c.Regime = clients, regimeOf(name)
		return c
	}
	for _, c := range []struct {
		cfg    Config
		engine string
		max    int64
		want   int64
		ok     bool
	}{
		{prof("quick", 1), "wiredtiger", 0, 512, true},        // 1200 × 250,000 = 286 MiB
		{prof("quick", 1), "mysql", 0, 256, true},             // 1000 × 250,000 = 238 MiB
		{prof("quick", 1), "pebble", 0, 64, true},             // 12 MiB: the floor
		{prof("quick", 1), "postgres", 0, 256, true},          // 143 MiB
		{prof("quick", 2), "wiredtiger", 0, 1024, true},       // two clients, twice the rows
		{prof("small", 1), "wiredtiger", 0, 4096, true},       // 3.35 GiB
		{prof("small", 1), "rocksdb", 0, 256, true},           // 143 MiB
		{prof("small", 1), "sqlite", 0, 256, true},            // 229 MiB
		{prof("small", 1), "wiredtiger", 3 << 30, 3072, true}, // the host's ceiling
		{prof("standard", 1), "pebble", 0, 2048, true},        // 1.4 GiB
		{prof("iobound", 1), "wiredtiger", 0, 0, false},
		{prof("quick", 1), "lmdb", 0, 0, false},
		{prof("quick", 1), "mongo", 0, 0, false},
	} {
		got, ok := cacheMB(c.cfg, c.engine, c.max)
		if got != c.want || ok != c.ok {
			t.Errorf("%s × %d clients, %s, ceiling %d: %d MiB (%v), want %d (%v)", c.cfg.Regime, c.cfg.Clients, c.engine, c.max, got, ok, c.want, c.ok)
		}
	}
}
