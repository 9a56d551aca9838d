package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/results"
)

// targetSteps maps each target of steps to its step names, in order.
func targetSteps(steps []results.Step) map[string][]string {
	out := map[string][]string{}
	for _, s := range steps {
		out[s.Target] = append(out[s.Target], s.Step)
	}
	return out
}

// TestSweepLoadOnce sweeps sysbench's --threads on two engines: each engine loads once (its
// load steps under its own label), then runs every test at each count on the same data
// (targets engine@1, engine@2); the scaling tables are printed and speedup checks evaluated.
func TestSweepLoadOnce(t *testing.T) {
	out, _, d := dirs(t)
	args := append([]string{"run", "--workload", "sysbench", "--tests", "point-query,update-index", "--table-size", "2000",
		"--read-secs", "0.5", "--write-secs", "0.5", "--warmup-secs", "0", "--threads", "1,2", "--engine", "sqlite,pebble",
		"--check", "speedup@2>0", "--check", "point-query:eff@2>0", "--store", "none", "--quiet"}, d...)
	tr := run(t, nil, args...)
	if tr.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", tr.code, tr.stderr, tr.stdout)
	}
	_, m, steps := readRun(t, out)
	if m.Sweep == nil || m.Sweep.Flag != "threads" || !slices.Equal(m.Sweep.Counts, []int{1, 2}) || !m.Sweep.LoadOnce {
		t.Fatalf("manifest sweep %+v, want threads 1,2 loaded once", m.Sweep)
	}
	var labels []string
	for _, tg := range m.Targets {
		labels = append(labels, tg.Label)
		want := map[string]struct {
			of      string
			clients int
		}{"sqlite@1": {"sqlite", 1}, "sqlite@2": {"sqlite", 2}, "pebble@1": {"pebble", 1}, "pebble@2": {"pebble", 2}}[tg.Label]
		if tg.Of != want.of || tg.Clients != want.clients {
			t.Errorf("target %s: of %q clients %d, want %q %d", tg.Label, tg.Of, tg.Clients, want.of, want.clients)
		}
		if (tg.Check != "") != (tg.Of == "") {
			t.Errorf("target %s: check %q: the check belongs to the target that loaded the data", tg.Label, tg.Check)
		}
	}
	if want := []string{"sqlite", "sqlite@1", "sqlite@2", "pebble", "pebble@1", "pebble@2"}; !slices.Equal(labels, want) {
		t.Errorf("targets %v, want %v", labels, want)
	}
	by := targetSteps(steps)
	for _, e := range []string{"sqlite", "pebble"} {
		if got := by[e]; !slices.Equal(got, []string{"load", "create-index"}) {
			t.Errorf("%s ran %v, want the load once: load, create-index", e, got)
		}
		for _, n := range []string{"@1", "@2"} {
			got := slices.Clone(by[e+n])
			slices.Sort(got)
			if !slices.Equal(got, []string{"point-query", "update-index"}) {
				t.Errorf("%s%s ran %v, want each test once", e, n, got)
			}
		}
	}
	for _, s := range steps {
		if s.Target == "pebble@2" && s.Step == "point-query" && len(s.Kinds) > 0 && s.Ops == 0 {
			t.Errorf("pebble@2 point-query measured no operation")
		}
	}
	for _, want := range []string{"== scaling: point-query", "== scaling: update-index", "  target  clients"} {
		if !strings.Contains(tr.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, tr.stdout)
		}
	}
	// Each engine's first count is the base of its speedup: 1.00, efficiency 1.00.
	if !strings.Contains(tr.stdout, "  sqlite        1") || !strings.Contains(tr.stdout, "1.00  1.00") {
		t.Errorf("scaling tables lack the base rows:\n%s", tr.stdout)
	}
	// speedup@2 over both steps of both engines, eff@2 over point-query of both.
	if n := strings.Count(tr.stdout, "speedup@2>0"); n != 4 {
		t.Errorf("speedup@2>0 evaluated %d times, want 4 (2 engines × 2 tests):\n%s", n, tr.stdout)
	}
	if n := strings.Count(tr.stdout, "point-query:eff@2>0"); n != 2 {
		t.Errorf("eff@2 evaluated %d times, want 2:\n%s", n, tr.stdout)
	}
	if !strings.Contains(tr.stdout, "invariants sqlite: ok") || !strings.Contains(tr.stdout, "invariants pebble: ok") {
		t.Errorf("no invariant check of the swept data:\n%s", tr.stdout)
	}
	// The summary's base is the first target that measured its columns, and a target that
	// only loaded has no row.
	if !strings.Contains(tr.stdout, "== summary (relative to sqlite@1") || strings.Contains(tr.stdout, "\n    sqlite  ") {
		t.Errorf("summary base or rows wrong:\n%s", tr.stdout)
	}
}

