package workload

import (
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/runner"
)

// Operation kinds and presentations that several workloads share: a load that inserts rows in
// batches and an index build after it. A workload may declare its own instead.
var (
	// KindInsert is a batch of rows inserted in one transaction, counted by rows.
	KindInsert = runner.Kind{Name: "insert", Role: results.RoleWrite, Unit: "rows", CountUnits: true}
	// KindCreateIndex is the build of a table's secondary indexes, counted by the rows indexed.
	KindCreateIndex = runner.Kind{Name: "create_index", Role: results.RoleWrite, Unit: "rows", CountUnits: true}

	// LoadPresentation is a load step's: inserts/s, per-op figures per inserted row.
	LoadPresentation = runner.Presentation{RateName: "ips", RateUnit: "rows/s", PerOp: "inserted row",
		Note: "per-op figures per inserted row"}
	// IndexPresentation is an index build's: indexed rows/s, per-op figures per indexed row.
	IndexPresentation = runner.Presentation{RateName: "rate", RateUnit: "rows/s", PerOp: "indexed row",
		Note: "rate = indexed rows/s (inserts + index build), per-op figures per indexed row"}
)
