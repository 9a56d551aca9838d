package sysbench

import (
	"testing"

	"github.com/rumbench/rumbench/internal/workload/worktest"
)

// TestCacheMB: the caches hold tables × table size rows; engines without a rule keep the run's.
func TestCacheMB(t *testing.T) {
	worktest.CheckCaches(t, newDefinition, []worktest.CacheCase{
		{Profile: "quick", Engine: "mysql", MiB: 128, OK: true},  // 1.25 × 758 B × 100,000
		{Profile: "small", Engine: "mysql", MiB: 1024, OK: true}, // × 1,000,000
		{Profile: "small", Engine: "myrocks", MiB: 2048, OK: true},
		{Profile: "small", Engine: "mysql", Args: []string{"--tables", "4"}, MiB: 4096, OK: true},
		{Profile: "quick", Engine: "sqlite"},
	})
}
