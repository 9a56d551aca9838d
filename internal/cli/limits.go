package cli

import (
	"strings"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/memneed"
	"github.com/rumbench/rumbench/internal/workload"
)

// runLimits returns what a workload checks its sizes against before anything runs: the memory
// the run may use (MemAvailable, or --memory-limit when smaller) and the smallest column limit
// of the --engine list (engines not known are left to buildBenchConfig's message).
func runLimits(f *runFlags) (memneed.Budget, workload.ColumnLimit, error) {
	limit, err := memoryLimit(f)
	if err != nil {
		return memneed.Budget{}, workload.ColumnLimit{}, err
	}
	var cols workload.ColumnLimit
	for _, e := range strings.Split(f.engines, ",") {
		s, ok := engine.Lookup(strings.TrimSpace(e))
		if ok && s.MaxColumns > 0 && (cols.Max == 0 || s.MaxColumns < cols.Max) {
			cols = workload.ColumnLimit{Max: s.MaxColumns, Engine: s.Name}
		}
	}
	return memneed.HostBudget(limit), cols, nil
}
