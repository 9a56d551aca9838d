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
	"unsafe"
)

// errNotFound is WT_NOTFOUND.
var errNotFound = errors.New("wiredtiger: not found")

func wtErr(what string, r C.int) error {
	switch r {
	case 0:
		return nil
	case C.WT_NOTFOUND:
		return errNotFound
	}
	return fmt.Errorf("wiredtiger: %s: %s", what, C.GoString(C.wt_strerror(r)))
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
	{"log_syncs", C.WT_STAT_CONN_LOG_SYNC},
	{"log_flushes", C.WT_STAT_CONN_LOG_FLUSH},
	{"checkpoints", C.WT_STAT_CONN_TXN_CHECKPOINT},
}
