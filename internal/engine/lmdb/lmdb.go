// Package lmdb registers the "lmdb" engine: LMDB, the memory-mapped copy-on-write B+tree of
// OpenLDAP (github.com/PowerDNS/lmdb-go, which compiles LMDB's C source in), under the KV family
// adapter with MyRocks' layout.
//
// LMDB reads through its memory map and has no cache of its own: --cache-mb does not apply (the
// OS page cache holds its pages), and the manifest says so. Writes are serialized: one write
// transaction at a time, as LMDB allows.
package lmdb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	lm "github.com/PowerDNS/lmdb-go/lmdb"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/engine/kv"
	"github.com/rumbench/rumbench/internal/syncacct"
	"github.com/rumbench/rumbench/internal/syncacct/cshim"
	"github.com/rumbench/rumbench/internal/sysstat"
	"github.com/rumbench/rumbench/internal/table"
)

const name = "lmdb"

var options = map[string]string{
	"map_size_gb":  "the memory map's size in GiB, the largest the database may grow (default 64; address space, not memory)",
	"no_meta_sync": "with sync on: skip the fsync of the meta page after each commit (MDB_NOMETASYNC): true or false (default false)",
	"readahead":    "the OS's readahead on the memory map: on, or off (MDB_NORDAHEAD, as bbolt's MADV_RANDOM; default off)",
}

func init() {
	engine.Register(engine.Spec{
		Name:        name,
		Description: "memory-mapped copy-on-write B+tree (LMDB), KV layout as MyRocks",
		Options:     options,
		Open:        open,
		Check: func(extra map[string]string) error {
			_, err := parse(extra)
			return err
		},
	})
}

type config struct {
	mapGB      int64
	noMetaSync bool
	// readahead keeps the OS's readahead on the map. Off by default: a page fault in a map
	// larger than memory then reads its page, not the device's readahead around it (8 MiB on
	// some virtual disks), which under --memory-limit evicts the pages the next faults need.
	readahead bool
}

func parse(extra map[string]string) (config, error) {
	var c config
	var err error
	if c.mapGB, err = engine.IntOption(name, extra, "map_size_gb", 64); err != nil {
		return c, err
	}
	if c.mapGB < 1 || c.mapGB > 1<<20 {
		return c, fmt.Errorf("engine %s option map_size_gb=%d: must be 1..1048576", name, c.mapGB)
	}
	nms, err := engine.ChoiceOption(name, extra, "no_meta_sync", "false", "true", "false")
	if err != nil {
		return c, err
	}
	c.noMetaSync = nms == "true"
	ra, err := engine.ChoiceOption(name, extra, "readahead", "off", "on", "off")
	c.readahead = ra == "on"
	return c, err
}

// emptyValue stands for an empty value in the database. lmdb-go, reading without copies,
// dereferences a value's address also when it is empty, and LMDB gives an empty value at the end
// of the file's last page the address of the next page, beyond the end of the file (SIGBUS). The
// KV adapter's empty values (index entries) are stored as this one byte instead; a one-byte value
// of the adapter's codec is a varint, below 0x80, so it never reads as one.
var emptyValue = []byte{0xFF}

// stored returns v as it is stored: emptyValue for an empty v.
func stored(v []byte) []byte {
	if len(v) == 0 {
		return emptyValue
	}
	return v
}

// loaded returns a stored value as the adapter wrote it.
func loaded(v []byte) []byte {
	if len(v) == 1 && v[0] == 0xFF {
		return v[:0]
	}
	return v
}

// lockFileBytes is the size LMDB gives its lock file with its default 126 readers: 125 reader
// slots of a cache line (64 bytes) and the 192-byte header.
const lockFileBytes = 125*64 + 192

