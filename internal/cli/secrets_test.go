package cli

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/server"
)

// TestSecretsNeverRecorded runs against a server given with --dsn, and records into a store
// given as a URL, both with a password, then reads every file the runs wrote: the password is
// in none of them nor in the output, and the files of such a run are private (0600, the run
// directory 0700, the SQLite store 0600).
func TestSecretsNeverRecorded(t *testing.T) {
	out, data, d := dirs(t)
	srv, err := server.Start(context.Background(), server.Config{Kind: server.Postgres, Dir: filepath.Join(data, "srv")})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(context.Background())
	secret := srv.Password()
	dsn := srv.DSN()
	if !strings.Contains(dsn, secret) {
		t.Fatalf("the server's DSN has no password: %s", dsn)
	}
	for _, args := range [][]string{
		{"run", "--engine", "postgres", "--dsn", dsn, "--steps", "l.i0,qp100", "--rows", "2000", "--query-secs", "1", "--store=" + dsn, "--label", "url"},
		// Other workloads: each run creates its own tables in the server's one database.
		{"run", "--workload", "sysbench", "--engine", "postgres", "--engine-opt", "postgres.dsn=" + dsn, "--tests", "point-query",
			"--table-size", "1000", "--read-secs", "0.5", "--label", "opt", "--fresh"},
		{"run", "--workload", "toy", "--engine", "postgres", "--dsn", dsn, "--toy-rows", "500", "--label", "sqlite", "--fresh"},
	} {
		tr := run(t, nil, append(args, d...)...)
		if tr.code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, tr.code, tr.stderr)
		}
		if strings.Contains(tr.stdout+tr.stderr, secret) {
			t.Errorf("%v: the password is in the output:\n%s\n%s", args, tr.stdout, tr.stderr)
		}
	}
	if tr := run(t, nil, "report", "--out", out, "--format", "json", "2026"); strings.Contains(tr.stdout+tr.stderr, secret) {
		t.Errorf("report prints the password")
	}
	files := 0
	err = filepath.WalkDir(out, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := e.Info()
		if err != nil {
			return err
		}
		if e.IsDir() {
			if path != out && fi.Mode().Perm() != 0o700 {
				t.Errorf("%s: mode %v, want 0700", path, fi.Mode().Perm())
			}
			return nil
		}
		files++
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), secret) {
			t.Errorf("%s holds the password", path)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", path, fi.Mode().Perm())
		}
		return nil
	})
	if err != nil || files < 10 {
		t.Fatalf("%d files read: %v", files, err)
	}
	b, _ := os.ReadFile(filepath.Join(out, "20261121T120000Z-url", "run.json"))
	if !strings.Contains(string(b), "postgres://postgres:****@127.0.0.1") {
		t.Errorf("run.json's command line lacks the redacted DSN:\n%s", b)
	}
}

// TestSecretWithAt gives passwords with an unescaped '@' in every DSN form rumbench takes. A URL
// is refused in one line before anything runs (PostgreSQL's parsers would take the rest of the
// password for the host, and print it in their errors); a MySQL DSN and a key=value string are
// run (against a closed port: the run fails), and no part of the password is in the output or in
// any file the run wrote (run.json, run.yaml, report.html, the store).
func TestSecretWithAt(t *testing.T) {
	const head, tail = "S3C", "RET6"
	out, _, d := dirs(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--workload", "sysbench", "--engine", "postgres", "--dsn", "postgres://bob:S3C@RET6@127.0.0.1:1/db"},
			"rumbench: --dsn postgres://bob:****@127.0.0.1:1/db: the user or password holds an '@': write it as %40\n"},
		{[]string{"run", "--workload", "sysbench", "--engine", "mongo", "--dsn", "mongodb://bob:S3C@RET6@127.0.0.1:1/db"},
			"rumbench: --dsn mongodb://bob:****@127.0.0.1:1/db: the user or password holds an '@': write it as %40\n"},
		{[]string{"run", "--engine", "sqlite", "--store", "postgresql://bob:S3C@RET6@127.0.0.1:1/db"},
			"rumbench: --store: postgresql://bob:****@127.0.0.1:1/db: the user or password holds an '@': write it as %40\n"},
	} {
		tr := run(t, nil, append(c.args, d...)...)
		if tr.code != ExitUsage || tr.stderr != c.want {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q", c.args, tr.code, tr.stderr, ExitUsage, c.want)
		}
	}
	if left, _ := os.ReadDir(out); len(left) != 0 {
		t.Errorf("a refused DSN left %v in --out", left)
	}
	for _, c := range []struct{ engine, dsn, recorded string }{
		{"mysql", "bob:S3C@RET6@tcp(127.0.0.1:1)/db", "bob:****@tcp(127.0.0.1:1)/db"},
		{"postgres", "host=127.0.0.1 port=1 user=bob password=S3C@RET6 dbname=db", "host=127.0.0.1 port=1 user=bob password=**** dbname=db"},
	} {
		tr := run(t, nil, append([]string{"run", "--workload", "sysbench", "--engine", c.engine, "--dsn", c.dsn, "--label", c.engine}, d...)...)
		if tr.code != ExitFailure {
			t.Errorf("%s: exit %d, want %d (nothing listens there)\n%s", c.dsn, tr.code, ExitFailure, tr.stderr)
		}
		if strings.Contains(tr.stdout+tr.stderr, tail) || strings.Contains(tr.stdout+tr.stderr, head) {
			t.Errorf("%s: the password is in the output:\n%s%s", c.dsn, tr.stdout, tr.stderr)
		}
		b, _ := os.ReadFile(filepath.Join(out, "20261121T120000Z-"+c.engine, "run.json"))
		if !strings.Contains(string(b), c.recorded) {
			t.Errorf("run.json lacks %q:\n%s", c.recorded, b)
		}
	}
	files := 0
	filepath.WalkDir(out, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		files++
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), tail) || strings.Contains(string(b), head+"@") {
			t.Errorf("%s holds a part of the password", path)
		}
		return nil
	})
	if files < 9 {
		t.Errorf("%d files read, want the two runs' and the store", files)
	}
}
