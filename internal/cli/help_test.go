package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
}
