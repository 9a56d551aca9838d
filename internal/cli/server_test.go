package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/server"
)

// These tests start private PostgreSQL and MariaDB instances (make test installs the servers).

func TestServersAllStepsTiny(t *testing.T) {
	out, data, d := dirs(t)
	args := append([]string{"run", "--engine", "postgres,mysql,myrocks", "--rows", "2000", "--writes", "500",
		"--query-secs", "0.5", "--delete-per-insert", "--cache-mb", "32", "--quiet"}, d...)
	tr := run(t, nil, args...)
	if tr.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", tr.code, tr.stderr, tr.stdout)
	}
	for _, eng := range []string{"postgres", "mysql", "myrocks"} {
		if !strings.Contains(tr.stdout, "invariants "+eng+": ok: 2100 rows, 6300 index entries") {
			t.Errorf("no invariant line for %s:\n%s", eng, tr.stdout)
		}
	}
	dir, m, steps := readRun(t, out)
	if m.Status != results.StatusOK || len(m.Targets) != 3 {
		t.Fatalf("manifest status %s, %d targets", m.Status, len(m.Targets))
	}
	for _, tg := range m.Targets {
		if tg.Engine.Version == "" || tg.Engine.Options["server_config"] != "" {
			t.Errorf("%s: version %q options %v", tg.Label, tg.Engine.Version, tg.Engine.Options)
		}
		if _, err := os.Stat(filepath.Join(dir, tg.Label+".server.log")); err != nil {
			t.Errorf("%s: server log not kept: %v", tg.Label, err)
		}
	}
	serverCPU := map[string]float64{} // µs over the run: a sub-second step may see no 10 ms tick
	for _, s := range steps {
		if s.Status != results.StatusOK || s.Server != "managed" {
			t.Errorf("%s %s: status %s server %q", s.Target, s.Step, s.Status, s.Server)
		}
		serverCPU[s.Target] += s.ServerCPUUsPerOp * float64(s.Ops)
		// Other processes' CPU, less the server tree's: measured over a step of ticks (0.5 s).
		if s.Step == "qr100" && (s.OtherCPUPct == nil || *s.OtherCPUPct < 0 || *s.OtherCPUPct > 100) {
			t.Errorf("%s qr100: other_cpu_pct %v, want a percentage", s.Target, s.OtherCPUPct)
		}
		if s.Step == "l.i1" && (s.ServerCPUUsPerOp < 0 || s.ServerRSSMB <= 0 || s.ServerPSSMB <= 0 || s.LogBytesPerOp <= 0 || s.ServerFsyncsPerOp < 0 || (s.Target != "postgres" && s.ServerFsyncsPerOp == 0)) {
			t.Errorf("%s l.i1: server cpu %g rss %g log %g fsyncs %g", s.Target, s.ServerCPUUsPerOp, s.ServerRSSMB, s.LogBytesPerOp, s.ServerFsyncsPerOp)
		}
		if s.Step == "l.i1" {
			// Counters that move within a sub-second step (PostgreSQL's statistics and InnoDB's
			// page writes lag: they only have to be present).
			want := map[string]string{"postgres": "wal_write", "mysql": "innodb_os_log_written", "myrocks": "rocksdb_bytes_written"}[s.Target]
			found := false
			for k, v := range s.ServerCounters {
				found = found || (strings.EqualFold(k, want) && (v > 0 || s.Target == "postgres"))
			}
			if !found {
				t.Errorf("%s l.i1: server counter %s missing or 0 in %v", s.Target, want, s.ServerCounters)
			}
		}
	}
	for _, eng := range []string{"postgres", "mysql", "myrocks"} {
		if serverCPU[eng] <= 0 {
			t.Errorf("%s: no server CPU measured over the run", eng)
		}
	}
	if entries, _ := os.ReadDir(data); len(entries) != 0 {
		t.Errorf("server data left behind: %v", entries)
	}
	assertNoServerProcess(t, data)
}

