// Package pebble registers the "pebble" engine: CockroachDB's LSM key-value store (pebble/v2), a
// RocksDB-like write-optimized engine, under the KV family adapter.
package pebble

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"

	pdb "github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/engine/kv"
	"github.com/rumbench/rumbench/internal/syncacct"
	"github.com/rumbench/rumbench/internal/syncacct/pebblefs"
	"github.com/rumbench/rumbench/internal/table"
)

var options = map[string]string{
	"memtable_mb":             "memtable size in MiB (default 64; under --memory-limit, what the engine's share leaves beside the cache for two, at most 64)",
	"l0_compaction_threshold": "L0 file count that triggers a compaction (default 4)",
	"compaction_concurrency":  "maximum concurrent compactions (default 1)",
	"compression":             "sstable compression: snappy, zstd, none (default snappy)",
	"bloom_bits":              "bloom filter bits per key, 0 for none (default 10, as MyRocks)",
}

func init() {
	engine.Register(engine.Spec{
		Name: "pebble",
		// Its block cache holds blocks uncompressed. 3 is a margin, not a measured ratio:
		// MyRocks' LinkBench graph (105 MB of files) missed a 64 MiB block cache and fit 512.
		CachePerFileByte: 3,
		PerUnitBytes:     perUnitBytes,
		Description:      "LSM tree (CockroachDB Pebble v2, RocksDB-like), KV layout as MyRocks",
		Options:          options,
		Open:             open,
		Check: func(extra map[string]string) error {
			_, err := parse(extra)
			return err
		},
	})
}

type store struct {
	db        *pdb.DB
	cache     interface{ Unref() }
	writeOpts *pdb.WriteOptions
	// fatal is pebble's fatal error (quiet.Fatalf), nil while it works.
	fatal atomic.Pointer[error]
	// stalls counts pebble's write stalls (pressure.go).
	stalls stalls
}

// config holds the parsed engine-specific options.
type config struct {
	memtable, l0, conc, bloomBits int64
	comp                          string
}

func parse(extra map[string]string) (config, error) {
	var c config
	var err error
	if c.memtable, err = engine.IntOption("pebble", extra, "memtable_mb", 64); err != nil {
		return c, err
	}
	if c.l0, err = engine.IntOption("pebble", extra, "l0_compaction_threshold", 4); err != nil {
		return c, err
	}
	if c.conc, err = engine.IntOption("pebble", extra, "compaction_concurrency", 1); err != nil {
		return c, err
	}
	if c.comp, err = engine.ChoiceOption("pebble", extra, "compression", "snappy", "snappy", "zstd", "none"); err != nil {
		return c, err
	}
	if c.bloomBits, err = engine.IntOption("pebble", extra, "bloom_bits", 10); err != nil {
		return c, err
	}
	for _, o := range []struct {
		name      string
		v, lo, hi int64
	}{
		{"memtable_mb", c.memtable, 1, 4095},     // pebble's MemTableSize is under 4 GiB
		{"l0_compaction_threshold", c.l0, 1, 12}, // at most pebble's L0StopWritesThreshold
		{"compaction_concurrency", c.conc, 1, 1024},
		{"bloom_bits", c.bloomBits, 0, 100},
	} {
		if o.v < o.lo || o.v > o.hi {
			return c, fmt.Errorf("engine pebble option %s=%d: must be %d..%d", o.name, o.v, o.lo, o.hi)
		}
	}
	return c, nil
}

