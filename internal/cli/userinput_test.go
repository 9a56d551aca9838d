package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/input"
)

// TestRunInputsRefusedBeforeTheRun: run files that are not regular files or are too large, and
// labels, group ids and --server-config file names that cannot be part of a file name, are
// refused with one line (long values cut) and exit code 2 before anything runs: no run
// directory is made.
func TestRunInputsRefusedBeforeTheRun(t *testing.T) {
	out, _, d := dirs(t)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	long := strings.Repeat("x", 300)
	big := write("big.yaml", "label: "+strings.Repeat("y", 2<<20)+"\n")
	longPath := "/" + strings.Repeat("p", 300) + ".yaml"
	cfgDir := filepath.Join(dir, "configs")
	if err := os.Mkdir(cfgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	write("configs/my settings.conf", "fsync = off\n")
	manyDir := filepath.Join(dir, "many")
	if err := os.Mkdir(manyDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 101 {
		write(fmt.Sprintf("many/c%03d.conf", i), "fsync = off\n")
	}
	rule := input.NameRule
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-f", big}, "rumbench: -f " + big + ": is 2097160 bytes: at most 1 MiB (1048576 bytes)"},
		{[]string{"run", "-f", "/dev/zero"}, "rumbench: -f /dev/zero: not a regular file (a character device)"},
		{[]string{"run", "-f", dir}, "rumbench: -f " + dir + ": not a regular file (a directory)"},
		{[]string{"run", "-f", longPath}, "rumbench: -f " + input.Short(longPath) + ": file name too long"},
		{[]string{"run", "-f", write("key.yaml", long+": 1\n")}, "rumbench: -f " + filepath.Join(dir, "key.yaml") + ": line 1: unknown flag: --" + input.Short(long) + " (see rumbench run --help)"},
		{[]string{"run", "-f", write("label.yaml", "engine: null\nlabel: "+long+"\n")}, `rumbench: --label "` + input.Short(long) + `": 300 bytes long: want ` + rule + " (it names the run directory)"},
		{[]string{"run", "--engine", "null", "--label", "a/b"}, `rumbench: --label "a/b": character '/' at byte 1: want ` + rule + " (it names the run directory)"},
		{[]string{"run", "--engine", "null", "--label", "..x"}, `rumbench: --label "..x": starts with '.': want ` + rule + " (it names the run directory)"},
		{[]string{"run", "--engine", "postgres", "--dsn", "postgres://u@127.0.0.1:1/db", "--shard", "0/2", "--group", long}, `rumbench: --group "` + input.Short(long) + `": want 1 to 48 lower-case letters, digits and '-', starting and ending with a letter or digit (it goes in the run id)`},
		{[]string{"run", "--engine", "postgres", "--server-config", "/dev/zero"}, `rumbench: --server-config "/dev/zero": not a regular file (a character device)`},
		{[]string{"run", "--engine", "postgres", "--server-config", cfgDir}, `rumbench: --server-config "` + cfgDir + `": my settings.conf: its name: character ' ' at byte 2: want ` + rule + " (it names the target and its data directory)"},
		{[]string{"run", "--engine", "postgres", "--engine-opt", "server_config=/dev/zero"}, `rumbench: --engine-opt "server_config=/dev/zero": not a regular file (a character device)`},
		{[]string{"run", "--engine", "postgres", "--server-config", write("my.conf", "fsync = off\n"), "--server-config", write("configs/my.conf", "fsync = on\n")},
			"rumbench: two targets are both postgres:my.conf: give the --server-config files different names"},
		{[]string{"run", "--engine", "postgres", "--server-config", manyDir}, "rumbench: 101 targets (engines × --server-config files × --server-bin releases): at most 100"},
		{[]string{"run", "--engine", "null", "--out", filepath.Join(dir, long)}, "rumbench: --out " + input.Short(filepath.Join(dir, long)) + ": a name in it is 300 bytes long (" + input.Short(long) + "): at most 255"},
		{[]string{"run", "--engine", "null", "--data-dir", filepath.Join(dir, "new", long)}, "rumbench: --data-dir " + input.Short(filepath.Join(dir, "new", long)) + ": a name in it is 300 bytes long (" + input.Short(long) + "): at most 255"},
	} {
		// The test's --out and --data-dir first: a case's own come after them and win.
		tr := run(t, nil, append(append([]string{c.args[0]}, d...), c.args[1:]...)...)
		if tr.code != ExitUsage || tr.stderr != c.want+"\n" {
			t.Errorf("%s: exit %d, stderr %q\nwant %q", input.Short(strings.Join(c.args[1:], " ")), tr.code, tr.stderr, c.want)
		}
	}
	if entries, err := os.ReadDir(out); err != nil || len(entries) != 0 {
		t.Errorf("the refused runs left %d entries in --out (%v)", len(entries), err)
	}
}

// TestMergeLabel: a merged run's --label is checked like a run's.
func TestMergeLabel(t *testing.T) {
	tr := run(t, nil, "merge", "--label", "a b", "x")
	want := `rumbench: --label "a b": character ' ' at byte 1: want ` + input.NameRule + " (it names the run directory)\n"
	if tr.code != ExitUsage || tr.stderr != want {
		t.Errorf("exit %d, stderr %q\nwant %q", tr.code, tr.stderr, want)
	}
}

// TestReportRefusesDamagedRuns: report and compare refuse a run directory whose files are not
// what a run writes, with one line naming the file, exit code 2.
func TestReportRefusesDamagedRuns(t *testing.T) {
	out := t.TempDir()
	good := writeRun(t, out, "20261121T120000Z-insert", []string{"pebble"}, []string{"l.i0"}, func(int, int) float64 { return 100 })
	empty := filepath.Join(out, "20261121T130000Z-empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(empty, "run.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	torn := writeRun(t, out, "20261121T140000Z-torn", []string{"pebble"}, []string{"l.i0"}, func(int, int) float64 { return 100 })
	steps, err := os.ReadFile(filepath.Join(torn, "steps.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(torn, "steps.json"), steps[:len(steps)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", empty}, "rumbench: " + empty + "/run.json: not a run manifest: missing schema_version, run_id, rumbench_version, workload, start, status (required: schema_version, run_id, rumbench_version, workload, start, status)"},
		{[]string{"compare", good, empty}, "rumbench: " + empty + "/run.json: not a run manifest: missing schema_version, run_id, rumbench_version, workload, start, status (required: schema_version, run_id, rumbench_version, workload, start, status)"},
		{[]string{"report", "--out", out, "20261121T14"}, "rumbench: " + torn + "/steps.json: unexpected end of JSON input (truncated?)"},
	} {
		tr := run(t, nil, c.args...)
		if tr.code != ExitUsage || tr.stdout != "" || tr.stderr != c.want+"\n" {
			t.Errorf("%v: exit %d, stdout %d bytes, stderr %q\nwant %q", c.args, tr.code, len(tr.stdout), tr.stderr, c.want)
		}
	}
	if tr := run(t, nil, "report", good); tr.code != 0 {
		t.Errorf("report of the intact run: exit %d, %s", tr.code, tr.stderr)
	}
}
