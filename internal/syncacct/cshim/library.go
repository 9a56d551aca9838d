package cshim

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// LibraryName is the shim library's file name, beside the rumbench binary after `make build`.
const LibraryName = "librumsync.so"

// LibraryEnv names an environment variable holding the path of a prebuilt librumsync.so.
const LibraryEnv = "RUMBENCH_SYNCSHIM"

// Library returns the path of the shim library, in this order: $RUMBENCH_SYNCSHIM;
// librumsync.so beside the running binary (make build puts it there); a copy compiled from
// Source with gcc ($CC) into the user cache directory (os.UserCacheDir()/rumbench, or the temp
// directory), named by the source's hash so that an old build is never used. The error says
// what to install when none can be had.
func Library() (string, error) {
	if p := os.Getenv(LibraryEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("syncacct: $%s: %w", LibraryEnv, err)
		}
		return p, nil
	}
	if exe, err := os.Executable(); err == nil {
		if exe, err = filepath.EvalSymlinks(exe); err == nil {
			if p := filepath.Join(filepath.Dir(exe), LibraryName); fileExists(p) {
				return p, nil
			}
		}
	}
	return compiled()
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// compiled returns the cached build of Source, compiling it first if needed.
func compiled() (string, error) {
	sum := sha256.Sum256(Source)
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	dir = filepath.Join(dir, "rumbench")
	path := filepath.Join(dir, "librumsync-"+hex.EncodeToString(sum[:6])+".so")
	if fileExists(path) {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("syncacct: cache directory for %s: %w", LibraryName, err)
	}
	if err := Build(path); err != nil {
		return "", err
	}
	return path, nil
}

// Build compiles Source into the shared library out (gcc, or $CC).
func Build(out string) error {
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "gcc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		return fmt.Errorf("syncacct: %s not found and no C compiler (%s) to build it: run `make build` (it puts %s beside the binary) or install gcc", LibraryName, cc, LibraryName)
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".librumsync-*.so")
	if err != nil {
		return fmt.Errorf("syncacct: %w", err)
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	cmd := exec.Command(cc, "-O2", "-shared", "-fPIC", "-DRUMSYNC_PRELOAD", "-o", tmp.Name(), "-x", "c", "-", "-ldl")
	cmd.Stdin = strings.NewReader(string(Source))
	if msg, err := cmd.CombinedOutput(); err != nil {
		return errors.Join(fmt.Errorf("syncacct: compiling %s with %s failed: %w", LibraryName, cc, err), errors.New(strings.TrimSpace(string(msg))))
	}
	if err := os.Chmod(tmp.Name(), 0o755); err != nil {
		return fmt.Errorf("syncacct: %w", err)
	}
	return os.Rename(tmp.Name(), out)
}
