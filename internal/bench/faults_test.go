package bench

import (
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/runner"
)

// TestHoldFaults: a timed step that ends before its last fault is over is lengthened to it and
// FaultTail (its safety net with it); one that holds its faults and one bounded by a count are
// not.
func TestHoldFaults(t *testing.T) {
	faults := []runner.Fault{{Kind: "kill", At: 20 * time.Second}, {Kind: "stop", At: 10 * time.Second, For: 15 * time.Second}}
	st := runner.Step{Duration: 5 * time.Second, Warmup: time.Second, MaxDuration: runner.SafetyNet(6 * time.Second), Faults: faults}
	if got := holdFaults(&st); got != 40*time.Second || st.Duration != 39*time.Second || st.MaxDuration != runner.SafetyNet(40*time.Second) {
		t.Errorf("lengthened to %v: duration %v, limit %v; want 40s, 39s, %v", got, st.Duration, st.MaxDuration, runner.SafetyNet(40*time.Second))
	}
	long := runner.Step{Duration: 26 * time.Second, Faults: faults}
	if got := holdFaults(&long); got != 0 || long.Duration != 26*time.Second {
		t.Errorf("a 26 s step: %v, %v", got, long.Duration)
	}
	counted := runner.Step{Faults: faults}
	if got := holdFaults(&counted); got != 0 || counted.Duration != 0 {
		t.Errorf("a step bounded by a count: %v, %v", got, counted.Duration)
	}
}
