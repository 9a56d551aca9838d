package script

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
	"github.com/rumbench/rumbench/internal/workload/script/pgscript"
	"github.com/rumbench/rumbench/internal/workload/worktest"
)

// sameScript uses \set with random_zipfian, \if on a value \gset read, and a transaction; each
// branch runs one statement, so every transaction sends 4 statements whichever branch it takes.
const sameScript = `\set aid random_zipfian(1, 100000 * :scale, 1.07)
BEGIN;
SELECT abalance, bid FROM pgbench_accounts WHERE aid = :aid \gset
\if :aid <= 10 AND :bid = 1
  UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;
\else
  UPDATE pgbench_accounts SET abalance = abalance - 1 WHERE aid = :aid;
\endif
END;
`

// pgbenchTxns is the transactions pgbench runs (-t).
const pgbenchTxns = 500

// TestSameStatementsAsPgbench runs sameScript under rumbench, then unchanged under pgbench
// (/usr/bin/pgbench -M prepared), on one PostgreSQL that logs every statement, and compares the
// statements the server received per transaction, and which.
func TestSameStatementsAsPgbench(t *testing.T) {
	pgbench, err := exec.LookPath("pgbench")
	if err != nil {
		t.Skip("no pgbench on PATH")
	}
	path := filepath.Join(t.TempDir(), "zipf_if_gset.sql")
	if err := os.WriteFile(path, []byte(sameScript), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Dir(path), 0o755)
	w := build(t, "--script", path, "--init", "--run-secs", "1")
	eng, dir := worktest.LoggingPostgres(t)
	ctx := context.Background()
	s, err := eng.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sq := s.(table.SQLSession)
	mark := func(name string) {
		if _, err := sq.ExecSQL(ctx, worktest.Mark(name), nil, table.NewRows(1, 1)); err != nil {
			t.Fatal(err)
		}
	}
	var txns int64
	run := worktest.Steps(t, eng, dir, w, func(_ workload.Run, step string, res results.Step) {
		if step == StepInit {
			mark("rumbench")
		} else {
			txns = res.KindOps("tx_zipf_if_gset")
		}
	})
	out := table.NewRows(4, 1)
	if _, err := sq.ExecSQL(ctx, "SELECT host(inet_server_addr()), inet_server_port(), current_user, current_database()", nil, out); err != nil {
		t.Fatal(err)
	}
	row := out.Row(0)
	mark("pgbench")
	cmd := exec.Command(pgbench, "-n", "-M", "prepared", "-c", "1", "-t", fmt.Sprint(pgbenchTxns), "-f", path,
		"-h", string(row[0].B), "-p", string(row[1].B), "-U", string(row[2].B), string(row[3].B))
	pw, err := os.ReadFile(filepath.Join(dir, "password")) // the test server's own random password
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(os.Environ(), "PGPASSWORD="+strings.TrimSpace(string(pw)))
	got, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pgbench: %v\n%s", err, got)
	}
	if !strings.Contains(string(got), fmt.Sprintf("number of transactions actually processed: %d/%d", pgbenchTxns, pgbenchTxns)) {
		t.Fatalf("pgbench did not run its transactions:\n%s", got)
	}
	mark("after")
	if _, err := run.Check(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close()
	run.Close()
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	logged := worktest.LoggedStatements(t, dir)
	// The script's statements as the server logs them (placeholders as ?, END as COMMIT: the
	// same statement); the server's counter queries the runner sends on its ticks, and the
	// count(*) by which pgbench reads :scale, are left out.
	script := map[string]bool{}
	for _, c := range w.Cfg.Scripts[0].Script.Commands {
		switch c.Kind {
		case pgscript.Begin:
			script["BEGIN"] = true
		case pgscript.Commit:
			script["COMMIT"] = true
		case pgscript.SQL:
			script[strings.Join(strings.Fields(c.Text), " ")] = true
		}
	}
	count := func(stmts []string) map[string]int {
		m := map[string]int{}
		for _, q := range stmts {
			q = strings.TrimSuffix(strings.Join(strings.Fields(q), " "), ";")
			if strings.EqualFold(q, "END") {
				q = "COMMIT"
			}
			if script[q] {
				m[q]++
			}
		}
		return m
	}
	rb, pb := count(logged["rumbench"]), count(logged["pgbench"])
	total := func(m map[string]int) (n int) {
		for _, c := range m {
			n += c
		}
		return n
	}
	if txns == 0 || int64(total(rb)) != 4*txns {
		t.Errorf("rumbench: %d statements for %d transactions, want 4 per transaction: %v", total(rb), txns, rb)
	}
	if total(pb) != 4*pgbenchTxns {
		t.Errorf("pgbench: %d statements for %d transactions, want 4 per transaction: %v", total(pb), pgbenchTxns, pb)
	}
	for _, m := range []map[string]int{rb, pb} {
		if len(m) != len(script) {
			t.Errorf("%d distinct statements of the script's %d: %v", len(m), len(script), m)
		}
	}
	// The hot branch (aid <= 10) is taken with the Zipfian share of the ten smallest keys:
	// about a third at s = 1.07, under both (500 draws: within 0.08 with near certainty).
	hot := "UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = ?"
	if r, p := float64(rb[hot])/float64(txns), float64(pb[hot])/pgbenchTxns; r-p > 0.08 || p-r > 0.08 {
		t.Errorf("hot branch share: rumbench %.3f, pgbench %.3f", r, p)
	}
	t.Logf("rumbench: %d transactions, %v", txns, rb)
	t.Logf("pgbench: %d transactions, %v", pgbenchTxns, pb)
}
