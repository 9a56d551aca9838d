package cli

import (
	"os"
	"strings"
	"testing"
)

// A tiny sysbench run through the command line: the group tables are printed, every test is
// recorded with its group, events and statements, and QPS counts BEGIN and COMMIT.
func TestRunSysbenchTiny(t *testing.T) {
	out, _, d := dirs(t)
	args := append([]string{"run", "--workload", "sysbench", "--engine", "sqlite,pebble", "--table-size", "2000",
		"--tables", "2", "--events", "20", "--tests", "point-query,scan,read-only_range=10,update-index,insert",
		"--percentiles", "50,99.9", "--warmup-secs", "0", "--quiet"}, d...) // --events counts the measured events, after any warm-up
	tr := run(t, nil, args...)
	if tr.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", tr.code, tr.stderr, tr.stdout)
	}
	for _, want := range []string{"== point queries", "== range queries without aggregation",
		"== range queries with aggregation", "== writes", "p99.9_",
		"invariants sqlite: ok: 4020 rows, 4020 index entries", "invariants pebble: ok: 4020 rows, 4020 index entries"} {
		if !strings.Contains(tr.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, tr.stdout)
		}
	}
	if strings.Contains(tr.stdout, " cs/op ") || strings.Contains(tr.stdout, " obs% ") { // the brief view
		t.Errorf("the tables without --wide show cs/op or obs%%:\n%s", tr.stdout)
	}
	_, m, steps := readRun(t, out)
	if m.Workload != "sysbench" || len(steps) != 2*7 {
		t.Fatalf("workload %q, %d steps, want 2 engines × (load, create-index, 5 tests)", m.Workload, len(steps))
	}
	wantStmts := map[string]int64{"point-query": 20, "scan": 20, "read-only_range=10": 16 * 20, "update-index": 20, "insert": 20}
	for _, s := range steps {
		if n, ok := wantStmts[s.Step]; ok {
			if s.KindOps("event") != 20 || s.KindUnits("event") != n || s.Group == "" || s.Rate <= 0 {
				t.Errorf("%s %s: events %d statements %d group %q rate %g", s.Target, s.Step, s.KindOps("event"), s.KindUnits("event"), s.Group, s.Rate)
			}
			if s.Step != "scan" && (s.RateName != "qps" || s.Ops != n) {
				t.Errorf("%s %s: rate %s %g, ops %d: QPS is statements per second", s.Target, s.Step, s.RateName, s.Rate, s.Ops)
			}
			if l := s.Latency[0]; l.Kind != "event" || l.Percentiles["p99.9"] <= 0 || l.Percentiles["p50"] <= 0 {
				t.Errorf("%s %s: latency %+v", s.Target, s.Step, l)
			}
		}
	}
}

// compare works across the targets of one sysbench run, and reads the run from the results
// store once its directory is gone.
func TestCompareSysbenchFromStore(t *testing.T) {
	out, _, d := dirs(t)
	args := append([]string{"run", "--workload", "sysbench", "--engine", "sqlite,bbolt", "--table-size", "1000",
		"--events", "10", "--tests", "point-query,range-covered-pk,read-only-sum,update-index", "--quiet"}, d...)
	if tr := run(t, nil, args...); tr.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", tr.code, tr.stderr)
	}
	dir, m, _ := readRun(t, out)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	tr := run(t, nil, "compare", m.RunID, "--out", out, "--format", "tsv")
	if tr.code != 0 {
		t.Fatalf("compare: exit %d\nstderr: %s", tr.code, tr.stderr)
	}
	for _, want := range []string{"point-query", "range-covered-pk", "read-only-sum", "update-index", "sqlite", "bbolt"} {
		if !strings.Contains(tr.stdout, want) {
			t.Errorf("compare output lacks %q:\n%s", want, tr.stdout)
		}
	}
	tr = run(t, nil, "compare", "nosuchrun", "--out", out)
	if tr.code != ExitUsage || !strings.Contains(tr.stderr, `run "nosuchrun"`) {
		t.Errorf("unknown run: exit %d, stderr %q", tr.code, tr.stderr)
	}
}