func open(ctx context.Context, o engine.Options) (table.Engine, error) {
	if err := engine.CheckExtra("pebble", o.Extra, options); err != nil {
		return nil, err
	}
	c, err := parse(o.Extra)
	if err != nil {
		return nil, err
	}
	memtable, l0, conc, comp, bloomBits := c.memtable, c.l0, c.conc, c.comp, c.bloomBits
	if _, given := o.Extra["memtable_mb"]; !given {
		// Under a cap, the two memtables take what the engine's share leaves beside the cache.
		memtable = o.BufferBytes(2, memtable<<20) >> 20
	}
	// Pebble reserves memtable memory from its block cache: size the cache so that CacheBytes
	// stay for blocks with a mutable and an immutable memtable reserved.
	capacity := o.CacheBytes + 2*memtable<<20
	cache := pdb.NewCache(capacity)
	st := &store{cache: cache}
	opts := &pdb.Options{
		Cache:                 cache,
		MemTableSize:          uint64(memtable) << 20,
		L0CompactionThreshold: int(l0),
		Logger:                quiet{st},
		EventListener:         st.stalls.listener(),
		CompactionConcurrencyRange: func() (int, int) {
			return 1, int(conc)
		},
	}
	profile := map[string]*sstable.CompressionProfile{
		"snappy": sstable.SnappyCompression, "zstd": sstable.ZstdCompression, "none": sstable.NoCompression,
	}[comp]
	for i := range opts.Levels {
		opts.Levels[i].Compression = func() *sstable.CompressionProfile { return profile }
		if bloomBits > 0 {
			opts.Levels[i].FilterPolicy = bloom.FilterPolicy(bloomBits)
		}
	}
	var block *syncacct.Block
	if o.SyncAcct.Enabled {
		block = syncacct.NewBlock()
		opts.FS = pebblefs.New(vfs.Default, block, o.SyncAcct.Latency)
	}
	db, err := pdb.Open(o.Dir, opts)
	if err != nil {
		cache.Unref()
		return nil, fmt.Errorf("pebble: open %s: %w", o.Dir, err)
	}
	wo := pdb.NoSync
	if o.Sync {
		wo = pdb.Sync
	}
	s := st
	s.db, s.writeOpts = db, wo
	info := table.Info{
		Name:    "pebble",
		Version: engine.ModuleVersion("github.com/cockroachdb/pebble/v2"),
		// The WAL files (recycled ones included: pebble keeps them allocated for reuse).
		LogFiles: []string{"*.log"},
		Options: map[string]string{
			"cache_mb":                strconv.FormatInt(o.CacheBytes>>20, 10),
			"cache_capacity_mb":       strconv.FormatInt(capacity>>20, 10) + " (cache_mb + 2 memtables, which pebble reserves from it)",
			"sync":                    strconv.FormatBool(o.Sync),
			"memtable_mb":             strconv.FormatInt(memtable, 10),
			"l0_compaction_threshold": strconv.FormatInt(l0, 10),
			"compaction_concurrency":  strconv.FormatInt(conc, 10),
			"compression":             comp,
			"bloom_bits":              strconv.FormatInt(bloomBits, 10),
			"format_major_version":    strconv.FormatUint(uint64(db.FormatMajorVersion()), 10),
		},
	}
	e := &pebEngine{Engine: kv.New(s, info), s: s}
	if block != nil {
		return &acctEngine{pebEngine: e, block: block}, nil
	}
	return e, nil
}

// acctEngine is the engine with its sync accounting (a wrapping vfs.FS, package pebblefs).
type acctEngine struct {
	*pebEngine
	block *syncacct.Block
}

// SyncSample implements syncacct.Reporter.
func (e *acctEngine) SyncSample(s *syncacct.Sample) error { e.block.Read(s); return nil }

// SyncCoverage implements syncacct.Reporter: Pebble opens every file through its vfs.FS.
func (e *acctEngine) SyncCoverage() syncacct.Coverage {
	return syncacct.Coverage{Source: "pebble-vfs", Complete: true}
}

// quiet is pebble's logger: silent, and its fatal path turned into an error. Pebble calls
// Fatalf when it cannot go on (a commit that cannot be written to a full disk; a MANIFEST that
// cannot be synced) and expects it not to return. Called from one of rumbench's calls into
// pebble (a commit, a read), it panics with a fatal value that the call recovers and returns
// as an error; called from pebble's own background goroutines, where a panic would end the
// process, it parks that goroutine for good. Either way the store is marked failed and every
// later call returns the error at once.
type quiet struct{ s *store }

func (quiet) Infof(string, ...interface{})  {}
func (quiet) Errorf(string, ...interface{}) {}
func (q quiet) Fatalf(format string, args ...interface{}) {
	msg := fmt.Sprintf(format, args...)
	if !strings.HasPrefix(msg, "pebble: ") {
		msg = "pebble: " + msg
	}
	err := errors.New(msg)
	q.s.fatal.CompareAndSwap(nil, &err)
	if guarded() {
		panic(fatal{err})
	}
	select {} // a background goroutine: the process must go on to stop cleanly
}

// fatal is the panic value of a fatal error in a guarded call.
type fatal struct{ err error }

// guardedCalls are the store's calls into pebble that recover a fatal panic (recoverFatal).
var guardedCalls = []string{"engine/pebble.(*batch).Commit", "engine/pebble.(*store).Get", "engine/pebble.(*store).Maintain"}

