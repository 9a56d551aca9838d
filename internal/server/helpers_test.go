package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// requireKind skips the test when the kind's programs are not installed on this machine.
func requireKind(t *testing.T, kind Kind) { requireKindTB(t, kind) }

// requireKindTB is requireKind for tests and benchmarks.
func requireKindTB(t testing.TB, kind Kind) {
	t.Helper()
	if _, err := findBinaries(kind, ""); err != nil {
		if errors.Is(err, ErrBinaryNotFound) {
			t.Skipf("skipping: %v", err)
		}
		t.Fatal(err)
	}
}

// instanceDir returns a not-yet-existing instance directory under t.TempDir(). The per-test
// directory the testing package creates is mode 0700; the service users (postgres, mysql)
// must traverse it, so it is opened to 0755.
func instanceDir(t *testing.T) string { return instanceDirTB(t) }

// instanceDirTB is instanceDir for tests and benchmarks.
func instanceDirTB(t testing.TB) string {
	t.Helper()
	base := t.TempDir()
	for _, d := range []string{filepath.Dir(base), base} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(base, "inst")
}

// writeConf writes a user configuration file outside the instance directory.
func writeConf(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// startServer starts an instance and registers a Stop for the end of the test.
func startServer(t *testing.T, cfg Config) *Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	t0 := time.Now()
	s, err := Start(ctx, cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Logf("%s %s started in %v on port %d (pid %d)", cfg.Kind, s.Version(), time.Since(t0).Round(time.Millisecond), s.Port(), s.Pid())
	t.Cleanup(func() { _ = s.Stop(context.Background()) })
	return s
}

// stopAndCheck stops s and verifies that nothing of it is left: no process of its group or
// tree, the port closed, Stats failing, a second Stop harmless, the log kept.
func stopAndCheck(t *testing.T, s *Server) {
	t.Helper()
	t0 := time.Now()
	if err := s.Stop(context.Background()); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	t.Logf("stopped in %v", time.Since(t0).Round(time.Millisecond))
	if err := s.Stop(context.Background()); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	if left := leftovers(s.Dir(), s.Pid()); len(left) > 0 {
		t.Fatalf("processes left after Stop: %v", left)
	}
	if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", s.Port()), time.Second); err == nil {
		c.Close()
		t.Fatalf("port %d still accepts connections after Stop", s.Port())
	}
	if _, err := s.Stats(true); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("Stats after Stop: got %v, want ErrNotRunning", err)
	}
	if fi, err := os.Stat(s.LogPath()); err != nil || fi.Size() == 0 {
		t.Fatalf("server log missing or empty after Stop: %v", err)
	}
}

// leftovers lists the processes (any state but zombie) that belong to an instance: whose
// command line mentions dir, whose working directory is under dir (PostgreSQL backends
// rewrite their command line, but keep the data directory as cwd) or, when pgrp > 0, that are
// in process group pgrp.
func leftovers(dir string, pgrp int) []string {
	procs, _ := readProcs()
	var out []string
	for _, p := range procs {
		if p.state == 'Z' || p.pid == os.Getpid() {
			continue
		}
		prefix := "/proc/" + strconv.Itoa(p.pid)
		cmdline, _ := os.ReadFile(prefix + "/cmdline")
		cmd := strings.ReplaceAll(string(cmdline), "\x00", " ")
		cwd, _ := os.Readlink(prefix + "/cwd")
		if strings.Contains(cmd, dir) || strings.HasPrefix(cwd, dir) || (pgrp > 0 && p.pgrp == pgrp) {
			out = append(out, fmt.Sprintf("%d %s %q state %c ppid %d pgrp %d (cwd %s)", p.pid, p.comm, cmd, p.state, p.ppid, p.pgrp, cwd))
		}
	}
	return out
}

// startFailure runs Start, which must fail, and checks that nothing was left running.
func startFailure(t *testing.T, cfg Config) error {
	t.Helper()
	t0 := time.Now()
	s, err := Start(context.Background(), cfg)
	if err == nil {
		_ = s.Stop(context.Background())
		t.Fatalf("Start succeeded, want an error")
	}
	t.Logf("Start failed in %v with:\n%v", time.Since(t0).Round(time.Millisecond), err)
	if dir, aerr := filepath.Abs(cfg.Dir); aerr == nil {
		if left := leftovers(dir, 0); len(left) > 0 {
			t.Fatalf("processes left after a failed Start: %v", left)
		}
	}
	return err
}

// busyPortFirst returns a port source whose first port is held by a listener of the test,
// so that the first launch meets a port conflict, and the held port.
func busyPortFirst(t *testing.T) (func() (int, error), int) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	busy := l.Addr().(*net.TCPAddr).Port
	calls := 0
	return func() (int, error) {
		calls++
		if calls == 1 {
			return busy, nil
		}
		return freePort()
	}, busy
}

// checkRetried verifies that s moved off the busy port after a failed first launch.
func checkRetried(t *testing.T, s *Server, busy int) {
	t.Helper()
	log, err := os.ReadFile(s.LogPath())
	if err != nil {
		t.Fatal(err)
	}
	if s.Port() == busy || !strings.Contains(string(log), fmt.Sprintf("port %d was taken by another process; retrying", busy)) {
		t.Fatalf("no retry after a port conflict on %d (now on %d)", busy, s.Port())
	}
}
