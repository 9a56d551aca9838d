package bench

import (
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/runner"
)

// TestHoldFaults: a timed step shorter than its fault schedule and FaultTail is lengthened (its
// safety net with it); a long enough one and one bounded by a count are not.
func TestHoldFaults(t *testing.T) {
	faults := []runner.Fault{{Kind: "kill", At: 20 * time.Second}, {Kind: "stop", At: 10 * time.Second, For: 15 * time.Second}}
	st := runner.Step{Duration: 5 * time.Second, Warmup: time.Second, MaxDuration: runner.SafetyNet(6 * time.Second), Faults: faults}
	if got := holdFaults(&st); got != 40*time.Second || st.Duration != 39*time.Second || st.MaxDuration != runner.SafetyNet(40*time.Second) {
		t.Errorf("lengthened to %v: duration %v, limit %v; want 40s, 39s, %v", got, st.Duration, st.MaxDuration, runner.SafetyNet(40*time.Second))
	}
	long := runner.Step{Duration: time.Minute, Faults: faults}
	if got := holdFaults(&long); got != 0 || long.Duration != time.Minute {
		t.Errorf("a 60 s step: %v, %v", got, long.Duration)
	}
	counted := runner.Step{Faults: faults}
	if got := holdFaults(&counted); got != 0 || counted.Duration != 0 {
		t.Errorf("a step bounded by a count: %v, %v", got, counted.Duration)
	}
}
