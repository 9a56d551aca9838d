package cli

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/server"
)

// TestFaultsOnPostgres injects every fault kind into one sysbench update-index step on a managed
// PostgreSQL, two clients: each fault is recorded in order with its figures, the clients
// reconnect and go on, the operations cut in flight are counted as of unknown outcome, the
// intervals and the HTML mark the faults, and with synchronous commits no acknowledged update
// is lost (the sum of k grew by at least the acknowledged updates).
func TestFaultsOnPostgres(t *testing.T) {
	out, _, d := dirs(t)
	args := append([]string{"run", "--workload", "sysbench", "--engine", "postgres", "--tests", "update-index",
		"--table-size", "2000", "--threads", "2", "--run-secs", "8", "--warmup-secs", "0",
		"--fault", "kill@1500ms", "--fault", "stop@3s+500ms", "--fault", "sever@4500ms+300ms", "--fault", "restart@6s",
		"--check", "lost<=0", "--store", "none", "--quiet"}, d...)
	tr := run(t, nil, args...)
	if tr.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", tr.code, tr.stderr, tr.stdout)
	}
	dir, _, steps := readRun(t, out)
	var s *results.Step
	for i := range steps {
		if steps[i].Step == "update-index" {
			s = &steps[i]
		}
		if steps[i].Step != "update-index" && len(steps[i].Faults) > 0 {
			t.Errorf("%s has faults: the loads take none", steps[i].Step)
		}
	}
	if s == nil || s.Status != results.StatusOK {
		t.Fatalf("update-index: %+v", s)
	}
	var kinds []string
	for _, f := range s.Faults {
		kinds = append(kinds, f.Kind)
		if f.Error != "" {
			t.Errorf("fault %s: %s", f.Kind, f.Error)
		}
	}
	if want := []string{"kill", "stop", "sever", "restart"}; !slices.Equal(kinds, want) {
		t.Fatalf("faults %v, want %v", kinds, want)
	}
	kill, stop, sever, restart := s.Faults[0], s.Faults[1], s.Faults[2], s.Faults[3]
	// A kill, a sever and a restart fail the operations in flight and the reconnections until
	// the server is back; a stop fails none (they wait), and lasts.
	for _, f := range []results.Fault{kill, sever, restart} {
		if f.Failed == 0 || f.UnavailSecs <= 0 {
			t.Errorf("%s: %d failed, unavailable %gs: want failures and an outage", f.Kind, f.Failed, f.UnavailSecs)
		}
	}
	if stop.Failed != 0 || stop.UnavailSecs <= 0 || stop.ForSecs != 0.5 {
		t.Errorf("stop: %+v: want no failure, an outage, 0.5 s", stop)
	}
	if kill.ServerReadySecs <= 0 || restart.ServerReadySecs <= 0 || sever.ServerReadySecs != 0 {
		t.Errorf("server starts: kill %g, restart %g, sever %g: want the two starts only", kill.ServerReadySecs, restart.ServerReadySecs, sever.ServerReadySecs)
	}
	var failed int64
	for _, n := range s.Errors {
		failed += n
	}
	if failed != kill.Failed+stop.Failed+sever.Failed+restart.Failed || s.Errors["connection"] == 0 {
		t.Errorf("errors %v: want the faults' %d failures, of the connection class", s.Errors, kill.Failed+sever.Failed+restart.Failed)
	}
	if s.Reconnects < 3 {
		t.Errorf("%d reconnections, want one at least after each of kill, sever and restart", s.Reconnects)
	}
	if s.UnknownOutcome > failed {
		t.Errorf("%d of unknown outcome, more than the %d failed", s.UnknownOutcome, failed)
	}
	a := s.AckCheck
	if a == nil || !a.Checked || a.Lost != 0 || a.Acknowledged == 0 || a.Unknown != s.UnknownOutcome {
		t.Errorf("acknowledged writes: %+v, want checked, none lost, the unknown counted (%d)", a, s.UnknownOutcome)
	}
	ivs, err := results.ReadIntervals(dir)
	if err != nil {
		t.Fatal(err)
	}
	var marked []string
	var ivFailed int64
	for _, iv := range ivs {
		if iv.Step == "update-index" {
			marked = append(marked, iv.Faults...)
			ivFailed += iv.Failed
		}
	}
	if !slices.Equal(marked, kinds) || ivFailed != failed {
		t.Errorf("intervals mark %v and %d failures, want %v and %d", marked, ivFailed, kinds, failed)
	}
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil || !strings.Contains(string(html), `"markLine"`) {
		t.Errorf("report.html marks no fault (err %v)", err)
	}
	for _, want := range []string{"== faults", " stop+0.5s ", " sever+0.3s ", "update-index: acknowledged writes"} {
		if !strings.Contains(tr.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, tr.stdout)
		}
	}
}

