//go:build rocksdb

package rocksdb

import (
	"bufio"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/linxGnu/grocksdb"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/engine/kv"
	"github.com/rumbench/rumbench/internal/syncacct"
	"github.com/rumbench/rumbench/internal/table"
)

func init() {
	engine.Register(engine.Spec{
		Name: name, Description: description, Options: options,
		CachePerFileByte: 3, PerUnitBytes: perUnitBytes, Open: open, // its block cache holds blocks uncompressed
		Check: func(extra map[string]string) error {
			_, err := parse(extra)
			return err
		},
	})
}

// compressions maps the option's names to RocksDB's types.
var compressions = map[string]grocksdb.CompressionType{
	"none": grocksdb.NoCompression, "snappy": grocksdb.SnappyCompression, "lz4": grocksdb.LZ4Compression,
	"zlib": grocksdb.ZLibCompression, "zstd": grocksdb.ZSTDCompression,
}

// numLevels is RocksDB's default number of levels.
const numLevels = 7

// config holds the parsed engine-specific options.
type config struct {
	memtable, bloomBits, jobs int64
	compression               string
	perLevel                  []grocksdb.CompressionType
}

func parse(extra map[string]string) (config, error) {
	var c config
	var err error
	if c.memtable, err = engine.IntOption(name, extra, "memtable_mb", 64); err != nil {
		return c, err
	}
	if c.bloomBits, err = engine.IntOption(name, extra, "bloom_bits", 10); err != nil {
		return c, err
	}
	if c.jobs, err = engine.IntOption(name, extra, "max_background_jobs", 2); err != nil {
		return c, err
	}
	for _, o := range []struct {
		key       string
		v, lo, hi int64
	}{
		{"memtable_mb", c.memtable, 1, 1 << 20}, // 1 TiB
		{"bloom_bits", c.bloomBits, 0, 100},
		{"max_background_jobs", c.jobs, 1, 1024},
	} {
		if o.v < o.lo || o.v > o.hi {
			return c, fmt.Errorf("engine %s option %s=%d: must be %d..%d", name, o.key, o.v, o.lo, o.hi)
		}
	}
	c.compression = "snappy"
	if v, ok := extra["compression"]; ok {
		c.compression = v
	}
	names := strings.Split(c.compression, ":")
	if len(names) != 1 && len(names) != numLevels {
		return c, fmt.Errorf("engine %s option compression=%q: give one type, or %d colon-separated (L0 to L6)", name, c.compression, numLevels)
	}
	for i := 0; i < numLevels; i++ {
		n := names[min(i, len(names)-1)]
		t, ok := compressions[n]
		if !ok {
			return c, fmt.Errorf("engine %s option compression=%q is not valid (valid: none, snappy, lz4, zlib, zstd)", name, c.compression)
		}
		c.perLevel = append(c.perLevel, t)
	}
	return c, nil
}

// store is RocksDB under the KV adapter.
type store struct {
	db      *grocksdb.DB
	opts    *grocksdb.Options
	bbto    *grocksdb.BlockBasedTableOptions
	cache   *grocksdb.Cache
	wo      *grocksdb.WriteOptions
	ro      *grocksdb.ReadOptions
	flushO  *grocksdb.FlushOptions
	version string
}

