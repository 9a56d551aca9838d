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
