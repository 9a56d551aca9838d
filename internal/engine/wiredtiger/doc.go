// Package wiredtiger registers the "wiredtiger" engine: WiredTiger, MongoDB's default storage
// engine, through a small cgo binding to the system's libwiredtiger (Debian's libwiredtiger-dev
// 3.2.1), under the KV family adapter. As MongoDB lays collections out, every table and every
// secondary index is a WiredTiger table of its own (keyed by the adapter's 4-byte table or index
// id), with block compression, a journal (log) synced per commit following --sync, and
// checkpoints at MongoDB's interval (60 s, overridable).
//
// It needs cgo and the library, so it is built with the build tag wiredtiger (the Makefile
// installs the library and sets the tag); a binary built without it lists the engine and refuses
// it with one line saying how to get it (disabled.go).
package wiredtiger

const (
	name        = "wiredtiger"
	description = "B-tree with a journal and checkpoints (WiredTiger, MongoDB's engine), a table per table and index"
)

var options = map[string]string{
	"compression":     "block compression: none, snappy, zlib (default snappy, as MongoDB)",
	"checkpoint_secs": "seconds between checkpoints, 0 for none but the cleanup's (default 60, as MongoDB)",
}

// Names of the cache-pressure counters among the engine counters (steps.json engine_counters,
// deltas over the step unless named with table.LevelSuffix, which are levels at its end).
const (
	// CounterAppEvictPages is the pages rumbench's own threads evicted because the cache was
	// full or too dirty ("cache: pages evicted by application threads"), pages.
	CounterAppEvictPages = "app_evict_pages"
	// CounterAppEvictUs is the time rumbench's threads spent evicting pages ("thread-yield:
	// application thread time evicting (usecs)"), µs.
	CounterAppEvictUs = "app_evict_us"
	// CounterAppCacheWaitUs is the time rumbench's threads spent in the cache-full path,
	// evicting or waiting for space ("thread-yield: application thread time waiting for cache
	// (usecs)", which includes CounterAppEvictUs), µs: the engine's stall time (stall_us/op).
	CounterAppCacheWaitUs = "app_cache_wait_us"
	// CounterCacheBytes is the bytes in the cache at the step's end ("cache: bytes currently in
	// the cache"), a level.
	CounterCacheBytes = "cache_bytes_now"
	// CounterCacheDirtyBytes is the dirty bytes in the cache at the step's end ("cache: tracked
	// dirty bytes in the cache"), a level.
	CounterCacheDirtyBytes = "cache_dirty_bytes_now"
)
