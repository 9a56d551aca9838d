package bench

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/rumbench/rumbench/internal/results"
)

// resident returns the pages of path in the page cache (mincore over a mapping of it).
func resident(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	m, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	vec := make([]byte, (len(m)+os.Getpagesize()-1)/os.Getpagesize())
	if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Fatal(e)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// TestEvictDir writes files in a directory tree (cached: just written) and evicts them.
func TestEvictDir(t *testing.T) {
	dir := t.TempDir()
	var fs unix.Statfs_t
	if unix.Statfs(dir, &fs) == nil && fs.Type == unix.TMPFS_MAGIC {
		t.Skip("skipping: the temporary directory is on tmpfs, whose pages cannot be evicted")
	}
	paths := []string{filepath.Join(dir, "a"), filepath.Join(dir, "sub", "b")}
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	for _, p := range paths {
		if err := os.WriteFile(p, make([]byte, 4<<20), 0o644); err != nil {
			t.Fatal(err)
		}
		if n := resident(t, p); n < 512 {
			t.Skipf("skipping: a file just written has only %d pages cached", n)
		}
	}
	if err := EvictDir(dir); err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if n := resident(t, p); n > 16 {
			t.Errorf("%s: %d of 1024 pages still cached after EvictDir", p, n)
		}
	}
}

// TestReadahead sets the data disk's readahead for a run and restores it (root only).
func TestReadahead(t *testing.T) {
	dir := t.TempDir()
	path, err := readaheadPath(dir)
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	cfg := Config{DataDir: dir, ReadaheadKB: 16}
	if err := checkMemory(cfg); err != nil {
		t.Skipf("skipping: %v", err)
	}
	want := 16
	if strings.TrimSpace(string(before)) == "16" {
		want, cfg.ReadaheadKB = 32, 32
	}
	m := &results.Manifest{}
	_, undo, err := setupMemory(cfg, m)
	if err != nil {
		t.Fatal(err)
	}
	during, _ := os.ReadFile(path)
	undo()
	after, _ := os.ReadFile(path)
	if strings.TrimSpace(string(during)) != strconv.Itoa(want) || string(after) != string(before) {
		t.Errorf("readahead before %q, during %q (want %d), after %q", before, during, want, after)
	}
	if m.Memory == nil || m.Memory.ReadaheadKB != want || len(m.Notes) != 1 {
		t.Errorf("manifest memory %+v, notes %v", m.Memory, m.Notes)
	}
}
