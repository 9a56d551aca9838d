package cli

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/server"
	"github.com/rumbench/rumbench/internal/workload"
)

// The script workload's init step is its load: rumbench prepare loads pgbench's tables once,
// run --reuse runs scripts on them (their row counts checked after) with the prepared profile
// and scale factor where the command line leaves them out, and every setting of its reuse
// identity (its DataConfig) refuses data prepared with another value in one line that names the
// setting and the flag, before anything runs.
func TestScriptReuseIdentity(t *testing.T) {
	_, _, d := dirs(t)
	sc := func(cmd string, extra ...string) transcript {
		args := append([]string{cmd, "--workload", "script", "--engine", "sqlite", "--builtin", "select-only", "--run-secs", "0.3"}, d...)
		return run(t, nil, append(args, extra...)...)
	}
	if tr := sc("prepare", "--profile", "small", "--scale-factor", "1", "--quiet"); tr.code != ExitOK || !strings.Contains(tr.stdout, "== init") {
		t.Fatalf("prepare: exit %d %s%s", tr.code, tr.stdout, tr.stderr)
	}
	tr := sc("run", "--reuse", "--clients", "2")
	if tr.code != ExitOK || strings.Contains(tr.stdout, "== init") || !strings.Contains(tr.stdout, "invariants sqlite: ok: row counts") ||
		!strings.Contains(tr.stderr, "prepared them: --profile small --scale-factor 1\n") {
		t.Fatalf("run --reuse: exit %d %s%s", tr.code, tr.stdout, tr.stderr)
	}
	spec, _ := workload.Lookup("script")
	w, err := spec.New().Build(workload.Shared{Profile: "quick", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		args []string
		want string
	}{
		"scale_factor": {[]string{"--scale-factor", "2"}, "with scale_factor = 1, not 2: leave out --scale-factor (the data's is taken), or prepare again"},
		"seed":         {[]string{"--seed", "99"}, ", not 99: leave out --seed (the data's is taken), or prepare again"},
	}
	for key := range w.(workload.Reuser).DataConfig() {
		c, ok := cases[key]
		if !ok {
			t.Errorf("no case for identity setting %s", key)
			continue
		}
		tr := sc("run", append([]string{"--reuse"}, c.args...)...)
		line := regexp.MustCompile(`^rumbench: sqlite: --reuse: the data was prepared by run \S+ with ` + key + ` = `)
		if tr.code != ExitUsage || !line.MatchString(tr.stderr) || !strings.Contains(tr.stderr, c.want) || strings.Count(tr.stderr, "\n") != 1 || tr.stdout != "" {
			t.Errorf("%s: %v: exit %d, stdout %q, stderr %q, want one line with %q", key, c.args, tr.code, tr.stdout, tr.stderr, c.want)
		}
	}
}

// On a --dsn server that holds pgbench's tables, a run whose init step would create them again
// is refused in one line naming the ways out, before anything runs; with --init=false the
// built-ins run on the tables there (as on tables pgbench -i loaded).
func TestScriptOnAServerHoldingItsTables(t *testing.T) {
	_, data, d := dirs(t)
	srv, err := server.Start(context.Background(), server.Config{Kind: server.Postgres, Dir: filepath.Join(data, "srv")})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(context.Background())
	sc := func(extra ...string) transcript {
		args := append([]string{"run", "--workload", "script", "--engine", "postgres", "--dsn", srv.DSN(), "--builtin", "select-only",
			"--run-secs", "0.3", "--quiet"}, d...)
		return run(t, nil, append(args, extra...)...)
	}
	if tr := sc(); tr.code != ExitOK {
		t.Fatalf("first run: exit %d %s", tr.code, tr.stderr)
	}
	want := "rumbench: postgres: the server already holds table pgbench_history, from an earlier run: run on it with --reuse (after rumbench prepare), or drop rumbench's tables first with --fresh\n"
	if tr := sc(); tr.code != ExitUsage || tr.stderr != want {
		t.Errorf("second run with init: exit %d, stderr %q, want %q", tr.code, tr.stderr, want)
	}
	if tr := sc("--init=false"); tr.code != ExitOK || !strings.Contains(tr.stdout, "invariants postgres: nothing to check") || strings.Contains(tr.stdout, "== init") {
		t.Errorf("--init=false on the tables there: exit %d %s%s", tr.code, tr.stdout, tr.stderr)
	}
}
