// Package kv is CockroachDB's kv workload: upserts, point reads of --batch keys and span queries
// on one table of int64 keys and byte values. It declares its settings, its table, its load as
// batches and its run step; flags, validation, the banner, the reuse identity, shards, the load,
// the client-count sweep and the cache plan come from the framework (docs/design.md).
//
// Keys: write numbers 0, 1, 2 ... map to keys by a hash (CockroachDB's default) or, with
// --sequential, are the keys. The load inserts numbers 0 .. insert-count−1 and the run's writes
// continue the sequence (as CockroachDB's --write-seq); reads draw numbers below the highest up to
// which every write committed, so every key read exists. With --zipfian, writes and reads draw
// loaded numbers from a zipfian distribution (updates of hot keys).
package kv

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
)

// Config is the workload's configuration: one field per setting.
type Config struct {
	InsertCount                                  int64
	Batch, Concurrency, ReadPercent, SpanPercent int
	SpanLimit, MinBlock, MaxBlock                int
	Sequential, Zipfian                          bool
	RunSecs                                      float64
}

// StepLoad and StepRun are the step names.
const StepLoad, StepRun = "load", "run"

var steps = []workload.StepDecl{{Name: StepLoad, Load: true}, {Name: StepRun}}

const loadBatch = 1000 // rows a load transaction inserts, as CockroachDB's initial rows

var run = []string{StepRun} // the steps of the run's settings

var settings = workload.Params[Config]{
	workload.Int(func(c *Config) *int64 { return &c.InsertCount }, workload.Number[int64]{Name: "insert-count", Unit: "rows", Steps: []string{StepLoad},
		Help: "rows the load inserts", Min: 0, Max: 1 << 36, Profiles: map[string]int64{"quick": 100_000, "small": 1_000_000, "standard": 10_000_000}}),
	workload.Int(func(c *Config) *int { return &c.MinBlock }, workload.Number[int]{Name: "min-block-bytes", Unit: "bytes", Help: "least bytes of a value", Default: 1, Min: 1, Max: 1 << 20}),
	workload.Int(func(c *Config) *int { return &c.MaxBlock }, workload.Number[int]{Name: "max-block-bytes", Unit: "bytes", Help: "most bytes of a value", Default: 1, Min: 1, Max: 1 << 20}),
	workload.Bool(func(c *Config) *bool { return &c.Sequential }, workload.Switch{Name: "sequential", Help: "keys in write order, not hashed"}),
	workload.Bool(func(c *Config) *bool { return &c.Zipfian }, workload.Switch{Name: "zipfian", Runtime: true, Steps: run,
		Help: "writes and reads draw loaded keys from a zipfian distribution (theta 0.99)"}),
	workload.Int(func(c *Config) *int { return &c.Batch }, workload.Number[int]{Name: "batch", Unit: "keys", Runtime: true, Steps: run,
		Help: "keys a read reads (one IN list) or a write upserts (one transaction)", Default: 1, Min: 1, Max: 1000}),
	workload.Int(func(c *Config) *int { return &c.ReadPercent }, workload.Number[int]{Name: "read-percent", Unit: "%", Runtime: true, Steps: run,
		Help: "operations that read existing keys", Min: 0, Max: 100}),
	workload.Int(func(c *Config) *int { return &c.SpanPercent }, workload.Number[int]{Name: "span-percent", Unit: "%", Runtime: true, Steps: run,
		Help: "operations that are span queries (the rest write)", Min: 0, Max: 100}),
	workload.Int(func(c *Config) *int { return &c.SpanLimit }, workload.Number[int]{Name: "span-limit", Unit: "rows", Runtime: true, Steps: run,
		Help: "rows a span counts from a random key, 0 for the whole table", Min: 0, Max: 1 << 30}),
	workload.Int(func(c *Config) *int { return &c.Concurrency }, workload.Number[int]{Name: "concurrency", Runtime: true, Help: "clients", Default: 1, Min: 1, Max: 4096}),
	workload.Float(func(c *Config) *float64 { return &c.RunSecs }, workload.Number[float64]{Name: "run-secs", Unit: "s", Runtime: true, Steps: run,
		Help: "seconds of the run step", Min: 0.001, Max: 7 * 86400, Profiles: map[string]float64{"quick": 10, "small": 60, "standard": 600}}),
}

func init() {
	workload.Register(workload.Spec{
		Name:        "kv",
		Description: "CockroachDB's kv: upserts, point reads of --batch keys and span queries on one table of int64 keys and byte values",
		Steps:       workload.StepNames(steps),
		Profiles:    []string{"quick", "small", "standard"},
		Rates: []workload.Rate{{Name: "ips", Unit: "rows/s", Meaning: "rows inserted per second (load)"},
			{Name: "ops", Unit: "operations/s", Meaning: "reads, writes and span queries per second, each once (run)"}},
		Headline: []string{"run:tcpu_us/op", "run:wKB/op"},
		Clients:  "concurrency",
		New: func() workload.Definition {
			return workload.Define(workload.Shape[Config]{Name: "kv", Settings: settings, Steps: steps,
				Clients: func(c *Config) *int { return &c.Concurrency }, Validate: validate, Build: build,
				// The cache holds the loaded rows: the engine's bytes per row of a 1-byte value, and the values' other bytes.
				Data: func(c *Config) (string, float64, float64) {
					return "kv.row", float64(c.InsertCount), float64(c.MinBlock+c.MaxBlock)/2 - 1
				}})
		},
	})
}

