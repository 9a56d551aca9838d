package cli

import (
	"strings"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/memcap"
	"github.com/rumbench/rumbench/internal/memneed"
	"github.com/rumbench/rumbench/internal/workload"
)

// runLimits returns what a workload checks its sizes against before anything runs: the memory
// the run may use (MemAvailable, or --memory-limit when smaller; under a cap, an embedded
// engine's worker holds the workload's buffers in the Go heap's share of it) and the smallest
// column limit of the --engine list (engines not known are left to buildBenchConfig's message).
func runLimits(f *runFlags) (memneed.Budget, workload.ColumnLimit, error) {
	limit, err := memoryLimit(f)
	if err != nil {
		return memneed.Budget{}, workload.ColumnLimit{}, err
	}
	var cols workload.ColumnLimit
	embedded := false
	for _, e := range strings.Split(f.engines, ",") {
		s, ok := engine.Lookup(strings.TrimSpace(e))
		if ok && s.MaxColumns > 0 && (cols.Max == 0 || s.MaxColumns < cols.Max) {
			cols = workload.ColumnLimit{Max: s.MaxColumns, Engine: s.Name}
		}
		embedded = embedded || (ok && !s.Server)
	}
	if limit > 0 && embedded {
		return memneed.WorkerBudget(memcap.SharesOf(limit).Go), cols, nil
	}
	return memneed.HostBudget(limit), cols, nil
}
