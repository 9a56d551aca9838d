//go:build wiredtiger

package wiredtiger

/*
#include <stdlib.h>
#include <errno.h>
#include "wt.h"
*/
import "C"

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/engine/kv"
	"github.com/rumbench/rumbench/internal/syncacct"
	"github.com/rumbench/rumbench/internal/table"
)

func init() {
	engine.Register(engine.Spec{
		Name: name, Description: description, Options: options,
		// Pages in memory take 2.7 times their files (LinkBench's quick load); eviction starts at 80%.
		CachePerFileByte: 4, PerUnitBytes: perUnitBytes, Open: open,
		Check: func(extra map[string]string) error {
			_, err := parse(extra)
			return err
		},
	})
}

type config struct {
	compression    string
	checkpointSecs int64
}

func parse(extra map[string]string) (config, error) {
	var c config
	var err error
	if c.compression, err = engine.ChoiceOption(name, extra, "compression", "snappy", "none", "snappy", "zlib"); err != nil {
		return c, err
	}
	if c.checkpointSecs, err = engine.IntOption(name, extra, "checkpoint_secs", 60); err != nil {
		return c, err
	}
	if c.checkpointSecs < 0 || c.checkpointSecs > 100_000 { // WiredTiger's checkpoint wait is at most 100000
		return c, fmt.Errorf("engine %s option checkpoint_secs=%d: must be 0..100000", name, c.checkpointSecs)
	}
	return c, nil
}

// extension returns the path of a compressor's shared library (Debian installs them in the
// multiarch library directory).
func extension(compressor string) (string, error) {
	matches, _ := filepath.Glob("/usr/lib/*/libwiredtiger_" + compressor + ".so")
	if len(matches) == 0 {
		matches, _ = filepath.Glob("/usr/lib/libwiredtiger_" + compressor + ".so")
	}
	if len(matches) == 0 {
		return "", fmt.Errorf("wiredtiger: the %s compressor's library (libwiredtiger_%s.so) is not installed", compressor, compressor)
	}
	return matches[0], nil
}

// store is WiredTiger under the KV adapter: one WiredTiger table per 4-byte id (a table or an
// index of the adapter), created at its first write.
type store struct {
	conn *C.WT_CONNECTION
	// h keeps WiredTiger's error messages (instead of stderr): errors are said with them.
	h         *C.wt_handler
	sessions  chan *session
	createCfg *C.char
	dir       string
	connCfg   string // the connection's configuration, for a reopen

	mu     sync.Mutex
	tables map[uint32]*C.char // created tables: their URIs
	// open is the number of open sessions, pooled or in use; a reopen needs all of them pooled.
	open int
	// statBase holds the counters' values at the last reopen, which restarted WiredTiger's
	// statistics: counters adds them, so that the counters stay cumulative. Guarded by statMu,
	// which a reopen holds against the observer's counters.
	statMu   sync.Mutex
	statBase map[string]int64
}

// session is a WiredTiger session with a cursor per table it used. A session is used by one
// goroutine at a time (they come from the store's pool).
type session struct {
	s       *C.WT_SESSION
	cursors map[uint32]*C.WT_CURSOR
	// rec receives a record's C addresses from wt_search and wt_current. Out-parameters declared
	// in the calling function would escape to the heap (their address goes to C), once per call.
	rec record
}

// record is a cursor record as WiredTiger lends it: C memory, valid until the cursor moves.
type record struct {
	k, v   unsafe.Pointer
	kn, vn C.size_t
}

