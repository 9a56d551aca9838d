// Package kv implements the table model over an ordered key-value store, the way MyRocks and
// MongoRocks lay tables over RocksDB. A new KV engine implements Store (about six methods) and
// passes it to New.
//
// Layout. Every table and every secondary index has a 4-byte id (FNV-32a of "table" or
// "table/index", checked for collisions). A row is stored under id(table) + enc(pk) with the
// non-key columns as its value; an index entry is stored under id(index) + enc(columns) + enc(pk)
// with an empty value. enc is table's order-preserving encoding. A row insert with 3 secondary
// indexes is 4 puts in one batch.
package kv

import (
	"context"

	"github.com/rumbench/rumbench/internal/table"
)

// Settler is implemented by stores that defer work a commit causes (a memtable flush, a
// checkpoint): see table.Settler. A store without it has nothing deferred.
type Settler interface {
	Settle(ctx context.Context) (table.Settled, error)
}

// Store is an ordered key-value store. Its methods may be called from several goroutines.
type Store interface {
	// NewBatch returns an empty write batch. A batch is used by one goroutine at a time.
	NewBatch() Batch
	// Get appends the value stored under key to dst and returns it, with false when the key is
	// absent.
	Get(key, dst []byte) ([]byte, bool, error)
	// NewIter returns an iterator over keys in [lower, upper) (upper nil: no bound), positioned
	// before the first key.
	NewIter(lower, upper []byte) (Iter, error)
	// Maintain runs the store's maintenance between the load and the query phases and says what it
	// did.
	Maintain(ctx context.Context) (string, error)
	// Size returns the store's own figure for its logical size in bytes, false if it has none.
	Size() (int64, bool)
	// Close closes the store.
	Close() error
}

// Batch collects writes to commit atomically.
type Batch interface {
	// Set stores value under key. Both slices may be reused by the caller after Set returns.
	Set(key, value []byte) error
	// Delete removes key. The slice may be reused by the caller after Delete returns.
	Delete(key []byte) error
	// Commit applies the batch atomically (durably when the store syncs on commit) and empties it
	// for reuse.
	Commit() error
	// Close releases the batch without committing what it holds.
	Close() error
}

// Iter walks keys in order. Key and Value are valid until the next call on the iterator.
type Iter interface {
	// SeekGE positions at the first key >= key and reports whether there is one.
	SeekGE(key []byte) bool
	// Next advances and reports whether the iterator is still on a key.
	Next() bool
	// SeekLT positions at the last key < key and reports whether there is one. It may return a
	// key below the iterator's lower bound: the caller checks.
	SeekLT(key []byte) bool
	// Prev moves back one key and reports whether the iterator is still on a key (lower bound:
	// as SeekLT).
	Prev() bool
	// Key returns the current key.
	Key() []byte
	// Value returns the current value.
	Value() []byte
	// Close releases the iterator and returns the first error it met.
	Close() error
}
