package cli

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/server"
)

// TestScriptChecksReadOnly: a script's check ("-- rumbench check:", a comment pgbench ignores)
// cannot change the database. A check that is not a query, or is more than one statement, is
// refused in one line before anything runs; a query that writes (a DELETE in a WITH) fails the
// run with the server's read-only error, and the table keeps its rows (read on the server the
// run was given with --dsn).
func TestScriptChecksReadOnly(t *testing.T) {
	out, data, d := dirs(t)
	dir := t.TempDir()
	script := func(name, check string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte("-- rumbench check: "+check+"\nSELECT abalance FROM pgbench_accounts WHERE aid = 1;\n"), 0o644)
		return p
	}
	for _, c := range []struct{ check, want string }{
		{"DROP TABLE pgbench_branches -> 0", `drop.sql:1: a check is a query (SELECT, WITH, VALUES, TABLE, SHOW), run read-only: "DROP" is not one`},
		{"SELECT 1; DROP TABLE pgbench_branches -> 1", "drop.sql:1: a check is one query: a ';' at byte 9 starts another statement"},
	} {
		tr := run(t, nil, append([]string{"run", "--workload", "script", "--init", "--script", script("drop.sql", c.check), "--engine", "sqlite"}, d...)...)
		if tr.code != ExitUsage || !strings.Contains(tr.stderr, c.want) || strings.Count(tr.stderr, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q; want %d and one line with %q", c.check, tr.code, tr.stderr, ExitUsage, c.want)
		}
	}
	if left, _ := os.ReadDir(out); len(left) != 0 {
		t.Errorf("a refused check left %v in --out", left)
	}

	srv, err := server.Start(context.Background(), server.Config{Kind: server.Postgres, Dir: filepath.Join(data, "srv")})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(context.Background())
	sneaky := script("sneaky.sql", "WITH d AS (DELETE FROM pgbench_branches RETURNING bid) SELECT count(*) FROM d -> 0")
	tr := run(t, nil, append([]string{"run", "--workload", "script", "--init", "--script", sneaky, "--engine", "postgres", "--dsn", srv.DSN(),
		"--run-secs", "0.3", "--quiet"}, d...)...)
	if tr.code != ExitFailure || !strings.Contains(tr.stderr, "in a read-only transaction (SQLSTATE 25006)") {
		t.Errorf("a check that deletes: exit %d, stderr %q; want %d and PostgreSQL's read-only refusal", tr.code, tr.stderr, ExitFailure)
	}
	db, err := sql.Open("pgx", srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM pgbench_branches").Scan(&n); err != nil || n != 1 {
		t.Errorf("pgbench_branches holds %d rows (%v), want the 1 the init step loaded", n, err)
	}
}

// TestScriptRunInput: --jobs fewer than --clients on an engine whose sessions cannot share a
// thread is refused in one line, exit 2, with nothing written; a failing statement of 60 KB is
// echoed cut (input.Short) on stderr and in run.json.
func TestScriptRunInput(t *testing.T) {
	out, _, d := dirs(t)
	tr := run(t, nil, append([]string{"run", "--workload", "script", "--builtin", "select-only", "--jobs", "2", "--clients", "4", "--engine", "sqlite"}, d...)...)
	want := "rumbench: --jobs 2 with 4 clients: clients share a thread over raw sockets only (engine postgres or mysql, io=raw); engine sqlite has none\n"
	if tr.code != ExitUsage || tr.stderr != want {
		t.Errorf("--jobs 2 --clients 4 on sqlite: exit %d, stderr %q; want %d, %q", tr.code, tr.stderr, ExitUsage, want)
	}
	if left, _ := os.ReadDir(out); len(left) != 0 {
		t.Errorf("the refused run left %v in --out", left)
	}

	big := filepath.Join(t.TempDir(), "big.sql")
	os.WriteFile(big, []byte("SELECT 1 FROM no_such_table WHERE x = '"+strings.Repeat("a", 60000)+"';\n"), 0o644)
	tr = run(t, nil, append([]string{"run", "--workload", "script", "--script", big, "--engine", "sqlite", "--run-secs", "0.3", "--quiet"}, d...)...)
	if tr.code != ExitFailure || !strings.Contains(tr.stderr, "aaa…(60040 bytes)") || len(tr.stderr) > 400 {
		t.Errorf("a failing 60 KB statement: exit %d, %d bytes on stderr: %.300q", tr.code, len(tr.stderr), tr.stderr)
	}
	_, m, _ := readRun(t, out)
	if !strings.Contains(m.Error, "…(60040 bytes)") || len(m.Error) > 400 {
		t.Errorf("run.json's error is %d bytes: %.300q", len(m.Error), m.Error)
	}
}
