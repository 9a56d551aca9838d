// Package rocksdb registers the "rocksdb" engine: RocksDB (the LSM inside MyRocks and
// MongoRocks) through github.com/linxGnu/grocksdb and the system's librocksdb (Debian's
// librocksdb-dev 7.8.3), under the KV family adapter with MyRocks' layout.
//
// It needs cgo and the library, so it is built with the build tag rocksdb (the Makefile installs
// the library and sets the tag). A binary built without the tag lists the engine and refuses it
// with one line saying how to get it (disabled.go).
package rocksdb

// name, description and options are the engine's registration, the same in both builds.
const (
	name        = "rocksdb"
	description = "LSM tree (RocksDB, the engine of MyRocks and MongoRocks), KV layout as MyRocks"
)

var options = map[string]string{
	"memtable_mb":         "memtable (write buffer) size in MiB (default 64; under --memory-limit, what the engine's share leaves beside the cache for two, at most 64)",
	"bloom_bits":          "bloom filter bits per key, 0 for none (default 10, as MyRocks)",
	"compression":         "block compression of every level: none, snappy, lz4, zlib, zstd; or one per level, colon-separated from L0 (default snappy)",
	"max_background_jobs": "background flush and compaction threads (default 2)",
}
