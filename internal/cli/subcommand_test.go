package cli

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/memcap"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/workload"
)

// rumbench run WORKLOAD --help is the workload's own: its description, profiles, steps and
// flags (the client count taking a list), and not another workload's; rumbench run --help lists
// every workload as a subcommand, and prepare WORKLOAD --help leaves out the run-only flags.
func TestWorkloadSubcommandHelp(t *testing.T) {
	tr := run(t, nil, "run", "ycsb", "--help")
	text := strings.Join(strings.Fields(tr.stdout), " ")
	if tr.code != ExitOK {
		t.Fatalf("run ycsb --help: exit %d %s", tr.code, tr.stderr)
	}
	for _, want := range []string{"ycsb: YCSB core workloads A-F", "rumbench run ycsb [flags]",
		`scale profile of --workload ycsb: quick, small, standard (default "quick")`, "Profiles: quick, small, standard",
		"Steps: load, run.", "--threads int", "a list such as 1,2,4,8 sweeps the counts", "-P, --property-file", "-p, --property",
		"--engine string", "--cache-mb int", `"rumbench run --workload ycsb" is the same command`} {
		if !strings.Contains(text, want) {
			t.Errorf("run ycsb --help lacks %q:\n%s", want, tr.stdout)
		}
	}
	for _, foreign := range []string{"--tables ", "--table-size ", "--tests ", "--rows ", "--loops ", "--warehouses "} {
		if strings.Contains(tr.stdout, foreign) {
			t.Errorf("run ycsb --help lists another workload's %s:\n%s", foreign, tr.stdout)
		}
	}
	// The alias's help is the subcommand's.
	if alias := run(t, nil, "run", "--workload", "ycsb", "--help"); alias.code != ExitOK || alias.stdout != tr.stdout {
		t.Errorf("run --workload ycsb --help: exit %d, not run ycsb --help's text:\n%s", alias.code, alias.stdout)
	}

	tr = run(t, nil, "run", "--help")
	text = strings.Join(strings.Fields(tr.stdout), " ")
	if tr.code != ExitOK || !strings.Contains(text, "rumbench run [WORKLOAD] [flags]") || !strings.Contains(text, "Workloads (--workload WORKLOAD is an alias of the word):") {
		t.Errorf("run --help: exit %d, no usage line or workload list:\n%s", tr.code, tr.stdout)
	}
	for _, w := range workload.Names() {
		spec, _ := workload.Lookup(w)
		if !strings.Contains(text, " "+w+" "+shortDescription(spec.Description)) {
			t.Errorf("run --help does not list workload %s as %q:\n%s", w, shortDescription(spec.Description), tr.stdout)
		}
	}

	tr = run(t, nil, "prepare", "sysbench", "--help")
	if tr.code != ExitOK || !strings.Contains(tr.stdout, "rumbench prepare sysbench [flags]") || !strings.Contains(tr.stdout, "--table-size ") {
		t.Errorf("prepare sysbench --help: exit %d\n%s", tr.code, tr.stdout)
	}
	for _, name := range runOnlyFlags {
		if strings.Contains(tr.stdout, "--"+name+" ") {
			t.Errorf("prepare sysbench --help lists --%s", name)
		}
	}
}

