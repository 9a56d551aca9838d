package script

import (
	"testing"

	"github.com/rumbench/rumbench/internal/workload/worktest"
)

// TestCacheMB: the caches hold pgbench's tables at the scale factor; engines without a rule
// keep the run's.
func TestCacheMB(t *testing.T) {
	worktest.CheckCaches(t, newDefinition, []worktest.CacheCase{
		{Profile: "quick", Engine: "mysql", MiB: 64, OK: true},  // 1.25 × 39 MB × 1
		{Profile: "small", Engine: "mysql", MiB: 512, OK: true}, // × 10
		{Profile: "small", Engine: "postgres", MiB: 512, OK: true},
		{Profile: "small", Engine: "mysql", Args: []string{"--scale-factor", "100"}, MiB: 8192, OK: true},
		{Profile: "quick", Engine: "sqlite"},
	})
}
