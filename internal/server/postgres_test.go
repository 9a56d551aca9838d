package server

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

func TestPostgresLifecycle(t *testing.T) {
	requireKind(t, Postgres)
	t.Parallel()
	conf := writeConf(t, "pg.conf", "# the user's file\nwork_mem = '16MB'\n")
	pick, busy := busyPortFirst(t)
	s := startServer(t, Config{
		Kind: Postgres, Dir: instanceDir(t), ConfigFile: conf,
		Settings: []Setting{{"shared_buffers", "32MB"}, {"work_mem", "8MB"}, {"search_path", `"$user", public, 'x'`}},
		pickPort: pick,
	})
	checkRetried(t, s, busy)
	if !strings.HasPrefix(s.Version(), "PostgreSQL ") || s.Kind() != Postgres {
		t.Errorf("Version %q, Kind %q", s.Version(), s.Kind())
	}
	db, err := sql.Open("pgx", s.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for name, want := range map[string]string{
		"shared_buffers":   "32MB", // a Setting
		"work_mem":         "16MB", // a Setting the user's file overrides
		"listen_addresses": "127.0.0.1",
		"search_path":      `"$user", public, 'x'`, // quoted in postgresql.conf
	} {
		var got string
		if err := db.QueryRowContext(ctx, "SHOW "+name).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("SHOW %s = %q, want %q", name, got, want)
		}
	}
	var dbname string
	if err := db.QueryRowContext(ctx, "SELECT current_database()").Scan(&dbname); err != nil || dbname != "rumbench" {
		t.Fatalf("current_database() = %q, %v", dbname, err)
	}

	// Some work in a backend, so that the tree burns CPU; then close the connection: the
	// postmaster reaps the backend and its CPU must stay in the total (cutime/cstime).
	if _, err := db.ExecContext(ctx, `CREATE TABLE t AS SELECT g AS id, md5(g::text) AS v FROM generate_series(1, 200000) g`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(DISTINCT v) FROM t").Scan(&n); err != nil || n != 200000 {
		t.Fatalf("count = %d, %v", n, err)
	}
	before, err := s.Stats(true)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("with a session: %+v", before)
	if before.Pids < 3 || before.CPUTicks == 0 || before.RSSBytes <= 0 || before.PSSBytes <= 0 || before.PSSBytes >= before.RSSBytes {
		t.Errorf("Stats = %+v: want Pids >= 3 (postmaster, auxiliaries, a backend), CPU > 0, 0 < PSS < RSS", before)
	}
	db.Close()
	after := waitPids(t, s, before.Pids)
	t.Logf("session closed: %+v", after)
	if after.CPUTicks < before.CPUTicks {
		t.Errorf("CPU ticks fell from %d to %d when the backend exited: reaped children are not counted", before.CPUTicks, after.CPUTicks)
	}
	// The user-mode part: some (the backend's count), at most the whole, never falling.
	if before.UserTicks == 0 || before.UserTicks > before.CPUTicks || after.UserTicks < before.UserTicks || after.UserTicks > after.CPUTicks {
		t.Errorf("user ticks %d of %d, then %d of %d: want 0 < user <= CPU, never falling", before.UserTicks, before.CPUTicks, after.UserTicks, after.CPUTicks)
	}
	stopAndCheck(t, s)
}