func open(ctx context.Context, o engine.Options) (table.Engine, error) {
	if err := engine.CheckExtra(name, o.Extra, options); err != nil {
		return nil, err
	}
	c, err := parse(o.Extra)
	if err != nil {
		return nil, err
	}
	cfg := fmt.Sprintf("create,cache_size=%dMB,log=(enabled=true),transaction_sync=(enabled=%t,method=fsync),statistics=(fast)",
		max(o.CacheBytes>>20, 1), o.Sync)
	if c.checkpointSecs > 0 {
		cfg += fmt.Sprintf(",checkpoint=(wait=%d)", c.checkpointSecs)
	}
	tableCfg := "key_format=u,value_format=u"
	if c.compression != "none" {
		lib, err := extension(c.compression)
		if err != nil {
			return nil, err
		}
		cfg += ",extensions=[" + lib + "]"
		tableCfg += ",block_compressor=" + c.compression
	}
	s := &store{sessions: make(chan *session, 64), tables: map[uint32]*C.char{}, createCfg: C.CString(tableCfg), dir: o.Dir,
		h: C.wt_handler_new(), connCfg: cfg}
	home, ccfg := C.CString(o.Dir), C.CString(cfg)
	defer C.free(unsafe.Pointer(home))
	defer C.free(unsafe.Pointer(ccfg))
	if err := wtErr(s.h, "open "+o.Dir, C.wt_open(home, ccfg, s.h, &s.conn)); err != nil {
		C.free(unsafe.Pointer(s.createCfg))
		C.wt_handler_free(s.h)
		return nil, err
	}
	info := table.Info{
		Name:    name,
		Version: version(),
		// The log (journal) and its preallocated and temporary files.
		LogFiles: []string{"WiredTigerLog.*", "WiredTigerPreplog.*", "WiredTigerTmplog.*"},
		Options: map[string]string{
			"cache_mb":        strconv.FormatInt(o.CacheBytes>>20, 10),
			"sync":            strconv.FormatBool(o.Sync),
			"compression":     c.compression,
			"checkpoint_secs": strconv.FormatInt(c.checkpointSecs, 10),
			"journal":         "on, synced per commit with sync on (transaction_sync, fsync)",
		},
	}
	e := &wtEngine{Engine: kv.New(s, info), s: s}
	if o.SyncAcct.Enabled {
		e.Note = "WiredTiger (a shared library) syncs and writes through libc, which the in-process hooks do not wrap for it: not counted, no latency injected"
	}
	return e, nil
}

// wtEngine is the engine with WiredTiger's statistics as engine counters.
type wtEngine struct {
	*kv.Engine
	s *store
	syncacct.Uncounted
}

// EngineCounters implements table.CounterReporter: cache bytes read into and written from the
// cache, journal bytes, syncs and flushes, checkpoints.
func (e *wtEngine) EngineCounters() map[string]int64 { return e.s.counters() }

// counters reads the connection's statistics of statKeys; nil when they cannot be read.
func (s *store) counters() map[string]int64 {
	s.statMu.Lock()
	defer s.statMu.Unlock()
	return s.countersLocked()
}

// countersLocked is counters with statMu held.
func (s *store) countersLocked() map[string]int64 {
	ss, err := s.session()
	if err != nil {
		return nil
	}
	defer s.release(ss)
	uri := C.CString("statistics:")
	defer C.free(unsafe.Pointer(uri))
	var cur *C.WT_CURSOR
	if C.wt_cursor_open(ss.s, uri, &cur) != 0 {
		return nil
	}
	defer C.wt_cursor_close(cur)
	out := make(map[string]int64, len(statKeys))
	for _, k := range statKeys {
		var v C.int64_t
		if C.wt_stat(cur, k.key, &v) == 0 {
			out[k.name] = int64(v)
			if !strings.HasSuffix(k.name, table.LevelSuffix) {
				out[k.name] += s.statBase[k.name]
			}
		}
	}
	return out
}

// session takes a session from the pool, or opens one.
func (s *store) session() (*session, error) {
	select {
	case ss := <-s.sessions:
		return ss, nil
	default:
	}
	if s.conn == nil {
		return nil, errors.New("wiredtiger: the connection is closed (its reopen failed)")
	}
	ss := &session{cursors: map[uint32]*C.WT_CURSOR{}}
	if err := wtErr(s.h, "open session", C.wt_session_open(s.conn, &ss.s)); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.open++
	s.mu.Unlock()
	return ss, nil
}

// release gives a session back to the pool (or closes it when the pool is full).
func (s *store) release(ss *session) {
	select {
	case s.sessions <- ss:
	default:
		C.wt_session_close(ss.s)
		s.mu.Lock()
		s.open--
		s.mu.Unlock()
	}
}

