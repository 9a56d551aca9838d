package ycsb

import (
	"testing"

	"github.com/rumbench/rumbench/internal/workload/worktest"
)

// TestCacheMB: the caches hold the records, scaled by their shape; engines without a rule keep
// the run's.
func TestCacheMB(t *testing.T) {
	worktest.CheckCaches(t, newDefinition, []worktest.CacheCase{
		{Profile: "quick", Engine: "mysql", MiB: 64, OK: true},                                        // 1.25 × 2,104 B × 20,000
		{Profile: "small", Engine: "mysql", MiB: 4096, OK: true},                                      // × 1,000,000
		{Profile: "small", Engine: "pebble", MiB: 4096, OK: true},                                     // 3 × 1,078 B × 1,000,000
		{Profile: "small", Engine: "mysql", Args: []string{"-p", "fieldcount=1"}, MiB: 256, OK: true}, // a tenth: 263 MB
		{Profile: "quick", Engine: "sqlite"},
	})
}
