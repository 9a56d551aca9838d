package ycsb

import (
	"fmt"

	"github.com/rumbench/rumbench/internal/workload"
)

// recordUnit names the figure (engine.Spec.PerUnitBytes) of the bytes usertable takes on disk per
// record of YCSB's default shape, ten fields of 100 bytes (`rumbench run --workload ycsb -p
// recordcount=100000 --run-secs 1 --cache-mb 1024`, db_bytes after the load). The values are
// random bytes that do not compress, so the LSMs' engine.Spec.CachePerFileByte of 3 (made for
// compressible data) overshoots: the cache fills only with what the run reads.
// docs/engine-settings.md has them.
const recordUnit = "ycsb.record"

// defaultFieldBytes is the fields' bytes of a record of the default shape.
const defaultFieldBytes = 10 * 100

// Regime implements workload.CachePlanner: the profiles are meant to run from the engines'
// caches (the standard one where the host's memory holds it).
func (w *Workload) Regime() string { return workload.RegimeCached }

// CacheMB implements workload.CachePlanner: the cache that holds engine's records, scaled
// from recordUnit by the records' field bytes (fieldcount × fieldlength against 1,000;
// workload.CacheFor); false for an engine without a rule.
func (w *Workload) CacheMB(engine string, maxBytes int64) (int64, bool) {
	c := &w.Cfg.Core
	shape := float64(max(c.FieldCount*int64(c.FieldLength), 1)) / defaultFieldBytes
	return workload.CacheFor(engine, workload.Measured(recordUnit), float64(c.RecordCount)*shape, maxBytes)
}

// DiskBytes implements workload.DiskPlanner: recordcount records × the figure, scaled by the
// records' field bytes as CacheMB scales it.
func (w *Workload) DiskBytes(engine string) (float64, string, bool) {
	c := &w.Cfg.Core
	shape := float64(max(c.FieldCount*int64(c.FieldLength), 1)) / defaultFieldBytes
	b, how := workload.DiskFor(engine, workload.Measured(recordUnit), float64(c.RecordCount),
		fmt.Sprintf("%d records (recordcount)", c.RecordCount), "record")
	return b * shape, fmt.Sprintf("%s, × %g for %d fields of %d bytes", how, shape, c.FieldCount, c.FieldLength), true
}

var (
	_ workload.CachePlanner = (*Workload)(nil)
	_ workload.DiskPlanner  = (*Workload)(nil)
)
