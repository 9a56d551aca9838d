package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/recipe"
)

// recipeFile is a two-part recipe on embedded engines with findings whose outcome is known:
// the rows l.i1 leaves (counted by the workload: 2,900 on one client, 3,800 on two), a false bound, a target
// that does not run.
const recipeFile = `
name: tiny
title: a tiny recipe
report: no report
scales: {quick: "tiny", full: "tiny too"}
files:
  note.txt: "a file beside the run files"
parts:
  - name: one
    flags: {workload: insert, engine: [pebble, sqlite], steps: "l.i0,l.x,l.i1", rows: 2000, writes: 1000}
  - name: two
    flags: {workload: insert, engine: pebble, steps: "l.i0,l.x,l.i1", rows: 1000, writes: 1000, clients: 2}
  - name: sweep
    flags: {workload: insert, engine: sqlite, steps: l.i0, rows: 1000, clients: "1,2"}
base: one/pebble
tables:
  - {kind: steps, step: l.i1, columns: [ips, rows, wKB/i], headers: {rows: rows held}, published: [{label: "the report", ips: "23308"}]}
  - {kind: intervals, step: l.i1, intervals: 2}
  - {kind: scaling, step: l.i0, note: "a scaling note"}
findings:
  - {claim: "l.i1 leaves 2900 rows", target: one/sqlite, check: "l.i1:rows==2900", published: "2900"}
  - {claim: "two clients hold more rows than the base", target: two/pebble, check: "l.i1:ratio(rows)>1"}
  - {claim: "no rows", target: one/pebble, check: "l.i1:rows<0"}
  - {claim: "bbolt ran", target: one/bbolt, check: "ips>0"}
  - {claim: "the sweep measured a speedup", target: sweep/sqlite, check: "l.i0:speedup@2>0"}
  - {claim: "two clients load twice the rows", target: sweep/sqlite@2, check: "l.i0:rows==2000"}
`

// TestRecipe runs a recipe file: each part is a recorded run, the recipe's directory holds the
// run files, its files, recipe.txt, recipe.md and findings.json, and every finding is printed
// with its outcome.
func TestRecipe(t *testing.T) {
	out, _, d := dirs(t)
	file := filepath.Join(t.TempDir(), "tiny.yaml")
	if err := os.WriteFile(file, []byte(recipeFile), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := run(t, nil, append([]string{"run", "--recipe", file, "--quiet"}, d...)...)
	if tr.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", tr.code, tr.stderr)
	}
	for _, want := range []string{
		"finding: l.i1 leaves 2900 rows: reproduced (l.i1:rows==2900: 2900; published: 2900)",
		"finding: two clients hold more rows than the base: reproduced (l.i1:ratio(rows)>1 vs one/pebble: 1.31)",
		"finding: no rows: not reproduced (l.i1:rows<0: 2900)",
		"finding: bbolt ran: not measured (ips>0: target one/bbolt did not run)",
		"finding: the sweep measured a speedup: reproduced (l.i0:speedup@2>0: ",
		"finding: two clients load twice the rows: reproduced (l.i0:rows==2000: 2000",
		"== sweep scaling: l.i0", "a scaling note",
		"published: the report", "one/sqlite", "two/pebble", "0→800",
	} {
		if !strings.Contains(tr.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, tr.stdout)
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "*-recipe-tiny"))
	if len(dirs) != 1 {
		t.Fatalf("recipe directories %v", dirs)
	}
	for _, f := range []string{"files/one.yaml", "files/two.yaml", "files/note.txt", "recipe.txt", "recipe.md", "findings.json"} {
		if _, err := os.Stat(filepath.Join(dirs[0], f)); err != nil {
			t.Error(err)
		}
	}
	var fj struct {
		Findings []struct{ Outcome string }
	}
	data, _ := os.ReadFile(filepath.Join(dirs[0], "findings.json"))
	if err := json.Unmarshal(data, &fj); err != nil || len(fj.Findings) != 6 || fj.Findings[3].Outcome != "not measured" {
		t.Errorf("findings.json: %v %s", err, data)
	}
	runs, _ := filepath.Glob(filepath.Join(out, "*-tiny-one"))
	runs2, _ := filepath.Glob(filepath.Join(out, "*-tiny-two"))
	runs3, _ := filepath.Glob(filepath.Join(out, "*-tiny-sweep"))
	if len(runs) != 1 || len(runs2) != 1 || len(runs3) != 1 {
		t.Fatalf("part runs %v %v %v", runs, runs2, runs3)
	}
	// Evaluated again over the finished runs.
	tr = run(t, nil, "recipes", file, "--runs", runs[0]+","+runs2[0]+","+runs3[0])
	if tr.code != 0 || !strings.Contains(tr.stdout, "finding: l.i1 leaves 2900 rows: reproduced") {
		t.Errorf("recipes --runs: exit %d\n%s%s", tr.code, tr.stdout, tr.stderr)
	}
}

