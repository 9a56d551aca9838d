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
	if !strings.HasPrefix(s.Version(), "FerretDB v1.") || !strings.HasSuffix(s.Version(), "(SQLite backend)") {
		t.Errorf("Version() = %q, want FerretDB v1.x (SQLite backend)", s.Version())
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
	if err := (&Config{Kind: FerretDB, Dir: "x", ConfigFile: "y"}).validate(); err == nil {
		t.Errorf("a FerretDB config file was accepted")
	}
}