func TestServerConfigMatrix(t *testing.T) {
	out, data, d := dirs(t)
	cfgs := t.TempDir()
	os.WriteFile(filepath.Join(cfgs, "sync_on.cnf"), []byte("[mysqld]\ninnodb_flush_log_at_trx_commit=1\n"), 0o644)
	os.WriteFile(filepath.Join(cfgs, "sync_off.cnf"), []byte("[mysqld]\ninnodb_flush_log_at_trx_commit=2\n"), 0o644)
	args := append([]string{"run", "--engine", "mysql", "--server-config", cfgs, "--steps", "l.i0,l.i2",
		"--rows", "1000", "--writes", "500", "--quiet"}, d...)
	tr := run(t, nil, args...)
	if tr.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", tr.code, tr.stderr)
	}
	_, m, steps := readRun(t, out)
	if len(m.Targets) != 2 || m.Targets[0].Label != "mysql:sync_off.cnf" || m.Targets[1].Label != "mysql:sync_on.cnf" {
		t.Fatalf("targets %+v", m.Targets)
	}
	want := map[string]string{"mysql:sync_off.cnf": "2", "mysql:sync_on.cnf": "1"}
	for _, tg := range m.Targets {
		if got := tg.Engine.Options["server.innodb_flush_log_at_trx_commit"]; got != want[tg.Label] {
			t.Errorf("%s: innodb_flush_log_at_trx_commit %q, want %q", tg.Label, got, want[tg.Label])
		}
	}
	if len(steps) != 4 || !strings.Contains(tr.stdout, "mysql:sync_on.cnf") {
		t.Errorf("%d steps; output:\n%s", len(steps), tr.stdout)
	}
	assertNoServerProcess(t, data)
}

func TestServerErrors(t *testing.T) {
	bad := t.TempDir()
	badPG := filepath.Join(bad, "bad.conf")
	os.WriteFile(badPG, []byte("shared_buffers = lots\n"), 0o644)
	badMy := filepath.Join(bad, "bad.cnf")
	os.WriteFile(badMy, []byte("[mysqld]\nno_such_variable_here=1\n"), 0o644)
	empty := t.TempDir()
	cases := []struct {
		name string
		args []string
		code int
		want []string // substrings of stderr
	}{
		{"unreachable dsn", []string{"--engine", "postgres", "--dsn", "postgres://postgres@127.0.0.1:1/x?sslmode=disable&connect_timeout=2"},
			ExitFailure, []string{"postgres: connect:", "127.0.0.1:1"}},
		{"rejected postgres config", []string{"--engine", "postgres", "--server-config", badPG},
			ExitFailure, []string{"shared_buffers", "last lines of OUT/"}},
		{"rejected mariadb config", []string{"--engine", "mysql", "--server-config", badMy},
			ExitFailure, []string{"no_such_variable_here", "last lines of OUT/"}},
		{"missing binaries", []string{"--engine", "postgres", "--server-bin", empty},
			ExitUsage, []string{"--server-bin"}},
		{"missing config file", []string{"--engine", "postgres", "--server-config", filepath.Join(bad, "nope.conf")},
			ExitUsage, []string{"no such file or directory"}},
		{"dsn without server engine", []string{"--engine", "pebble", "--dsn", "x"},
			ExitUsage, []string{"need a server engine"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, data, d := dirs(t)
			args := append(append([]string{"run", "--steps", "l.i0", "--rows", "100", "--quiet"}, tc.args...), d...)
			tr := run(t, nil, args...)
			if tr.code != tc.code {
				t.Errorf("exit %d, want %d; stderr %q", tr.code, tc.code, tr.stderr)
			}
			for _, w := range tc.want {
				if w = strings.ReplaceAll(w, "OUT", out); !strings.Contains(tr.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, tr.stderr)
				}
			}
			// The server log a failure names is the copy in the run directory (the data
			// directory's is removed with it).
			if _, after, ok := strings.Cut(tr.stderr, "last lines of "); ok {
				log, _, _ := strings.Cut(after, ":\n")
				if _, err := os.Stat(log); err != nil || !strings.HasPrefix(log, out) {
					t.Errorf("the message names %s (%v), not the log kept under --out", log, err)
				}
			}
			if strings.Count(strings.TrimSpace(tr.stderr), "\n") > 0 && tc.code == ExitUsage {
				t.Errorf("usage error takes more than one line:\n%s", tr.stderr)
			}
			assertNoServerProcess(t, data)
		})
	}
}

// TestWrongPassword runs against a MariaDB instance started here, with a wrong password.
func TestWrongPassword(t *testing.T) {
	_, data, d := dirs(t)
	srv, err := server.Start(context.Background(), server.Config{Kind: server.MariaDB, Dir: filepath.Join(data, "srv")})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(context.Background())
	dsn := fmt.Sprintf("rumbench:wrong@tcp(127.0.0.1:%d)/rumbench", srv.Port())
	tr := run(t, nil, append([]string{"run", "--engine", "mysql", "--dsn", dsn, "--steps", "l.i0", "--quiet"}, d...)...)
	if tr.code != ExitFailure || !strings.Contains(tr.stderr, "mysql: connect:") || !strings.Contains(tr.stderr, "Access denied for user 'rumbench'") {
		t.Errorf("exit %d, stderr %q", tr.code, tr.stderr)
	}
}

