package tpcc

import (
	"testing"

	"github.com/rumbench/rumbench/internal/workload/worktest"
)

// TestCacheMB: each profile's caches hold its warehouses with the run's growth, bounded by the
// ceiling; engines without a rule keep the run's.
func TestCacheMB(t *testing.T) {
	worktest.CheckCaches(t, newDefinition, []worktest.CacheCase{
		{Profile: "quick", Engine: "mysql", MiB: 512, OK: true},
		{Profile: "quick", Engine: "postgres", MiB: 256, OK: true},
		{Profile: "quick", Engine: "wiredtiger", MiB: 512, OK: true},
		{Profile: "quick", Engine: "pebble", MiB: 512, OK: true},
		{Profile: "small", Engine: "mysql", MiB: 4096, OK: true},
		{Profile: "standard", Engine: "mysql", Max: 8 << 30, MiB: 8192, OK: true},
		{Profile: "quick", Engine: "sqlite"},
		{Profile: "quick", Engine: "bbolt"},
	})
}
