package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/report"
	"github.com/rumbench/rumbench/internal/results"
	_ "github.com/rumbench/rumbench/internal/workload/toy" // the registry line of a test-only workload
)

// TestThirdWorkload runs a workload that lives in its own folder (internal/workload/toy) and is
// known to rumbench only through the import above: its flag, its steps, its two operation kinds
// and its rate names go through run, the results, every report format, compare, the HTML report
// and the store without any code outside its folder knowing about it.
func TestThirdWorkload(t *testing.T) {
	out, _, d := dirs(t)
	tr := run(t, nil, append([]string{"run", "--workload", "toy", "--toy-rows", "3000", "--engine", "pebble,sqlite", "--wide"}, d...)...)
	if tr.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", tr.code, tr.stderr, tr.stdout)
	}
	for _, want := range []string{"rumbench: toy on pebble,sqlite, profile quick, steps fill,probe: rows=3000 probe_secs=1",
		"pebble fill"} {
		if !strings.Contains(strings.Join(strings.Fields(tr.stderr), " "), want) {
			t.Errorf("progress lacks %q:\n%s", want, tr.stderr)
		}
	}
	for _, want := range []string{"== fill (per-op figures per row put)", "== probe (per-op figures per lookup)",
		" pps ", " lps ", " ips_target ", " cs/op ", " obs% ", " put ", " lookup ", " put_intended ", "invariants pebble: ok: 3200 rows",
		"invariants sqlite: ok: 3200 rows", report.MetricsHint} {
		if !strings.Contains(tr.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, tr.stdout)
		}
	}
	dir, m, steps := readRun(t, out)
	if m.Workload != "toy" || m.SchemaVersion != results.SchemaVersion || len(steps) != 4 {
		t.Fatalf("manifest workload %s schema %d, %d steps", m.Workload, m.SchemaVersion, len(steps))
	}
	for _, s := range steps {
		switch s.Step {
		case "fill":
			if s.RateName != "pps" || s.Ops != 3000 || s.KindUnits("put") != 3000 || s.KindOps("put") != 30 || s.Kind("put").Role != results.RoleWrite {
				t.Errorf("%s fill: rate %s ops %d kinds %+v", s.Target, s.RateName, s.Ops, s.Kinds)
			}
		case "probe":
			lookups := s.KindOps("lookup")
			// 10 random keys per lookup, a repeated key found once.
			if rows := s.KindUnits("lookup"); s.RateName != "lps" || lookups == 0 || s.Ops != lookups || rows > 10*lookups || rows < 9*lookups ||
				s.KindUnits("put") != 200 || s.IPS <= 0 || s.TargetIPS != 200 || s.TargetMet == nil {
				t.Errorf("%s probe: rate %s ops %d kinds %+v ips %g target %g", s.Target, s.RateName, s.Ops, s.Kinds, s.IPS, s.TargetIPS)
			}
		}
	}
	checkRunReport(t, dir, tr.stdout)

	// Every report format, from the directory and from the store.
	for _, f := range []string{"text", "md", "csv", "tsv", "json", "gobench"} {
		r := run(t, nil, "report", "--out", out, "--format", f, m.RunID)
		if r.code != 0 || !strings.Contains(r.stdout, "lps") || !strings.Contains(r.stdout, "pps") {
			t.Errorf("report --format %s: exit %d %s\n%s", f, r.code, r.stderr, r.stdout)
		}
	}
	html := filepath.Join(t.TempDir(), "toy.html")
	if r := run(t, nil, "report", "--out", out, "--format", "html", "-o", html, m.RunID); r.code != 0 {
		t.Errorf("report --format html: exit %d %s", r.code, r.stderr)
	} else if page, _ := os.ReadFile(html); !strings.Contains(string(page), "fill") || !strings.Contains(string(page), "per lookup") {
		t.Errorf("html report lacks the toy's steps")
	}
	cmp := run(t, nil, "compare", "--out", out, m.RunID)
	for _, want := range []string{"== fill (relative to pebble)", "== probe (relative to pebble)", "     pps ", "     lps "} {
		if cmp.code != 0 || !strings.Contains(cmp.stdout, want) {
			t.Errorf("compare lacks %q (exit %d %s):\n%s", want, cmp.code, cmp.stderr, cmp.stdout)
		}
	}
	runs := listRuns(t, "--out", out)
	if len(runs) != 1 || runs[0].Workload != "toy" {
		t.Errorf("store: %+v", runs)
	}
	// The run directory gone, report reads the run back from the store.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if r := run(t, nil, "report", "--out", out, "--format", "text", m.RunID); r.code != 0 || !strings.Contains(r.stdout, " lps ") {
		t.Errorf("report from the store: exit %d %s\n%s", r.code, r.stderr, r.stdout)
	}

	// Its flag belongs to it: another workload refuses it in one line, and both help texts show it.
	tr = run(t, nil, "run", "--toy-rows", "5")
	if want := "rumbench: --toy-rows applies to --workload toy, not insert (see rumbench workloads toy)\n"; tr.code != ExitUsage || tr.stderr != want {
		t.Errorf("--toy-rows on insert: exit %d %q", tr.code, tr.stderr)
	}
	if tr = run(t, nil, "metrics", "lps"); tr.code != 0 || !strings.Contains(tr.stdout, "as the rate of --workload toy: 10-key lookups per second") {
		t.Errorf("metrics lps: exit %d %s\n%s", tr.code, tr.stderr, tr.stdout)
	}
	for _, args := range [][]string{{"workloads", "toy"}, {"run", "--workload", "toy", "--help"}} {
		tr = run(t, nil, args...)
		if tr.code != 0 || !strings.Contains(tr.stdout, "--toy-rows") || strings.Contains(tr.stdout, "--rows-per-commit") {
			t.Errorf("%v: exit %d\n%s", args, tr.code, tr.stdout)
		}
	}
}
