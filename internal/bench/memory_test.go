package bench

import (
	"errors"
	"slices"
	"testing"

	_ "github.com/rumbench/rumbench/internal/engine/mysql" // a managed server's share of a cap
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/table"
)

// TestWorkerEnv: a worker's C allocator keeps two arenas and maps blocks above 128 KiB of their
// own, unless the environment says otherwise (a variable, or glibc's tunable).
func TestWorkerEnv(t *testing.T) {
	const arenas, mmap = "MALLOC_ARENA_MAX=2", "MALLOC_MMAP_THRESHOLD_=131072"
	for _, c := range []struct{ env, want []string }{
		{[]string{"PATH=/bin"}, []string{"PATH=/bin", arenas, mmap}},
		{[]string{"MALLOC_ARENA_MAX=8"}, []string{"MALLOC_ARENA_MAX=8", mmap}},
		{[]string{"MALLOC_MMAP_THRESHOLD_=65536"}, []string{"MALLOC_MMAP_THRESHOLD_=65536", arenas}},
		{[]string{"GLIBC_TUNABLES=glibc.malloc.arena_max=1"}, []string{"GLIBC_TUNABLES=glibc.malloc.arena_max=1", mmap}},
		{[]string{"GLIBC_TUNABLES=glibc.malloc.tcache_count=0"}, []string{"GLIBC_TUNABLES=glibc.malloc.tcache_count=0", arenas, mmap}},
	} {
		in := slices.Clone(c.env)
		if got := workerEnv(in); !slices.Equal(got, c.want) {
			t.Errorf("workerEnv(%q) = %q, want %q", c.env, got, c.want)
		}
		if !slices.Equal(in, c.env) {
			t.Errorf("workerEnv changed its argument: %q", in)
		}
	}
}

// TestCheckCaches: under a cap an engine's cache is at most the engine's share (half the cap),
// refused in one line that names the engine, its cache, the cap and the share; a --dsn server,
// which the cap does not reach, is not checked.
func TestCheckCaches(t *testing.T) {
	target := func(name string, opts map[string]string) results.Target {
		return results.Target{Label: name, Engine: table.Info{Name: name, Options: opts}}
	}
	cfg := Config{MemoryLimit: 256 << 20, CacheMB: 128, Targets: []results.Target{target("pebble", nil), target("bbolt", nil)}}
	if err := checkCaches(cfg); err != nil {
		t.Errorf("a cache of half the cap: %v", err)
	}
	cfg.EngineCacheBytes = map[string]int64{"bbolt": 129 << 20}
	err := checkCaches(cfg)
	want := "--cache-mb 129 (engine bbolt) does not fit --memory-limit 256.0 MiB: an engine's cache and buffers take at most half the cap, 128 MiB (the rest is the Go heap and the page cache)"
	var ue UsageError
	if err == nil || err.Error() != want || !errors.As(err, &ue) {
		t.Errorf("a cache over half the cap: %v, want the usage error %q", err, want)
	}
	// A managed server holds no Go heap under the cap: its share is three quarters.
	cfg.Targets = []results.Target{target("mysql", nil)}
	cfg.EngineCacheBytes = map[string]int64{"mysql": 192 << 20}
	if err := checkCaches(cfg); err != nil {
		t.Errorf("a server's cache of three quarters of the cap: %v", err)
	}
	cfg.EngineCacheBytes = map[string]int64{"mysql": 193 << 20}
	want = "--cache-mb 193 (engine mysql) does not fit --memory-limit 256.0 MiB: an engine's cache and buffers take at most three quarters of the cap, 192 MiB (the rest is the page cache)"
	if err := checkCaches(cfg); err == nil || err.Error() != want {
		t.Errorf("a server's cache over three quarters of the cap: %v, want %q", err, want)
	}
	cfg.Targets = []results.Target{target("postgres", map[string]string{"dsn": "postgres://h/db"})}
	cfg.EngineCacheBytes = map[string]int64{"postgres": 1 << 30}
	if err := checkCaches(cfg); err != nil {
		t.Errorf("a --dsn server: %v", err)
	}
}
