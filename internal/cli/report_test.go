package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/results"
)

// writeRun writes a run directory with the results writer: targets × steps, each step's rate
// given by rate(target index, step index).
func writeRun(t *testing.T, out, id string, targets, steps []string, rate func(ti, si int) float64) string {
	t.Helper()
	w, err := results.Create(out, id, false)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	m := &results.Manifest{SchemaVersion: results.SchemaVersion, RunID: id, Version: "dev", Workload: "insert", Start: t0, End: t0, Status: "ok"}
	for _, tg := range targets {
		m.Targets = append(m.Targets, results.Target{Label: tg})
	}
	if err := w.Manifest(m); err != nil {
		t.Fatal(err)
	}
	for ti, tg := range targets {
		for si, st := range steps {
			r := rate(ti, si)
			if err := w.Interval(&results.Interval{Target: tg, Step: st, T: 1, Secs: 1, IPS: r, Rate: r, Kinds: []results.Kind{{Name: "insert", Role: results.RoleWrite, Ops: 1, Units: int64(r), MaxUs: 1000}}}); err != nil {
				t.Fatal(err)
			}
			if err := w.Step(results.Step{Target: tg, Engine: tg, Step: st, Status: "ok", Secs: 1, RateKinds: []string{"insert"}, RateName: "ips", Kinds: []results.Kind{{Name: "insert", Role: results.RoleWrite, Units: int64(r)}},
				Ops: int64(r), Rate: r, IPS: r, HostCPUUsPerOp: 10 / float64(ti+1), Rows: int64(r)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.Dir()
}

func TestReportCommand(t *testing.T) {
	out := t.TempDir()
	dir := writeRun(t, out, "20261121T120000Z-insert", []string{"pebble", "sqlite"}, []string{"l.i0"},
		func(ti, si int) float64 { return float64(1000 * (ti + 1)) })
	writeRun(t, out, "20261121T130000Z-insert", []string{"pebble"}, []string{"l.i0"}, func(int, int) float64 { return 500 })

	// A unique id prefix under --out, Markdown.
	tr := run(t, nil, "report", "--out", out, "20261121T12", "--format", "md")
	if tr.code != 0 {
		t.Fatalf("exit %d: %s", tr.code, tr.stderr)
	}
	for _, want := range []string{"## run 20261121T120000Z-insert", "| pebble | 1000 |", "| sqlite | 2000 |"} {
		if !strings.Contains(tr.stdout, want) {
			t.Errorf("report md lacks %q:\n%s", want, tr.stdout)
		}
	}
	// Text: the brief view by default, every figure with --wide.
	for _, wide := range []bool{false, true} {
		args := []string{"report", "--out", out, "20261121T12"}
		if wide {
			args = append(args, "--wide")
		}
		tr := run(t, nil, args...)
		if tr.code != 0 || !strings.Contains(tr.stdout, " tcpu_us/op ") || strings.Contains(tr.stdout, " cpu_us/op ") != wide ||
			strings.Contains(tr.stdout, " secs ") != wide {
			t.Errorf("report --wide=%v: exit %d, want tcpu_us/op, and the host's cpu_us/op and secs only when wide:\n%s%s", wide, tr.code, tr.stdout, tr.stderr)
		}
	}
	// A run directory path, CSV to a file.
	file := filepath.Join(t.TempDir(), "r.csv")
	if tr := run(t, nil, "report", dir, "--format", "csv", "-o", file); tr.code != 0 || tr.stdout != "" {
		t.Fatalf("exit %d, stdout %q: %s", tr.code, tr.stdout, tr.stderr)
	}
	data, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(data), "l.i0,sqlite,2000,") {
		t.Fatalf("csv file: %v\n%s", err, data)
	}
	// gobench lines for benchstat.
	tr = run(t, nil, "report", "--out", out, "20261121T130000Z-insert", "--format", "gobench")
	if !strings.Contains(tr.stdout, "BenchmarkInsert/step=l.i0/target=pebble 1 500 ips 10 cpu_us/op") {
		t.Errorf("gobench output:\n%s", tr.stdout)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "--out", out, "2026"}, `rumbench: run "2026" is ambiguous in ` + out + `: 20261121T120000Z-insert, 20261121T130000Z-insert`},
		{[]string{"report", "--out", out, "nosuch"}, `rumbench: run "nosuch": no such run in ` + out + ` (latest: 20261121T120000Z-insert, 20261121T130000Z-insert)`},
		{[]string{"report", "--out", out, "2026112113", "--format", "xml"}, `rumbench: unknown format "xml" (valid: text, md, csv, tsv, json, html, gobench, openmetrics)`},
		{[]string{"report", out}, `rumbench: ` + out + ` is not a run directory (it holds no run.json)`},
		{[]string{"compare"}, `rumbench: rumbench compare needs at least one RUN: a run directory, or a run id (or unique prefix) under --out`},
	} {
		tr := run(t, nil, tc.args...)
		if tr.code != ExitUsage || strings.TrimSpace(tr.stderr) != tc.want {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", tc.args, tr.code, tr.stderr, tc.want)
		}
	}
}

func TestCompareCommand(t *testing.T) {
	out := t.TempDir()
	writeRun(t, out, "20261121T120000Z-insert", []string{"pebble", "sqlite"}, []string{"l.i0", "l.i1"},
		func(ti, si int) float64 { return float64(1000 * (ti + 1) * (si + 1)) })
	writeRun(t, out, "20261121T130000Z-insert", []string{"pebble"}, []string{"l.i0"}, func(int, int) float64 { return 500 })

	tr := run(t, nil, "compare", "--out", out, "20261121T12")
	if tr.code != 0 {
		t.Fatalf("exit %d: %s", tr.code, tr.stderr)
	}
	// sqlite loads at twice pebble's rate and spends half its CPU per row.
	for _, want := range []string{"== l.i0 (relative to pebble)", "    ips    2.00", "  cpu_us/op    0.50"} {
		if !strings.Contains(tr.stdout, want) {
			t.Errorf("compare lacks %q:\n%s", want, tr.stdout)
		}
	}
	// Two runs: run × target columns, the base chosen by column label.
	tr = run(t, nil, "compare", "--out", out, "20261121T12", "20261121T13", "--base", "r2/pebble", "--format", "tsv")
	if tr.code != 0 {
		t.Fatalf("exit %d: %s", tr.code, tr.stderr)
	}
	if !strings.Contains(tr.stdout, "comparison l.i0 (relative to r2/pebble)\tips\t2\t4\n") {
		t.Errorf("compare tsv:\n%s", tr.stdout)
	}
	tr = run(t, nil, "compare", "--out", out, "20261121T12", "--absolute", "--format", "csv")
	if !strings.Contains(tr.stdout, "comparison l.i1,ips,2000,4000\n") {
		t.Errorf("compare --absolute csv:\n%s", tr.stdout)
	}
	tr = run(t, nil, "compare", "--out", out, "20261121T12", "--base", "bbolt")
	if tr.code != ExitUsage || !strings.HasPrefix(tr.stderr, `rumbench: --base: unknown base "bbolt" (valid: a target, a run id or one of pebble, sqlite)`) {
		t.Errorf("unknown base: exit %d, %q", tr.code, tr.stderr)
	}
	// One target: nothing to compare, said in one line.
	tr = run(t, nil, "compare", "--out", out, "20261121T13")
	if want := "rumbench: nothing to compare: one target only (pebble); compare needs two targets, in one run or across runs\n"; tr.code != ExitUsage || tr.stderr != want {
		t.Errorf("one target: exit %d, %q, want %q", tr.code, tr.stderr, want)
	}
}

// checkRunReport checks that a run wrote report.html into its directory, with the figures of its
// steps, and printed its path.
func checkRunReport(t *testing.T, dir, stdout string) {
	t.Helper()
	path := filepath.Join(dir, "report.html")
	if !strings.Contains(stdout, "report: "+path+"\n") {
		t.Errorf("the run did not print the report path %s:\n%s", path, stdout)
	}
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `<div class="chart" id="s0-rate">`) {
		t.Errorf("%s has no throughput chart for the step measured", path)
	}
}