func open(ctx context.Context, o engine.Options) (table.Engine, error) {
	if err := engine.CheckExtra(name, o.Extra, options); err != nil {
		return nil, err
	}
	c, err := parse(o.Extra)
	if err != nil {
		return nil, err
	}
	s := &store{opts: grocksdb.NewDefaultOptions(), bbto: grocksdb.NewDefaultBlockBasedTableOptions(),
		cache: grocksdb.NewLRUCache(uint64(o.CacheBytes)), wo: grocksdb.NewDefaultWriteOptions(),
		ro: grocksdb.NewDefaultReadOptions(), flushO: grocksdb.NewDefaultFlushOptions()}
	s.bbto.SetBlockCache(s.cache)
	if c.bloomBits > 0 {
		s.bbto.SetFilterPolicy(grocksdb.NewBloomFilter(float64(c.bloomBits)))
	}
	s.opts.SetCreateIfMissing(true)
	s.opts.SetBlockBasedTableFactory(s.bbto)
	memtable := c.memtable << 20
	if _, given := o.Extra["memtable_mb"]; !given {
		// Under a cap, the two memtables take what the engine's share leaves beside the cache.
		memtable = o.BufferBytes(2, memtable)
	}
	s.opts.SetWriteBufferSize(uint64(memtable))
	s.opts.SetMaxWriteBufferNumber(2) // RocksDB's default, set: BufferBytes splits the share two ways
	if o.MemoryBytes > 0 {
		// Under a cap the index and filter blocks live in the block cache (as MyRocks keeps
		// them): held by the table readers, they would grow with the data past the share.
		s.bbto.SetCacheIndexAndFilterBlocks(true)
		s.bbto.SetPinL0FilterAndIndexBlocksInCache(true)
	}
	s.opts.SetMaxBackgroundJobs(int(c.jobs))
	s.opts.SetCompressionPerLevel(c.perLevel)
	s.opts.SetCompression(c.perLevel[numLevels-1])
	s.opts.EnableStatistics()
	s.wo.SetSync(o.Sync)
	s.flushO.SetWait(true)
	db, err := grocksdb.OpenDb(s.opts, o.Dir)
	if err != nil {
		s.destroy()
		return nil, fmt.Errorf("rocksdb: open %s: %w", o.Dir, err)
	}
	s.db = db
	info := table.Info{
		Name:    name,
		Version: rocksdbVersion(),
		// The WAL files and the info log.
		LogFiles: []string{"*.log", "LOG", "LOG.old.*"},
		Options: map[string]string{
			"cache_mb":            strconv.FormatInt(o.CacheBytes>>20, 10),
			"sync":                strconv.FormatBool(o.Sync),
			"memtable_mb":         strconv.FormatInt(memtable>>20, 10),
			"bloom_bits":          strconv.FormatInt(c.bloomBits, 10),
			"compression":         c.compression,
			"max_background_jobs": strconv.FormatInt(c.jobs, 10),
		},
	}
	if o.MemoryBytes > 0 {
		info.Options["index_filter_blocks"] = "in the block cache (--memory-limit)"
	}
	e := &rocksEngine{Engine: kv.New(s, info), s: s}
	if o.SyncAcct.Enabled {
		e.Note = "RocksDB (a shared library) syncs and writes through libc, which the in-process hooks do not wrap for it: not counted, no latency injected"
	}
	return e, nil
}

// rocksEngine is the engine with RocksDB's statistics as engine counters.
type rocksEngine struct {
	*kv.Engine
	s *store
	syncacct.Uncounted
}

// counterTickers are the statistics tickers reported per step: what RocksDB wrote and read for
// flushes and compactions (write amplification is their sum over the WAL's and the user's
// bytes), the WAL's bytes and syncs, and the time writes stalled.
var counterTickers = []string{
	"rocksdb.bytes.written", "rocksdb.wal.bytes", "rocksdb.wal.synced", "rocksdb.flush.write.bytes",
	"rocksdb.compact.read.bytes", "rocksdb.compact.write.bytes", "rocksdb.stall.micros",
	"rocksdb.block.cache.miss", "rocksdb.block.cache.hit", "rocksdb.bloom.filter.useful",
}

// EngineCounters implements table.CounterReporter from RocksDB's statistics.
func (e *rocksEngine) EngineCounters() map[string]int64 {
	all := parseTickers(e.s.opts.GetStatisticsString())
	out := make(map[string]int64, len(counterTickers))
	for _, t := range counterTickers {
		if v, ok := all[t]; ok {
			out[t] = v
		}
	}
	return out
}

// parseTickers reads the "NAME COUNT : N" lines of RocksDB's statistics string.
func parseTickers(stats string) map[string]int64 {
	out := map[string]int64{}
	sc := bufio.NewScanner(strings.NewReader(stats))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 4 && f[1] == "COUNT" && f[2] == ":" {
			if v, err := strconv.ParseInt(f[3], 10, 64); err == nil {
				out[f[0]] = v
			}
		}
	}
	return out
}

