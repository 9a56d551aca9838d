// Package cshim holds the sync shim's C source (syncshim.c) and its two uses:
//
//   - Preload: the source built as a shared library (librumsync.so) that a managed server loads
//     with LD_PRELOAD; its processes add to a counter file mapped shared.
//   - InProcess: the same source compiled into this binary by cgo, where its definitions of
//     fsync, fdatasync, write, pwrite64... take the place of libc's for the C code linked in
//     (SQLite). They pass every call through untouched until StartInProcess configures them.
//
// Go code is not affected: the Go runtime makes its system calls directly, not through libc.
package cshim

/*
#cgo LDFLAGS: -ldl
#include <stdint.h>
#include <stdlib.h>
void rumsync_setup(uint64_t *ctrs, const char *rootdir, const char *logpat, const char *datapat, long delay);
*/
import "C"

import (
	_ "embed"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/rumbench/rumbench/internal/syncacct"
)

// Source is the C source of the shim, built into librumsync.so by `make build` or by Library.
//
//go:embed syncshim.c
var Source []byte

var (
	inMu     sync.Mutex
	inActive bool
	inWords  *C.uint64_t // C memory, allocated once and never freed (wrappers may still add to it)
)

// InProcess is the in-process accounting of this binary's C code (SQLite, LMDB).
type InProcess struct {
	block *syncacct.Block
	once  sync.Once
}

// StartInProcess turns the in-process hooks on for files under root (an absolute directory,
// symlinks resolved), classified by p, with latency slept in every sync call. Only one may be
// active at a time; Stop ends it.
func StartInProcess(root string, p syncacct.Patterns, latency time.Duration) (*InProcess, error) {
	inMu.Lock()
	defer inMu.Unlock()
	if inActive {
		return nil, errors.New("syncacct: the in-process sync accounting is already in use by another engine")
	}
	root, err := canonical(root)
	if err != nil {
		return nil, err
	}
	if inWords == nil {
		inWords = (*C.uint64_t)(C.calloc(C.size_t(syncacct.Words), 8))
	}
	words := unsafe.Slice((*uint64)(unsafe.Pointer(inWords)), syncacct.Words)
	block, err := syncacct.BlockOf(words)
	if err != nil {
		return nil, err
	}
	cr, cl, cd := C.CString(root), C.CString(strings.Join(p.Log, ":")), C.CString(strings.Join(p.Data, ":"))
	defer C.free(unsafe.Pointer(cr))
	defer C.free(unsafe.Pointer(cl))
	defer C.free(unsafe.Pointer(cd))
	C.rumsync_setup(inWords, cr, cl, cd, C.long(latency.Nanoseconds()))
	inActive = true
	return &InProcess{block: block}, nil
}

// Read fills s with the cumulative counters (they keep counting across sessions: diff them).
func (ip *InProcess) Read(s *syncacct.Sample) { ip.block.Read(s) }

// SyncSample implements syncacct.Reporter: Read. An engine whose C code runs in this process
// embeds its *InProcess next to itself to report its syncs.
func (ip *InProcess) SyncSample(s *syncacct.Sample) error { ip.block.Read(s); return nil }

// SyncCoverage implements syncacct.Reporter: code compiled into this binary reaches its files
// only through libc, so every access is seen.
func (ip *InProcess) SyncCoverage() syncacct.Coverage {
	return syncacct.Coverage{Source: "inprocess", Complete: true}
}

// Stop turns the hooks off again (calls pass through). It is idempotent.
func (ip *InProcess) Stop() {
	ip.once.Do(func() {
		inMu.Lock()
		defer inMu.Unlock()
		C.rumsync_setup(nil, nil, nil, nil, 0)
		inActive = false
	})
}

// canonical returns the absolute path of dir with symlinks resolved: the form readlink of
// /proc/self/fd shows.
func canonical(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}
