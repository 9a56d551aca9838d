package tpcc

import (
	"fmt"

	"github.com/rumbench/rumbench/internal/memneed"
)

// Bytes a load part holds at most, in its blocks of rows: 1,000 stock rows of 17 cells and
// about 380 bytes of strings (the largest part; 100 orders' 1,500 lines and 500 customers with
// their history rows hold less), with the district's customer permutation (4 bytes a customer).
const partBytes = chunkItems*(17*memneed.ValueBytes+380) + 4*3000

// terminalBytes is what a terminal holds besides a worker's pages: its blocks of result rows
// (at most 20 stock rows or a district's customers of one last name) and its buffers.
const terminalBytes = 64 << 10

// memNeed estimates the peak memory the workload holds: the larger of the load (each loader's
// part, copied by the engine) and the run (each terminal's buffers). Nothing is held per
// warehouse: the load's list of parts is computed, and the check reads a district at a time.
func (c *Config) memNeed() memneed.Part {
	load := float64(c.Loaders) * (memneed.WorkerBytes + 2*partBytes)
	run := float64(c.Terminals) * (memneed.WorkerBytes + terminalBytes)
	return memneed.Peak(nil, []memneed.Part{
		{Bytes: load, Inputs: fmt.Sprintf("loaders=%d", c.Loaders), Detail: fmt.Sprintf("%s a loader: a part of the load, copied by the engine", memneed.Size(memneed.WorkerBytes+2*partBytes))},
		{Bytes: run, Inputs: fmt.Sprintf("terminals=%d", c.Terminals), Detail: fmt.Sprintf("%s a terminal", memneed.Size(memneed.WorkerBytes+terminalBytes))},
	})
}
