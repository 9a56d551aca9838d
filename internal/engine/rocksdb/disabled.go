//go:build !rocksdb

package rocksdb

import (
	"context"
	"errors"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/table"
)

const unavailable = "this rumbench was built without RocksDB: build it with make (which installs librocksdb-dev) or go build -tags rocksdb"

func init() {
	engine.Register(engine.Spec{
		Name: name, Description: description, Options: options,
		CachePerFileByte: 3, PerUnitBytes: perUnitBytes, Unavailable: unavailable, // its block cache holds blocks uncompressed
		Open: func(context.Context, engine.Options) (table.Engine, error) { return nil, errors.New(unavailable) },
	})
}
