// Package ferrettest gives tests the FerretDB helper program (rumbench-ferretdb) that the managed
// mongo server runs: the one named by $RUMBENCH_FERRETDB (set by `make test` to bin/), or else
// one built from the source tree's tools/ferretdb module with the go command into the user's
// cache directory, once per test process.
package ferrettest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// helperName and envName are server.FerretDBHelper and server.FerretDBEnv (this package must
// not import server: the server package's own tests use it).
const (
	helperName = "rumbench-ferretdb"
	envName    = "RUMBENCH_FERRETDB"
)

var (
	once sync.Once
	path string
	err  error
)

// Ensure makes sure $RUMBENCH_FERRETDB names a built helper, building it when it does not, and
// returns its path. The build takes about a minute without a warm Go build cache.
func Ensure() (string, error) {
	once.Do(func() {
		if p := os.Getenv(envName); p != "" {
			if _, err = os.Stat(p); err == nil {
				path = p
				return
			}
		}
		dir, cerr := os.UserCacheDir()
		if cerr != nil {
			dir = os.TempDir()
		}
		dir = filepath.Join(dir, "rumbench")
		if err = os.MkdirAll(dir, 0o755); err != nil {
			return
		}
		out := filepath.Join(dir, helperName)
		// The go command rebuilds only what changed, so a stale copy is replaced cheaply. The
		// build goes to a file of this process's own, renamed into place: test processes of
		// other packages may be running the previous copy at the same time.
		tmp := fmt.Sprintf("%s.%d", out, os.Getpid())
		if err = Build(".", tmp); err != nil {
			return
		}
		if err = os.Rename(tmp, out); err != nil {
			return
		}
		path = out
		err = os.Setenv(envName, out)
	})
	return path, err
}

// Helper is Ensure for a test: it fails tb when the helper can neither be found nor built.
func Helper(tb testing.TB) string {
	tb.Helper()
	p, err := Ensure()
	if err != nil {
		tb.Fatalf("ferretdb helper: %v", err)
	}
	return p
}

// Build builds the helper from the tools/ferretdb module of the source tree that holds srcDir
// (srcDir or one of its parents) into out, with the go command in PATH, as `make build` does.
// The error carries the go command's output.
func Build(srcDir, out string) error {
	dir, err := filepath.Abs(srcDir)
	if err != nil {
		return err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "tools", "ferretdb", "go.mod")); err == nil {
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			return fmt.Errorf("no tools/ferretdb/go.mod in %s or its parents", srcDir)
		}
		dir = up
	}
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = filepath.Join(dir, "tools", "ferretdb")
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building %s in %s: %v\n%s", helperName, cmd.Dir, err, b)
	}
	return nil
}
