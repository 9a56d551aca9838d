package datalock

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAcquire(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := Check(dir); err != nil {
		t.Fatalf("Check of a missing dir: %v", err)
	}
	l, err := Acquire(dir, "run1")
	if err != nil || l.Stale != "" {
		t.Fatalf("Acquire: %v, stale %q", err, l.Stale)
	}
	// A second holder (another open file description: as another process) is refused, naming
	// the first.
	if _, err := Acquire(dir, "run2"); !errors.Is(err, ErrHeld) || !strings.Contains(err.Error(), "run run1") {
		t.Errorf("second Acquire: %v", err)
	}
	if err := Check(dir); !errors.Is(err, ErrHeld) {
		t.Errorf("Check while held: %v", err)
	}
	l.Release()
	if _, err := os.Stat(filepath.Join(dir, FileName)); !os.IsNotExist(err) {
		t.Errorf("the lock file is left after Release: %v", err)
	}
	if err := Check(dir); err != nil {
		t.Errorf("Check after Release: %v", err)
	}
	// A file left by a holder that died (its flock went with it) is taken over.
	os.WriteFile(filepath.Join(dir, FileName), []byte("pid 999999 on h since 2026-01-01T00:00:00Z, run dead\n"), 0o644)
	l, err = Acquire(dir, "run3")
	if err != nil || !strings.Contains(l.Stale, "run dead") {
		t.Fatalf("take-over: %v, stale %q", err, l.Stale)
	}
	l.Release()
}
