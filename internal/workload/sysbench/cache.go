package sysbench

import (
	"fmt"

	"github.com/rumbench/rumbench/internal/workload"
)

// rowUnit names the figure (engine.Spec.PerUnitBytes) of the bytes an sbtest table takes on disk
// per row with its index k (`rumbench run --workload sysbench --tests point-query --table-size
// 200000 --cache-mb 1024`, db_bytes after create-index, 200,000 rows; InnoDB's includes its
// tablespace's preallocated extents). docs/engine-settings.md has them.
const rowUnit = "sysbench.row"

// Regime implements workload.CachePlanner: the suite is meant to run from the engines' caches,
// as the reports run it (the standard profile where the host's memory holds it).
func (w *Workload) Regime() string { return workload.RegimeCached }

// CacheMB implements workload.CachePlanner: the cache that holds engine's Tables × TableSize
// rows (workload.CacheFor); false for an engine without a rule.
func (w *Workload) CacheMB(engine string, maxBytes int64) (int64, bool) {
	return workload.CacheFor(engine, workload.Measured(rowUnit), float64(w.Cfg.Tables)*float64(w.Cfg.TableSize), maxBytes)
}

// DiskBytes implements workload.DiskPlanner: Tables × TableSize rows × the figure.
func (w *Workload) DiskBytes(engine string) (float64, string, bool) {
	b, how := workload.DiskFor(engine, workload.Measured(rowUnit), float64(w.Cfg.Tables)*float64(w.Cfg.TableSize),
		fmt.Sprintf("%d tables (--tables) × %d rows (--table-size)", w.Cfg.Tables, w.Cfg.TableSize), "row")
	return b, how, true
}

var (
	_ workload.CachePlanner = (*Workload)(nil)
	_ workload.DiskPlanner  = (*Workload)(nil)
)