// cursor returns ss's cursor on table id; with create the table is created when it does not
// exist yet, without it a missing table is a nil cursor. A table of an earlier process on this
// directory is found by its file.
func (s *store) cursor(ss *session, id uint32, create bool) (*C.WT_CURSOR, error) {
	if c, ok := ss.cursors[id]; ok {
		return c, nil
	}
	s.mu.Lock()
	uri, ok := s.tables[id]
	if !ok && create {
		uri = C.CString(fmt.Sprintf("table:t%08x", id))
		if err := wtErr(s.h, "create table", C.wt_create(ss.s, uri, s.createCfg)); err != nil {
			s.mu.Unlock()
			C.free(unsafe.Pointer(uri))
			return nil, err
		}
		s.tables[id] = uri
		ok = true
	}
	if !ok {
		// A table an earlier process created (rumbench run --reuse): its file is in the home
		// directory.
		if _, err := os.Stat(filepath.Join(s.dir, fmt.Sprintf("t%08x.wt", id))); err == nil {
			uri = C.CString(fmt.Sprintf("table:t%08x", id))
			s.tables[id] = uri
			ok = true
		}
	}
	s.mu.Unlock()
	if !ok {
		return nil, nil
	}
	var c *C.WT_CURSOR
	if err := wtErr(s.h, "open cursor", C.wt_cursor_open(ss.s, uri, &c)); err != nil {
		return nil, err
	}
	ss.cursors[id] = c
	return c, nil
}

// tableID is the adapter's table or index id that starts every key.
func tableID(key []byte) (uint32, error) {
	if len(key) < 4 {
		return 0, fmt.Errorf("wiredtiger: key of %d bytes has no table id", len(key))
	}
	return binary.BigEndian.Uint32(key), nil
}

func (s *store) Get(key, dst []byte) ([]byte, bool, error) {
	id, err := tableID(key)
	if err != nil {
		return dst, false, err
	}
	ss, err := s.session()
	if err != nil {
		return dst, false, err
	}
	defer s.release(ss)
	cur, err := s.cursor(ss, id, false)
	if err != nil || cur == nil {
		return dst, false, err
	}
	r := &ss.rec
	switch err := wtErr(s.h, "search", C.wt_search(cur, ptr(key), C.size_t(len(key)), &r.v, &r.vn)); {
	case errors.Is(err, errNotFound):
		return dst, false, nil
	case err != nil:
		return dst, false, err
	}
	dst = append(dst, bytesAt(r.v, r.vn)...)
	return dst, true, wtErr(s.h, "reset", C.wt_reset(cur))
}

func (s *store) NewIter(lower, upper []byte) (kv.Iter, error) {
	id, err := tableID(lower)
	if err != nil {
		return nil, err
	}
	ss, err := s.session()
	if err != nil {
		return nil, err
	}
	cur, err := s.cursor(ss, id, false)
	if err != nil {
		s.release(ss)
		return nil, err
	}
	return &iter{s: s, ss: ss, cur: cur, upper: upper}, nil
}

// Maintain takes a checkpoint, as MongoDB's cleanup would, then closes the connection and opens
// it again: the steps after the cleanup start with an empty cache and read every page from the
// tables' files, as the LSM engines start from their compacted files with an empty block cache.
// Without the reopen the cache keeps what the write steps left in it (pages with their updates'
// lists in memory, or compact images that eviction wrote and read back, as its threads happened
// to run), and the point queries' rate moved by 1.4x between identical runs.
func (s *store) Maintain(ctx context.Context) (string, error) {
	if _, err := s.checkpoint(); err != nil {
		return "", err
	}
	if err := s.reopen(); err != nil {
		return "", err
	}
	return "checkpoint; reopen (the cache emptied)", nil
}

