package server

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// asNobody runs a client program as the OS user nobody (runuser: rumbench's tests run as root)
// and returns its combined output and whether it succeeded.
func asNobody(t *testing.T, prog string, args ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command("runuser", append([]string{"-u", "nobody", "--", prog}, args...)...)
	cmd.Env = []string{"PATH=/usr/bin:/bin:/usr/sbin", "HOME=/tmp"}
	cmd.Dir = "/"
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

// requireRootRunuser skips the test unless it runs as root with runuser and a nobody user.
func requireRootRunuser(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("skipping: trying the servers as another local user needs root (runuser)")
	}
	if _, err := exec.LookPath("runuser"); err != nil {
		t.Skip("skipping: runuser is not installed")
	}
}

// TestLocalUserLockedOut starts both servers and tries them as the local user nobody: over
// TCP as the superuser and as the benchmark user with the old fixed password, and over the
// unix socket. Every attempt must fail; rumbench's own DSN must work.
func TestLocalUserLockedOut(t *testing.T) {
	requireRootRunuser(t)
	t.Run("postgres", func(t *testing.T) {
		requireKind(t, Postgres)
		t.Parallel()
		s := startServer(t, Config{Kind: Postgres, Dir: instanceDir(t)})
		psql := filepath.Join(filepath.Dir(s.bins.server), "psql") // Debian's, beside the server
		port := strconv.Itoa(s.port)
		for name, args := range map[string][]string{
			"tcp superuser": {"-w", "-h", "127.0.0.1", "-p", port, "-U", "postgres", "-d", "rumbench", "-c", "SELECT 1"},
			"socket":        {"-w", "-h", s.dir, "-p", port, "-U", "postgres", "-d", "postgres", "-c", "SELECT 1"},
		} {
			out, ok := asNobody(t, psql, args...)
			t.Logf("%s: %s", name, strings.TrimSpace(out))
			if ok {
				t.Errorf("%s: nobody connected to PostgreSQL:\n%s", name, out)
			}
		}
		checkPrivateFiles(t, s)
	})
	t.Run("mariadb", func(t *testing.T) {
		requireKind(t, MariaDB)
		t.Parallel()
		s := startServer(t, Config{Kind: MariaDB, Dir: instanceDir(t)})
		port := strconv.Itoa(s.port)
		for name, args := range map[string][]string{
			"tcp root":           {"--no-defaults", "-h", "127.0.0.1", "-P", port, "-u", "root", "-e", "SELECT 1"},
			"tcp fixed password": {"--no-defaults", "-h", "127.0.0.1", "-P", port, "-u", "rumbench", "-prumbench", "-e", "SELECT 1"},
			"socket root":        {"--no-defaults", "--protocol=socket", "--socket=" + s.socketPath(), "-u", "root", "-e", "SELECT 1"},
			"socket nobody":      {"--no-defaults", "--protocol=socket", "--socket=" + s.socketPath(), "-u", "nobody", "-e", "SELECT 1"},
		} {
			out, ok := asNobody(t, mariadbClient(t), args...)
			t.Logf("%s: %s", name, strings.TrimSpace(out))
			if ok {
				t.Errorf("%s: nobody connected to MariaDB:\n%s", name, out)
			}
		}
		checkPrivateFiles(t, s)
	})
}

// checkPrivateFiles checks that the instance directory is private and that neither the
// password nor the DSN's secret is in the server log.
func checkPrivateFiles(t *testing.T, s *Server) {
	t.Helper()
	fi, err := os.Stat(s.dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("instance directory %s: mode %v (%v), want 0700", s.dir, fi.Mode().Perm(), err)
	}
	pw, err := os.Stat(s.passwordPath())
	if err != nil || pw.Mode().Perm() != 0o600 || len(s.password) < 32 {
		t.Errorf("password file: %v (%v), password of %d characters", pw, err, len(s.password))
	}
	if !strings.Contains(s.DSN(), s.password) {
		t.Errorf("the DSN does not carry the password: %s", s.DSN())
	}
	if log, _ := os.ReadFile(s.logPath); strings.Contains(string(log), s.password) {
		t.Errorf("the server log holds the password")
	}
	if s.kind == MariaDB {
		// The init file that created the benchmark user holds its password.
		if fi, err := os.Stat(s.initFilePath()); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("init file %s: %v (%v), want mode 0600", s.initFilePath(), fi, err)
		}
	}
}

// mariadbClient is the mariadb client program the intruder uses (Debian's mariadb-client, which
// make test installs with the server); rumbench itself needs none.
func mariadbClient(t *testing.T) string {
	p, err := exec.LookPath("mariadb")
	if err != nil {
		t.Fatal("the mariadb client program is not installed (make server-deps installs it)")
	}
	return p
}
