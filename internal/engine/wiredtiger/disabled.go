//go:build !wiredtiger

package wiredtiger

import (
	"context"
	"errors"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/table"
)

const unavailable = "this rumbench was built without WiredTiger: build it with make (which installs libwiredtiger-dev) or go build -tags wiredtiger"

func init() {
	engine.Register(engine.Spec{
		Name: name, Description: description, Options: options,
		// Pages in memory take 2.7 times their files (LinkBench's quick load); eviction starts at 80%.
		CachePerFileByte: 4, PerUnitBytes: perUnitBytes, Unavailable: unavailable,
		Open: func(context.Context, engine.Options) (table.Engine, error) { return nil, errors.New(unavailable) },
	})
}