func validate(c *Config) error {
	switch {
	case c.MaxBlock < c.MinBlock:
		return fmt.Errorf("--max-block-bytes %d: want at least --min-block-bytes (%d)", c.MaxBlock, c.MinBlock)
	case c.ReadPercent+c.SpanPercent > 100:
		return fmt.Errorf("--read-percent %d and --span-percent %d: want at most 100 together", c.ReadPercent, c.SpanPercent)
	case c.Zipfian && (c.InsertCount == 0 || c.Sequential):
		return fmt.Errorf("--zipfian: draws loaded keys, so it needs --insert-count of at least 1 and no --sequential")
	}
	return nil
}

// Workload is the configured kv workload.
type Workload struct {
	*workload.Base[Config]
	t                        *table.Table
	read, read1, write, span *table.Stmt
}

func build(b *workload.Base[Config], s workload.Shared) (workload.Workload, error) {
	t := &table.Table{Name: "kv", Columns: []table.Column{{Name: "k", Type: table.Int64, NotNull: true}, {Name: "v", Type: table.Bytes, NotNull: true}}}
	w := &Workload{Base: b, t: t, read: readStmt(t, b.Cfg.Batch), read1: readStmt(t, 1)}
	b.Opens(func() []*table.Table { return []*table.Table{t} }, w.openRun)
	// An upsert of (k, v); a span counts the values from a key (--span-limit), or the table's.
	w.write = &table.Stmt{Table: t, Kind: table.Upsert, Index: -1, Set: []table.Assign{{Col: 1}},
		SQL: "INSERT INTO kv (k, v) VALUES (?, ?) ON DUPLICATE KEY UPDATE v = ?",
		Dialects: map[string]string{table.DialectPostgres: "INSERT INTO kv (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = $3",
			table.DialectSQLite: "INSERT INTO kv (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = ?"}}
	w.span = &table.Stmt{Table: t, Kind: table.Select, Index: -1, Match: table.All, Agg: table.Count, AggCol: 1, Cols: []int{1},
		SQL: "SELECT count(v) FROM kv"}
	if b.Cfg.SpanLimit > 0 {
		w.span = &table.Stmt{Table: t, Kind: table.Select, Index: -1, Match: table.From, Cols: []int{1},
			SQL: "SELECT v FROM kv WHERE k >= ? ORDER BY k LIMIT ?"}
	}
	return w, nil
}

// readStmt is SELECT k, v FROM kv WHERE k IN (n keys).
func readStmt(t *table.Table, n int) *table.Stmt {
	return &table.Stmt{Table: t, Kind: table.Select, Index: -1, Match: table.In, InLen: n, Cols: []int{0, 1},
		SQL: "SELECT k, v FROM kv WHERE k IN (?" + strings.Repeat(", ?", n-1) + ")"}
}

// Run is the workload's state on one engine.
type Run struct {
	workload.RunBase
	w *Workload
	// ack hands out and acknowledges this shard's writes; missing counts keys reads did not find.
	ack     *gen.AckCounter
	missing atomic.Int64
	// written0 and rows are the acknowledged new keys and the table's rows before a step with
	// faults, lost the acknowledged keys its checks did not find (see acks.go).
	written0, lost int64
	rows           workload.Growth
}

// openRun opens a run on the table (workload.Base.Opens).
func (w *Workload) openRun(ctx context.Context, eng table.Engine, existing bool) (workload.Run, error) {
	if !existing {
		return w.newRun(eng, 0, 0), nil
	}
	lo, hi := w.loaded()
	if w.Shard.Count > 1 || w.Cfg.Zipfian {
		return w.newRun(eng, hi-lo, 0), nil
	}
	n, err := workload.CountRows(ctx, eng, w.t)
	if err != nil {
		return nil, err
	}
	return w.newRun(eng, hi-lo, max(n[0]-w.Cfg.InsertCount, 0)), nil // earlier runs' writes: this run's come after
}

// loaded is the write numbers this shard loads: its range of the load's batches.
func (w *Workload) loaded() (lo, hi int64) {
	lo, hi = w.Shard.Range((w.Cfg.InsertCount + loadBatch - 1) / loadBatch)
	return lo * loadBatch, min(hi*loadBatch, w.Cfg.InsertCount)
}

// newRun is a run on eng whose table holds loaded rows of this shard's load and written writes.
func (w *Workload) newRun(eng table.Engine, loaded, written int64) *Run {
	r := &Run{RunBase: workload.RunBase{Eng: eng, Load: workload.Loader{Clients: w.Cfg.Concurrency, Shard: w.Shard,
		Batches: []workload.Batches{{Table: w.t, Rows: loadBatch, Count: (w.Cfg.InsertCount + loadBatch - 1) / loadBatch, Fill: w.fill}}}},
		w: w, ack: gen.NewAckCounter(written)}
	r.Load.SetLoaded(loaded)
	return r
}

// Rows implements workload.Run: the rows this process loaded and the new keys it wrote.
func (r *Run) Rows() int64 { return r.Load.Rows() + r.written() }

// Step implements workload.Run.
func (r *Run) Step(ctx context.Context, name string) (runner.Step, error) {
	return r.StepOf(ctx, name, name == StepLoad, r.runStep)
}
