package metric

import (
	"math"

	"github.com/rumbench/rumbench/internal/results"
)

// BusyHostPct is the share of the host's CPUs, percent, that other processes (other%) must
// take during a step for it to be marked busy host.
const BusyHostPct = 10.0

// BusyHostMark is the mark of a busy host's step in tables and the summary.
const BusyHostMark = "busy host"

// TargetCPU returns the target's own CPU time per op, µs (tcpu_us/op): this process's without
// the observer's (an embedded engine's work included; under --memory-limit the process that
// measures is the engine's worker) plus a managed server's process tree. A --dsn server's CPU
// is not seen here: not measured.
func TargetCPU(s *results.Step) (float64, bool) {
	switch s.Server {
	case "":
		return s.ClientCPUUsPerOp, true
	case "managed":
		return s.ClientCPUUsPerOp + s.ServerCPUUsPerOp, true
	}
	return 0, false
}

// OtherCPUPct returns the user-mode CPU of the host's other processes during step s, percent of
// all the host's CPUs (other%, steps.json's other_cpu_pct); not measured for a --dsn server or
// in a run recorded before it was.
func OtherCPUPct(s *results.Step) (float64, bool) {
	if s.OtherCPUPct == nil {
		return 0, false
	}
	return *s.OtherCPUPct, true
}

// BusyHost says whether other processes took more than BusyHostPct of the host's CPUs during
// step s, by more than the host counters' resolution (OtherCPUMargin).
func BusyHost(s *results.Step) bool {
	v, ok := OtherCPUPct(s)
	return ok && v > BusyHostPct+OtherCPUMargin(s)
}

// OtherCPUMargin is the resolution of other% over step s, percentage points: /proc/stat counts
// each CPU's time in ticks of 1/USER_HZ (10 ms), so two readings can miss up to a tick of each
// CPU at each end: 2 ticks per CPU over the step's time (its operations and its settling), 2/secs
// points (2 points over a second, 20 over a tenth of one). +Inf for a step of no time.
func OtherCPUMargin(s *results.Step) float64 {
	wall := s.Secs + s.SettleSecs
	if wall <= 0 {
		return math.Inf(1)
	}
	return 2 / wall
}
