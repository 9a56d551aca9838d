package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/textwrap"
	"github.com/rumbench/rumbench/internal/workload"
)

// rumbench prepare takes none of the flags that only a run uses: its help does not list them,
// each is refused in one line naming the command that takes it, and a run file holding them
// (as a run writes it) prepares that run's data without them.
func TestPrepareTakesNoRunOnlyFlags(t *testing.T) {
	tr := run(t, nil, "prepare", "--help")
	if tr.code != ExitOK {
		t.Fatalf("prepare --help: exit %d %s", tr.code, tr.stderr)
	}
	for _, name := range runOnlyFlags {
		if strings.Contains(tr.stdout, "--"+name+" ") {
			t.Errorf("prepare --help lists --%s", name)
		}
		if !strings.Contains(run(t, nil, "run", "--help").stdout, "--"+name+" ") {
			t.Errorf("run --help does not list --%s", name)
		}
	}
	_, _, d := dirs(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"prepare", "--recipe", "journal-2013"}, "rumbench: --recipe applies to rumbench run, not prepare (see rumbench prepare --help)\n"},
		{[]string{"prepare", "--scale", "full"}, "rumbench: --scale applies to rumbench run, not prepare (see rumbench prepare --help)\n"},
		{[]string{"prepare", "--reuse"}, "rumbench: --reuse applies to rumbench run, not prepare (see rumbench prepare --help)\n"},
		{[]string{"prepare", "--repeat=3"}, "rumbench: --repeat applies to rumbench run, not prepare (see rumbench prepare --help)\n"},
		{[]string{"prepare", "--rowz", "1"}, "rumbench: unknown flag: --rowz (see rumbench prepare --help)\n"},
	} {
		tr := run(t, nil, append(c.args, d...)...)
		if tr.code != ExitUsage || tr.stderr != c.want || tr.stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, tr.code, tr.stderr, c.want)
		}
	}
	entries, _ := os.ReadDir(d[1])
	if len(entries) != 0 {
		t.Errorf("a refused prepare left %d entries in --out", len(entries))
	}

	// The run file of a run with repetitions and a warm-up prepares its data.
	file := filepath.Join(t.TempDir(), "bench.yaml")
	os.WriteFile(file, []byte("engine: pebble\nrows: 2000\nrepeat: 2\nwarmup-secs: 1\nkeep-data: true\nquiet: true\n"), 0o644)
	if tr := run(t, nil, append([]string{"prepare", "-f", file}, d...)...); tr.code != ExitOK || !strings.Contains(tr.stdout, "invariants pebble: ok: 2100 rows") {
		t.Errorf("prepare -f: exit %d %s%s", tr.code, tr.stdout, tr.stderr)
	}
	// So does the run file a run with repetitions wrote: prepare --replay RUN.
	_, _, d2 := dirs(t)
	tr = run(t, nil, append([]string{"run", "--engine", "pebble", "--steps", "l.i0", "--rows", "1000", "--repeat", "2", "--quiet"}, d2...)...)
	if tr.code != ExitOK {
		t.Fatalf("run --repeat 2: exit %d %s", tr.code, tr.stderr)
	}
	runDir, _, _ := readRun(t, d2[1])
	if tr := run(t, nil, append([]string{"prepare", "--replay", runDir}, d2...)...); tr.code != ExitOK || !strings.Contains(tr.stdout, "invariants pebble: ok: 1000 rows") {
		t.Errorf("prepare --replay: exit %d %s%s", tr.code, tr.stdout, tr.stderr)
	}
}

// Each workload's help lists its own profiles, and the profile check refuses the others with
// the same list.
func TestProfileHelpPerWorkload(t *testing.T) {
	for _, c := range []struct{ workload, profiles, foreign string }{
		{"insert", "quick, small, standard, iobound", "cached"},
		{"linkbench", "quick, small, cached, iobound", "standard"},
		{"sysbench", "quick, small, standard", "iobound"},
		{"ycsb", "quick, small, standard", "iobound"},
	} {
		tr := run(t, nil, "run", "--workload", c.workload, "--help")
		want := "scale profile of --workload " + c.workload + ": " + c.profiles + " (default \"quick\")"
		if tr.code != ExitOK || !strings.Contains(strings.Join(strings.Fields(tr.stdout), " "), want) {
			t.Errorf("run --workload %s --help: exit %d, no %q in\n%s", c.workload, tr.code, want, tr.stdout)
		}
		tr = run(t, nil, "run", "--workload", c.workload, "--profile", c.foreign)
		if want := "rumbench: unknown profile \"" + c.foreign + "\" (valid: " + c.profiles + ")\n"; tr.code != ExitUsage || tr.stderr != want {
			t.Errorf("--workload %s --profile %s: exit %d, stderr %q, want %q", c.workload, c.foreign, tr.code, tr.stderr, want)
		}
	}
}

