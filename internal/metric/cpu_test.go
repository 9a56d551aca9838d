package metric

import (
	"math"
	"testing"

	"github.com/rumbench/rumbench/internal/results"
)

// TestTargetAndOtherCPU: tcpu_us/op is the process's CPU (observer excluded) plus a managed
// server's; other% is the host's busy CPU less the process's (observer included) and the
// server's, in percent of the host's CPUs; busy host above 10 points by more than 2/secs.
func TestTargetAndOtherCPU(t *testing.T) {
	// Pebble on a host of which other work took most: host 55 µs/op, the process 12.5 (12.0
	// without the observer) over 2 s on a host 60% busy: other% = 60 · (1 − 12.5/55).
	pebble := &results.Step{Ops: 1000, Secs: 2, HostCPUPct: 60, HostCPUUsPerOp: 55, ClientCPUUsPerOp: 12, ProcessCPUUsPerOp: 12.5}
	// PostgreSQL: the client 10, the server's tree 30, the host 42 at 21% busy over 0.9 s and
	// 0.1 s of settling: other% = 21 · (1 − 40.5/42) = 0.75.
	pg := &results.Step{Ops: 1000, Secs: 0.9, SettleSecs: 0.1, Server: "managed", HostCPUPct: 21, HostCPUUsPerOp: 42,
		ClientCPUUsPerOp: 10, ProcessCPUUsPerOp: 10.5, ServerCPUUsPerOp: 30}
	// A --dsn server: its CPU, maybe on this host, is not seen.
	dsn := &results.Step{Ops: 1000, Secs: 1, Server: "external", HostCPUPct: 50, HostCPUUsPerOp: 40, ClientCPUUsPerOp: 10, ProcessCPUUsPerOp: 10}
	// Tick granularity: the process measured more than the host's ticks.
	ticks := &results.Step{Ops: 1000, Secs: 1, HostCPUPct: 5, HostCPUUsPerOp: 10, ClientCPUUsPerOp: 11, ProcessCPUUsPerOp: 11}
	// A run recorded before the observer's split has the client's CPU only.
	old := &results.Step{Ops: 1000, Secs: 1, HostCPUPct: 40, HostCPUUsPerOp: 20, ClientCPUUsPerOp: 10}
	// 12% over a tenth of a second: within the ticks' resolution (20 points).
	short := &results.Step{Ops: 1000, Secs: 0.1, HostCPUPct: 24, HostCPUUsPerOp: 20, ClientCPUUsPerOp: 10, ProcessCPUUsPerOp: 10}
	for _, c := range []struct {
		name    string
		s       *results.Step
		tcpu    float64
		tcpuOK  bool
		other   float64
		otherOK bool
		margin  float64
		busy    bool
	}{
		{"pebble", pebble, 12, true, 60 * (1 - 12.5/55), true, 1, true},
		{"postgres", pg, 40, true, 21 * (1 - 40.5/42), true, 2, false},
		{"dsn", dsn, 0, false, 0, false, 2, false},
		{"ticks", ticks, 11, true, 0, true, 2, false},
		{"old", old, 10, true, 20, true, 2, true},
		{"short", short, 10, true, 12, true, 20, false},
		{"no ops", &results.Step{Secs: 1, HostCPUPct: 90}, 0, true, 0, false, 2, false},
	} {
		tcpu, tok := MustGet("tcpu_us/op").Value(c.s)
		other, ook := MustGet("other%").Value(c.s)
		if math.Abs(tcpu-c.tcpu) > 1e-9 || tok != c.tcpuOK || math.Abs(other-c.other) > 1e-9 || ook != c.otherOK ||
			math.Abs(OtherCPUMargin(c.s)-c.margin) > 1e-9 || BusyHost(c.s) != c.busy {
			t.Errorf("%s: tcpu_us/op %g %v, other%% %g %v, margin %g, busy %v; want %g %v, %g %v, %g, %v", c.name, tcpu, tok, other, ook,
				OtherCPUMargin(c.s), BusyHost(c.s), c.tcpu, c.tcpuOK, c.other, c.otherOK, c.margin, c.busy)
		}
	}
	if !math.IsInf(OtherCPUMargin(&results.Step{}), 1) || BusyHost(&results.Step{Ops: 5, HostCPUPct: 90, HostCPUUsPerOp: 10}) {
		t.Error("a step of no time is never busy host")
	}
}
