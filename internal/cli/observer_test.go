package cli

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/rumbench/rumbench/internal/results"
)

// TestObserverApartFromClientCPU runs sysbench update-index on MariaDB with the binlog and
// redo synced per commit, without and with 2 ms of injected sync latency (about 10× fewer
// statements per second), and checks how the client's CPU per statement is accounted: the
// observer (ticks, samples, results, progress) is measured on its own thread and left out of
// ccpu_us/op, so pcpu_us/op - ccpu_us/op is exactly the observer's CPU over the step divided by
// the statements, and the observer's share of a CPU is a small positive figure. The figures
// themselves (how much a statement's wait costs the client, 36–50 µs on an idle VM) depend on
// the host's load and are logged, not asserted: docs/client-cost.md, "At a low statement rate",
// has them measured side by side with sysbench.
func TestObserverApartFromClientCPU(t *testing.T) {
	cnf := filepath.Join(t.TempDir(), "binlog.cnf")
	if err := os.WriteFile(cnf, []byte("[mysqld]\nlog_bin = binlog\nsync_binlog = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, lat := range []string{"0", "2ms"} {
		out, _, d := dirs(t)
		tr := run(t, nil, append([]string{"run", "--workload", "sysbench", "--engine", "mysql", "--server-config", cnf,
			"--tests", "update-index", "--write-secs", "5", "--table-size", "5000", "--fsync-latency", lat, "--quiet"}, d...)...)
		if tr.code != 0 {
			t.Fatalf("fsync latency %s: exit %d: %s", lat, tr.code, tr.stderr)
		}
		_, _, steps := readRun(t, out)
		var s *results.Step
		for k := range steps {
			if steps[k].Step == "update-index" {
				s = &steps[k]
			}
		}
		if s == nil || s.Ops == 0 {
			t.Fatalf("no update-index step with statements in %+v", steps)
		}
		t.Logf("fsync latency %s: %.0f qps, ccpu %.1f µs/op, pcpu %.1f µs/op, observer %.3f%% of a CPU (%.0f µs/tick)",
			lat, s.Rate, s.ClientCPUUsPerOp, s.ProcessCPUUsPerOp, s.ObserverCPUPct, s.ObserverUsPerTick)
		if s.ObserverCPUPct <= 0 || s.ObserverCPUPct > 50 {
			t.Errorf("observer %.3f%% of a CPU: want a share of one CPU above 0", s.ObserverCPUPct)
		}
		observerUs := s.ObserverCPUPct / 100 * (s.Secs + s.SettleSecs) * 1e6 // the observer is measured over the settling too
		apart := (s.ProcessCPUUsPerOp - s.ClientCPUUsPerOp) * float64(s.Ops)
		if math.Abs(apart-observerUs) > 0.01*observerUs+1 {
			t.Errorf("fsync latency %s: (pcpu - ccpu) × %d statements = %.0f µs, the observer's CPU over the step %.0f µs: want them equal",
				lat, s.Ops, apart, observerUs)
		}
	}
}