// The root help names every workload and every engine this binary has, each embedded engine
// among the embedded ones and each server among the servers, and the default run's engines.
func TestRootHelpNamesTheRegistries(t *testing.T) {
	tr := run(t, nil, "--help")
	text := strings.Join(strings.Fields(tr.stdout), " ")
	if tr.code != ExitOK {
		t.Fatalf("--help: exit %d %s", tr.code, tr.stderr)
	}
	embedded, _, _ := strings.Cut(text[strings.Index(text, "embedded engines ("):], ")")
	servers, _, _ := strings.Cut(text[strings.Index(text, "database servers ("):], ")")
	for _, n := range engine.Names() {
		s, _ := engine.Lookup(n)
		list := embedded
		if s.Server {
			list = servers
		}
		if in := strings.Contains(list+",", " "+n+",") || strings.Contains(list+",", "("+n+","); in != (s.Unavailable == "") {
			t.Errorf("engine %s (server %v, unavailable %q): in the root help's list %q: %v", n, s.Server, s.Unavailable, list, in)
		}
	}
	for _, w := range workload.Names() {
		if !strings.Contains(text, w) {
			t.Errorf("the root help does not name workload %s", w)
		}
	}
	if want := "the insert benchmark on " + strings.ReplaceAll(defaultEngines(), ",", ", ") + "."; !strings.Contains(text, want) {
		t.Errorf("the root help does not say %q:\n%s", want, tr.stdout)
	}
}

// What rumbench prints for people fits textwrap.Width columns: every command's help (run's for
// every workload), the lists of engines, workloads, metrics and recipes, each workload's page,
// and a report's header (tables of figures, a row per target, are not wrapped).
func TestOutputFitsTheWidth(t *testing.T) {
	outDir, _, d := dirs(t)
	if tr := run(t, nil, append([]string{"run", "--engine", "null", "--steps", "l.i0", "--rows", "1000", "--quiet"}, d...)...); tr.code != ExitOK {
		t.Fatalf("run: exit %d %s", tr.code, tr.stderr)
	}
	runDir, _, _ := readRun(t, outDir)
	tr := run(t, nil, "report", runDir)
	if !strings.HasPrefix(tr.stdout, "# run ") || scientific.MatchString(tr.stdout) {
		t.Errorf("report of a null engine's run: a figure in scientific notation, or not the header first:\n%s", tr.stdout)
	}
	cmds := [][]string{{"--help"}, {"engines"}, {"workloads"}, {"metrics"}, {"metrics", "regime"}, {"recipes"},
		{"report", runDir}, {"prepare", "--help"}}
	for _, c := range newRoot(&Env{}).Commands() {
		if !c.Hidden {
			cmds = append(cmds, []string{c.Name(), "--help"})
			for _, sub := range c.Commands() {
				cmds = append(cmds, []string{c.Name(), sub.Name(), "--help"})
			}
		}
	}
	for _, w := range workload.Names() {
		cmds = append(cmds, []string{"workloads", w}, []string{"run", "--workload", w, "--help"})
	}
	for _, args := range cmds {
		tr := run(t, nil, args...)
		if tr.code != ExitOK || tr.stdout == "" {
			t.Errorf("%v: exit %d, %d bytes, %s", args, tr.code, len(tr.stdout), tr.stderr)
		}
		for i, line := range strings.Split(tr.stdout, "\n") {
			if n := utf8.RuneCountInString(line); n > textwrap.Width {
				t.Errorf("%v: line %d has %d columns: %s", args, i+1, n, line)
			}
		}
	}
}

// scientific matches a figure in scientific notation (5.7e-08).
var scientific = regexp.MustCompile(`\d[eE][-+]\d`)

// A run's stdout is its tables, from the first line: the blank line that sets them apart from
// the progress lines goes to stderr, and no figure is in scientific notation (the null engine
// flushes nothing: its fl/op is below what a table shows).
func TestRunStdoutStartsWithATable(t *testing.T) {
	_, _, d := dirs(t)
	tr := run(t, nil, append([]string{"run", "--engine", "null", "--steps", "l.i0,l.x", "--rows", "20000"}, d...)...)
	if tr.code != ExitOK || !strings.HasPrefix(tr.stdout, "== l.i0 ") || !strings.Contains(tr.stderr, "\n\n") {
		t.Errorf("exit %d, stdout starts %q, stderr:\n%s", tr.code, tr.stdout[:min(len(tr.stdout), 40)], tr.stderr)
	}
	if scientific.MatchString(tr.stdout) {
		t.Errorf("a figure in scientific notation:\n%s", tr.stdout)
	}
	tr = run(t, nil, append([]string{"run", "--engine", "null", "--steps", "l.i0", "--rows", "2000", "--quiet", "--fresh"}, d...)...)
	if tr.code != ExitOK || !strings.HasPrefix(tr.stdout, "== l.i0 ") || tr.stderr != "" {
		t.Errorf("--quiet: exit %d, stdout starts %q, stderr %q", tr.code, tr.stdout[:min(len(tr.stdout), 40)], tr.stderr)
	}
}

