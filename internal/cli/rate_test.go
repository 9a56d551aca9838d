package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRateSweep sweeps sysbench's point-query over two fixed rates on an embedded engine: the
// engine loads once, then runs the test at each rate (targets sqlite@r200, sqlite@r400), each
// step records its schedule, the latency table and the capacity by --slo are printed, the HTML
// has the latency-throughput chart, and capacity checks pass and fail as the goal says.
func TestRateSweep(t *testing.T) {
	out, _, d := dirs(t)
	args := append([]string{"run", "--workload", "sysbench", "--tests", "point-query", "--table-size", "2000",
		"--read-secs", "1", "--warmup-secs", "0", "--rate", "200,400", "--slo", "p99<=1s", "--engine", "sqlite",
		"--check", "capacity>=400", "--store", "none", "--quiet"}, d...)
	tr := run(t, nil, args...)
	if tr.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", tr.code, tr.stderr, tr.stdout)
	}
	dir, m, steps := readRun(t, out)
	if m.Sweep == nil || m.Sweep.Flag != "rate" || !slices.Equal(m.Sweep.Rates, []float64{200, 400}) || m.SLO == nil || m.SLO.LimitUs != 1e6 {
		t.Fatalf("manifest sweep %+v, slo %+v: want rates 200,400 and p99<=1s", m.Sweep, m.SLO)
	}
	var labels []string
	for _, tg := range m.Targets {
		labels = append(labels, tg.Label)
	}
	if want := []string{"sqlite", "sqlite@r200", "sqlite@r400"}; !slices.Equal(labels, want) {
		t.Fatalf("targets %v, want %v", labels, want)
	}
	for _, s := range steps {
		switch {
		case s.Target == "sqlite" && s.Schedule != nil:
			t.Errorf("load step %s has a schedule: a load runs flat out", s.Step)
		case s.Target != "sqlite" && (s.Schedule == nil || s.Schedule.Arrivals != "poisson" || s.Ops == 0):
			t.Errorf("%s %s: schedule %+v, ops %d: want a Poisson schedule and operations", s.Target, s.Step, s.Schedule, s.Ops)
		case s.Target == "sqlite@r400" && s.Schedule.Rate != 400:
			t.Errorf("sqlite@r400: rate %g", s.Schedule.Rate)
		}
	}
	for _, want := range []string{"== latency at fixed rates: point-query", "  sqlite   200", "  sqlite   400",
		"capacity (the highest rate that met p99<=1s from the intended start in every step, its rate kept): sqlite 400/s", " svc_p99_us "} {
		if !strings.Contains(tr.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, tr.stdout)
		}
	}
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil || !strings.Contains(string(html), "p99 latency (ms) by achieved rate") {
		t.Errorf("report.html lacks the latency-throughput chart (err %v)", err)
	}
	// A goal no rate meets: capacity 0, the check fails, exit 1.
	out2, _, d2 := dirs(t)
	args = append([]string{"run", "--workload", "sysbench", "--tests", "point-query", "--table-size", "2000",
		"--read-secs", "0.5", "--warmup-secs", "0", "--rate", "100,200", "--slo", "p99<=1ns", "--engine", "sqlite",
		"--check", "capacity>=100", "--store", "none", "--quiet"}, d2...)
	tr = run(t, nil, args...)
	if tr.code != 1 || !strings.Contains(tr.stdout, "sqlite none of the") {
		t.Fatalf("goal of 1 ns: exit %d, want 1 and no capacity\nstdout: %s\nstderr: %s", tr.code, tr.stdout, tr.stderr)
	}
	_ = out2
}

// TestRateRefusals checks the fixed rate's flags refuse bad input in one line, exit 2.
func TestRateRefusals(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--rate", "abc"}, `--rate "abc": "abc" is not a rate`},
		{[]string{"--rate", "0"}, `is not a rate: want a number of operations per second above 0`},
		{[]string{"--rate", "200,100"}, "the rates of a sweep must increase"},
		{[]string{"--rate", "100", "--arrivals", "bursty"}, `--arrivals "bursty": want poisson or uniform`},
		{[]string{"--slo", "p99<=1ms"}, "--slo is a setting of a fixed rate: give --rate too"},
		{[]string{"--rate", "100", "--slo", "p100<=1ms"}, "want PERCENTILE<=DURATION"},
		{[]string{"--rate", "100", "--latency-limit", "-1s"}, "--latency-limit -1s: must be between 0 (none) and 1h0m0s"},
		{[]string{"--rate", "100,200", "--threads", "1,2"}, "sweep one of them at a time"},
	} {
		_, _, d := dirs(t)
		args := append(append([]string{"run", "--workload", "sysbench", "--engine", "sqlite", "--store", "none", "--quiet"}, c.args...), d...)
		tr := run(t, nil, args...)
		lines := strings.Split(strings.TrimSpace(tr.stderr), "\n")
		if tr.code != 2 || len(lines) != 1 || !strings.Contains(tr.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line with %q", c.args, tr.code, tr.stderr, c.want)
		}
	}
	// A spelling of the rate and --rate together; a thread of several clients at a rate.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--workload", "ycsb", "--target", "100", "--rate", "100"}, "--target and --rate set the same rate: give one of them"},
		{[]string{"run", "--workload", "script", "--builtin", "select-only", "--clients", "4", "--jobs", "2", "--rate", "100"}, "--rate with --jobs 2 below --clients 4"},
		{[]string{"prepare", "--workload", "sysbench", "--rate", "100"}, "--rate applies to rumbench run, not prepare"},
	} {
		_, _, d := dirs(t)
		args := append(append(c.args, "--engine", "sqlite", "--store", "none", "--quiet"), d...)
		tr := run(t, nil, args...)
		if tr.code != 2 || !strings.Contains(tr.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, tr.code, tr.stderr, c.want)
		}
	}
}

// TestRateStallingEngine runs YCSB at a fixed rate of 1000 operations per second on the null
// engine stalling one operation in 200 for 30 ms: the operations due during a stall queue behind
// it, so from the intended start dozens of operations take over 10 ms, while by service time
// only the stalled ones do. Counts are asserted, from the histograms of steps.json.
func TestRateStallingEngine(t *testing.T) {
	out, _, d := dirs(t)
	args := append([]string{"run", "--workload", "ycsb", "--engine", "null", "--engine-opt", "stall_every=200", "--engine-opt", "stall_ms=30",
		"--run-secs", "2", "--warmup-secs", "0", "--threads", "1", "--rate", "1000", "--arrivals", "uniform", "--store", "none", "--quiet"}, d...)
	tr := run(t, nil, args...)
	if tr.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", tr.code, tr.stderr, tr.stdout)
	}
	_, _, steps := readRun(t, out)
	var service, intended, ops int64
	for _, s := range steps {
		if s.Step != "run" {
			continue
		}
		if s.Schedule == nil || s.Schedule.Arrivals != "uniform" {
			t.Fatalf("run step schedule %+v, want uniform arrivals", s.Schedule)
		}
		ops = s.Ops
		for _, l := range s.Latency {
			n := int64(0)
			for _, b := range l.Buckets {
				if b.UpperNs > int64(10*time.Millisecond) {
					n += b.Count
				}
			}
			if strings.HasSuffix(l.Kind, "_intended") {
				intended += n
			} else {
				service += n
			}
		}
	}
	stalls := ops / 200
	if ops < 1000 || service < 1 || service > stalls+2 || intended < 5*stalls {
		t.Fatalf("%d operations (%d stalls): %d over 10 ms by service time, %d from the intended start; want 1..%d and at least %d",
			ops, stalls, service, intended, stalls+2, 5*stalls)
	}
}