// TestRecipeUsage: bad recipe input is one line and exit 2.
func TestRecipeUsage(t *testing.T) {
	out := t.TempDir()
	good := filepath.Join(t.TempDir(), "tiny.yaml")
	os.WriteFile(good, []byte(recipeFile), 0o644)
	broken := filepath.Join(t.TempDir(), "broken.yaml")
	os.WriteFile(broken, []byte(strings.Replace(recipeFile, "kind: intervals", "kind: pie", 1)), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--recipe", "nope"}, `no recipe "nope" (valid: `},
		{[]string{"run", "--recipe", "binlog-2025", "--scale", "huge"}, `--scale "huge": want quick or full`},
		{[]string{"run", "--scale", "full"}, "--scale is the scale of a recipe"},
		{[]string{"run", "--recipe", broken}, "kind \"pie\": want steps, relative, latency, intervals or scaling"},
		{[]string{"run", "-f", broken}, "kind \"pie\": want steps, relative, latency, intervals or scaling"},
		{[]string{"recipes", "nope"}, `no recipe "nope"`},
		{[]string{"run", "--recipe", good, "--bogus", "--out", out}, "unknown flag: --bogus"},
		{[]string{"recipes", "binlog-2025", "--runs", "a,b"}, "2 run directories for the 1 parts"},
	} {
		tr := run(t, nil, c.args...)
		if tr.code != 2 || !strings.Contains(tr.stderr, c.want) || strings.Count(strings.TrimSpace(tr.stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, tr.code, tr.stderr, c.want)
		}
	}
	if left, _ := os.ReadDir(out); len(left) != 0 {
		t.Errorf("a recipe refused for bad input left %v in --out", left)
	}
	tr := run(t, nil, "run", "--recipe", "binlog-2025", "--help")
	if tr.code != 0 || !strings.Contains(tr.stdout, "rumbench run --recipe binlog-2025 [--scale quick|full]") || !strings.Contains(tr.stdout, "part sysbench") {
		t.Errorf("run --recipe binlog-2025 --help: exit %d\n%s%s", tr.code, tr.stdout, tr.stderr)
	}
	tr = run(t, nil, "recipes")
	if tr.code != 0 || !strings.Contains(tr.stdout, "binlog-2025") {
		t.Errorf("recipes: exit %d\n%s", tr.code, tr.stdout)
	}
	tr = run(t, nil, "recipes", "binlog-2025")
	if tr.code != 0 || !strings.HasPrefix(tr.stdout, "# The MariaDB binlog report") {
		t.Errorf("recipes binlog-2025: exit %d\n%s", tr.code, tr.stdout)
	}
}

// TestShippedRecipeFlags checks each part's run file of every shipped recipe, at each scale, as
// rumbench run does before it starts (flags parsed with the workload's own, the configuration
// built and validated): an unknown flag or a bad value fails here rather than minutes into a
// recipe.
func TestShippedRecipeFlags(t *testing.T) {
	all, err := recipe.List()
	if err != nil {
		t.Fatal(err)
	}
	_, _, outData := dirs(t)
	for _, r := range all {
		dir := t.TempDir()
		for name, text := range r.Files {
			os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
		}
		for _, p := range r.Parts {
			for _, scale := range recipe.Scales {
				data, err := r.RunFile(p, scale)
				if err != nil {
					t.Fatal(err)
				}
				file := filepath.Join(dir, p.Name+".yaml")
				os.WriteFile(file, data, 0o644)
				if err := checkRunArgs(Env{Now: time.Now, Context: func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }}, append([]string{"run", "-f", file}, outData...)); err != nil {
					t.Errorf("%s %s %s: %v", r.Name, p.Name, scale, err)
				}
			}
		}
	}
}

