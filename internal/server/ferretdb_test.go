package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/server/ferrettest"
)

// TestFerretDBLifecycle starts the FerretDB helper on a port that is taken at first (the start
// moves to another), checks what the instance reports, and stops it leaving nothing behind.
func TestFerretDBLifecycle(t *testing.T) {
	ferrettest.Helper(t)
	t.Parallel()
	pick, busy := busyPortFirst(t)
	s := startServer(t, Config{Kind: FerretDB, Dir: instanceDir(t), pickPort: pick})
	checkRetried(t, s, busy)
	if !strings.HasPrefix(s.Version(), "FerretDB v1.") || !strings.HasSuffix(s.Version(), " over SQLite") || s.Backend() != nil {
		t.Errorf("Version() = %q, Backend() = %v, want FerretDB v1.x over SQLite and no backend instance", s.Version(), s.Backend())
	}
	if want := fmt.Sprintf("mongodb://127.0.0.1:%d/?directConnection=true", s.Port()); s.DSN() != want {
		t.Errorf("DSN() = %q, want %q", s.DSN(), want)
	}
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", s.Port()), time.Second)
	if err != nil {
		t.Fatalf("the server does not accept connections: %v", err)
	}
	c.Close()
	st, err := s.Stats(true)
	if err != nil {
		t.Fatal(err)
	}
	if st.Pids != 1 || st.RSSBytes <= 0 || st.PSSBytes <= 0 {
		t.Errorf("Stats = %+v, want one process with RSS and PSS", st)
	}
	if fi, err := os.Stat(s.DataDir()); err != nil || !fi.IsDir() {
		t.Errorf("data directory %s: %v", s.DataDir(), err)
	}
	stopAndCheck(t, s)
}

// TestFerretDBPostgreSQL starts the helper over its private PostgreSQL backend and checks that
// the instance reports both (version, process tree), that stopping it stops both and keeps the
// backend's log in the server log, and that a helper that fails to start takes its backend down.
func TestFerretDBPostgreSQL(t *testing.T) {
	ferrettest.Helper(t)
	requireKind(t, Postgres)
	t.Parallel()
	s := startServer(t, Config{Kind: FerretDB, Dir: instanceDir(t), Backend: BackendPostgreSQL,
		BackendSettings: []Setting{{Name: "shared_buffers", Value: "16MB"}}})
	pg := s.Backend()
	if pg == nil || pg.Kind() != Postgres || pg.Dir() != filepath.Join(s.Dir(), "postgresql") {
		t.Fatalf("Backend() = %+v, want a postgres instance in %s/postgresql", pg, s.Dir())
	}
	if !strings.HasPrefix(s.Version(), "FerretDB v1.") || !strings.Contains(s.Version(), " over PostgreSQL 1") {
		t.Errorf("Version() = %q, want FerretDB v1.x over PostgreSQL", s.Version())
	}
	// The helper connects to PostgreSQL when a client sends its first command; a TCP
	// connection is enough to see that it listens.
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", s.Port()), time.Second)
	if err != nil {
		t.Fatalf("the server does not accept connections: %v", err)
	}
	c.Close()
	st, err := s.Stats(true)
	if err != nil {
		t.Fatal(err)
	}
	pst, err := pg.Stats(false)
	if err != nil {
		t.Fatal(err)
	}
	// The helper and the postmaster with its auxiliary processes (checkpointer, WAL writer...).
	if pst.Pids < 2 || st.Pids != pst.Pids+1 || st.RSSBytes <= pst.RSSBytes || st.PSSBytes <= 0 {
		t.Errorf("Stats = %+v with the backend's %+v, want the helper's process on top of the backend's", st, pst)
	}
	if cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", s.Pid())); err != nil || strings.Contains(string(cmd), pg.Password()) {
		t.Errorf("the helper's command line holds the backend's password (or cannot be read: %v)", err)
	}
	stopAndCheck(t, s)
	if left := leftovers(pg.Dir(), pg.Pid()); len(left) > 0 {
		t.Fatalf("backend processes left after Stop: %v", left)
	}
	log, err := os.ReadFile(s.LogPath())
	if err != nil || !strings.Contains(string(log), "the PostgreSQL backend's log") || !strings.Contains(string(log), "database system is shut down") {
		t.Errorf("the server log lacks the backend's log (%v):\n%s", err, log)
	}

	// A helper that exits at start (a bad flag value) leaves no backend behind.
	err = startFailure(t, Config{Kind: FerretDB, Dir: instanceDir(t), Backend: BackendPostgreSQL,
		Settings: []Setting{{Name: "log-level", Value: "bogus"}}})
	var se *StartError
	if !errors.As(err, &se) || se.Step != "start" {
		t.Errorf("Start with a bad helper flag = %v, want a StartError in step start", err)
	}
}

// TestFerretDBKilled checks that an interrupted stop (a done context) kills the helper at once,
// and that a helper that died is reported by Stop with its log.
func TestFerretDBKilled(t *testing.T) {
	ferrettest.Helper(t)
	t.Parallel()
	s := startServer(t, Config{Kind: FerretDB, Dir: instanceDir(t)})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	t0 := time.Now()
	err := s.Stop(ctx)
	if err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("Stop with a done context = %v, want a killed error", err)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("interrupted Stop took %v", d)
	}
	if left := leftovers(s.Dir(), s.Pid()); len(left) > 0 {
		t.Fatalf("processes left: %v", left)
	}

	s2 := startServer(t, Config{Kind: FerretDB, Dir: instanceDir(t)})
	if err := syscall.Kill(s2.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !s2.exited() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := s2.Stop(context.Background()); err == nil || !strings.Contains(err.Error(), "had exited before Stop") {
		t.Errorf("Stop of a dead helper = %v, want 'had exited before Stop'", err)
	}
}

// TestFerretDBNotFound checks the one-line error for a missing helper and a refused config file.
func TestFerretDBNotFound(t *testing.T) {
	_, err := Start(context.Background(), Config{Kind: FerretDB, Dir: instanceDir(t), BinDir: t.TempDir()})
	if !errors.Is(err, ErrBinaryNotFound) || !strings.Contains(err.Error(), "make build") {
		t.Errorf("Start without the helper = %v, want ErrBinaryNotFound naming make build", err)
	}
	t.Setenv(FerretDBEnv, filepath.Join(t.TempDir(), "missing"))
	if _, err := findBinaries(FerretDB, ""); !errors.Is(err, ErrBinaryNotFound) {
		t.Errorf("with %s naming a missing file: %v, want ErrBinaryNotFound", FerretDBEnv, err)
	}
	for _, c := range []Config{
		{Kind: FerretDB, Dir: "x", ConfigFile: "y"},
		{Kind: FerretDB, Dir: "x", Backend: "mysql"},
		{Kind: FerretDB, Dir: "x", BackendSettings: []Setting{{Name: "fsync", Value: "off"}}},
		{Kind: Postgres, Dir: "x", Backend: BackendPostgreSQL},
	} {
		if err := c.validate(); err == nil {
			t.Errorf("config %+v was accepted", c)
		}
	}
}