// waitPids waits until the tree has fewer than n processes.
func waitPids(t *testing.T, s *Server, n int) TreeStats {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := s.Stats(true)
		if err != nil {
			t.Fatal(err)
		}
		if st.Pids < n {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tree still has %d processes, want fewer than %d", st.Pids, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestPostgresBadConfig(t *testing.T) {
	requireKind(t, Postgres)
	t.Parallel()
	for _, tc := range []struct {
		name, conf string
		settings   []Setting
		want       string
	}{
		{"bad value in file", "shared_buffers = lots\n", nil, `invalid value for parameter "shared_buffers": "lots"`},
		{"unknown parameter in file", "no_such_parameter = 1\n", nil, `unrecognized configuration parameter "no_such_parameter"`},
		{"bad setting", "", []Setting{{"max_connections", "many"}}, `"max_connections"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := Config{Kind: Postgres, Dir: instanceDir(t), Settings: tc.settings}
			if tc.conf != "" {
				cfg.ConfigFile = writeConf(t, "bad.conf", tc.conf)
			}
			err := startFailure(t, cfg)
			var se *StartError
			if !errors.As(err, &se) || se.Step != "start" || se.LogTail == "" {
				t.Fatalf("want a *StartError at step start with a log tail, got %#v", err)
			}
			first := strings.SplitN(err.Error(), "\n", 2)[0]
			if !strings.Contains(first, tc.want) {
				t.Errorf("first line of the error does not name the cause %s:\n%s", tc.want, first)
			}
		})
	}
}

func TestPostgresStartTimeout(t *testing.T) {
	requireKind(t, Postgres)
	t.Parallel()
	err := startFailure(t, Config{Kind: Postgres, Dir: instanceDir(t), StartTimeout: 200 * time.Millisecond})
	var se *StartError
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &se) || se.Step != "initdb" ||
		!strings.Contains(err.Error(), "postgres did not start: timed out after 200ms, during initdb") {
		t.Fatalf("want a start timeout error, got %v", err)
	}
}

// A server that dies (here: its postmaster killed) must still leave nothing behind: Stop
// reports the death and kills the orphaned backends through the process group.
func TestPostgresKilled(t *testing.T) {
	requireKind(t, Postgres)
	t.Parallel()
	// A comma and a double quote in the directory: unix_socket_directories is a list, and libpq
	// reads a comma in a socket directory as a list of hosts.
	s := startServer(t, Config{Kind: Postgres, Dir: instanceDir(t) + `,x"y`})
	db, err := sql.Open("pgx", s.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(s.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := s.Stats(true); errors.Is(err, ErrNotRunning) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Stats does not see that the postmaster is gone")
		}
	}
	err = s.Stop(context.Background())
	if err == nil || !strings.Contains(err.Error(), "had exited before Stop (signal: killed)") {
		t.Fatalf("Stop after the server died: got %v", err)
	}
	if left := leftovers(s.Dir(), s.Pid()); len(left) > 0 {
		t.Fatalf("processes left: %v", left)
	}
	if err2 := s.Stop(context.Background()); err2 == nil || err2.Error() != err.Error() {
		t.Errorf("second Stop returned %v, want the first result", err2)
	}
}

// TestUnknownSettingLeftOut: a setting of rumbench's that the release does not know is left out
// (LeftOut), and the server starts without it.
func TestUnknownSettingLeftOut(t *testing.T) {
	requireKind(t, Postgres)
	s := startServer(t, Config{Kind: Postgres, Dir: instanceDir(t),
		Settings: []Setting{{Name: "work_mem", Value: "8MB"}, {Name: "no_such_rumbench_setting", Value: "1"}}})
	if got := s.LeftOut(); len(got) != 1 || got[0] != "no_such_rumbench_setting" {
		t.Errorf("LeftOut() = %v, want [no_such_rumbench_setting]", got)
	}
	conf, _ := os.ReadFile(s.configPath())
	if !strings.Contains(string(conf), "work_mem = '8MB'") || strings.Contains(string(conf), "no_such_rumbench_setting") {
		t.Errorf("postgresql.conf: want work_mem and not the unknown setting:\n%s", conf)
	}
}

// TestBinaryVersion reads the versions servers print.
func TestBinaryVersion(t *testing.T) {
	for out, want := range map[string]string{
		"postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)\n":                                "15.18",
		"postgres (PostgreSQL) 17.2\n":                                                          "17.2",
		"mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)\n": "10.11.19",
	} {
		kind := Postgres
		if strings.HasPrefix(out, "mariadbd") {
			kind = MariaDB
		}
		if got := parseVersion(kind, []byte(out)); got != want {
			t.Errorf("parseVersion(%q) = %q, want %q", out, got, want)
		}
	}
	requireKind(t, Postgres)
	v, err := BinaryVersion(context.Background(), Postgres, "")
	if err != nil || v == "" || v[0] < '1' || v[0] > '9' {
		t.Errorf("BinaryVersion of the discovered postgres: %q, %v", v, err)
	}
}