// TestServerInterrupt cancels a run on a managed PostgreSQL: the results so far are written and
// the server is stopped.
func TestServerInterrupt(t *testing.T) {
	out, data, d := dirs(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// Cancel once the query step has run for a second.
		for ctx.Err() == nil {
			entries, _ := filepath.Glob(filepath.Join(out, "*", "intervals.jsonl"))
			if len(entries) == 1 {
				if b, _ := os.ReadFile(entries[0]); strings.Count(string(b), `"step":"qp100"`) >= 1 {
					cancel()
					return
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	tr := run(t, ctx, append([]string{"run", "--engine", "postgres", "--steps", "qp100", "--query-secs", "60", "--quiet"}, d...)...)
	if tr.code != ExitInterrupted {
		t.Fatalf("exit %d, stderr %q", tr.code, tr.stderr)
	}
	_, m, steps := readRun(t, out)
	if m.Status != results.StatusInterrupted || len(steps) != 1 || steps[0].QPS == 0 {
		t.Errorf("status %s, steps %+v", m.Status, steps)
	}
	assertNoServerProcess(t, data)
}

// assertNoServerProcess fails if a process whose command line mentions dir is still running.
func assertNoServerProcess(t *testing.T, dir string) {
	t.Helper()
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), dir) {
			t.Errorf("process %s still runs: %q", filepath.Dir(p), strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
}

// TestServerPSSEvery reads a managed server's PSS on the ticks --pss-every-secs apart, not only at
// the step's end (the default: reading it walks the server's page tables).
func TestServerPSSEvery(t *testing.T) {
	for _, every := range []string{"0", "0.5"} {
		out, _, d := dirs(t)
		tr := run(t, nil, append([]string{"run", "--engine", "postgres", "--steps", "qp100", "--query-secs", "3",
			"--pss-every-secs", every, "--quiet"}, d...)...)
		if tr.code != 0 {
			t.Fatalf("exit %d: %s", tr.code, tr.stderr)
		}
		dir, _, steps := readRun(t, out)
		ivs, err := results.ReadIntervals(dir)
		with := 0
		for _, iv := range ivs {
			if iv.ServerPSSMB > 0 {
				with++
			}
		}
		want := 1 // the step's last tick
		if every != "0" {
			want = len(ivs)
		}
		if err != nil || len(ivs) < 3 || with != want || steps[0].ServerPSSMB <= 0 {
			t.Errorf("--pss-every-secs %s: PSS in %d of %d intervals, want %d; step PSS %g (%v)", every, with, len(ivs), want, steps[0].ServerPSSMB, err)
		}
	}
}

// TestPostgresWALSyncTime: with track_wal_io_timing on (the user's config file), a write step
// records the time PostgreSQL spent in its WAL syncs; without it the counter is absent, not 0.
func TestPostgresWALSyncTime(t *testing.T) {
	out, _, d := dirs(t)
	conf := filepath.Join(t.TempDir(), "timing.conf")
	os.WriteFile(conf, []byte("track_wal_io_timing = on\n"), 0o644)
	for _, timing := range []bool{true, false} {
		args := append([]string{"run", "--workload", "sysbench", "--engine", "postgres", "--table-size", "2000",
			"--tests", "update-index", "--write-secs", "3", "--quiet", "--label", fmt.Sprint("timing-", timing)}, d...)
		if timing {
			args = append(args, "--server-config", conf)
		}
		if tr := run(t, nil, args...); tr.code != 0 {
			t.Fatalf("exit %d\nstderr: %s", tr.code, tr.stderr)
		}
	}
	runs, err := filepath.Glob(filepath.Join(out, "*-timing-*"))
	if err != nil || len(runs) != 2 {
		t.Fatalf("run directories %v (%v)", runs, err)
	}
	for _, dir := range runs {
		r, err := results.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range r.Steps {
			if s.Step != "update-index" {
				continue
			}
			syncs := s.ServerCounters["wal_sync"]
			us, ok := s.ServerCounters["wal_sync_time_us"]
			if !strings.HasSuffix(dir, "timing-true") {
				if ok {
					t.Errorf("without track_wal_io_timing: wal_sync_time_us = %d, want no such counter", us)
				}
				continue
			}
			// A sync on this machine's disk takes from microseconds to milliseconds.
			if syncs <= 0 || !ok || us <= 0 || us/syncs > 1_000_000 {
				t.Errorf("with track_wal_io_timing: %d syncs, %d µs (present %v) in %v", syncs, us, ok, s.ServerCounters)
			}
		}
	}
}
