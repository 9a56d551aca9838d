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
