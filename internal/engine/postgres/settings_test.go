package postgres

import (
	"testing"

	"github.com/rumbench/rumbench/internal/engine"
)

// TestSettingsUnderCap: under a cap maintenance_work_mem is a quarter of what the engine's share
// leaves beside shared_buffers, at most PostgreSQL's default; without one it is not set.
func TestSettingsUnderCap(t *testing.T) {
	for _, c := range []struct {
		memory int64
		want   string
	}{{0, ""}, {128 << 20, "24MB"}, {8 << 30, "64MB"}} {
		sets := settings(engine.Options{CacheBytes: 32 << 20, MemoryBytes: c.memory})
		got := ""
		for _, s := range sets {
			if s.Name == "maintenance_work_mem" {
				got = s.Value
			}
			if s.Name == "shared_buffers" && s.Value != "32MB" {
				t.Errorf("memory %d: shared_buffers %s, want 32MB", c.memory, s.Value)
			}
		}
		if got != c.want {
			t.Errorf("memory %d: maintenance_work_mem %q, want %q", c.memory, got, c.want)
		}
	}
}
