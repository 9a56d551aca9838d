package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/sysstat"
)

// TestDiskEstimate: a scale whose data, as estimated from the bytes per unit measured on each
// engine, does not fit the data directory's file system is refused in one line naming both
// figures, exit 2, before anything is written; an engine without a figure gets the least one
// measured, said as such.
func TestDiskEstimate(t *testing.T) {
	out, data, d := dirs(t)
	if free, _, err := sysstat.Space(data); err != nil || free > 900<<30 {
		t.Skipf("the data directory's file system has room for the scales tried (%d bytes free, %v)", free, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--workload", "tpcc", "--warehouses", "10000", "--engine", "postgres"},
			"the data needs about 1842.9 GiB on postgres (10000 warehouses (--warehouses) × 158.3 MB measured per warehouse on postgres, × 1.25 for the run's growth); its file system ("},
		{[]string{"--workload", "script", "--scale-factor", "100000", "--engine", "sqlite"},
			"the data needs about 910.8 GiB on sqlite (scale factor 100000 (--scale-factor) × 9.8 MB per unit of scale at least (the least measured, on myrocks; sqlite has no figure)); its file system ("},
	} {
		tr := run(t, nil, append(append([]string{"run"}, c.args...), d...)...)
		prefix := "rumbench: data dir " + data + ": "
		if tr.code != ExitUsage || !strings.HasPrefix(tr.stderr, prefix+c.want) || !strings.HasSuffix(tr.stderr, " free: give --data-dir on one with room, or a smaller scale\n") || strings.Count(tr.stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, tr.code, tr.stderr, ExitUsage, prefix+c.want)
		}
	}
	if left, _ := os.ReadDir(out); len(left) != 0 {
		t.Errorf("a refused run left %v in --out", left)
	}
}
