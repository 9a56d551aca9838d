package metric

import (
	"math"
	"testing"

	"github.com/rumbench/rumbench/internal/results"
)

// TestTargetAndOtherCPU: tcpu_us/op is the process's CPU (observer excluded) plus a managed
// server's; other% is the runner's other_cpu_pct; a step is busy host when it is above 10 by
// more than 2/(secs + settle_s) points.
func TestTargetAndOtherCPU(t *testing.T) {
	pct := func(v float64) *float64 { return &v }
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
		// Pebble on a host others kept busy: host 55 µs/op, the process 12.5 (12.0 without
		// the observer); others' user time 38% of the CPUs over 2 s.
		{"pebble", &results.Step{Ops: 1000, Secs: 2, HostCPUUsPerOp: 55, ClientCPUUsPerOp: 12, ProcessCPUUsPerOp: 12.5, OtherCPUPct: pct(38)},
			12, true, 38, true, 1, true},
		// PostgreSQL: the client 10 and the server's tree 30, over 0.9 s and 0.1 s of settling.
		{"postgres", &results.Step{Ops: 1000, Secs: 0.9, SettleSecs: 0.1, Server: "managed", ClientCPUUsPerOp: 10, ProcessCPUUsPerOp: 10.5,
			ServerCPUUsPerOp: 30, OtherCPUPct: pct(11.5)}, 40, true, 11.5, true, 2, false},
		// A --dsn server: its CPU, maybe on this host, is not seen.
		{"dsn", &results.Step{Ops: 1000, Secs: 1, Server: "external", ClientCPUUsPerOp: 10}, 0, false, 0, false, 2, false},
		// A run recorded before other% was measured.
		{"old", &results.Step{Ops: 1000, Secs: 1, HostCPUPct: 40, HostCPUUsPerOp: 20, ClientCPUUsPerOp: 10}, 10, true, 0, false, 2, false},
		// 25% over a tenth of a second: within the ticks' resolution (20 points).
		{"short", &results.Step{Ops: 1000, Secs: 0.1, ClientCPUUsPerOp: 10, OtherCPUPct: pct(25)}, 10, true, 25, true, 20, false},
		{"short, more", &results.Step{Ops: 1000, Secs: 0.1, ClientCPUUsPerOp: 10, OtherCPUPct: pct(30.5)}, 10, true, 30.5, true, 20, true},
	} {
		tcpu, tok := MustGet("tcpu_us/op").Value(c.s)
		other, ook := MustGet("other%").Value(c.s)
		if math.Abs(tcpu-c.tcpu) > 1e-9 || tok != c.tcpuOK || math.Abs(other-c.other) > 1e-9 || ook != c.otherOK ||
			math.Abs(OtherCPUMargin(c.s)-c.margin) > 1e-9 || BusyHost(c.s) != c.busy {
			t.Errorf("%s: tcpu_us/op %g %v, other%% %g %v, margin %g, busy %v; want %g %v, %g %v, %g, %v", c.name, tcpu, tok, other, ook,
				OtherCPUMargin(c.s), BusyHost(c.s), c.tcpu, c.tcpuOK, c.other, c.otherOK, c.margin, c.busy)
		}
	}
	ninety := 90.0
	if !math.IsInf(OtherCPUMargin(&results.Step{}), 1) || BusyHost(&results.Step{Ops: 5, OtherCPUPct: &ninety}) {
		t.Error("a step of no time is never busy host")
	}
}
