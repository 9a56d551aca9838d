// Package datalock keeps two rumbench runs off one data directory: a run holds an exclusive
// lock (flock(2)) on DIR/rumbench.lock for its whole length, and the file names the holder
// (pid, host, start, run id). The kernel drops the lock when the holder dies, so a lock left by
// a killed run is taken over, and the file's old content says whose it was.
package datalock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// FileName is the lock file's name in the data directory.
const FileName = "rumbench.lock"

// ErrHeld matches (errors.Is) the error of a lock another live process holds.
var ErrHeld = errors.New("data directory in use")

type heldError struct{ msg string }

func (e *heldError) Error() string        { return e.msg }
func (e *heldError) Is(target error) bool { return target == ErrHeld }

// Lock is a held lock.
type Lock struct {
	f    *os.File
	path string
	// Stale is the holder line a dead process left in the file ("" when there was none): the
	// lock was taken over from it.
	Stale string
}

// Acquire creates dir if needed and takes its lock for the run runID, or returns an ErrHeld
// error that names the holder.
func Acquire(dir, runID string) (*Lock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("data dir %s: %w", dir, err)
	}
	path := filepath.Join(dir, FileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("data dir %s: lock: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder := readHolder(f)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &heldError{fmt.Sprintf("data dir %s is in use by another rumbench run (%s): wait for it to end, or use another --data-dir", dir, holder)}
		}
		return nil, fmt.Errorf("data dir %s: lock: %w", dir, err)
	}
	l := &Lock{f: f, path: path}
	if holder := readHolder(f); holder != unknown {
		l.Stale = holder
	}
	host, _ := os.Hostname()
	line := fmt.Sprintf("pid %d on %s since %s, run %s\n", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339), runID)
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt([]byte(line), 0)
	}
	if err != nil {
		l.Release()
		return nil, fmt.Errorf("data dir %s: lock: %w", dir, err)
	}
	return l, nil
}

// Check reports whether dir's lock is free (nil; also when dir does not exist) or the ErrHeld
// error Acquire would return. It takes nothing.
func Check(dir string) error {
	f, err := os.Open(filepath.Join(dir, FileName))
	if err != nil {
		return nil
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); errors.Is(err, syscall.EWOULDBLOCK) {
		return &heldError{fmt.Sprintf("data dir %s is in use by another rumbench run (%s): wait for it to end, or use another --data-dir", dir, readHolder(f))}
	}
	return nil
}

// Release removes the lock file and drops the lock.
func (l *Lock) Release() {
	if l == nil || l.f == nil {
		return
	}
	os.Remove(l.path)
	l.f.Close()
	l.f = nil
}

func readHolder(f *os.File) string {
	b := make([]byte, 512)
	n, _ := f.ReadAt(b, 0)
	if s := strings.TrimSpace(string(b[:n])); s != "" {
		return s
	}
	return unknown
}

const unknown = "holder unknown"
