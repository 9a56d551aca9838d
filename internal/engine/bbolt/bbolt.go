// Package bbolt registers the "bbolt" engine: etcd's copy-on-write B+tree (go.etcd.io/bbolt), an
// update-in-place-style read-optimized engine, under the KV family adapter.
//
// bbolt reads through mmap and has no cache of its own: --cache-mb does not apply (the OS page
// cache holds its pages), and the manifest says so.
package bbolt

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"sync/atomic"

	bolt "go.etcd.io/bbolt"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/engine/kv"
	"github.com/rumbench/rumbench/internal/syncacct"
	"github.com/rumbench/rumbench/internal/table"
)

var options = map[string]string{
	"freelist":          "freelist type: hashmap or array (default hashmap)",
	"no_freelist_sync":  "do not write the freelist on commit: true or false (default false)",
	"fill_percent":      "page fill percent for splits, 10..100 (default 50)",
	"initial_mmap_size": "initial mmap size in MiB (default 0)",
}

func init() {
	engine.Register(engine.Spec{
		Name:        "bbolt",
		Description: "copy-on-write B+tree (etcd bbolt), KV layout as MyRocks",
		Options:     options,
		Open:        open,
		Check: func(extra map[string]string) error {
			_, err := parse(extra)
			return err
		},
	})
}

var bucketName = []byte("rumbench")

type store struct {
	db          *bolt.DB
	fillPercent float64
	// commits counts the read-write transactions committed by batches.
	commits atomic.Int64
}

// config holds the parsed engine-specific options.
type config struct {
	fl, nfs    string
	fill, mmap int64
}

func parse(extra map[string]string) (config, error) {
	var c config
	var err error
	if c.fl, err = engine.ChoiceOption("bbolt", extra, "freelist", "hashmap", "hashmap", "array"); err != nil {
		return c, err
	}
	if c.nfs, err = engine.ChoiceOption("bbolt", extra, "no_freelist_sync", "false", "true", "false"); err != nil {
		return c, err
	}
	if c.fill, err = engine.IntOption("bbolt", extra, "fill_percent", 50); err != nil {
		return c, err
	}
	if c.mmap, err = engine.IntOption("bbolt", extra, "initial_mmap_size", 0); err != nil {
		return c, err
	}
	if c.fill < 10 || c.fill > 100 || c.mmap < 0 || c.mmap > maxMmapMB {
		return c, fmt.Errorf("engine bbolt: fill_percent must be 10..100 and initial_mmap_size 0..%d (MiB, under bbolt's largest mmap of 256 TiB)", maxMmapMB)
	}
	return c, nil
}

// maxMmapMB bounds initial_mmap_size, in MiB: bbolt maps at most 256 TiB (less one byte).
const maxMmapMB = 256<<20 - 1

func open(ctx context.Context, o engine.Options) (table.Engine, error) {
	if err := engine.CheckExtra("bbolt", o.Extra, options); err != nil {
		return nil, err
	}
	c, err := parse(o.Extra)
	if err != nil {
		return nil, err
	}
	fl, nfs, fill, mmap := c.fl, c.nfs, c.fill, c.mmap
	db, err := bolt.Open(filepath.Join(o.Dir, "bbolt.db"), 0o644, &bolt.Options{
		NoSync:          !o.Sync,
		FreelistType:    bolt.FreelistType(fl),
		NoFreelistSync:  nfs == "true",
		InitialMmapSize: int(mmap) << 20,
	})
	if err != nil {
		return nil, fmt.Errorf("bbolt: open %s: %w", o.Dir, err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(bucketName)
		return err
	}); err != nil {
		db.Close()
		return nil, err
	}
	info := table.Info{
		Name:    "bbolt",
		Version: engine.ModuleVersion("go.etcd.io/bbolt"),
		Options: map[string]string{
			"cache_mb":          "n/a (mmap, OS page cache)",
			"sync":              strconv.FormatBool(o.Sync),
			"freelist":          fl,
			"no_freelist_sync":  nfs,
			"fill_percent":      strconv.FormatInt(fill, 10),
			"initial_mmap_size": strconv.FormatInt(mmap, 10),
			"page_size":         strconv.Itoa(db.Info().PageSize),
		},
	}
	st := &store{db: db, fillPercent: float64(fill) / 100}
	e := &boltEngine{Engine: kv.New(st, info), s: st}
	if o.SyncAcct.Enabled {
		// bbolt calls fdatasync and writes with Go system calls and offers no file hook.
		return uncounted{e, syncacct.Uncounted{Note: "bbolt syncs (fdatasync) and writes with Go system calls and has no file hook: not counted, no latency injected"}}, nil
	}
	return e, nil
}

