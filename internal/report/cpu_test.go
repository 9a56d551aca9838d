package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/results"
)

// cpuRun is an insert benchmark run of pebble (embedded: its process is the engine) on a host
// that other processes kept busy in l.i1, and PostgreSQL (managed: its client and server tree)
// on a quiet host. Each step lasts 1 s: the busy mark needs other% above 10 + 2 points.
func cpuRun() *results.Run {
	step := func(target, name string, host, client, server, other float64) results.Step {
		s := results.Step{Target: target, Engine: target, Step: name, Status: "ok", Secs: 1, Ops: 1000, RateName: "ips",
			RateUnit: "rows/s", PerOp: "inserted row", RateKinds: []string{"insert"}, Kinds: []results.Kind{kind("insert", results.RoleWrite, 10, 1000, 100)},
			Rate: 1000, IPS: 1000, HostCPUUsPerOp: host, ClientCPUUsPerOp: client, ProcessCPUUsPerOp: client, OtherCPUPct: &other}
		if server > 0 {
			s.Server, s.ServerCPUUsPerOp = "managed", server
		}
		return s
	}
	return &results.Run{Dir: "results/x", Manifest: &results.Manifest{RunID: "20261121T120000Z-insert", Workload: "insert",
		Summary: []string{"l.i0", "l.i1"}, Headline: []string{"l.i1:tcpu_us/op"}},
		Steps: []results.Step{
			// pebble's l.i1 ran while other processes took 38.6% of the CPUs: above 10 + 2.
			step("pebble", "l.i0", 13.2, 12, 0, 0.91),
			step("pebble", "l.i1", 55, 12.5, 0, 38.6),
			step("postgres", "l.i0", 41, 10, 30, 0.488),
			step("postgres", "l.i1", 41, 10, 30, 11.9),
		}}
}

// TestTargetCPUAndBusyHost: the brief view and the summary show the target's own CPU
// (tcpu_us/op: pebble's process, PostgreSQL's client and server), the wide view also the
// host's (cpu_us/op); a step during which other processes took more than 10% of the host's
// CPUs (by more than 2 points over a step of 1 s: postgres' 11.9 is not) is marked busy host
// in its target cell, with other% in the brief view and a footer line, and so is its series
// in the summary.
func TestTargetCPUAndBusyHost(t *testing.T) {
	run := cpuRun()
	tables := StepTables(run.Steps, Brief)
	l0, l1 := tables[0], tables[2]
	checkGrid(t, l0, [][]string{
		{"target", "ips", "db_MB", "B/row", "rKB/op", "wKB/i", "fl/op", "tcpu_us/op", "ccpu_us/op", "scpu_us/op", "rss_MB", "srss_MB", "max_us"},
		{"pebble", "1000", "0", "0", "-", "-", "-", "12.0", "12.0", "-", "0", "-", "100"},
		{"postgres", "1000", "0", "0", "-", "-", "-", "40.0", "10.0", "30.0", "0", "0", "100"},
	})
	checkGrid(t, l1, [][]string{
		{"target", "ips", "db_MB", "B/row", "rKB/op", "wKB/i", "fl/op", "tcpu_us/op", "ccpu_us/op", "scpu_us/op", "other%", "rss_MB", "srss_MB", "max_us"},
		{"pebble (busy host)", "1000", "0", "0", "-", "-", "-", "12.5", "12.5", "-", "38.6", "0", "-", "100"},
		{"postgres", "1000", "0", "0", "-", "-", "-", "40.0", "10.0", "30.0", "11.9", "0", "0", "100"},
	})
	const note = "busy host: pebble (other% 38.6): other processes took more than 10% of the host's CPUs: the rates and response times shared the CPUs with them (tcpu_us/op leaves their CPU out, cpu_us/op counts it; rumbench metrics other%)"
	if !slices.Contains(l1.Footer, note) || slices.ContainsFunc(l0.Footer, func(s string) bool { return strings.HasPrefix(s, "busy host") }) {
		t.Errorf("footers: l.i0 %q, l.i1 %q; want the busy host line under l.i1 only", l0.Footer, l1.Footer)
	}
	wide := StepTables(run.Steps, Wide)[0]
	var cols []string
	for _, c := range wide.Columns {
		cols = append(cols, c.Name)
	}
	if got := strings.Join(cols, " "); !strings.Contains(got, " tcpu_us/op ccpu_us/op scpu_us/op cpu_us/op other% ") {
		t.Errorf("wide columns %q, want tcpu_us/op ccpu_us/op scpu_us/op cpu_us/op other%% in that order", got)
	}

	sum, err := SummaryTable([]*results.Run{run}, "")
	if err != nil {
		t.Fatal(err)
	}
	checkGrid(t, sum, [][]string{
		{"target", "l.i0 ips↑", "l.i1 ips↑", "tcpu_us/op↓"},
		{"pebble (busy host)", "1000", "1000", "12.5"},
		{"postgres", "1.00", "1.00", "3.20"},
	})
	const sumNote = "busy host: pebble in l.i1: other processes took more than 10% of the host's CPUs (other%): the rates shared the CPUs with them; tcpu_us/op leaves their CPU out"
	if !slices.Contains(sum.Footer, sumNote) {
		t.Errorf("summary footer %q lacks %q", sum.Footer, sumNote)
	}
	// Busy in every step of the summary's columns: said in a word.
	busy := 50.0
	run.Steps[0].OtherCPUPct = &busy
	sum, err = SummaryTable([]*results.Run{run}, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(sumNote, "pebble in l.i1", "pebble in every step", 1); !slices.Contains(sum.Footer, want) {
		t.Errorf("summary footer %q lacks %q", sum.Footer, want)
	}
	// Two targets busy in every step, one in a step: the first named together.
	run.Steps[2].OtherCPUPct, run.Steps[3].OtherCPUPct = &busy, &busy
	run.Steps = append(run.Steps, run.Steps[0], run.Steps[1])
	run.Steps[4].Target, run.Steps[5].Target = "sqlite", "sqlite"
	run.Steps[4].OtherCPUPct = nil
	sum, err = SummaryTable([]*results.Run{run}, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(sumNote, "pebble in l.i1", "pebble, postgres in every step; sqlite in l.i1", 1); !slices.Contains(sum.Footer, want) {
		t.Errorf("summary footer %q lacks %q", sum.Footer, want)
	}
}