// reopen closes the connection and opens it again on the same directory and configuration. It
// needs every session in the pool (no iterator or batch of a step open): the cleanup runs
// between steps.
func (s *store) reopen() error {
	s.statMu.Lock()
	defer s.statMu.Unlock()
	base := s.countersLocked()
	if base == nil {
		return errors.New("wiredtiger: reopen: cannot read the statistics to carry over")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for n := len(s.sessions); n > 0; n-- {
		ss := <-s.sessions
		C.wt_session_close(ss.s)
		s.open--
	}
	if s.open != 0 {
		return fmt.Errorf("wiredtiger: reopen: %d sessions still in use", s.open)
	}
	err := wtErr(s.h, "close before the reopen", C.wt_conn_close(s.conn))
	s.conn = nil // released by the close even when it reports an error
	if err != nil {
		return err
	}
	home, cfg := C.CString(s.dir), C.CString(s.connCfg)
	defer C.free(unsafe.Pointer(home))
	defer C.free(unsafe.Pointer(cfg))
	if err := wtErr(s.h, "reopen "+s.dir, C.wt_open(home, cfg, s.h, &s.conn)); err != nil {
		return err
	}
	s.statBase = map[string]int64{}
	for k, v := range base {
		if !strings.HasSuffix(k, table.LevelSuffix) {
			s.statBase[k] = v
		}
	}
	return nil
}

// checkpoint takes a checkpoint: the cache's dirty pages written to the tables' files.
func (s *store) checkpoint() (string, error) {
	ss, err := s.session()
	if err != nil {
		return "", err
	}
	defer s.release(ss)
	if err := wtErr(s.h, "checkpoint", C.wt_checkpoint(ss.s)); err != nil {
		return "", err
	}
	return "checkpoint", nil
}

// Settle implements kv.Settler: a checkpoint, which writes the cache's dirty pages to the
// tables' files (what WiredTiger does every checkpoint_secs).
func (s *store) Settle(ctx context.Context) (table.Settled, error) {
	did, err := s.checkpoint()
	return table.Settled{Did: did, DebtBytes: -1}, err
}

// Size is the size of the tables' files (t*.wt): the data and indexes without the journal,
// whose files WiredTiger preallocates (100 MiB each).
func (s *store) Size() (int64, bool) {
	files, err := filepath.Glob(filepath.Join(s.dir, "t*.wt"))
	if err != nil {
		return 0, false
	}
	var n int64
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil {
			n += fi.Size()
		}
	}
	return n, true
}

// Close closes the connection. After a WiredTiger panic (a write to a full disk, say), which
// WiredTiger says the process must exit after, it leaves the connection open instead: a close
// then may wait for good on a thread the panic stopped. The panic's error was the failed
// call's.
func (s *store) Close() error {
	close(s.sessions)
	var err error
	if s.h != nil && C.wt_handler_panicked(s.h) != 0 {
		err = errors.New("wiredtiger: close: not closed after WiredTiger's panic (it keeps its memory until the process ends)")
	} else {
		for ss := range s.sessions {
			C.wt_session_close(ss.s)
		}
		if s.conn != nil { // nil after a failed reopen
			err = wtErr(s.h, "close", C.wt_conn_close(s.conn))
		}
		C.wt_handler_free(s.h) // after the close, which may report errors
	}
	for _, uri := range s.tables {
		C.free(unsafe.Pointer(uri))
	}
	C.free(unsafe.Pointer(s.createCfg))
	return err
}

func (s *store) NewBatch() kv.Batch { return &batch{s: s} }

// batch collects writes and applies them in one transaction at Commit.
type batch struct {
	s    *store
	ops  []op
	data []byte // the keys and values of ops, back to back
}

type op struct {
	start, k, v int // the key is data[start:k], the value data[k:v]
	del         bool
}

func (b *batch) Set(k, v []byte) error {
	start := len(b.data)
	b.data = append(append(b.data, k...), v...)
	b.ops = append(b.ops, op{start: start, k: start + len(k), v: len(b.data)})
	return nil
}

func (b *batch) Delete(k []byte) error {
	start := len(b.data)
	b.data = append(b.data, k...)
	b.ops = append(b.ops, op{start: start, k: len(b.data), v: len(b.data), del: true})
	return nil
}

// maxConflictRetries bounds the retries of a transaction WiredTiger rolled back on a write
// conflict with another session's (the adapter's row locks make them rare: index entries).
// A variable so that a test can lower it.
var maxConflictRetries = 100

func (b *batch) Commit() error {
	if len(b.ops) == 0 {
		return nil
	}
	defer func() { b.ops, b.data = b.ops[:0], b.data[:0] }()
	ss, err := b.s.session()
	if err != nil {
		return err
	}
	defer b.s.release(ss)
	var failed0 int64 // the cache-overflow failures at the first rollback
	for try := 0; ; try++ {
		r := b.apply(ss)
		if r == 0 {
			return wtErr(b.s.h, "commit", C.wt_commit(ss.s))
		}
		C.wt_rollback(ss.s)
		if r != C.WT_ROLLBACK {
			return wtErr(b.s.h, "write", r)
		}
		if try == 0 {
			failed0 = b.s.counters()[counterTxnFailCache]
		}
		if try == maxConflictRetries {
			return b.s.rolledBack(wtErr(b.s.h, "write", r), try+1, failed0)
		}
	}
}

