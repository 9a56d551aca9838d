package cshim

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/rumbench/rumbench/internal/syncacct"
)

// Preload is the accounting of a server: a private directory (readable by the server's OS user)
// holding a copy of the library and the counter file the server processes map.
type Preload struct {
	dir   string
	mem   []byte
	block *syncacct.Block
	env   []string
}

// NewPreload prepares the accounting of a server whose files are under root (its data
// directory; it need not exist yet, its parent must), classified by p, with latency slept in
// every sync call. Pass Env to the server; Close after the server has stopped.
func NewPreload(root string, p syncacct.Patterns, latency time.Duration) (*Preload, error) {
	lib, err := Library()
	if err != nil {
		return nil, err
	}
	parent, err := canonical(filepath.Dir(root))
	if err != nil {
		return nil, fmt.Errorf("syncacct: %w", err)
	}
	root = filepath.Join(parent, filepath.Base(root))
	dir, err := os.MkdirTemp("", "rumsync-")
	if err != nil {
		return nil, fmt.Errorf("syncacct: %w", err)
	}
	pl := &Preload{dir: dir}
	if err := pl.setup(lib); err != nil {
		pl.Close()
		return nil, err
	}
	pl.env = []string{
		"LD_PRELOAD=" + filepath.Join(dir, LibraryName),
		"RUMSYNC_FILE=" + filepath.Join(dir, "counters"),
		"RUMSYNC_ROOT=" + root,
		"RUMSYNC_LOG=" + strings.Join(p.Log, ":"),
		"RUMSYNC_DATA=" + strings.Join(p.Data, ":"),
		"RUMSYNC_DELAY_NS=" + strconv.FormatInt(latency.Nanoseconds(), 10),
	}
	return pl, nil
}

func (pl *Preload) setup(lib string) error {
	// The server may run as another OS user: the directory, library and counters are opened up.
	if err := os.Chmod(pl.dir, 0o755); err != nil {
		return fmt.Errorf("syncacct: %w", err)
	}
	data, err := os.ReadFile(lib)
	if err != nil {
		return fmt.Errorf("syncacct: %w", err)
	}
	if err := os.WriteFile(filepath.Join(pl.dir, LibraryName), data, 0o755); err != nil {
		return fmt.Errorf("syncacct: %w", err)
	}
	path := filepath.Join(pl.dir, "counters")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_EXCL, 0o666)
	if err != nil {
		return fmt.Errorf("syncacct: %w", err)
	}
	defer f.Close()
	if err := f.Chmod(0o666); err != nil { // past the umask
		return fmt.Errorf("syncacct: %w", err)
	}
	const size = 4096
	if err := f.Truncate(size); err != nil {
		return fmt.Errorf("syncacct: %w", err)
	}
	pl.mem, err = syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return fmt.Errorf("syncacct: mapping the counter file: %w", err)
	}
	words := unsafe.Slice((*uint64)(unsafe.Pointer(&pl.mem[0])), size/8)
	pl.block, err = syncacct.BlockOf(words)
	return err
}

// Env returns the environment variables that load and configure the library in a server.
func (pl *Preload) Env() []string { return pl.env }

// Read fills s with the cumulative counters of every server process.
func (pl *Preload) Read(s *syncacct.Sample) { pl.block.Read(s) }

// Close unmaps the counters and removes the directory. Call it after the server stopped.
func (pl *Preload) Close() error {
	if pl.mem != nil {
		syscall.Munmap(pl.mem)
		pl.mem = nil
	}
	return os.RemoveAll(pl.dir)
}