// A workload is named by the word after run or prepare, or by --workload (its alias), wherever
// it stands; a name that is no workload, two names, and a flag of another workload are each
// refused in one line, exit 2, before anything runs.
func TestWorkloadSubcommandRefusals(t *testing.T) {
	out, _, d := dirs(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "tpch"}, `rumbench: unknown workload "tpch" (valid: ` + strings.Join(workload.Names(), ", ") + ")"},
		{[]string{"prepare", "tpch", "--engine", "pebble"}, `rumbench: unknown workload "tpch" (valid: ` + strings.Join(workload.Names(), ", ") + ")"},
		{[]string{"run", "ycsb", "--workload", "sysbench"}, "rumbench: rumbench run ycsb and --workload sysbench: name one workload"},
		{[]string{"run", "ycsb", "--tables", "4"}, "rumbench: --tables applies to --workload sysbench, not ycsb (see rumbench workloads sysbench)"},
		{[]string{"run", "--engine", "pebble", "--workload", "ycsb", "--rows", "5"}, "rumbench: --rows applies to --workload insert, not ycsb (see rumbench workloads insert)"},
		{[]string{"run", "ycsb", "--bogus"}, "rumbench: unknown flag: --bogus (see rumbench run ycsb --help)"},
		{[]string{"run", "ycsb", "--threads", "1,x"}, `rumbench: invalid argument "1,x" for "--threads" flag: "x" is not a count: want whole numbers >= 1, increasing (e.g. 1,2,4,8) (see rumbench run ycsb --help)`},
		{[]string{"prepare", "ycsb", "--repeat", "2"}, "rumbench: --repeat applies to rumbench run, not prepare (see rumbench prepare ycsb --help)"},
		{[]string{"run", "ycsb", "extra"}, `rumbench: unexpected argument "extra" (see rumbench run ycsb --help)`},
	} {
		tr := run(t, nil, append(c.args, d...)...)
		if tr.code != ExitUsage || strings.TrimSuffix(tr.stderr, "\n") != c.want || tr.stdout != "" {
			t.Errorf("%v: exit %d, stderr %q\nwant %q", c.args, tr.code, tr.stderr, c.want)
		}
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("a refused command line left %d entries in --out", len(entries))
	}
	want := "rumbench: --workload needs a value (a workload: " + strings.Join(workload.Names(), ", ") + ")\n"
	if tr := run(t, nil, "run", "--workload"); tr.code != ExitUsage || tr.stderr != want {
		t.Errorf("run --workload: exit %d, stderr %q, want %q", tr.code, tr.stderr, want)
	}
}

// rumbench run ycsb --threads 1,2 is a concurrency sweep; rumbench run --workload ycsb with the
// same flags, and a run file naming the workload, record the same run; --replay of it runs it
// again; the command line's workload wins over a run file's.
func TestWorkloadSubcommandRuns(t *testing.T) {
	flags := []string{"--engine", "sqlite", "-p", "recordcount=500", "--run-secs", "0.5", "--threads", "1,2", "--store", "none", "--quiet"}
	out, _, d := dirs(t)
	tr := run(t, nil, append(append([]string{"run", "ycsb"}, flags...), d...)...)
	if tr.code != ExitOK {
		t.Fatalf("run ycsb: exit %d\n%s%s", tr.code, tr.stdout, tr.stderr)
	}
	dir, m, steps := readRun(t, out)
	by := targetSteps(steps)
	if m.Workload != "ycsb" || m.Sweep == nil || !slices.Equal(m.Sweep.Counts, []int{1, 2}) || !slices.Equal(by["sqlite"], []string{"load"}) ||
		!slices.Equal(by["sqlite@1"], []string{"run"}) || !slices.Equal(by["sqlite@2"], []string{"run"}) {
		t.Fatalf("run ycsb --threads 1,2: workload %s, sweep %+v, steps %v", m.Workload, m.Sweep, by)
	}
	if !strings.Contains(tr.stdout, "== scaling: run") {
		t.Errorf("no scaling table:\n%s", tr.stdout)
	}
	runFile, err := os.ReadFile(filepath.Join(dir, RunFileName))
	if err != nil || !strings.Contains(string(runFile), "\nworkload: ycsb\n") || !strings.Contains(string(runFile), "\nthreads: 1,2\n") {
		t.Fatalf("%s: %v\n%s", RunFileName, err, runFile)
	}

	same := func(what string, args ...string) {
		t.Helper()
		out2, _, d2 := dirs(t)
		tr := run(t, nil, append(args, d2...)...)
		if tr.code != ExitOK {
			t.Fatalf("%s: exit %d\n%s%s", what, tr.code, tr.stdout, tr.stderr)
		}
		_, m2, steps2 := readRun(t, out2)
		if m2.Workload != "ycsb" || !maps.EqualFunc(m.WorkloadConfig, m2.WorkloadConfig, func(a, b any) bool { return yamlString(a) == yamlString(b) }) ||
			!maps.Equal(targetCounts(steps), targetCounts(steps2)) {
			t.Errorf("%s: workload %s %v, steps %v; want %v, %v", what, m2.Workload, m2.WorkloadConfig, targetSteps(steps2), m.WorkloadConfig, by)
		}
		for k, v := range m.Config {
			if k != "out" && k != "data_dir" && yamlString(m2.Config[k]) != yamlString(v) {
				t.Errorf("%s: setting %s = %v, want %v", what, k, m2.Config[k], v)
			}
		}
	}
	same("run --workload ycsb", append(append([]string{"run"}, flags...), "--workload", "ycsb")...)
	same("run --replay", "run", "--replay", dir)
	file := filepath.Join(t.TempDir(), "ycsb.yaml")
	os.WriteFile(file, []byte("workload: ycsb\nengine: sqlite\nproperty: [recordcount=500]\nrun-secs: 0.5\nthreads: [1, 2]\nstore: none\nquiet: true\n"), 0o644)
	same("run -f (workload: ycsb)", "run", "-f", file)
	other := filepath.Join(t.TempDir(), "insert.yaml")
	os.WriteFile(other, []byte("workload: insert\nengine: sqlite\nstore: none\nquiet: true\n"), 0o644)
	same("run ycsb -f (workload: insert)", append([]string{"run", "ycsb", "-f", other}, flags...)...)
}

