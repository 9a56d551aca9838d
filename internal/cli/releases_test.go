package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fetchReleases fetches PostgreSQL releases (Maven Central, into the shared cache) and returns
// their bin directories.
func fetchReleases(t *testing.T, versions ...string) []string {
	t.Helper()
	return fetchProduct(t, "postgres", versions...)
}

// fetchProduct fetches releases of product and returns their bin directories.
func fetchProduct(t *testing.T, product string, versions ...string) []string {
	t.Helper()
	tr := run(t, nil, append([]string{"servers", "fetch", product}, versions...)...)
	if tr.code != 0 {
		t.Fatalf("servers fetch: exit %d\n%s%s", tr.code, tr.stdout, tr.stderr)
	}
	dirs := strings.Fields(tr.stdout)
	if len(dirs) != len(versions) {
		t.Fatalf("servers fetch printed %q, want %d directories", tr.stdout, len(versions))
	}
	return dirs
}

// TestReleases starts two PostgreSQL releases (12 and 17, portable builds: no psql) in one run,
// each with two configuration files: the targets are release × file, labelled by the version
// the server reports; the file with a setting release 12 does not know fails that target only,
// with the server's own message, and the run goes on.
func TestReleases(t *testing.T) {
	bins := fetchReleases(t, "12.22", "17")
	for _, d := range bins {
		if _, err := os.Stat(filepath.Join(d, "psql")); err == nil {
			t.Fatalf("%s holds psql: the test would not show that rumbench does without it", d)
		}
	}
	cfgDir := t.TempDir()
	os.WriteFile(filepath.Join(cfgDir, "a.conf"), []byte("work_mem = 8MB\n"), 0o644)
	os.WriteFile(filepath.Join(cfgDir, "b.conf"), []byte("summarize_wal = off\n"), 0o644) // PostgreSQL 17 and later
	out, _, d := dirs(t)
	args := append([]string{"run", "--workload", "sysbench", "--tests", "point-query", "--table-size", "1000", "--read-secs", "0.3",
		"--engine", "postgres", "--server-bin", bins[0] + "," + bins[1], "--server-config", cfgDir, "--store", "none", "--quiet"}, d...)
	tr := run(t, nil, args...)
	if tr.code != ExitFailure {
		t.Fatalf("exit %d, want %d (one target failed)\nstderr: %s\nstdout: %s", tr.code, ExitFailure, tr.stderr, tr.stdout)
	}
	if !strings.Contains(tr.stderr, `unrecognized configuration parameter "summarize_wal"`) {
		t.Errorf("the failed target's error lacks the server's own message:\n%s", tr.stderr)
	}
	_, m, steps := readRun(t, out)
	var labels []string
	for _, tg := range m.Targets {
		labels = append(labels, tg.Label)
	}
	ran := map[string]bool{}
	for _, s := range steps {
		if s.Step == "point-query" && s.Status == "ok" && s.Ops > 0 {
			ran[s.Target] = true
		}
	}
	for _, want := range []string{"postgres-12.22:a.conf", "postgres-17.11:a.conf", "postgres-17.11:b.conf"} {
		if !ran[want] {
			t.Errorf("target %s did not run point-query (targets %v)", want, labels)
		}
	}
	if ran["postgres-12.22:b.conf"] {
		t.Errorf("release 12 started with a setting it does not know")
	}
	if !strings.Contains(strings.Join(m.Notes, "\n"), "postgres-12.22:b.conf") && !strings.Contains(m.Error, "postgres-12.22:b.conf") {
		t.Errorf("the manifest does not say which target failed: notes %q, error %q", m.Notes, m.Error)
	}
	for _, tg := range m.Targets {
		if strings.HasPrefix(tg.Label, "postgres-17.11") && !strings.HasPrefix(tg.Engine.Version, "17.11") {
			t.Errorf("target %s runs server %q", tg.Label, tg.Engine.Version)
		}
	}
}