// TestCompareMixedCaps refuses to compare a capped run with an uncapped one unless asked.
func TestCompareMixedCaps(t *testing.T) {
	out := t.TempDir()
	writeRun(t, out, "20261121T120000Z-insert", []string{"pebble"}, []string{"l.i0"}, func(int, int) float64 { return 1000 })
	capped := writeRun(t, out, "20261121T130000Z-insert", []string{"pebble"}, []string{"l.i0"}, func(int, int) float64 { return 500 })
	m, err := results.ReadManifest(capped)
	if err != nil {
		t.Fatal(err)
	}
	m.Memory = &results.MemoryConfig{LimitBytes: 384 << 20, CgroupVersion: 1}
	if err := writeManifest(capped, m); err != nil {
		t.Fatal(err)
	}
	tr := run(t, nil, "compare", "--out", out, "20261121T12", "20261121T13")
	want := "rumbench: the runs were made under different memory caps (20261121T120000Z-insert no cap, 20261121T130000Z-insert cap 384 MiB): use --allow-mixed to compare them anyway\n"
	if tr.code != ExitUsage || tr.stderr != want {
		t.Errorf("exit %d, stderr %q; want %q", tr.code, tr.stderr, want)
	}
	tr = run(t, nil, "compare", "--out", out, "20261121T12", "20261121T13", "--allow-mixed")
	if tr.code != 0 || !strings.Contains(tr.stdout, "ips       0.50") {
		t.Errorf("--allow-mixed: exit %d, %s%s", tr.code, tr.stdout, tr.stderr)
	}
}

// writeManifest rewrites a run directory's run.json.
func writeManifest(dir string, m *results.Manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "run.json"), data, 0o644)
}