// targetCounts counts the step records of each target.
func targetCounts(steps []results.Step) map[string]int {
	out := map[string]int{}
	for _, s := range steps {
		out[s.Target]++
	}
	return out
}

// rumbench prepare kv loads the kv workload's data and keeps it; rumbench run kv --reuse runs its
// measured step on it; the alias spelling reuses it too.
func TestPrepareWorkloadSubcommand(t *testing.T) {
	out, _, d := dirs(t)
	base := []string{"--engine", "pebble", "--insert-count", "2000", "--store", "none", "--quiet"}
	tr := run(t, nil, append(append([]string{"prepare", "kv"}, base...), d...)...)
	if tr.code != ExitOK || !strings.Contains(tr.stdout, "invariants pebble: ok: 2000 rows") {
		t.Fatalf("prepare kv: exit %d\n%s%s", tr.code, tr.stdout, tr.stderr)
	}
	_, m, steps := readRun(t, out)
	if m.Workload != "kv" || len(steps) != 1 || steps[0].Step != "load" {
		t.Fatalf("prepare kv: workload %s, steps %v", m.Workload, targetSteps(steps))
	}
	for _, args := range [][]string{{"run", "kv", "--reuse"}, {"run", "--reuse", "--workload", "kv"}} {
		out2 := t.TempDir()
		tr := run(t, nil, append(append(args, base...), "--run-secs", "0.5", "--out", out2, "--data-dir", d[3])...)
		if tr.code != ExitOK || !strings.Contains(tr.stdout, "invariants pebble: ok: ") || !strings.Contains(tr.stdout, " rows (2000 loaded, ") {
			t.Fatalf("%v: exit %d\n%s%s", args, tr.code, tr.stdout, tr.stderr)
		}
		if _, m, steps := readRun(t, out2); m.Workload != "kv" || len(steps) != 1 || steps[0].Step != "run" {
			t.Errorf("%v: workload %s, steps %v; want kv's run step only", args, m.Workload, targetSteps(steps))
		}
	}
}

// An embedded engine under --memory-limit runs in an engine worker, which parses the
// coordinator's command line again: with the workload as the subcommand and as --workload.
func TestWorkerParsesTheSubcommand(t *testing.T) {
	h, err := memcap.Detect()
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	if err := h.Check(); err != nil {
		t.Skipf("skipping: cgroups cannot be written here: %v", err)
	}
	for _, spelling := range [][]string{{"run", "ycsb"}, {"run", "--workload", "ycsb"}} {
		out, _, d := dirs(t)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		p := startRumbench(t, ctx, append(append(spelling, "--engine", "pebble", "-p", "recordcount=500", "--run-secs", "0.5",
			"--memory-limit", "256M", "--store", "none", "--quiet"), d...)...)
		waitAll(p)
		cancel()
		if p.code != ExitOK {
			t.Fatalf("%v: exit %d\n%s%s", spelling, p.code, p.stdout.String(), p.stderr.String())
		}
		_, m, steps := readRun(t, out)
		if m.Memory == nil || m.Memory.LimitBytes != 256<<20 || m.Workload != "ycsb" || len(steps) != 2 || !strings.HasPrefix(m.Targets[0].Check, "ok") {
			t.Errorf("%v: memory %+v, workload %s, %d steps, check %q", spelling, m.Memory, m.Workload, len(steps), m.Targets[0].Check)
		}
	}
}