// TestLostWritesOnMySQL kills a managed MariaDB under update-index with the redo log written
// but not synced at commit (--sync=false: innodb_flush_log_at_trx_commit=2), its clients on
// database/sql (client=sql, the driver's path): they reconnect, the run goes on, and the check of
// the acknowledged writes reports a count (none lost to a process kill, which leaves the OS's
// page cache whole) without failing the run.
func TestLostWritesOnMySQL(t *testing.T) {
	out, _, d := dirs(t)
	args := append([]string{"run", "--workload", "sysbench", "--engine", "mysql", "--engine-opt", "client=sql", "--sync=false", "--tests", "update-index",
		"--table-size", "2000", "--run-secs", "4", "--warmup-secs", "0", "--fault", "kill@1500ms",
		"--check", "recover_s<=60", "--store", "none", "--quiet"}, d...)
	tr := run(t, nil, args...)
	if tr.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", tr.code, tr.stderr, tr.stdout)
	}
	_, _, steps := readRun(t, out)
	for _, s := range steps {
		if s.Step != "update-index" {
			continue
		}
		if len(s.Faults) != 1 || s.Faults[0].Failed == 0 || s.Faults[0].ServerReadySecs <= 0 {
			t.Fatalf("faults %+v: want one kill, with failures and a server start", s.Faults)
		}
		if a := s.AckCheck; a == nil || !a.Checked || a.Lost < 0 || a.Lost > a.Acknowledged {
			t.Errorf("acknowledged writes %+v: want a count", a)
		}
		return
	}
	t.Fatal("no update-index step")
}

// TestFaultRefusals checks the failure flags refuse bad input in one line, exit 2.
func TestFaultRefusals(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--fault", "kill"}, `--fault "kill": not KIND@TIME or KIND@TIME+DURATION`},
		{[]string{"--fault", "crash@1s"}, `--fault "crash@1s": no fault kind "crash" (valid: kill, restart, stop, sever, kill-primary)`},
		{[]string{"--fault", "stop@1s"}, "a stop lasts: give its duration, stop@1s+10s"},
		{[]string{"--fault", "kill@1s+2s"}, "a kill takes no duration (kill@1s)"},
		{[]string{"--fault", "sever@1s+2h"}, `the duration "2h" must be above 0 and at most 1h0m0s`},
		{[]string{"--fault", "kill@25h"}, `the time "25h" must be a duration from 0 to 24h0m0s`},
		{[]string{"--engine", "sqlite", "--fault", "kill@1s"}, "--fault: engine sqlite takes no faults (engines that do: mongo, myrocks, mysql, postgres)"},
		{[]string{"--engine", "postgres", "--dsn", "postgres://u@127.0.0.1:1/db", "--fault", "kill@1s"}, "a server given with --dsn is the user's to kill"},
		{[]string{"--tolerate-errors", "deadlock"}, `--tolerate-errors "deadlock": no error class "deadlock" (valid: connection, timeout, conflict, constraint, other, any)`},
	} {
		args := append([]string{"run", "--workload", "sysbench", "--tests", "update-index", "--store", "none"}, c.args...)
		tr := run(t, nil, args...)
		if tr.code != 2 || !strings.Contains(tr.stderr, c.want) || strings.Count(tr.stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q: want exit 2 and one line with %q", c.args, tr.code, tr.stderr, c.want)
		}
	}
}

