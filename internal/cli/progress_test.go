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

// TestProgressPartialInterval: an interval shorter than half a second (a step's last moments)
// is not shown; a partial one longer than that says its length.
func TestProgressPartialInterval(t *testing.T) {
	var b strings.Builder
	p := &progress{w: &b}
	iv := &results.Interval{Target: "sqlite", Step: "point-query", T: 3.004, Secs: 0.004, RateName: "qps"}
	p.tick(iv)
	if b.Len() != 0 {
		t.Errorf("a 4 ms interval shown: %q", b.String())
	}
	iv.T, iv.Secs, iv.Rate = 2.6, 0.6, 1000
	p.tick(iv)
	if want := "sqlite   point-query    2.6s (over 0.6s)  qps     1000"; !strings.HasPrefix(b.String(), want) {
		t.Errorf("partial interval\n got %q\nwant it to start %q", b.String(), want)
	}
	b.Reset()
	iv.T, iv.Secs = 2, 1.002
	p.tick(iv)
	if want := "sqlite   point-query      2s  qps     1000"; !strings.HasPrefix(b.String(), want) {
		t.Errorf("whole interval\n got %q\nwant it to start %q", b.String(), want)
	}
}
