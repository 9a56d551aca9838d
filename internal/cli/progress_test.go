package cli

import (
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/results"
)

// TestProgressLineSettle checks that a step's settling interval reads as settling in the
// progress line, not as a second with no operations.
func TestProgressLineSettle(t *testing.T) {
	iv := &results.Interval{Target: "pebble", Step: "l.i0", T: 3, Secs: 0.4, Settle: true, RateName: "ips",
		WriteMBPerSec: 120, Kinds: []results.Kind{{Name: "insert", Role: results.RoleWrite, Ops: 2000}}}
	got := progressLine(iv)
	if want := "pebble   l.i0         3s  settling 0.4s  wMB/s 120.0  cpu% 0.0  db_MB 0.0"; got != want {
		t.Errorf("settling line\n got %q\nwant %q", got, want)
	}
	iv.Settle = false
	if got := progressLine(iv); strings.Contains(got, "settling") || !strings.Contains(got, "ips") {
		t.Errorf("operations' line %q", got)
	}
}
