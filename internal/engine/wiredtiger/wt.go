//go:build wiredtiger

package wiredtiger

/*
#cgo LDFLAGS: -lwiredtiger
#include <stdlib.h>
#include <errno.h>
#include "wt.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"syscall"
	"unsafe"
)

// errNotFound is WT_NOTFOUND.
var errNotFound = errors.New("wiredtiger: not found")

// wtErr is the error of a WiredTiger call, what, that returned r (nil for 0). h, the
// connection's event handler (nil before there is one), explains r with WiredTiger's own
// message: for WT_PANIC, the failure the panic followed (a write to a full disk: "WiredTiger
// panicked: ./WiredTigerLog.0000000001: handle-write: pwrite: failed to write 10624 bytes at
// offset 21020672: no space left on device"); for another code, the last message reported
// with that code. The error wraps the code: a syscall.Errno for a POSIX error, so
// errors.Is(err, syscall.ENOSPC) holds.
func wtErr(h *C.wt_handler, what string, r C.int) error {
	switch r {
	case 0:
		return nil
	case C.WT_NOTFOUND:
		return errNotFound
	}
	if h != nil {
		which, panicked := C.int(1), ""
		if r == C.WT_PANIC {
			which, panicked = 0, "WiredTiger panicked: "
		}
		var buf [1024]C.char
		if code := C.wt_handler_error(h, which, &buf[0], C.size_t(len(buf))); code != 0 && (r == C.WT_PANIC || code == r) {
			return fmt.Errorf("wiredtiger: %s: %s%s: %w", what, panicked, message(C.GoString(&buf[0]), code), codeErr(code))
		}
	}
	return fmt.Errorf("wiredtiger: %s: %w", what, codeErr(r))
}

// errCode is a WiredTiger error code that is not an errno (WT_PANIC, WT_ROLLBACK, ...).
type errCode C.int

func (e errCode) Error() string { return C.GoString(C.wt_strerror(C.int(e))) }

// codeErr is the error of code r: a syscall.Errno for a POSIX error, an errCode otherwise.
func codeErr(r C.int) error {
	if r > 0 {
		return syscall.Errno(r)
	}
	return errCode(r)
}

// msgHead is what precedes the text of WiredTiger's error message: a time stamp, the process
// and thread, the handle and the session, the function and the line ("[1795673055:35030]
// [10083:0x7f9146ffd6c0], WT_SESSION.commit_transaction: __posix_file_write, 540: ").
var msgHead = regexp.MustCompile(`^(\[[^\]]*\])+, .*?\w+, \d+: `)

// message is the text of WiredTiger's error message msg of code: without its head, paths
// without "/./", and without the code's description at its end (the error that wraps the code
// says it).
func message(msg string, code C.int) string {
	msg = strings.ReplaceAll(msgHead.ReplaceAllString(msg, ""), "/./", "/")
	return strings.TrimSuffix(msg, ": "+C.GoString(C.wt_strerror(code)))
}

// ptr returns the address of b's first byte, or nil for an empty b (WiredTiger reads kn/vn
// bytes only).
func ptr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(&b[0])
}

// bytesAt is the n bytes at p, in WiredTiger's memory: valid until the cursor moves.
func bytesAt(p unsafe.Pointer, n C.size_t) []byte {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(p), int(n))
}

func version() string { return C.GoString(C.wt_version()) }

// Statistics keys of the connection read per step.
var statKeys = []struct {
	name string
	key  C.int
}{
	{"cache_bytes_read_into", C.WT_STAT_CONN_CACHE_BYTES_READ},
	{"cache_bytes_written_from", C.WT_STAT_CONN_CACHE_BYTES_WRITE},
	{"log_bytes_written", C.WT_STAT_CONN_LOG_BYTES_WRITTEN},
	// What the block manager wrote to the table files, in bytes ("block-manager: bytes
	// written"), and the part a checkpoint wrote ("block-manager: bytes written for
	// checkpoint"): with log_bytes_written, what WiredTiger wrote to its files.
	{"block_bytes_written", C.WT_STAT_CONN_BLOCK_BYTE_WRITE},
	{"block_bytes_written_checkpoint", C.WT_STAT_CONN_BLOCK_BYTE_WRITE_CHECKPOINT},
	{"log_syncs", C.WT_STAT_CONN_LOG_SYNC},
	{"log_flushes", C.WT_STAT_CONN_LOG_FLUSH},
	{"checkpoints", C.WT_STAT_CONN_TXN_CHECKPOINT},
	// Cache pressure: pages the application threads (rumbench's sessions) evicted themselves
	// because the cache was full or too dirty for the eviction threads to keep up ("cache:
	// pages evicted by application threads"), the time they spent evicting ("thread-yield:
	// application thread time evicting (usecs)") and the time they spent in the cache-full
	// path, evicting or waiting ("thread-yield: application thread time waiting for cache
	// (usecs)", which includes the former).
	{CounterAppEvictPages, C.WT_STAT_CONN_CACHE_EVICTION_APP},
	{CounterAppEvictUs, C.WT_STAT_CONN_APPLICATION_EVICT_TIME},
	{CounterAppCacheWaitUs, C.WT_STAT_CONN_APPLICATION_CACHE_TIME},
	{"force_evict_dirty_us", C.WT_STAT_CONN_CACHE_EVICTION_FORCE_DIRTY_TIME},
	{"force_evict_clean_us", C.WT_STAT_CONN_CACHE_EVICTION_FORCE_CLEAN_TIME},
	{"force_evict_fail_us", C.WT_STAT_CONN_CACHE_EVICTION_FORCE_FAIL_TIME},
	{"force_evict_pages", C.WT_STAT_CONN_CACHE_EVICTION_FORCE},
	{"app_read_pages", C.WT_STAT_CONN_CACHE_READ_APP_COUNT},
	{"app_read_us", C.WT_STAT_CONN_CACHE_READ_APP_TIME},
	{"app_write_us", C.WT_STAT_CONN_CACHE_WRITE_APP_TIME},
	{"timed_out_ops", C.WT_STAT_CONN_CACHE_TIMED_OUT_OPS},
	// Transactions WiredTiger rolled back for want of cache room ("transaction: transaction
	// failures due to cache overflow").
	{counterTxnFailCache, C.WT_STAT_CONN_TXN_FAIL_CACHE},
	{"max_bytes_now", C.WT_STAT_CONN_CACHE_BYTES_MAX},
	// Levels at the step's end (table.LevelSuffix): the bytes in the cache ("cache: bytes
	// currently in the cache") and the dirty bytes ("cache: tracked dirty bytes in the cache").
	{CounterCacheBytes, C.WT_STAT_CONN_CACHE_BYTES_INUSE},
	{CounterCacheDirtyBytes, C.WT_STAT_CONN_CACHE_BYTES_DIRTY},
}