// TestSweepPerCount sweeps the insert benchmark's --clients, which shapes its data (a table per
// client): each count is a target that loads its own data.
func TestSweepPerCount(t *testing.T) {
	out, _, d := dirs(t)
	args := append([]string{"run", "--steps", "l.i0,l.i1", "--rows", "2000", "--writes", "500", "--clients", "1,2",
		"--engine", "sqlite", "--store", "none", "--quiet"}, d...)
	tr := run(t, nil, args...)
	if tr.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", tr.code, tr.stderr, tr.stdout)
	}
	_, m, steps := readRun(t, out)
	if m.Sweep == nil || m.Sweep.Flag != "clients" || m.Sweep.LoadOnce {
		t.Fatalf("manifest sweep %+v, want clients loaded per count", m.Sweep)
	}
	// Each count's check is its own data's: twice the rows at 2 clients (a table each).
	var labels []string
	for _, tg := range m.Targets {
		labels = append(labels, tg.Label+":"+tg.Check)
	}
	if len(labels) != 2 || !strings.HasPrefix(labels[0], "sqlite@1:ok: 2400 rows,") || !strings.HasPrefix(labels[1], "sqlite@2:ok: 4800 rows,") {
		t.Errorf("targets %v, want sqlite@1 with 2400 rows checked, sqlite@2 with 4800", labels)
	}
	by := targetSteps(steps)
	for _, tg := range []string{"sqlite@1", "sqlite@2"} {
		if !slices.Equal(by[tg], []string{"l.i0", "l.i1"}) {
			t.Errorf("%s ran %v, want l.i0, l.i1", tg, by[tg])
		}
	}
	if !strings.Contains(tr.stdout, "== scaling: l.i0") || !strings.Contains(tr.stdout, "== scaling: l.i1") {
		t.Errorf("no scaling tables:\n%s", tr.stdout)
	}
}

// TestSweepUsage: a bad list, or a sweep where the run cannot do one, is one line and exit 2.
func TestSweepUsage(t *testing.T) {
	_, _, d := dirs(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--workload", "sysbench", "--threads", "2,1"}, "the counts must increase"},
		{[]string{"run", "--workload", "sysbench", "--threads", "1,1"}, "listed twice"},
		{[]string{"run", "--workload", "sysbench", "--threads", "1,x"}, `"x" is not a count`},
		{[]string{"run", "--workload", "sysbench", "--threads", "0,2"}, `"0" is not a count`},
		{[]string{"run", "--workload", "sysbench", "--threads", "1,5000"}, "--threads 5000: want 1..4096"},
		{[]string{"run", "--workload", "ycsb", "--threads", "1,2", "--shard", "0/2", "--engine", "sqlite"}, "does not go with --shard"},
		{[]string{"prepare", "--workload", "linkbench", "--requesters", "1,2", "--engine", "sqlite"}, "does not go with prepare"},
		{[]string{"run", "--clients", "1,2", "--reuse", "--engine", "sqlite"}, "does not go with --reuse"},
	} {
		tr := run(t, nil, append(c.args, d...)...)
		if tr.code != ExitUsage || !strings.Contains(tr.stderr, c.want) || strings.Count(strings.TrimSpace(tr.stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and one line with %q", c.args, tr.code, tr.stderr, ExitUsage, c.want)
		}
	}
}

// TestSweepYCSBAndLinkBench sweeps YCSB's --threads and LinkBench's --requesters: each loads
// once under the engine's label, then runs its measured steps at each count on that data, and
// its check holds after the last.
func TestSweepYCSBAndLinkBench(t *testing.T) {
	for _, c := range []struct {
		args     []string
		load     string
		measured []string
	}{
		{[]string{"--workload", "ycsb", "-p", "recordcount=500", "--run-secs", "0.5", "--threads", "1,2"}, "load", []string{"run"}},
		{[]string{"--workload", "linkbench", "--maxid1", "300", "--loops", "1", "--loop-secs", "0.5", "--requesters", "1,2"}, "load", []string{"loop1"}},
	} {
		out, _, d := dirs(t)
		args := append(append([]string{"run", "--engine", "sqlite", "--store", "none", "--quiet"}, c.args...), d...)
		tr := run(t, nil, args...)
		if tr.code != 0 {
			t.Fatalf("%v: exit %d\nstderr: %s\nstdout: %s", c.args, tr.code, tr.stderr, tr.stdout)
		}
		_, m, steps := readRun(t, out)
		by := targetSteps(steps)
		if got := by["sqlite"]; !slices.Equal(got, []string{c.load}) {
			t.Errorf("%v: sqlite ran %v, want its load once", c.args, got)
		}
		for _, n := range []string{"@1", "@2"} {
			if got := by["sqlite"+n]; !slices.Equal(got, c.measured) {
				t.Errorf("%v: sqlite%s ran %v, want %v", c.args, n, got, c.measured)
			}
		}
		if len(m.Targets) != 3 || !strings.HasPrefix(m.Targets[0].Check, "ok") {
			t.Errorf("%v: targets %+v, want sqlite (checked), sqlite@1, sqlite@2", c.args, m.Targets)
		}
		if !strings.Contains(tr.stdout, "== scaling: "+c.measured[0]) {
			t.Errorf("%v: no scaling table:\n%s", c.args, tr.stdout)
		}
	}
}