// uncounted is the engine opened with sync accounting on, which it cannot honour.
type uncounted struct {
	*boltEngine
	syncacct.Uncounted
}

func (s *store) NewBatch() kv.Batch { return &batch{s: s} }

func (s *store) Get(key, dst []byte) ([]byte, bool, error) {
	found := false
	err := s.db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucketName).Get(key); v != nil {
			dst = append(dst, v...)
			found = true
		}
		return nil
	})
	return dst, found, err
}

func (s *store) NewIter(lower, upper []byte) (kv.Iter, error) {
	tx, err := s.db.Begin(false)
	if err != nil {
		return nil, err
	}
	return &iter{tx: tx, c: tx.Bucket(bucketName).Cursor(), upper: upper}, nil
}

// Maintain does nothing: bbolt writes pages in place at commit and has no background work.
func (s *store) Maintain(ctx context.Context) (string, error) {
	return "none (bbolt has no deferred work)", nil
}

// Settle implements kv.Settler: without sync on commit (NoSync), the file synced; with it,
// bbolt has written and synced every page at commit.
func (s *store) Settle(ctx context.Context) (table.Settled, error) {
	if !s.db.NoSync {
		return table.Settled{DebtBytes: -1}, nil
	}
	if err := s.db.Sync(); err != nil {
		return table.Settled{}, err
	}
	return table.Settled{Did: "file sync", DebtBytes: -1}, nil
}

// Size is the high-water mark of the database file in bytes.
func (s *store) Size() (int64, bool) {
	var n int64
	if err := s.db.View(func(tx *bolt.Tx) error { n = tx.Size(); return nil }); err != nil {
		return 0, false
	}
	return n, true
}

func (s *store) Close() error { return s.db.Close() }

// batch buffers writes in an arena and applies them in one read-write transaction at Commit.
type batch struct {
	s     *store
	arena []byte
	ops   []op
}

type op struct {
	del        bool
	k0, k1, v1 int // key is arena[k0:k1], value arena[k1:v1]
}

func (b *batch) Set(k, v []byte) error {
	k0 := len(b.arena)
	b.arena = append(b.arena, k...)
	k1 := len(b.arena)
	b.arena = append(b.arena, v...)
	b.ops = append(b.ops, op{k0: k0, k1: k1, v1: len(b.arena)})
	return nil
}

func (b *batch) Delete(k []byte) error {
	k0 := len(b.arena)
	b.arena = append(b.arena, k...)
	b.ops = append(b.ops, op{del: true, k0: k0, k1: len(b.arena), v1: len(b.arena)})
	return nil
}

func (b *batch) Commit() error {
	if len(b.ops) == 0 {
		return nil
	}
	err := b.s.db.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketName)
		bk.FillPercent = b.s.fillPercent
		for _, o := range b.ops {
			k := b.arena[o.k0:o.k1:o.k1]
			if o.del {
				if err := bk.Delete(k); err != nil {
					return err
				}
				continue
			}
			if err := bk.Put(k, b.arena[o.k1:o.v1:o.v1]); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		b.s.commits.Add(1)
	}
	b.ops = b.ops[:0]
	b.arena = b.arena[:0]
	return err
}

func (b *batch) Close() error { b.ops, b.arena = nil, nil; return nil }

type iter struct {
	tx    *bolt.Tx
	c     *bolt.Cursor
	upper []byte
	k, v  []byte
}

func (i *iter) set(k, v []byte) bool {
	if k == nil || (i.upper != nil && string(k) >= string(i.upper)) {
		i.k, i.v = nil, nil
		return false
	}
	i.k, i.v = k, v
	return true
}

func (i *iter) SeekGE(k []byte) bool { return i.set(i.c.Seek(k)) }
func (i *iter) Next() bool           { return i.set(i.c.Next()) }
func (i *iter) Prev() bool           { return i.set(i.c.Prev()) }

// SeekLT seeks the first key >= k and steps back from it, or to the last key when there is none.
func (i *iter) SeekLT(k []byte) bool {
	if key, _ := i.c.Seek(k); key == nil {
		return i.set(i.c.Last())
	}
	return i.set(i.c.Prev())
}
func (i *iter) Key() []byte   { return i.k }
func (i *iter) Value() []byte { return i.v }
func (i *iter) Close() error  { return i.tx.Rollback() }