// rocksdbVersion is the library's version as its headers give it (grocksdb v1.7.14 is built for
// RocksDB 7.8.3) and the binding's module version.
func rocksdbVersion() string {
	return "7.8.3 (grocksdb " + engine.ModuleVersion("github.com/linxGnu/grocksdb") + ")"
}

func (s *store) destroy() {
	for _, f := range []func(){s.flushO.Destroy, s.ro.Destroy, s.wo.Destroy, s.opts.Destroy, s.bbto.Destroy, s.cache.Destroy} {
		f()
	}
}

func (s *store) NewBatch() kv.Batch {
	return &batch{b: grocksdb.NewWriteBatch(), s: s}
}

func (s *store) Get(key, dst []byte) ([]byte, bool, error) {
	v, err := s.db.Get(s.ro, key)
	if err != nil {
		return dst, false, err
	}
	defer v.Free()
	if !v.Exists() {
		return dst, false, nil
	}
	return append(dst, v.Data()...), true, nil
}

func (s *store) NewIter(lower, upper []byte) (kv.Iter, error) {
	ro := grocksdb.NewDefaultReadOptions()
	if upper != nil {
		ro.SetIterateUpperBound(upper)
	}
	return &iter{it: s.db.NewIterator(ro), ro: ro}, nil
}

// Maintain flushes the memtable and compacts the whole key space, as the reference's MyRocks
// cleanup does.
func (s *store) Maintain(ctx context.Context) (string, error) {
	if err := s.db.Flush(s.flushO); err != nil {
		return "", err
	}
	s.db.CompactRange(grocksdb.Range{Start: nil, Limit: nil})
	return "memtable flush, full manual compaction", nil
}

// Settle implements kv.Settler: the memtables flushed to SST files (waited for), the pending
// compaction (rocksdb.estimate-pending-compaction-bytes) reported as the debt.
func (s *store) Settle(ctx context.Context) (table.Settled, error) {
	if err := s.db.Flush(s.flushO); err != nil {
		return table.Settled{}, err
	}
	debt := int64(-1)
	if n, ok := s.db.GetIntProperty("rocksdb.estimate-pending-compaction-bytes"); ok {
		debt = int64(n)
	}
	return table.Settled{Did: "memtable flush", DebtBytes: debt}, nil
}

// Size is the size of the live SST files and the memtables, RocksDB's own figures.
func (s *store) Size() (int64, bool) {
	sst, ok := s.db.GetIntProperty("rocksdb.live-sst-files-size")
	if !ok {
		return 0, false
	}
	mem, _ := s.db.GetIntProperty("rocksdb.cur-size-all-mem-tables")
	return int64(sst + mem), true
}

func (s *store) Close() error {
	s.db.Close()
	s.destroy()
	return nil
}

type batch struct {
	b *grocksdb.WriteBatch
	s *store
}

func (b *batch) Set(k, v []byte) error { b.b.Put(k, v); return nil }
func (b *batch) Delete(k []byte) error { b.b.Delete(k); return nil }
func (b *batch) Commit() error {
	if b.b.Count() == 0 {
		return nil
	}
	err := b.s.db.Write(b.s.wo, b.b)
	b.b.Clear()
	return err
}
func (b *batch) Close() error { b.b.Destroy(); return nil }

// iter is a RocksDB iterator; Key and Value point into RocksDB's memory, valid until it moves.
type iter struct {
	it *grocksdb.Iterator
	ro *grocksdb.ReadOptions
}

func (i *iter) SeekGE(k []byte) bool { i.it.Seek(k); return i.it.Valid() }
func (i *iter) Next() bool           { i.it.Next(); return i.it.Valid() }
func (i *iter) Prev() bool           { i.it.Prev(); return i.it.Valid() }

// SeekLT seeks the first key >= k and steps back from it, or to the last key (below the upper
// bound) when there is none.
func (i *iter) SeekLT(k []byte) bool {
	if i.it.Seek(k); i.it.Valid() {
		i.it.Prev()
	} else {
		i.it.SeekToLast()
	}
	return i.it.Valid()
}
func (i *iter) Key() []byte   { return i.it.Key().Data() }
func (i *iter) Value() []byte { return i.it.Value().Data() }
func (i *iter) Close() error {
	err := i.it.Err()
	i.it.Close()
	i.ro.Destroy()
	return err
}
