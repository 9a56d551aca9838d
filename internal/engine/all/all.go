// Package all links every engine into the binary. Import it for its side effects.
package all

import (
	_ "github.com/rumbench/rumbench/internal/engine/bbolt"      // bbolt
	_ "github.com/rumbench/rumbench/internal/engine/lmdb"       // lmdb
	_ "github.com/rumbench/rumbench/internal/engine/mongo"      // mongo
	_ "github.com/rumbench/rumbench/internal/engine/mysql"      // mysql, myrocks
	_ "github.com/rumbench/rumbench/internal/engine/null"       // null
	_ "github.com/rumbench/rumbench/internal/engine/pebble"     // pebble
	_ "github.com/rumbench/rumbench/internal/engine/postgres"   // postgres
	_ "github.com/rumbench/rumbench/internal/engine/rocksdb"    // rocksdb (build tag rocksdb)
	_ "github.com/rumbench/rumbench/internal/engine/sqlite"     // sqlite
	_ "github.com/rumbench/rumbench/internal/engine/wiredtiger" // wiredtiger (build tag wiredtiger)
)
