package sysbench

import (
	"fmt"

	"github.com/rumbench/rumbench/internal/memneed"
)

// rowBytes is one sbtest row in a block of rows, bytes: its four cells, c and pad.
const rowBytes = 4*memneed.ValueBytes + cLen + padLen

// memNeed estimates the peak memory the workload holds, which Build checks against the run's:
// per thread, the result rows of the widest range among the tests that run (sysbench's ranges
// are fixed, up to 10000 rows), copied by the engine, and its histograms; the load's batches
// are smaller. Nothing is held per row of the tables.
func memNeed(c *Config, tests []Test) memneed.Part {
	widest := Test{Name: "point queries", Range: 1}
	for _, t := range tests {
		// write-only's range is the ids its writes span: it reads no rows.
		if t.event != evWriteOnly && t.Range > widest.Range {
			widest = t
		}
	}
	perThread := memneed.WorkerBytes + float64(widest.Range)*2*rowBytes
	rows := fmt.Sprintf("%d rows of %s × 2 copies", widest.Range, widest.Name)
	if widest.Range == 1 {
		rows = "a row at a time"
	}
	load := float64(min(c.Threads, c.Tables)) * (memneed.WorkerBytes + loadBatch*2*rowBytes)
	return memneed.Peak(nil, []memneed.Part{
		{Bytes: float64(c.Threads) * perThread, Inputs: fmt.Sprintf("threads=%d", c.Threads),
			Detail: fmt.Sprintf("%s a thread: %s, and its histograms", memneed.Size(perThread), rows)},
		{Bytes: load, Inputs: fmt.Sprintf("threads=%d × tables=%d", c.Threads, c.Tables), Detail: "the load's batches"},
	})
}
