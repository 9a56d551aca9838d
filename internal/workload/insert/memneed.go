package insert

import (
	"fmt"

	"github.com/rumbench/rumbench/internal/memneed"
)

// rowBytes is one generated row in a block of rows, bytes: its cells and its data column.
const rowBytes = numCols*memneed.ValueBytes + dataMaxLen

// memNeed estimates the peak memory the workload holds, which Build checks against the run's:
// per client, a writer's batch of rows-per-commit rows (built once, copied by the engine), the
// l.x and query blocks, and the writer's and the query thread's histograms. Nothing is held per
// row of the tables: keys are dense and counted.
func (c *Config) memNeed() memneed.Part {
	rpc := c.RowsPerCommit
	if rpc == 0 {
		rpc = 100 // the largest per-step default (l.i0)
	}
	perClient := 2*memneed.WorkerBytes + float64(rpc)*2*rowBytes + (lxRows+rowsPerQuery)*rowBytes
	return memneed.Part{Bytes: float64(c.Clients) * perClient,
		Inputs: fmt.Sprintf("clients=%d × rows-per-commit=%d", c.Clients, rpc),
		Detail: fmt.Sprintf("%s a client: a batch of %d rows × 2 copies, and its writer's and query thread's histograms", memneed.Size(perClient), rpc)}
}
