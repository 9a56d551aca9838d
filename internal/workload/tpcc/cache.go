package tpcc

import (
	"fmt"

	"github.com/rumbench/rumbench/internal/workload"
)

// warehouseUnit names the figure (engine.Spec.PerUnitBytes) of the bytes its nine tables and their
// indexes take on disk per warehouse after the load (the quick profile's one warehouse: `rumbench
// run --workload tpcc --engine ... --run-secs 20`, db_bytes of the load step).
// docs/engine-settings.md has them.
const warehouseUnit = "tpcc.warehouse"

// runGrowth is the headroom for the orders, order lines and history rows a run adds.
const runGrowth = 1.25

// Regime implements workload.CachePlanner: every profile is meant to run from the engines'
// caches (the standard one where the host's memory holds it).
func (w *Workload) Regime() string { return workload.RegimeCached }

// CacheMB implements workload.CachePlanner: the cache that holds engine's tables at W
// warehouses with the run's growth (workload.CacheFor of W × runGrowth warehouses); false for
// an engine without a rule.
func (w *Workload) CacheMB(engine string, maxBytes int64) (int64, bool) {
	return workload.CacheFor(engine, workload.Measured(warehouseUnit), float64(w.Cfg.Warehouses)*runGrowth, maxBytes)
}

// DiskBytes implements workload.DiskPlanner: W warehouses × the figure, × runGrowth.
func (w *Workload) DiskBytes(engine string) (float64, string, bool) {
	b, how := workload.DiskFor(engine, workload.Measured(warehouseUnit), float64(w.Cfg.Warehouses), fmt.Sprintf("%d warehouses (--warehouses)", w.Cfg.Warehouses), "warehouse")
	return b * runGrowth, fmt.Sprintf("%s, × %g for the run's growth", how, runGrowth), true
}

var (
	_ workload.CachePlanner = (*Workload)(nil)
	_ workload.DiskPlanner  = (*Workload)(nil)
)
