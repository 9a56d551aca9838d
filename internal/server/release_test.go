package server

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeBin writes a directory with postgres (the shell script given) and initdb programs, and
// returns it and a file the programs' children write their pid into.
func fakeBin(t *testing.T, script string) (dir, pids string) {
	t.Helper()
	dir = t.TempDir()
	pids = filepath.Join(dir, "pids")
	body := "#!/bin/sh\n" + strings.ReplaceAll(script, "PIDS", pids)
	for _, p := range []string{"postgres", "initdb"} {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir, pids
}

// gone says whether the processes whose pids are in file have all exited (a zombie has: its
// parent, init here, has yet to reap it).
func gone(t *testing.T, file string) bool {
	t.Helper()
	data, _ := os.ReadFile(file)
	for _, pid := range strings.Fields(string(data)) {
		for i := 0; ; i++ { // a killed process takes a moment to die
			stat, err := os.ReadFile("/proc/" + pid + "/stat")
			if err != nil {
				break
			}
			if _, after, ok := strings.Cut(string(stat), ") "); ok && strings.HasPrefix(after, "Z") {
				break
			}
			if i == 50 {
				return false
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return true
}

// TestVersionBounded: a server program's --version is bounded. One that prints its version and
// leaves a child holding its output open answers (the output is read until it exits, and a
// moment after); one that never answers is stopped at the time limit, ErrNoAnswer; one asked
// under a context that ends (an interrupt) is stopped with the context's error. Nothing they
// started is left running.
func TestVersionBounded(t *testing.T) {
	dir, pids := fakeBin(t, "echo 'postgres (PostgreSQL) 99.1'\nsleep 600 &\necho $! >> PIDS\n")
	if v, err := BinaryVersion(context.Background(), Postgres, dir); err != nil || v != "99.1" {
		t.Errorf("a child holding stdout: version %q, %v; want 99.1", v, err)
	}
	if !gone(t, pids) {
		t.Error("the child the program left is still running")
	}

	dir, pids = fakeBin(t, "sleep 600 &\necho $! >> PIDS\necho $$ >> PIDS\nwait\n")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	if _, err := BinaryVersion(ctx, Postgres, dir); !errors.Is(err, context.Canceled) {
		t.Errorf("interrupted: %v, want context.Canceled", err)
	}
	if !gone(t, pids) {
		t.Error("the interrupted program or its child is still running")
	}
	_, err := BinaryVersion(context.Background(), Postgres, dir)
	if !errors.Is(err, ErrNoAnswer) || !strings.Contains(err.Error(), "postgres --version: no answer within 10s (stopped)") {
		t.Errorf("a program that never answers: %v, want ErrNoAnswer", err)
	}
	if !gone(t, pids) {
		t.Error("the program that never answered, or its child, is still running")
	}
}