// The banner shows the steps that run and only the settings that matter to them, and says when
// a chosen step runs on data nothing loaded.
func TestBannerOfTheStepsThatRun(t *testing.T) {
	_, _, d := dirs(t)
	banner := func(tr transcript) string {
		t.Helper()
		if tr.code != ExitOK {
			t.Fatalf("exit %d %s", tr.code, tr.stderr)
		}
		var lines []string
		for _, l := range strings.Split(tr.stderr, "\n") {
			if strings.HasPrefix(l, "rumbench: ") || strings.HasPrefix(l, "  ") && len(lines) > 0 && !strings.HasPrefix(lines[len(lines)-1], "rumbench: run recorded") {
				lines = append(lines, l)
			}
		}
		return strings.Join(strings.Fields(strings.Join(lines, " ")), " ")
	}
	got := banner(run(t, nil, append([]string{"run", "--engine", "pebble", "--steps", "l.i1,qp100", "--writes", "500", "--query-secs", "1"}, d...)...))
	for _, want := range []string{"rumbench: insert on pebble, profile quick, steps l.i1,qp100: clients=1 writes=500 query_secs=1 rows_per_commit=0 delete_per_insert=false seed=3221223452 ",
		"rumbench: note: l.i0 (the load of --rows) does not run: l.i1, qp100 start on empty tables"} {
		if !strings.Contains(got, want) {
			t.Errorf("banner of --steps l.i1,qp100 lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "rows=") {
		t.Errorf("banner of --steps l.i1,qp100 shows the load's rows:\n%s", got)
	}
	got = banner(run(t, nil, append([]string{"prepare", "--engine", "pebble", "--rows", "2000", "--fresh"}, d...)...))
	if want := "rumbench: insert on pebble, profile quick, steps l.i0,l.x: clients=1 rows=2000 rows_per_commit=0 seed=3221223452 "; !strings.Contains(got, want) || strings.Contains(got, "note:") {
		t.Errorf("prepare's banner: want %q in\n%s", want, got)
	}
	_, _, d2 := dirs(t)
	got = banner(run(t, nil, append([]string{"prepare", "--workload", "sysbench", "--engine", "pebble", "--table-size", "1000"}, d2...)...))
	if want := "rumbench: sysbench on pebble, profile quick, steps load,create-index: tables=1 table_size=1000 threads=1 seed=3221223452 "; !strings.Contains(got, want) {
		t.Errorf("sysbench prepare's banner: want %q in\n%s", want, got)
	}
	got = banner(run(t, nil, append([]string{"run", "--reuse", "--workload", "sysbench", "--engine", "pebble", "--tests", "point-query,update-index",
		"--read-secs", "0.5", "--write-secs", "0.5", "--warmup-secs", "0"}, d2...)...))
	if want := "steps update-index,point-query: tables=1 table_size=1000 threads=1 read_secs=0.5 write_secs=0.5 warmup_secs=0 events=0 rand_type=uniform prepared=true seed=3221223452 "; !strings.Contains(got, want) {
		t.Errorf("sysbench run --reuse banner: want %q in\n%s", want, got)
	}
}

// A script over pgbench's tables on a database rumbench starts empty is refused before anything
// starts, naming --init; with --init, or on a --dsn server, it is not.
func TestScriptWithoutInitOnAnEmptyDatabase(t *testing.T) {
	out, _, d := dirs(t)
	script := filepath.Join(t.TempDir(), "my.sql")
	os.WriteFile(script, []byte("\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM PGBENCH_ACCOUNTS WHERE aid = :aid;\n"), 0o644)
	for _, engines := range []string{"postgres", "sqlite"} {
		tr := run(t, nil, append([]string{"run", "--workload", "script", "--script", script, "--engine", engines}, d...)...)
		want := "rumbench: " + engines + ": the database starts empty: script my.sql line 2 reads pgbench_accounts, which --init creates and loads: give --init, or --dsn of a server that holds pgbench's tables\n"
		if tr.code != ExitUsage || tr.stderr != want || tr.stdout != "" {
			t.Errorf("--engine %s: exit %d, stderr %q, want %q", engines, tr.code, tr.stderr, want)
		}
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("a refused run left %d entries in --out", len(entries))
	}
	tr := run(t, nil, append([]string{"run", "--workload", "script", "--script", script, "--init", "--engine", "sqlite", "--run-secs", "1", "--quiet"}, d...)...)
	if tr.code != ExitOK {
		t.Errorf("--init: exit %d %s", tr.code, tr.stderr)
	}
}

// rumbench workloads NAME shows the client-count flag as rumbench run takes it: a list sweeps.
func TestWorkloadPageSaysTheCountTakesAList(t *testing.T) {
	for _, w := range workload.Names() {
		spec, _ := workload.Lookup(w)
		if spec.Clients == "" {
			continue
		}
		tr := run(t, nil, "workloads", w)
		text := strings.Join(strings.Fields(tr.stdout), " ")
		if tr.code != ExitOK || !strings.Contains(text, "--"+spec.Clients+" int") || !strings.Contains(text, "a list such as 1,2,4,8 sweeps the counts") {
			t.Errorf("workloads %s: exit %d; --%s does not say it takes a list:\n%s", w, tr.code, spec.Clients, tr.stdout)
		}
	}
}