// guarded says whether the calling goroutine is inside one of guardedCalls (the frames of the
// current stack, read only on this rare path).
func guarded() bool {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		for _, g := range guardedCalls {
			if strings.HasSuffix(f.Function, g) {
				return true
			}
		}
		if !more {
			return false
		}
	}
}

// failed returns the error of a store whose pebble has failed fatally, nil otherwise.
func (s *store) failed() error {
	if e := s.fatal.Load(); e != nil {
		return *e
	}
	return nil
}

// recoverFatal, deferred by a guarded call, turns a fatal panic into the call's error.
func recoverFatal(err *error) {
	if r := recover(); r != nil {
		f, ok := r.(fatal)
		if !ok {
			panic(r)
		}
		*err = f.err
	}
}

func (s *store) NewBatch() kv.Batch { return &batch{b: s.db.NewBatch(), opts: s.writeOpts, s: s} }

func (s *store) Get(key, dst []byte) (_ []byte, _ bool, err error) {
	if err := s.failed(); err != nil {
		return dst, false, err
	}
	defer recoverFatal(&err)
	v, closer, err := s.db.Get(key)
	if err == pdb.ErrNotFound {
		return dst, false, nil
	}
	if err != nil {
		return dst, false, err
	}
	dst = append(dst, v...)
	return dst, true, closer.Close()
}

func (s *store) NewIter(lower, upper []byte) (kv.Iter, error) {
	if err := s.failed(); err != nil {
		return nil, err
	}
	it, err := s.db.NewIter(&pdb.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return nil, err
	}
	return iter{it}, nil
}

// Maintain flushes the memtable and compacts the whole key space, like the reference's MyRocks
// cleanup (memtable flush, then compaction).
func (s *store) Maintain(ctx context.Context) (_ string, err error) {
	if err := s.failed(); err != nil {
		return "", err
	}
	defer recoverFatal(&err)
	if err := s.db.Flush(); err != nil {
		return "", err
	}
	if err := s.db.Compact(ctx, []byte{0}, []byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF}, true); err != nil {
		return "", err
	}
	return "memtable flush, full manual compaction", nil
}

// Settle implements kv.Settler: the memtable flushed to an sstable (what pebble does when the
// memtable fills), its pending compaction reported as the debt.
func (s *store) Settle(ctx context.Context) (_ table.Settled, err error) {
	if err := s.failed(); err != nil {
		return table.Settled{}, err
	}
	defer recoverFatal(&err)
	if err := s.db.Flush(); err != nil {
		return table.Settled{}, err
	}
	return table.Settled{Did: "memtable flush", DebtBytes: int64(s.db.Metrics().Compact.EstimatedDebt)}, nil
}

// Size is the disk space pebble accounts for (sstables, WAL, manifest).
func (s *store) Size() (int64, bool) { return int64(s.db.Metrics().DiskSpaceUsage()), true }

func (s *store) Close() error {
	if e := s.fatal.Load(); e != nil {
		// A failed pebble cannot be closed (its goroutines are parked): leave it to the
		// process's exit.
		s.cache.Unref()
		return nil
	}
	err := s.db.Close()
	s.cache.Unref()
	return err
}

type batch struct {
	b    *pdb.Batch
	opts *pdb.WriteOptions
	s    *store
}

func (b *batch) Set(k, v []byte) error { return b.b.Set(k, v, nil) }
func (b *batch) Delete(k []byte) error { return b.b.Delete(k, nil) }
func (b *batch) Commit() (err error) {
	if b.b.Empty() {
		return nil
	}
	if err := b.s.failed(); err != nil {
		return err
	}
	defer recoverFatal(&err)
	err = b.b.Commit(b.opts)
	b.b.Reset()
	return err
}
func (b *batch) Close() error { return b.b.Close() }

type iter struct{ it *pdb.Iterator }

func (i iter) SeekGE(k []byte) bool { return i.it.SeekGE(k) }
func (i iter) Next() bool           { return i.it.Next() }
func (i iter) SeekLT(k []byte) bool { return i.it.SeekLT(k) }
func (i iter) Prev() bool           { return i.it.Prev() }
func (i iter) Key() []byte          { return i.it.Key() }
func (i iter) Value() []byte        { return i.it.Value() }
func (i iter) Close() error         { return i.it.Close() }

var _ io.Closer = iter{}