// miniRecipe is a two-part recipe on SQLite; part two's extra flags go in TWO.
const miniRecipe = `
name: mini
title: a small recipe
report: no report
files: {a.cnf: "# nothing"}
parts:
  - name: one
    flags: {workload: insert, engine: sqlite, steps: l.i0, rows: 1000}
  - name: two
    flags: {workload: insert, engine: sqlite, steps: l.i0, rows: 1000TWO}
findings:
  - {claim: "part one loads 1000 rows", target: one/sqlite, check: "l.i0:rows==1000"}
`

// TestRecipeDirs: two recipe runs of one name started in the same second (the test's clock
// stands still) each get their own directory, findings and runs; a third whose part two has a
// bad value is refused in one line, exit 2, before part one runs, with nothing new under --out
// and the others' directories left whole.
func TestRecipeDirs(t *testing.T) {
	out, _, d := dirs(t)
	write := func(two string) string {
		f := filepath.Join(t.TempDir(), "mini.yaml")
		os.WriteFile(f, []byte(strings.Replace(miniRecipe, "TWO", two, 1)), 0o644)
		return f
	}
	good := write("")
	var recipeDirs []string
	for i := 0; i < 2; i++ {
		tr := run(t, nil, append([]string{"run", "--recipe", good, "--quiet"}, d...)...)
		if tr.code != 0 || !strings.Contains(tr.stdout, "finding: part one loads 1000 rows: reproduced") {
			t.Fatalf("run %d: exit %d\n%s%s", i+1, tr.code, tr.stdout, tr.stderr)
		}
		dir := strings.TrimSpace(tr.stdout[strings.LastIndex(tr.stdout, "recipe: ")+len("recipe: "):])
		recipeDirs = append(recipeDirs, dir)
	}
	want := []string{filepath.Join(out, "20261121T120000Z-recipe-mini"), filepath.Join(out, "20261121T120000Z-recipe-mini-2")}
	if !slices.Equal(recipeDirs, want) {
		t.Fatalf("recipe directories %v, want %v", recipeDirs, want)
	}
	before, _ := os.ReadDir(out)
	for _, c := range []struct{ two, want string }{
		{", rows-per-commit: -3", "rumbench: recipe mini: part two: --rows-per-commit -3: want 0 (per-step default) or 1..100000\n"},
		{", server-config: ../../etc/passwd", `rumbench: --recipe ` + "FILE" + `: part two: flags: server-config "../../etc/passwd": not a file of the recipe (its files: a.cnf): a part's server config is one of the recipe's files` + "\n"},
		{", cpuprofile: /tmp/profile", "rumbench: --recipe FILE: part two: flags: cpuprofile is the command line's, not a recipe's: give --cpuprofile after the recipe\n"},
		{", engine-opt: {sqlite.server_bin: /tmp}", "rumbench: --recipe FILE: part two: flags: engine-opt server_bin is the command line's, not a recipe's (server-config names the recipe's files)\n"},
	} {
		file := write(c.two)
		tr := run(t, nil, append([]string{"run", "--recipe", file}, d...)...)
		if want := strings.Replace(c.want, "FILE", file, 1); tr.code != ExitUsage || tr.stderr != want {
			t.Errorf("%s: exit %d, stderr %q; want %d, %q", c.two, tr.code, tr.stderr, ExitUsage, want)
		}
	}
	after, _ := os.ReadDir(out)
	if len(after) != len(before) {
		t.Errorf("--out held %d entries before the refused recipes, %d after", len(before), len(after))
	}
	for _, dir := range recipeDirs {
		for _, f := range []string{"recipe.txt", "recipe.md", "findings.json", "files/one.yaml", "files/a.cnf"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Errorf("%v", err)
			}
		}
	}
	for _, part := range []string{"one", "two"} {
		if runs, _ := filepath.Glob(filepath.Join(out, "*-mini-"+part+"*")); len(runs) != 2 {
			t.Errorf("part %s ran %d times (%v), want once per good recipe run", part, len(runs), runs)
		}
	}
}
