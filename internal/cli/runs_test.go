package cli

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/redact"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/server"
	"github.com/rumbench/rumbench/internal/store"
)

// listRuns runs "runs --format json" with args and returns the summaries.
func listRuns(t *testing.T, args ...string) []store.RunSummary {
	t.Helper()
	tr := run(t, nil, append([]string{"runs", "--format", "json"}, args...)...)
	if tr.code != 0 {
		t.Fatalf("runs: exit %d: %s", tr.code, tr.stderr)
	}
	var out []store.RunSummary
	if err := json.Unmarshal([]byte(tr.stdout), &out); err != nil {
		t.Fatalf("runs --format json: %v\n%s", err, tr.stdout)
	}
	return out
}

// TestRunsTranscript runs two tiny runs (sqlite and null engines), then lists, labels, deletes
// and imports them.
func TestRunsTranscript(t *testing.T) {
	out, _, d := dirs(t)
	o := []string{"--out", out}
	for _, args := range [][]string{
		{"run", "--engine", "sqlite", "--steps", "l.i0,l.x", "--rows", "2000"},
		{"run", "--engine", "null", "--steps", "l.i0,l.x", "--rows", "2000", "--label", "nulltest", "--quiet"},
	} {
		tr := run(t, nil, append(args, d...)...)
		if tr.code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, tr.code, tr.stderr)
		}
		if q := args[len(args)-1] == "--quiet"; q != !strings.Contains(tr.stderr, "rumbench: run recorded in "+filepath.Join(out, "rumbench.db")+"\n") {
			t.Errorf("%v: stderr %q", args, tr.stderr)
		}
	}
	sqliteDir, nullDir := filepath.Join(out, "20261121T120000Z-insert"), filepath.Join(out, "20261121T120000Z-nulltest")

	tr := run(t, nil, append([]string{"runs"}, o...)...)
	lines := strings.Split(strings.TrimSuffix(tr.stdout, "\n"), "\n")
	if tr.code != 0 || len(lines) != 3 {
		t.Fatalf("runs: exit %d, output:\n%s%s", tr.code, tr.stdout, tr.stderr)
	}
	if h := strings.Fields(lines[0]); strings.Join(h, " ") != "RUN LABEL WORKLOAD TARGETS START (UTC) DURATION STATUS STEPS" {
		t.Errorf("header %q", lines[0])
	}
	// Newest first: the null run started last.
	for i, want := range [][]string{
		{"20261121T120000Z-nulltest", "nulltest", "insert", "null", "ok", "2"},
		{"20261121T120000Z-insert", "insert", "insert", "sqlite", "ok", "2"},
	} {
		f := strings.Fields(lines[i+1]) // the start is two fields: date and time
		if len(f) != 9 || f[0] != want[0] || f[1] != want[1] || f[2] != want[2] || f[3] != want[3] || f[7] != want[4] || f[8] != want[5] ||
			!strings.HasSuffix(f[6], "s") {
			t.Errorf("line %d: %q, want %v", i+1, lines[i+1], want)
			continue
		}
		if st, err := time.Parse("2006-01-02 15:04:05", f[4]+" "+f[5]); err != nil || time.Since(st) > time.Hour {
			t.Errorf("line %d: start %s %s (%v)", i+1, f[4], f[5], err)
		}
	}

	runs := listRuns(t, append(o, "--engine", "sqlite")...)
	if len(runs) != 1 || runs[0].RunID != "20261121T120000Z-insert" || runs[0].Steps != 2 || runs[0].Intervals == 0 ||
		runs[0].Status != "ok" || runs[0].Dir != sqliteDir || strings.Join(runs[0].Engines, ",") != "sqlite" || runs[0].DurationSecs <= 0 {
		t.Errorf("runs --engine sqlite: %+v", runs)
	}
	if runs := listRuns(t, append(o, "--workload", "insert", "--since", "2000-01-01", "--until", time.Now().UTC().Format("2006-01-02"))...); len(runs) != 2 {
		t.Errorf("runs --since 2000-01-01 --until today: %d runs, want 2", len(runs))
	}
	if runs := listRuns(t, append(o, "--until", "2000-01-01")...); len(runs) != 0 {
		t.Errorf("runs --until 2000-01-01: %d runs, want 0", len(runs))
	}

	// Label by unique prefix.
	tr = run(t, nil, append([]string{"runs", "label", "20261121T120000Z-i", "baseline"}, o...)...)
	if tr.code != 0 || tr.stdout != "20261121T120000Z-insert: label baseline\n" {
		t.Errorf("runs label: exit %d, %q %q", tr.code, tr.stdout, tr.stderr)
	}
	if runs := listRuns(t, append(o, "--label", "baseline")...); len(runs) != 1 || runs[0].RunID != "20261121T120000Z-insert" {
		t.Errorf("runs --label baseline: %+v", runs)
	}

	// Delete with the run directory.
	tr = run(t, nil, append([]string{"runs", "delete", "20261121T120000Z-n", "--files"}, o...)...)
	want := "20261121T120000Z-nulltest: deleted from " + filepath.Join(out, "rumbench.db") + "\n20261121T120000Z-nulltest: removed " + nullDir + "\n"
	if tr.code != 0 || tr.stdout != want {
		t.Errorf("runs delete --files: exit %d\n got %q\nwant %q\n%s", tr.code, tr.stdout, want, tr.stderr)
	}
	if _, err := os.Stat(nullDir); !os.IsNotExist(err) {
		t.Errorf("the run directory is still there: %v", err)
	}
	// Delete from the store only: the directory stays and can be imported again.
	tr = run(t, nil, append([]string{"runs", "delete", "20261121T120000Z-insert"}, o...)...)
	if tr.code != 0 || strings.Count(tr.stdout, "\n") != 1 {
		t.Errorf("runs delete: exit %d, %q %q", tr.code, tr.stdout, tr.stderr)
	}
	if tr := run(t, nil, append([]string{"runs"}, o...)...); tr.code != 0 || tr.stdout != "no runs\n" {
		t.Errorf("runs on an empty store: exit %d, %q", tr.code, tr.stdout)
	}
	tr = run(t, nil, append([]string{"runs", "import", out}, o...)...)
	if tr.code != 0 || !strings.HasPrefix(tr.stdout, "20261121T120000Z-insert: imported from "+sqliteDir+" (ok; steps 2, ") || strings.Count(tr.stdout, "\n") != 1 {
		t.Errorf("runs import: exit %d, %q %q", tr.code, tr.stdout, tr.stderr)
	}
	if runs := listRuns(t, o...); len(runs) != 1 || runs[0].Label != "insert" || runs[0].Steps != 2 {
		t.Errorf("after import: %+v", runs)
	}
}

