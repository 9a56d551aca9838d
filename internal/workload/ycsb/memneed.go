package ycsb

import (
	"fmt"

	"github.com/rumbench/rumbench/internal/memneed"
	"github.com/rumbench/rumbench/internal/workload"
)

// fieldBytes is what the workload holds per field before any record is built, bytes: the
// table's column, the update statement of that one field (its SQL text about 50 bytes), its name
// in the statements that list every field (the insert, the update of every field), and its
// number in the binding's field order. Measured from New's heap at fieldcount=1000 and 100000:
// 570 and 596 bytes a field.
const fieldBytes = 600

// checkRows is the records the final check's scan holds at a time (checkChunk).
const checkRows = checkChunk

// checkSizes refuses, before the statements are made for every field, a configuration (valid)
// that cannot run on the run's engines (a usertable of more columns than one of them allows) or
// whose estimated memory need is above s.Memory.
func (c *Config) checkSizes(s workload.Shared) error {
	core := &c.Core
	if m := s.Columns.Max; m > 0 && core.FieldCount+1 > int64(m) {
		return fmt.Errorf("fieldcount=%d: a usertable of %d columns (the key and the fields) is more than %s allows (%d); valid: fieldcount 1..%d with --engine %s",
			core.FieldCount, core.FieldCount+1, s.Columns.Engine, m, m-1, s.Columns.Engine)
	}
	return s.Memory.Check("ycsb", c.memNeed())
}

// memNeed estimates the peak memory the workload holds: its statements for every field, then the
// largest of the load (each loader's batch, built once and copied by the engine), the run (each
// thread's result rows, its values and the engine's copy of a record) and the final check (one
// client scanning checkRows records at a time).
func (c *Config) memNeed() memneed.Part {
	core := &c.Core
	f := float64(core.FieldCount)
	keyLen := float64(4 + max(19, core.ZeroPadding)) // "user" and the key number's digits
	record := f*float64(core.FieldLength) + keyLen
	cells := (f + 1) * memneed.ValueBytes
	row := record + cells + 8*(f+1) // a record in a block of rows, with its offsets
	sizes := fmt.Sprintf("fieldcount=%d × fieldlength=%d", core.FieldCount, core.FieldLength)
	per := memneed.Size(record) + " a record"

	fixed := []memneed.Part{{Bytes: f * fieldBytes, Inputs: fmt.Sprintf("fieldcount=%d", core.FieldCount),
		Detail: fmt.Sprintf("the usertable's columns and statements, about %s a field", memneed.Size(fieldBytes))}}

	batch := float64(c.LoadBatch)
	load := memneed.Part{Bytes: float64(c.Loaders) * (memneed.WorkerBytes + batch*(row+record) + 16*cells),
		Inputs: sizes, Detail: fmt.Sprintf("%s × load-batch %d × 2 copies × %d loaders", per, c.LoadBatch, c.Loaders)}

	held := 1.0 // records a run statement returns at most
	runInputs, runDetail := sizes, fmt.Sprintf("%s × %d threads", per, c.Threads)
	if core.ScanProportion > 0 && core.MaxScanLength > 1 {
		held = float64(core.MaxScanLength)
		runInputs = fmt.Sprintf("%s × maxscanlength=%d", sizes, core.MaxScanLength)
		runDetail = fmt.Sprintf("%s × %d records a scan holds × %d threads", per, core.MaxScanLength, c.Threads)
	}
	run := memneed.Part{Bytes: float64(c.Threads) * (memneed.WorkerBytes + max(held, 16)*cells + held*row + 3*record + 2*cells),
		Inputs: runInputs, Detail: runDetail}

	check := memneed.Part{Bytes: memneed.WorkerBytes + checkRows*row + 3*record,
		Inputs: sizes, Detail: fmt.Sprintf("%s × %d records the final check's scan holds", per, checkRows)}
	return memneed.Peak(fixed, []memneed.Part{load, run, check})
}
