package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestYCSB runs YCSB the way its users call it: a property file by name with -p overrides, on an
// LSM and a B-tree, paced with --target; the tables have a row per operation, the intended-start
// rows, p99.99, and the invariants. The run is 1500 operations at 1500/s (its time, a minute, is a
// hang guard only): however loaded the host, the count is exact and pacing never runs ahead of
// the target.
func TestYCSB(t *testing.T) {
	out, _, d := dirs(t)
	file := filepath.Join(t.TempDir(), "mine.properties")
	if err := os.WriteFile(file, []byte("# a user's file\nrecordcount=1000\nscanproportion=0.1\nreadproportion=0.6\nupdateproportion=0.3\nmaxscanlength=5\nmade.up=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := run(t, nil, append([]string{"run", "--workload", "ycsb", "-P", "workloada", "-P", file, "-p", "recordcount=2000",
		"-p", "operationcount=1500", "--run-secs", "60", "--target", "1500", "--threads", "2", "--engine", "pebble,bbolt"}, d...)...)
	if tr.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", tr.code, tr.stderr, tr.stdout)
	}
	for _, want := range []string{"rumbench: warning: unknown YCSB properties, ignored: made.up",
		"rumbench: ycsb on pebble,bbolt, profile quick, steps load,run: sources=workloada+" + file + " recordcount=2000 operationcount=1500 run_secs=60 threads=2",
		"mix=read:0.6,update:0.3,scan:0.1", "load verified: 1000 sampled records read back whole"} {
		if !strings.Contains(strings.Join(strings.Fields(tr.stderr), " "), want) {
			t.Errorf("progress lacks %q:\n%s", want, tr.stderr)
		}
	}
	for _, want := range []string{"== load (per-op figures per inserted row)", "== run (ops = operations/s", " ops ",
		" read ", " update ", " scan ", " read_intended ", " scan_intended ", " p99.99_ms ",
		"invariants pebble: ok: 2000 records (2000 loaded + 0 inserted), every key present and every field whole",
		"invariants bbolt: ok: 2000 records"} {
		if !strings.Contains(tr.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, tr.stdout)
		}
	}
	_, m, steps := readRun(t, out)
	if m.Workload != "ycsb" || len(steps) != 4 {
		t.Fatalf("manifest workload %s, %d steps", m.Workload, len(steps))
	}
	for _, s := range steps {
		if s.Step == "run" && (s.RateName != "ops" || s.TargetIPS != 0 || s.Ops != 1500 || s.Rate <= 0 || s.Rate > 1600) {
			t.Errorf("%s run: %d operations, rate %s %g; want 1500 operations, ops at most the 1500/s target", s.Target, s.Ops, s.RateName, s.Rate)
		}
	}

	// Refusals: one line, exit 2, before any work.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-p", "requestdistribution=pareto"}, "requestdistribution=pareto"},
		{[]string{"-p", "fieldcount=x"}, "fieldcount=x"},
		{[]string{"--workload-letter", "h"}, `unknown YCSB workload "h"`},
		{[]string{"-P", "nosuchfile"}, "-P nosuchfile: no such file"},
		{[]string{"--steps", "run"}, "--steps run"},
	} {
		tr := run(t, nil, append(append([]string{"run", "--workload", "ycsb", "--engine", "pebble"}, c.args...), d...)...)
		if tr.code != 2 || !strings.Contains(tr.stderr, c.want) || strings.Count(strings.TrimSpace(tr.stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line with %q", c.args, tr.code, tr.stderr, c.want)
		}
	}
	tr = run(t, nil, append([]string{"run", "--workload", "sysbench", "-p", "recordcount=1"}, d...)...)
	if tr.code != 2 || !strings.Contains(tr.stderr, "--property (-p) applies to --workload ycsb, not sysbench") {
		t.Errorf("-p on sysbench: exit %d, %q", tr.code, tr.stderr)
	}
}