// TestOutageOnDSN stops a PostgreSQL server the user runs (--dsn) under update-index, as the
// user would (the test kills it, then starts it again), with connection errors tolerated: the
// clients reconnect, the step records the outage it met (kind outage) with its failures, and
// the acknowledged updates are checked. A sever is the one fault rumbench injects on such a
// server: it is recorded too.
func TestOutageOnDSN(t *testing.T) {
	out, data, d := dirs(t)
	ctx := context.Background()
	srv, err := server.Start(ctx, server.Config{Kind: server.Postgres, Dir: filepath.Join(data, "srv")})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(ctx)
	sb := func(cmd string, extra ...string) transcript {
		args := append([]string{cmd, "--workload", "sysbench", "--engine", "postgres", "--dsn", srv.DSN(),
			"--table-size", "2000", "--tests", "update-index", "--quiet", "--store", "none"}, d...)
		return run(t, nil, append(args, extra...)...)
	}
	if tr := sb("prepare"); tr.code != ExitOK {
		t.Fatalf("prepare: exit %d %s", tr.code, tr.stderr)
	}
	db, err := sql.Open("pgx", srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	done := make(chan transcript)
	go func() {
		done <- sb("run", "--reuse", "--run-secs", "6", "--warmup-secs", "0", "--tolerate-errors", "connection",
			"--fault", "sever@5s+200ms")
	}()
	// The kill comes once the updates run (seen by the server), not after a guessed time.
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		var n int
		db.QueryRow("SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'UPDATE sbtest1%'").Scan(&n)
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the updates never reached the server")
		}
	}
	if _, err := srv.Crash(ctx); err != nil {
		t.Fatal(err)
	}
	tr := <-done
	if tr.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", tr.code, tr.stderr, tr.stdout)
	}
	steps, err := results.ReadSteps(filepath.Join(out, "20261121T120000Z-sysbench-2")) // the preparation's is the first
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		if s.Step != "update-index" {
			continue
		}
		var kinds []string
		for _, f := range s.Faults {
			kinds = append(kinds, f.Kind)
		}
		if len(kinds) != 2 || kinds[0] != runner.OutageKind || kinds[1] != "sever" || s.Faults[0].Failed == 0 || s.Reconnects < 2 {
			t.Errorf("faults %+v, %d reconnections: want the outage met, then the sever, and a reconnection after each", s.Faults, s.Reconnects)
		}
		if a := s.AckCheck; a == nil || !a.Checked || a.Lost != 0 {
			t.Errorf("acknowledged writes %+v: want checked, none lost (synchronous commits)", a)
		}
		return
	}
	t.Fatal("no update-index step")
}

// TestFaultInGroups kills a managed PostgreSQL under pgbench's tpcb-like with four clients on
// two threads (--jobs 2: each thread a netblock group of two clients): every thread's clients
// reconnect and go on, and the script's invariants (balances) hold.
func TestFaultInGroups(t *testing.T) {
	out, _, d := dirs(t)
	args := append([]string{"run", "--workload", "script", "--engine", "postgres", "--builtin", "tpcb-like",
		"--clients", "4", "--jobs", "2", "--run-secs", "4", "--warmup-secs", "0", "--fault", "kill@2s",
		"--store", "none", "--quiet"}, d...)
	tr := run(t, nil, args...)
	if tr.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", tr.code, tr.stderr, tr.stdout)
	}
	dir, _, steps := readRun(t, out)
	for _, s := range steps {
		if s.Step != "run" {
			continue
		}
		if len(s.Faults) == 0 || s.Faults[0].Kind != "kill" || s.Faults[0].Failed == 0 || s.Reconnects < 2 {
			t.Fatalf("faults %+v, %d reconnections: want the kill, failures, and both threads reconnected", s.Faults, s.Reconnects)
		}
		ivs, err := results.ReadIntervals(dir)
		if err != nil {
			t.Fatal(err)
		}
		var after int64
		for _, iv := range ivs {
			if iv.Step == "run" && iv.T > s.Faults[0].AtSecs+1 {
				for _, k := range iv.Kinds {
					after += k.Ops
				}
			}
		}
		if after == 0 {
			t.Errorf("no operation after the fault's second")
		}
		return
	}
	t.Fatal("no run step")
}

// TestAckChecksAcrossWorkloads kills a managed PostgreSQL without sync on commit
// (synchronous_commit=off: a kill may lose the last acknowledged commits) under TPC-C and YCSB's
// workload d (inserts): each step's acknowledged writes are checked and counted, lost or not, and
// the run ends well, its final checks taking the tables as they are.
func TestAckChecksAcrossWorkloads(t *testing.T) {
	for _, w := range [][]string{
		{"--workload", "tpcc", "--run-secs", "4"},
		{"--workload", "ycsb", "--workload-letter", "d", "-p", "recordcount=2000", "--run-secs", "4"},
	} {
		out, _, d := dirs(t)
		args := append(append([]string{"run", "--engine", "postgres", "--sync=false", "--warmup-secs", "0",
			"--fault", "kill@2s", "--store", "none", "--quiet"}, w...), d...)
		tr := run(t, nil, args...)
		if tr.code != 0 {
			t.Fatalf("%v: exit %d\nstderr: %s\nstdout: %s", w, tr.code, tr.stderr, tr.stdout)
		}
		_, m, steps := readRun(t, out)
		for _, s := range steps {
			if s.Step != "run" {
				continue
			}
			a := s.AckCheck
			if len(s.Faults) != 1 || a == nil || !a.Checked || a.Acknowledged == 0 || a.Lost < 0 || a.Lost > a.Acknowledged {
				t.Errorf("%v: faults %+v, acknowledged writes %+v: want the kill and a count", w, s.Faults, a)
			}
		}
		if m.Targets[0].Check == "" {
			t.Errorf("%v: no invariant check recorded", w)
		}
	}
}