// allocLockFile writes a new lock file (lock.mdb) in dir whole. LMDB makes its lock file a
// sparse file and writes it through a memory map: on a full file system that write is a SIGBUS
// that ends the process, where this write is an error (no space left on device). An existing
// lock file, which another process may be using, is left as it is.
func allocLockFile(dir string) error {
	f, err := os.OpenFile(filepath.Join(dir, "lock.mdb"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || st.Size() > 0 {
		return err
	}
	if _, err := f.WriteAt(make([]byte, lockFileBytes), 0); err != nil {
		f.Truncate(0)
		return err
	}
	return nil
}

// store is LMDB under the KV adapter.
type store struct {
	env   *lm.Env
	dbi   lm.DBI
	dir   string
	mapGB int64
	// readers holds reset read-only transactions for reuse (Renew), so a read allocates none.
	readers chan *lm.Txn
	// unsynced is true when commits leave writes unsynced (NoSync, NoMetaSync).
	unsynced bool
}

func open(ctx context.Context, o engine.Options) (table.Engine, error) {
	if err := engine.CheckExtra(name, o.Extra, options); err != nil {
		return nil, err
	}
	c, err := parse(o.Extra)
	if err != nil {
		return nil, err
	}
	env, err := lm.NewEnv()
	if err != nil {
		return nil, fmt.Errorf("lmdb: %w", err)
	}
	flags := uint(0)
	if !c.readahead {
		flags |= lm.NoReadahead
	}
	switch {
	case !o.Sync:
		flags |= lm.NoSync
	case c.noMetaSync:
		flags |= lm.NoMetaSync
	}
	err = env.SetMapSize(c.mapGB << 30)
	if err == nil {
		err = allocLockFile(o.Dir)
	}
	if err == nil {
		err = env.Open(o.Dir, flags, 0o644)
	}
	if err != nil {
		env.Close()
		return nil, fmt.Errorf("lmdb: open %s: %w", o.Dir, writeErr(err, o.Dir, c.mapGB))
	}
	s := &store{env: env, dir: o.Dir, mapGB: c.mapGB, readers: make(chan *lm.Txn, 64), unsynced: flags&(lm.NoSync|lm.NoMetaSync) != 0}
	if err := env.Update(func(txn *lm.Txn) (err error) {
		s.dbi, err = txn.OpenRoot(0)
		return err
	}); err != nil {
		env.Close()
		return nil, fmt.Errorf("lmdb: %w", err)
	}
	major, minor, patch, _ := lm.Version()
	info := table.Info{
		Name:    name,
		Version: fmt.Sprintf("%d.%d.%d (lmdb-go %s)", major, minor, patch, engine.ModuleVersion("github.com/PowerDNS/lmdb-go")),
		Options: map[string]string{
			"cache_mb":     "n/a (reads through the memory map and the OS page cache)",
			"sync":         strconv.FormatBool(o.Sync),
			"map_size_gb":  strconv.FormatInt(c.mapGB, 10),
			"no_meta_sync": strconv.FormatBool(c.noMetaSync && o.Sync),
			"readahead":    "off (MDB_NORDAHEAD)",
		},
	}
	if c.readahead {
		info.Options["readahead"] = "on"
	}
	e := kv.New(s, info)
	if !o.SyncAcct.Enabled {
		return e, nil
	}
	// LMDB's fdatasync, msync and pwrite calls are counted by the shim (see acctEngine).
	ip, err := cshim.StartInProcess(o.Dir, syncacct.LMDBPatterns, o.SyncAcct.Latency)
	if err != nil {
		e.Close()
		return nil, err
	}
	return &acctEngine{Engine: e, InProcess: ip}, nil
}

// acctEngine is the engine with its sync accounting: LMDB runs in this process and its libc
// calls go to the shim linked into this binary (package cshim), which counts them.
type acctEngine struct {
	*kv.Engine
	*cshim.InProcess
}

// Close closes the engine and turns the accounting off.
func (e *acctEngine) Close() error {
	err := e.Engine.Close()
	e.InProcess.Stop()
	return err
}

// reader returns a read-only transaction, reused when one is free.
func (s *store) reader() (*lm.Txn, error) {
	select {
	case txn := <-s.readers:
		if err := txn.Renew(); err != nil {
			txn.Abort()
			return nil, err
		}
		return txn, nil
	default:
		txn, err := s.env.BeginTxn(nil, lm.Readonly)
		if err != nil {
			return nil, err
		}
		txn.RawRead = true // values point into the map: copied out before the transaction ends
		return txn, nil
	}
}

// release resets txn for reuse, or aborts it when enough are kept.
func (s *store) release(txn *lm.Txn) {
	txn.Reset()
	select {
	case s.readers <- txn:
	default:
		txn.Abort()
	}
}

func (s *store) Get(key, dst []byte) ([]byte, bool, error) {
	txn, err := s.reader()
	if err != nil {
		return dst, false, err
	}
	defer s.release(txn)
	v, err := txn.Get(s.dbi, key)
	if lm.IsNotFound(err) {
		return dst, false, nil
	}
	if err != nil {
		return dst, false, err
	}
	return append(dst, loaded(v)...), true, nil
}

func (s *store) NewIter(lower, upper []byte) (kv.Iter, error) {
	txn, err := s.reader()
	if err != nil {
		return nil, err
	}
	cur, err := txn.OpenCursor(s.dbi)
	if err != nil {
		s.release(txn)
		return nil, err
	}
	return &iter{s: s, txn: txn, cur: cur, upper: upper}, nil
}

// Maintain flushes the map to disk: LMDB has nothing to compact.
func (s *store) Maintain(ctx context.Context) (string, error) {
	if err := s.env.Sync(true); err != nil {
		return "", s.writeErr(err)
	}
	return "env sync (LMDB has nothing to compact)", nil
}

// Settle implements kv.Settler: when commits leave writes unsynced (no sync, or no meta sync),
// an env sync; else nothing: LMDB writes and syncs everything at commit.
func (s *store) Settle(ctx context.Context) (table.Settled, error) {
	if !s.unsynced {
		return table.Settled{DebtBytes: -1}, nil
	}
	if err := s.env.Sync(true); err != nil {
		return table.Settled{}, s.writeErr(err)
	}
	return table.Settled{Did: "env sync", DebtBytes: -1}, nil
}

// Size is the data file's used pages: (last page number + 1) × page size.
func (s *store) Size() (int64, bool) {
	info, err := s.env.Info()
	if err != nil {
		return 0, false
	}
	st, err := s.env.Stat()
	if err != nil {
		return 0, false
	}
	return (info.LastPNO + 1) * int64(st.PSize), true
}

func (s *store) Close() error {
	close(s.readers)
	for txn := range s.readers {
		txn.Abort()
	}
	return s.env.Close()
}

func (s *store) NewBatch() kv.Batch { return &batch{s: s} }

// batch collects writes and applies them in one write transaction at Commit.
type batch struct {
	s    *store
	ops  []op
	data []byte // the keys and values of ops, back to back
}

type op struct {
	k, v  int // ends of the key and the value in data
	del   bool
	start int
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

func (b *batch) Commit() error {
	if len(b.ops) == 0 {
		return nil
	}
	err := b.s.env.Update(b.apply)
	b.ops, b.data = b.ops[:0], b.data[:0]
	return b.s.writeErr(err)
}

// fullMargin is the free space below which the file system holding the database counts as
// full when a write fails with EIO: more than LMDB writes in one call (MDB_COMMIT_PAGES, 64
// pages).
const fullMargin = 1 << 20

// writeErr says what a failed write means. LMDB reports a short write, which is what a full
// file system gives it, as EIO ("input/output error"): a write that fails with EIO while the
// file system holding the database has less than fullMargin free is said to have found no
// space left (the error wraps syscall.ENOSPC). MDB_MAP_FULL is the map size reached, not the
// disk: it names its option.
func (s *store) writeErr(err error) error { return writeErr(err, s.dir, s.mapGB) }

// writeErr is store.writeErr for the database in dir with a map of mapGB GiB.
func writeErr(err error, dir string, mapGB int64) error {
	var op *lm.OpError
	if !errors.As(err, &op) {
		return err
	}
	switch {
	case lm.IsMapFull(err):
		return fmt.Errorf("%w: the database reached its map size, %d GiB (engine option map_size_gb)", err, mapGB)
	case lm.IsErrnoSys(err, syscall.ENOSPC):
		return fmt.Errorf("%s: %w", op.Op, syscall.ENOSPC)
	case lm.IsErrnoSys(err, syscall.EIO):
		if free, _, ferr := sysstat.Space(dir); ferr == nil && free < fullMargin {
			return fmt.Errorf("%s: input/output error on a full file system: %w", op.Op, syscall.ENOSPC)
		}
	}
	return err
}

func (b *batch) apply(txn *lm.Txn) error {
	for _, o := range b.ops {
		key := b.data[o.start:o.k]
		if o.del {
			if err := txn.Del(b.s.dbi, key, nil); err != nil && !lm.IsNotFound(err) {
				return err
			}
			continue
		}
		if err := txn.Put(b.s.dbi, key, stored(b.data[o.k:o.v]), 0); err != nil {
			return err
		}
	}
	return nil
}

func (b *batch) Close() error { b.ops, b.data = nil, nil; return nil }

// iter walks a cursor of a read-only transaction, up to upper.
type iter struct {
	s          *store
	txn        *lm.Txn
	cur        *lm.Cursor
	upper      []byte
	key, value []byte
}

func (i *iter) at(k, v []byte, err error) bool {
	if err != nil || (i.upper != nil && bytes.Compare(k, i.upper) >= 0) {
		i.key, i.value = nil, nil
		return false
	}
	i.key, i.value = k, loaded(v)
	return true
}

func (i *iter) SeekGE(k []byte) bool { return i.at(i.cur.Get(k, nil, lm.SetRange)) }
func (i *iter) Next() bool           { return i.at(i.cur.Get(nil, nil, lm.Next)) }
func (i *iter) Prev() bool           { return i.at(i.cur.Get(nil, nil, lm.Prev)) }

// SeekLT seeks the first key >= k and steps back from it, or to the last key when there is none.
func (i *iter) SeekLT(k []byte) bool {
	if _, _, err := i.cur.Get(k, nil, lm.SetRange); err != nil {
		if !lm.IsNotFound(err) {
			return i.at(nil, nil, err)
		}
		return i.at(i.cur.Get(nil, nil, lm.Last))
	}
	return i.at(i.cur.Get(nil, nil, lm.Prev))
}
func (i *iter) Key() []byte   { return i.key }
func (i *iter) Value() []byte { return i.value }
func (i *iter) Close() error {
	if i.txn == nil {
		return nil
	}
	i.cur.Close()
	i.s.release(i.txn)
	i.txn, i.cur = nil, nil
	return nil
}