// counterTxnFailCache names WiredTiger's count of transactions it rolled back for want of
// cache room.
const counterTxnFailCache = "txn_fail_cache"

// rolledBack explains a transaction rolled back n times in a row. When WiredTiger counted
// rollbacks for want of cache room since the first one (failed0: its counter then), they were
// its own (with a small cache and large transactions one writer meets them too), not conflicts
// with another session's writes.
func (s *store) rolledBack(err error, n int, failed0 int64) error {
	c := s.counters()
	if c == nil || c[counterTxnFailCache] <= failed0 {
		return fmt.Errorf("%w (rolled back %d times in a row)", err, n)
	}
	return fmt.Errorf("%w: rolled back %d times in a row, %d of them for want of cache room (WiredTiger's count; the cache holds %d of %d MiB now): not for another session's write; a larger --cache-mb or fewer rows per commit avoids it",
		err, n, c[counterTxnFailCache]-failed0, c[CounterCacheBytes]>>20, c["max_bytes_now"]>>20)
}

// apply runs the batch's writes in a new transaction of ss; it returns WiredTiger's error code.
func (b *batch) apply(ss *session) C.int {
	if r := C.wt_begin(ss.s); r != 0 {
		return r
	}
	for _, o := range b.ops {
		key := b.data[o.start:o.k]
		id, err := tableID(key)
		if err != nil {
			return C.EINVAL
		}
		cur, err := b.s.cursor(ss, id, true)
		if err != nil {
			return C.EINVAL
		}
		var r C.int
		if o.del {
			r = C.wt_del(cur, ptr(key), C.size_t(len(key)))
		} else {
			v := b.data[o.k:o.v]
			r = C.wt_put(cur, ptr(key), C.size_t(len(key)), ptr(v), C.size_t(len(v)))
		}
		if r != 0 {
			return r
		}
	}
	return 0
}

func (b *batch) Close() error { b.ops, b.data = nil, nil; return nil }

// iter walks one WiredTiger table with a cursor of a session it holds until Close, up to upper.
type iter struct {
	s          *store
	ss         *session
	cur        *C.WT_CURSOR // nil: the table does not exist yet (no keys)
	upper      []byte
	key, value []byte
	err        error
}

// at reads the cursor's record after a move that returned r.
func (i *iter) at(r C.int) bool {
	i.key, i.value = nil, nil
	if r != 0 {
		if r != C.WT_NOTFOUND {
			i.err = wtErr(i.s.h, "cursor", r)
		}
		return false
	}
	rec := &i.ss.rec
	if r := C.wt_current(i.cur, &rec.k, &rec.kn, &rec.v, &rec.vn); r != 0 {
		i.err = wtErr(i.s.h, "cursor", r)
		return false
	}
	key := bytesAt(rec.k, rec.kn)
	if i.upper != nil && string(key) >= string(i.upper) {
		C.wt_reset(i.cur)
		return false
	}
	i.key, i.value = key, bytesAt(rec.v, rec.vn)
	return true
}

func (i *iter) SeekGE(k []byte) bool {
	if i.cur == nil {
		return false
	}
	return i.at(C.wt_seek_ge(i.cur, ptr(k), C.size_t(len(k))))
}

func (i *iter) Next() bool {
	if i.cur == nil || i.key == nil {
		return false
	}
	return i.at(C.wt_next(i.cur))
}

func (i *iter) SeekLT(k []byte) bool {
	if i.cur == nil {
		return false
	}
	return i.at(C.wt_seek_lt(i.cur, ptr(k), C.size_t(len(k))))
}

func (i *iter) Prev() bool {
	if i.cur == nil || i.key == nil {
		return false
	}
	return i.at(C.wt_prev(i.cur))
}

func (i *iter) Key() []byte   { return i.key }
func (i *iter) Value() []byte { return i.value }

func (i *iter) Close() error {
	if i.ss == nil {
		return i.err
	}
	if i.cur != nil {
		C.wt_reset(i.cur)
	}
	i.s.release(i.ss)
	i.ss = nil
	return i.err
}
