package script

import (
	"fmt"

	"github.com/rumbench/rumbench/internal/workload"
)

// scaleUnit names the figure (engine.Spec.PerUnitBytes) of the bytes pgbench's four tables take on
// disk per unit of scale (100,000 accounts; `rumbench run --workload script --builtin select-only
// --scale-factor 4 --run-secs 1 --cache-mb 1024`, db_bytes after init, divided by 4).
// docs/engine-settings.md has them. SQLite keeps the run's cache (it has no
// engine.Spec.CachePerFileByte).
const scaleUnit = "script.scale"

// Regime implements workload.CachePlanner: pgbench's tables are meant to be read from the
// engines' caches (the standard profile where the host's memory holds it).
func (w *Workload) Regime() string { return workload.RegimeCached }

// CacheMB implements workload.CachePlanner: the cache that holds engine's tables at the
// scale factor (workload.CacheFor); false for an engine without a rule.
func (w *Workload) CacheMB(engine string, maxBytes int64) (int64, bool) {
	return workload.CacheFor(engine, workload.Measured(scaleUnit), float64(w.Cfg.Scale), maxBytes)
}

// DiskBytes implements workload.DiskPlanner: the scale factor × the figure, when the init step
// loads pgbench's tables (false otherwise: the script's tables are the user's).
func (w *Workload) DiskBytes(engine string) (float64, string, bool) {
	if !w.Cfg.Init {
		return 0, "", false
	}
	b, how := workload.DiskFor(engine, workload.Measured(scaleUnit), float64(w.Cfg.Scale), fmt.Sprintf("scale factor %d (--scale-factor)", w.Cfg.Scale), "unit of scale")
	return b, how, true
}

var (
	_ workload.CachePlanner = (*Workload)(nil)
	_ workload.DiskPlanner  = (*Workload)(nil)
)
