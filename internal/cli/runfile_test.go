package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// A run file holds the flags (lists, mappings, checks); the run writes its resolved file, and
// --replay runs it again with the same flags; the command line overrides the file.
func TestRunFileAndReplay(t *testing.T) {
	out, _, d := dirs(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "bench.yaml")
	os.WriteFile(file, []byte(`# two engines, compressed pebble
workload: insert
engine: [pebble, bbolt]
steps: l.i0,l.x
rows: 3000
engine-opt: {pebble.compression: zstd}
check:
  - ips>=1
  - "l.x:rate>0"
quiet: true
`), 0o644)
	tr := run(t, nil, append([]string{"run", "-f", file, "--rows", "2000"}, d...)...)
	if tr.code != ExitOK {
		t.Fatalf("run -f: exit %d %s%s", tr.code, tr.stdout, tr.stderr)
	}
	runDir, m, steps := readRun(t, out)
	if len(steps) != 4 || steps[0].Rows != 2000 || m.Targets[0].Engine.Options["compression"] != "zstd" {
		t.Fatalf("the file's flags did not apply: %d steps, rows %d, pebble options %v", len(steps), steps[0].Rows, m.Targets[0].Engine.Options)
	}
	if !strings.Contains(tr.stdout, "== checks") || strings.Count(tr.stdout, " pass ") != 4 {
		t.Errorf("the file's checks did not run:\n%s", tr.stdout)
	}
	data, err := os.ReadFile(filepath.Join(runDir, RunFileName))
	if err != nil {
		t.Fatal(err)
	}
	var resolved map[string]any
	if err := yaml.Unmarshal(data, &resolved); err != nil {
		t.Fatalf("%s: %v\n%s", RunFileName, err, data)
	}
	for k, want := range map[string]string{"workload": "insert", "engine": "pebble,bbolt", "profile": "quick", "rows": "2000",
		"steps": "l.i0,l.x", "engine-opt": "[pebble.compression=zstd]", "check": "[ips>=1 l.x:rate>0]", "seed": "3221223452"} {
		if got := strings.TrimSpace(strings.ReplaceAll(yamlString(resolved[k]), "\n", " ")); got != want {
			t.Errorf("%s: %s = %q, want %q", RunFileName, k, got, want)
		}
	}
	if strings.Contains(string(data), "\nquery-secs:") || !strings.Contains(string(data), "#   query-secs: 0") {
		t.Errorf("a flag at its profile default must be a comment:\n%s", data)
	}

	// Replay: a second run directory with the same resolved flags.
	os.RemoveAll(filepath.Join(d[3], "pebble"))
	tr = run(t, nil, "run", "--replay", runDir)
	if tr.code != ExitOK {
		t.Fatalf("replay: exit %d %s", tr.code, tr.stderr)
	}
	entries, _ := os.ReadDir(out)
	var again string
	for _, e := range entries {
		if e.IsDir() && filepath.Join(out, e.Name()) != runDir {
			again = filepath.Join(out, e.Name())
		}
	}
	data2, err := os.ReadFile(filepath.Join(again, RunFileName))
	if err != nil {
		t.Fatal(err)
	}
	body := func(b []byte) string { _, rest, _ := strings.Cut(string(b), "\nworkload:"); return rest }
	if body(data) != body(data2) {
		t.Errorf("the replay's run file differs:\n%s\n---\n%s", data, data2)
	}
}

// yamlString renders a decoded YAML value as the test compares it.
func yamlString(v any) string {
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, p := range x {
			parts[i] = yamlString(p)
		}
		return "[" + strings.Join(parts, " ") + "]"
	case nil:
		return ""
	}
	b, _ := yaml.Marshal(v)
	return strings.TrimSpace(string(b))
}

func TestRunFileErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-f", filepath.Join(dir, "none.yaml")}, "rumbench: -f " + filepath.Join(dir, "none.yaml") + ": no such file or directory"},
		{[]string{"run", "-f", write("bad.yaml", "engine: [pebble\n")}, "rumbench: -f " + filepath.Join(dir, "bad.yaml") + ": yaml: line 1: did not find expected ',' or ']'"},
		{[]string{"run", "-f", write("list.yaml", "- pebble\n")}, "rumbench: -f " + filepath.Join(dir, "list.yaml") + ": line 1: want a mapping of flag names to values"},
		{[]string{"run", "-f", write("unknown.yaml", "engines: pebble\n")}, "rumbench: -f " + filepath.Join(dir, "unknown.yaml") + ": line 1: unknown flag: --engines (see rumbench run --help)"},
		{[]string{"run", "-f", write("other.yaml", "workload: insert\ntables: 4\n")}, "rumbench: -f " + filepath.Join(dir, "other.yaml") + ": line 2: --tables applies to --workload sysbench, not insert (see rumbench workloads sysbench)"},
		{[]string{"run", "-f", write("map.yaml", "rows: {a: 1}\n")}, "rumbench: -f " + filepath.Join(dir, "map.yaml") + ": line 1: rows: takes one value, not a mapping"},
		{[]string{"run", "-f", write("bad-value.yaml", "rows: many\n")}, `rumbench: invalid argument "many" for "--rows" flag: strconv.ParseInt: parsing "many": invalid syntax (see rumbench run --help)`},
		{[]string{"run", "-f", write("dsn.yaml", "engine: postgres\ndsn: postgres://u:****@h/db\n")}, "rumbench: -f " + filepath.Join(dir, "dsn.yaml") + ": line 2: the dsn password is masked (postgres://u:****@h/db): give --dsn again on the command line"},
		{[]string{"run", "--replay", dir}, "rumbench: --replay " + dir + ": no run.yaml in it (a run directory of this version of rumbench holds one)"},
		{[]string{"run", "-f", write("a.yaml", "rows: 5\n"), "--replay", dir}, "rumbench: --replay " + dir + ": one run file per run (already -f " + filepath.Join(dir, "a.yaml") + ")"},
	} {
		tr := run(t, nil, c.args...)
		if tr.code != ExitUsage || !strings.HasPrefix(tr.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q\nwant %q", c.args[1:], tr.code, tr.stderr, c.want)
		}
	}
}