// TestRunRecordsInterrupted: an interrupted run is recorded with what it measured and its status.
func TestRunRecordsInterrupted(t *testing.T) {
	out, _, d := dirs(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(1200*time.Millisecond, cancel)
	tr := run(t, ctx, append([]string{"run", "--engine", "null", "--steps", "qr100", "--query-secs", "60", "--quiet"}, d...)...)
	if tr.code != ExitInterrupted {
		t.Fatalf("exit %d, want %d; stderr %s", tr.code, ExitInterrupted, tr.stderr)
	}
	runs := listRuns(t, "--out", out)
	if len(runs) != 1 || runs[0].Status != "interrupted" || runs[0].Steps != 1 {
		t.Errorf("recorded: %+v", runs)
	}
}

// TestSameSecondRuns: two runs with the same label and --out started in the same second (the
// test's clock stands still) get a directory and a run id each, and both are recorded.
func TestSameSecondRuns(t *testing.T) {
	out, _, d := dirs(t)
	var printed []string
	for range 2 {
		tr := run(t, nil, append([]string{"run", "--engine", "null", "--steps", "l.i0", "--rows", "1000", "--quiet"}, d...)...)
		if tr.code != 0 {
			t.Fatalf("exit %d: %s", tr.code, tr.stderr)
		}
		printed = append(printed, tr.stdout)
	}
	ids := []string{"20261121T120000Z-insert", "20261121T120000Z-insert-2"}
	for i, id := range ids {
		dir := filepath.Join(out, id)
		if m, err := results.ReadManifest(dir); err != nil || m.RunID != id {
			t.Errorf("%s: manifest %+v, %v", dir, m, err)
		}
		if !strings.Contains(printed[i], "results: "+dir+"\n") {
			t.Errorf("run %d printed\n%s\nwithout its directory %s", i+1, printed[i], dir)
		}
	}
	runs := listRuns(t, "--out", out)
	var got []string
	for _, r := range runs {
		got = append(got, r.RunID)
	}
	if !slices.Equal(got, []string{ids[1], ids[0]}) {
		t.Errorf("runs: %v, want %v", got, []string{ids[1], ids[0]})
	}
}

// TestStoreFailureKeepsRun: a store that cannot be written is reported; the run and its
// directory are not lost.
func TestStoreFailureKeepsRun(t *testing.T) {
	out, _, d := dirs(t)
	notDir := filepath.Join(out, "file")
	if err := os.WriteFile(notDir, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := run(t, nil, append([]string{"run", "--engine", "null", "--steps", "l.i0", "--rows", "1000", "--quiet", "--store", filepath.Join(notDir, "r.db")}, d...)...)
	if tr.code != 0 {
		t.Fatalf("exit %d: %s", tr.code, tr.stderr)
	}
	lines := strings.SplitAfter(tr.stderr, "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "rumbench: warning: store "+filepath.Join(notDir, "r.db")+": ") ||
		!strings.HasSuffix(lines[0], "; the run goes on (rumbench runs import records its directory later)\n") ||
		!strings.HasPrefix(lines[1], "rumbench: the run is not in the results store: ") ||
		!strings.HasSuffix(tr.stderr, "(its directory "+filepath.Join(out, "20261121T120000Z-insert")+" is complete; rumbench runs import records it)\n") {
		t.Errorf("stderr %q", tr.stderr)
	}
	readRun(t, out)
	tr = run(t, nil, append([]string{"run", "--engine", "null", "--steps", "l.i0", "--rows", "1000", "--quiet", "--store", "none", "--label", "nostore"}, d...)...)
	if tr.code != 0 || tr.stderr != "" {
		t.Errorf("--store none: exit %d, stderr %q", tr.code, tr.stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "rumbench.db")); !os.IsNotExist(err) {
		t.Errorf("--store none created a store: %v", err)
	}
}

func TestRunsUsageErrors(t *testing.T) {
	empty := t.TempDir()
	withStore := t.TempDir()
	s, err := store.Open(context.Background(), filepath.Join(withStore, "rumbench.db"))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db := filepath.Join(withStore, "rumbench.db")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"runs", "--format", "xml"}, `rumbench: --format "xml": valid: text, json`},
		{[]string{"runs", "--since", "yesterday"}, `rumbench: --since "yesterday": want a date YYYY-MM-DD or an RFC3339 time (2026-11-21T14:00:00Z)`},
		{[]string{"runs", "--until", "2026-13-01"}, `rumbench: --until "2026-13-01": want a date YYYY-MM-DD or an RFC3339 time (2026-11-21T14:00:00Z)`},
		{[]string{"runs", "--store", "mysql://h/db"}, `rumbench: --store: "mysql://h/db": unsupported URL scheme "mysql" (valid: a SQLite file path, postgres://...)`},
		{[]string{"runs", "--store", "none"}, `rumbench: --store none: this command needs a store (a SQLite file or a postgres:// URL)`},
		{[]string{"run", "--store", "mysql://h/db"}, `rumbench: --store: "mysql://h/db": unsupported URL scheme "mysql" (valid: a SQLite file path, postgres://...)`},
		{[]string{"runs", "--out", empty}, `rumbench: no results store at ` + filepath.Join(empty, "rumbench.db") + ` (rumbench run records runs there; give --store or --out, or record run directories with rumbench runs import DIR)`},
		{[]string{"runs", "label", "x"}, `rumbench: accepts 2 arg(s), received 1`},
		{[]string{"runs", "label", "x", "a b", "--store", db}, `rumbench: label "a b": must be non-empty, without spaces or slashes`},
		{[]string{"runs", "delete", "nosuch", "--store", db}, `rumbench: no such run "nosuch" in ` + db},
		{[]string{"runs", "import"}, `rumbench: requires at least 1 arg(s), only received 0`},
		{[]string{"runs", "import", filepath.Join(empty, "nope")}, `rumbench: import ` + filepath.Join(empty, "nope") + `: not a directory`},
		{[]string{"runs", "import", empty}, `rumbench: import ` + empty + `: no run directory there (no run.json in it or in its subdirectories)`},
		{[]string{"runs", "fly"}, `rumbench: unknown command "fly" for "rumbench runs"`},
	}
	for _, tc := range cases {
		tr := run(t, nil, tc.args...)
		if tr.code != ExitUsage || strings.TrimSuffix(tr.stderr, "\n") != tc.want || tr.stdout != "" {
			t.Errorf("%v: exit %d\n got %q\nwant %q", tc.args, tr.code, tr.stderr, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(empty, "rumbench.db")); !os.IsNotExist(err) {
		t.Errorf("listing created a store in %s", empty)
	}
}

// TestRunsPostgresStore records a run in a private PostgreSQL server's database and lists and
// deletes it there.
func TestRunsPostgresStore(t *testing.T) {
	base := t.TempDir()
	for _, dir := range []string{filepath.Dir(base), base} {
		os.Chmod(dir, 0o755) // the server runs as the postgres user when we are root
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	srv, err := server.Start(ctx, server.Config{Kind: server.Postgres, Dir: filepath.Join(base, "pg")})
	if errors.Is(err, server.ErrBinaryNotFound) {
		t.Skipf("skipping: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(context.Background())
	pg := srv.DSN()

	out, _, d := dirs(t)
	tr := run(t, nil, append([]string{"run", "--engine", "null", "--steps", "l.i0,l.x", "--rows", "1000", "--store", pg}, d...)...)
	if tr.code != 0 || !strings.Contains(tr.stderr, "rumbench: run recorded in "+redact.DSN(pg)+"\n") || strings.Contains(tr.stderr+tr.stdout, srv.Password()) {
		t.Fatalf("run: exit %d, stderr %s", tr.code, tr.stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "rumbench.db")); !os.IsNotExist(err) {
		t.Errorf("a SQLite store was created beside the PostgreSQL one: %v", err)
	}
	runs := listRuns(t, "--store", pg)
	if len(runs) != 1 || runs[0].RunID != "20261121T120000Z-insert" || runs[0].Steps != 2 || runs[0].Status != "ok" {
		t.Fatalf("runs --store postgres: %+v", runs)
	}
	if tr := run(t, nil, "runs", "delete", "2026", "--store", pg); tr.code != 0 {
		t.Errorf("runs delete: exit %d, %s", tr.code, tr.stderr)
	}
	if runs := listRuns(t, "--store", pg); len(runs) != 0 {
		t.Errorf("after delete: %+v", runs)
	}
}

// TestImportSkipsBadDirectory imports a directory holding a run and a broken run directory: the
// good run is recorded, the bad one reported, and the exit code is 1.
func TestImportSkipsBadDirectory(t *testing.T) {
	out, _, d := dirs(t)
	if tr := run(t, nil, append([]string{"run", "--engine", "null", "--steps", "l.i0", "--rows", "1000", "--quiet", "--store", "none"}, d...)...); tr.code != 0 {
		t.Fatalf("run: exit %d: %s", tr.code, tr.stderr)
	}
	bad := filepath.Join(out, "broken")
	if err := os.Mkdir(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "run.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := run(t, nil, "runs", "import", out, "--out", out)
	if tr.code != ExitFailure || !strings.HasPrefix(tr.stdout, "20261121T120000Z-insert: imported from "+filepath.Join(out, "20261121T120000Z-insert")+" (ok; steps 1, ") ||
		strings.Count(tr.stdout, "\n") != 1 ||
		!strings.HasPrefix(tr.stderr, "rumbench: import "+bad+": "+filepath.Join(bad, "run.json")+": unexpected end of JSON input (truncated?)\n") ||
		!strings.HasSuffix(tr.stderr, "rumbench: 1 of 2 run directories not imported\n") {
		t.Errorf("exit %d\nstdout %q\nstderr %q", tr.code, tr.stdout, tr.stderr)
	}
}
