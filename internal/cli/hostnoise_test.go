package cli

import (
	"context"
	"strings"
	"testing"
)

// host-noise runs the probes asked for, each once, one row per probe and window that fits six
// times into --secs; bad settings get one line and exit 2; an interrupt prints what was measured.
func TestHostNoise(t *testing.T) {
	dir := t.TempDir()
	tr := run(t, nil, "host-noise", "--probes", "cpu,cpu", "--secs", "6", "--data-dir", dir)
	if tr.code != ExitOK {
		t.Fatalf("exit %d: %s", tr.code, tr.stderr)
	}
	lines := strings.Split(strings.TrimSpace(tr.stdout), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "probe ") || lines[2] != "(windows that fit fewer than 6 times into --secs 6 are left out)" {
		t.Fatalf("want a header, one 1 s row for cpu and the note:\n%s", tr.stdout)
	}
	if f := strings.Fields(lines[1]); len(f) != 9 || f[0] != "cpu" || f[3] != "1s" || f[4] != "6" {
		t.Errorf("row %q, want cpu over six 1 s windows", lines[1])
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--probes", "cpu,disk"}, `rumbench: --probes: unknown probe "disk": valid are cpu, device, cache`},
		{[]string{"--secs", "0"}, `rumbench: --secs 0: valid are 6 to 3600 (seconds per probe)`},
		{[]string{"--cache-mb", "100000"}, `rumbench: --cache-mb 100000: valid are 1 to 1024`},
		{[]string{"--data-dir", dir + "/none"}, `rumbench: --data-dir "` + dir + `/none": not an existing directory (the device probe writes a file in it)`},
	} {
		tr := run(t, nil, append([]string{"host-noise"}, c.args...)...)
		if tr.code != ExitUsage || strings.TrimSpace(tr.stderr) != c.want {
			t.Errorf("host-noise %v: exit %d, stderr %q, want %d and %q", c.args, tr.code, tr.stderr, ExitUsage, c.want)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if tr := run(t, ctx, "host-noise", "--probes", "cpu", "--secs", "6"); tr.code != ExitInterrupted || !strings.HasPrefix(tr.stdout, "probe ") {
		t.Errorf("interrupted: exit %d, stdout %q, want %d and the header", tr.code, tr.stdout, ExitInterrupted)
	}
}
