package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// FerretDB instance: the rumbench-ferretdb helper (FerretDB v1 embedded, built from
// tools/ferretdb in a Go module of its own) runs as the current user with its SQLite files in
// Dir/data. It needs no initialization program and no setup client: once it listens it writes
// Dir/ready with its pid, its address and its version, which is what readiness waits for.
// Settings become the helper's flags (-name=value: handler, postgresql-url, log-level).

// FerretDBHelper is the file name of the FerretDB helper program.
const FerretDBHelper = "rumbench-ferretdb"

// FerretDBEnv is the environment variable that names the helper program's path; it wins over
// the search beside the rumbench binary and in PATH (tests and `make test` set it).
const FerretDBEnv = "RUMBENCH_FERRETDB"

// findFerretDB finds the helper: in binDir when given, else at $RUMBENCH_FERRETDB, beside the
// running executable, then in PATH.
func findFerretDB(binDir string, r searchRoots) (binaries, error) {
	var tried []string
	found := func(p string) (binaries, error) {
		return binaries{server: p, baseDir: filepath.Dir(p)}, nil
	}
	if binDir != "" {
		abs, err := filepath.Abs(binDir)
		if err != nil {
			return binaries{}, err
		}
		if p := lookIn([]string{abs}, FerretDBHelper); p != "" {
			return found(p)
		}
		return binaries{}, &notFoundError{fmt.Sprintf("ferretdb server binaries not found in %s (missing %s): install %s or pass the directory that holds %s with --server-bin",
			abs, FerretDBHelper, packageName(FerretDB), FerretDBHelper)}
	}
	if p := os.Getenv(FerretDBEnv); p != "" {
		if isExecutable(p) {
			abs, err := filepath.Abs(p)
			if err != nil {
				return binaries{}, err
			}
			return found(abs)
		}
		return binaries{}, &notFoundError{fmt.Sprintf("ferretdb helper: %s=%s is not an executable file", FerretDBEnv, p)}
	}
	if exe, err := os.Executable(); err == nil {
		dir := filepath.Dir(exe)
		tried = append(tried, dir)
		if p := lookIn([]string{dir}, FerretDBHelper); p != "" {
			return found(p)
		}
	}
	if p := lookIn(r.path, FerretDBHelper); p != "" {
		return found(p)
	}
	tried = append(tried, r.describe)
	return binaries{}, &notFoundError{fmt.Sprintf("ferretdb helper %s not found (looked beside rumbench in %s and in PATH): build it with `make ferretdb` (bin/%s), set %s to its path or pass its directory with --server-bin; or give --dsn mongodb://... for a server you run",
		FerretDBHelper, strings.Join(tried[:len(tried)-1], ", "), FerretDBHelper, FerretDBEnv)}
}

// isExecutable reports whether p is a regular file with an execute bit.
func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// ferretInit creates the data directory.
func (s *Server) ferretInit() error {
	if err := os.MkdirAll(s.dataDir, 0o700); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	// A ready file left by an earlier launch (a port conflict) must not be taken for this one.
	_ = os.Remove(s.readyPath())
	return nil
}

// readyPath is Dir/ready, the file the helper writes once it listens.
func (s *Server) readyPath() string { return filepath.Join(s.dir, "ready") }

// ferretArgs is the helper's command line: the address and data directory first, rumbench's
// settings as flags after them.
func (s *Server) ferretArgs() []string {
	_ = os.Remove(s.readyPath())
	args := []string{"-listen", "127.0.0.1:" + strconv.Itoa(s.port), "-dir", s.dataDir, "-ready", s.readyPath()}
	for _, st := range s.cfg.Settings {
		if st.Name == "listen" || st.Name == "dir" || st.Name == "ready" {
			continue // the instance's own: not to be moved
		}
		args = append(args, "-"+st.Name+"="+st.Value)
	}
	return args
}

// ferretReady reports whether Dir/ready names our helper process, and takes the version from it.
func (s *Server) ferretReady() bool {
	b, err := os.ReadFile(s.readyPath())
	if err != nil {
		return false
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 3 || strings.TrimSpace(lines[0]) != strconv.Itoa(s.pid) {
		return false
	}
	s.version = strings.TrimSpace(lines[2]) + " (SQLite backend)"
	for _, st := range s.cfg.Settings {
		if st.Name == "handler" && st.Value == "postgresql" {
			s.version = strings.TrimSpace(lines[2]) + " (PostgreSQL backend)"
		}
	}
	return true
}