// TestMariaDBReleases runs a fetched MariaDB release (a portable build: no client programs)
// beside the system's MariaDB in one run, each labelled by the version its server reports.
func TestMariaDBReleases(t *testing.T) {
	bins := fetchProduct(t, "mariadb", "11.4")
	if _, err := os.Stat(filepath.Join(bins[0], "mariadbd")); err != nil {
		t.Fatal(err)
	}
	out, _, d := dirs(t)
	args := append([]string{"run", "--workload", "sysbench", "--tests", "point-query,update-index", "--table-size", "1000",
		"--read-secs", "0.3", "--write-secs", "0.3", "--engine", "mysql", "--server-bin", bins[0] + ",/usr/sbin", "--store", "none", "--quiet"}, d...)
	if tr := run(t, nil, args...); tr.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", tr.code, tr.stderr, tr.stdout)
	}
	_, m, steps := readRun(t, out)
	if len(m.Targets) != 2 || !strings.HasPrefix(m.Targets[0].Label, "mysql-11.4.") || !strings.HasPrefix(m.Targets[1].Label, "mysql-10.") {
		t.Fatalf("targets %+v, want mysql-11.4.x and the system's mysql-10.x", m.Targets)
	}
	ran := map[string]int{}
	for _, s := range steps {
		if (s.Step == "point-query" || s.Step == "update-index") && s.Status != "failed" && s.Ops > 0 { // (a loaded host may run fewer than 100 operations in 0.3 s: degraded)
			ran[s.Target]++
		}
	}
	for _, tg := range m.Targets {
		if ran[tg.Label] != 2 {
			t.Errorf("target %s ran %d of the 2 tests", tg.Label, ran[tg.Label])
		}
		if v := strings.TrimPrefix(tg.Label, "mysql-"); !strings.HasPrefix(tg.Engine.Version, v) {
			t.Errorf("target %s runs server %q", tg.Label, tg.Engine.Version)
		}
	}
}

// TestReleasesUsage: bad --server-bin input is one line and exit 2.
func TestReleasesUsage(t *testing.T) {
	_, _, d := dirs(t)
	pg := "/usr/lib/postgresql/15/bin"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--engine", "postgres", "--server-bin", "/nonexistent"}, `--server-bin "/nonexistent": not a directory`},
		{[]string{"run", "--engine", "postgres", "--server-bin", pg + "," + pg}, "are both postgres-15"},
		{[]string{"run", "--engine", "postgres", "--server-bin", "a b=" + pg}, `label "a b"`},
		{[]string{"run", "--engine", "postgres,mysql", "--server-bin", "x=" + pg + ",y=" + pg}, "take one server engine"},
		{[]string{"run", "--engine", "postgres", "--server-bin", t.TempDir() + "," + pg}, "server binaries not found"},
		{[]string{"servers", "fetch", "oracle", "19"}, `servers fetch "oracle": releases of it cannot be fetched (valid: postgres, mariadb)`},
		{[]string{"servers", "fetch", "postgres"}, "give 1 to 16 versions"},
		{[]string{"servers", "fetch"}, "servers fetch: give a product (postgres, mariadb) and its versions"},
		{[]string{"servers", "fetch", "postgres", "-1"}, "unknown shorthand flag: '1' in -1 (see rumbench servers fetch --help)"},
		{[]string{"servers", "fetch", "postgres", "16", "../../x"}, `servers fetch postgres "../../x": not a version: want a major version (16)`},
		{[]string{"servers", "fetch", "mariadb", "11.4;rm"}, `servers fetch mariadb "11.4;rm": not a version`},
		{[]string{"servers", "fetch", "postgres", strings.Repeat("1", 3000)}, `"` + strings.Repeat("1", 60) + `…(3000 bytes)": not a version`},
	} {
		args := c.args
		if args[0] == "run" {
			args = append(args, d...)
		}
		tr := run(t, nil, args...)
		if tr.code != ExitUsage || !strings.Contains(tr.stderr, c.want) || strings.Count(strings.TrimSpace(tr.stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and one line with %q", c.args, tr.code, tr.stderr, ExitUsage, c.want)
		}
	}
}
