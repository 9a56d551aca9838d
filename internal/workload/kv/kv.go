// Package kv is CockroachDB's kv workload as a rumbench workload: one table of int64 keys and
// byte values, upserts and point reads of --batch keys, and span queries, the workload
// distributed-SQL teams run most. It is in the framework's shape (workload.Define, Base,
// Loader): the package declares its settings, its table, its load as batches and its run step;
// flags, validation, the banner, the reuse identity, shards, the load, the client-count sweep
// and the cache plan come from the framework (see docs/design.md, "Adding a workload").
//
// Keys: the write sequence numbers 0, 1, 2 ... (modulo --cycle-length) map to keys by a hash of
// the number and the seed (spread over the int64 range, CockroachDB's default), or to the number
// itself with --sequential. The load inserts the keys of numbers 0 .. insert-count−1 and the run's
// writes continue the sequence, as CockroachDB's --write-seq continues an earlier run's; reads
// draw a number uniformly below the highest every write up to which has committed, so every read
// key exists. With --zipfian, writes and reads draw numbers from a zipfian distribution over the
// loaded keys instead (updates of hot keys).
package kv

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"strings"
	"sync/atomic"

	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
)

// Config is the workload's configuration: one field per setting.
type Config struct {
	InsertCount, CycleLength int64
	Batch, Concurrency       int
	ReadPercent, SpanPercent int
	SpanLimit                int
	MinBlock, MaxBlock       int
	Sequential, Zipfian      bool
	RunSecs                  float64
	Steps                    string
}

// Step names.
const (
	StepLoad = "load"
	StepRun  = "run"
)

var steps = []workload.StepDecl{{Name: StepLoad, Load: true}, {Name: StepRun}}

// loadBatch is the rows of one load transaction (CockroachDB's initial rows come in batches of
// 1000).
const loadBatch = 1000

var settings = workload.Params[Config]{
	workload.Int(func(c *Config) *int64 { return &c.InsertCount }, workload.Number[int64]{Name: "insert-count", Unit: "rows",
		Help: "rows the load step inserts (the keys of write numbers 0..n-1)", Steps: []string{StepLoad},
		Profiles: map[string]int64{"quick": 100_000, "small": 1_000_000, "standard": 10_000_000}, Min: 0, Max: 1 << 36}),
	workload.Int(func(c *Config) *int64 { return &c.CycleLength }, workload.Number[int64]{Name: "cycle-length", Unit: "keys",
		Help: "keys the writes cycle through (the write number modulo it)", Default: 1 << 62, Min: 1, Max: 1 << 62}),
	workload.Int(func(c *Config) *int { return &c.MinBlock }, workload.Number[int]{Name: "min-block-bytes", Unit: "bytes",
		Help: "least bytes of a value", Default: 1, Min: 1, Max: 1 << 20}),
	workload.Int(func(c *Config) *int { return &c.MaxBlock }, workload.Number[int]{Name: "max-block-bytes", Unit: "bytes",
		Help: "most bytes of a value (a value's length is uniform between the two)", Default: 1, Min: 1, Max: 1 << 20}),
	workload.Bool(func(c *Config) *bool { return &c.Sequential }, workload.Switch{Name: "sequential",
		Help: "keys are the write numbers themselves (in order), not their hash"}),
	workload.Bool(func(c *Config) *bool { return &c.Zipfian }, workload.Switch{Name: "zipfian", Runtime: true, Steps: []string{StepRun},
		Help: "writes and reads draw loaded keys from a zipfian distribution (theta 0.99)"}),
	workload.Int(func(c *Config) *int { return &c.Batch }, workload.Number[int]{Name: "batch", Unit: "keys", Runtime: true, Steps: []string{StepRun},
		Help: "keys a read reads (one IN list) or a write upserts (one transaction)", Default: 1, Min: 1, Max: 1000}),
	workload.Int(func(c *Config) *int { return &c.ReadPercent }, workload.Number[int]{Name: "read-percent", Unit: "%", Runtime: true, Steps: []string{StepRun},
		Help: "operations that read --batch existing keys", Min: 0, Max: 100}),
	workload.Int(func(c *Config) *int { return &c.SpanPercent }, workload.Number[int]{Name: "span-percent", Unit: "%", Runtime: true, Steps: []string{StepRun},
		Help: "operations that are span queries (the rest write)", Min: 0, Max: 100}),
	workload.Int(func(c *Config) *int { return &c.SpanLimit }, workload.Number[int]{Name: "span-limit", Unit: "rows", Runtime: true, Steps: []string{StepRun},
		Help: "rows a span query counts from a random key, 0 for the whole table", Min: 0, Max: 1 << 30}),
	workload.Int(func(c *Config) *int { return &c.Concurrency }, workload.Number[int]{Name: "concurrency", Runtime: true,
		Help: "clients of the load and the run", Default: 1, Min: 1, Max: 4096}),
	workload.Float(func(c *Config) *float64 { return &c.RunSecs }, workload.Number[float64]{Name: "run-secs", Unit: "s", Runtime: true, Steps: []string{StepRun},
		Help: "seconds of the run step", Profiles: map[string]float64{"quick": 10, "small": 60, "standard": 600}, Min: 0.001, Max: 7 * 86400}),
	workload.String(func(c *Config) *string { return &c.Steps }, workload.Text{Name: "steps", Runtime: true,
		Help: "steps to run: load,run (default both)"}),
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
				Choose: func(c *Config) *string { return &c.Steps }, ChooseFlag: "steps",
				Clients: func(c *Config) *int { return &c.Concurrency }, Validate: validate, Build: build})
		},
	})
}

func validate(c *Config) error {
	switch {
	case c.MaxBlock < c.MinBlock:
		return fmt.Errorf("--max-block-bytes %d: want at least --min-block-bytes (%d)", c.MaxBlock, c.MinBlock)
	case c.ReadPercent+c.SpanPercent > 100:
		return fmt.Errorf("--read-percent %d and --span-percent %d: want at most 100 together", c.ReadPercent, c.SpanPercent)
	case c.Zipfian && c.InsertCount == 0:
		return fmt.Errorf("--zipfian: draws loaded keys, so it needs --insert-count of at least 1")
	case c.Zipfian && c.Sequential:
		return fmt.Errorf("--zipfian and --sequential: give one of them")
	}
	return nil
}

// Workload is the configured kv workload.
type Workload struct {
	*workload.Base[Config]
	t                 *table.Table
	read, write, span *table.Stmt
}

func build(b *workload.Base[Config], s workload.Shared) (workload.Workload, error) {
	c := &b.Cfg
	t := &table.Table{Name: "kv", Columns: []table.Column{{Name: "k", Type: table.Int64, NotNull: true}, {Name: "v", Type: table.Bytes, NotNull: true}}}
	w := &Workload{Base: b, t: t}
	// SELECT k, v FROM kv WHERE k IN (...); an upsert of (k, v); the span: a count of the
	// values from a key, or of the whole table.
	w.read = &table.Stmt{Table: t, Kind: table.Select, Index: -1, Match: table.In, InLen: c.Batch, Cols: []int{0, 1},
		SQL: "SELECT k, v FROM kv WHERE k IN (?" + strings.Repeat(", ?", c.Batch-1) + ")"}
	w.write = &table.Stmt{Table: t, Kind: table.Upsert, Index: -1, Set: []table.Assign{{Col: 1}},
		SQL: "INSERT INTO kv (k, v) VALUES (?, ?) ON DUPLICATE KEY UPDATE v = ?",
		Dialects: map[string]string{table.DialectPostgres: "INSERT INTO kv (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = $3",
			table.DialectSQLite: "INSERT INTO kv (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = ?"}}
	w.span = &table.Stmt{Table: t, Kind: table.Select, Index: -1, Match: table.All, Agg: table.Count, AggCol: 1, Cols: []int{1},
		SQL: "SELECT count(v) FROM kv"}
	if c.SpanLimit > 0 {
		w.span = &table.Stmt{Table: t, Kind: table.Select, Index: -1, Match: table.From, Cols: []int{1},
			SQL: "SELECT v FROM kv WHERE k >= ? ORDER BY k LIMIT ?"}
	}
	return w, nil
}

// key is the key of write number n.
func (w *Workload) key(n int64) int64 {
	if w.Cfg.Sequential {
		return n
	}
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(n))
	binary.BigEndian.PutUint64(b[8:], w.Seed)
	h := fnv.New64a()
	h.Write(b[:])
	return int64(h.Sum64())
}

// value fills a value for write number n: random bytes of a length between the bounds.
func (w *Workload) value(rows *table.Rows, rng *gen.Rand) []byte {
	v := rows.Alloc(int(rng.Range(int64(w.Cfg.MinBlock), int64(w.Cfg.MaxBlock))))
	for i := range v {
		v[i] = byte(rng.Uint64())
	}
	return v
}

// Tables implements workload.Reuser.
func (w *Workload) Tables() []*table.Table { return []*table.Table{w.t} }

// Run is the workload's state on one engine.
type Run struct {
	w        *Workload
	eng      table.Engine
	sessions workload.Sessions
	load     workload.Loader
	// ack hands out and acknowledges the run's write numbers (from insert-count on, this
	// shard's every Count-th); missing counts read keys not found.
	ack     *gen.AckCounter
	missing atomic.Int64
}

// Open implements workload.Workload: it creates the table.
func (w *Workload) Open(ctx context.Context, eng table.Engine) (workload.Run, error) {
	if err := eng.CreateTable(ctx, w.t, true); err != nil {
		return nil, err
	}
	return w.newRun(eng, 0), nil
}

// Reopen implements workload.Reuser: the table an earlier run loaded with equal settings.
func (w *Workload) Reopen(ctx context.Context, eng table.Engine, k table.Keeper) (workload.Run, error) {
	if err := workload.AttachAll(ctx, k, w.Tables(), false); err != nil {
		return nil, err
	}
	lo, hi := w.Shard.Range(w.Cfg.InsertCount)
	r := w.newRun(eng, hi-lo)
	if w.Shard.Count <= 1 && !w.Cfg.Zipfian {
		// Earlier runs' writes: this run's continue the sequence after them.
		sess, err := eng.NewSession(ctx)
		if err != nil {
			return nil, err
		}
		defer sess.Close()
		n, err := sess.Count(ctx, w.t, -1)
		if err != nil {
			return nil, err
		}
		r.ack = gen.NewAckCounter(max(n-w.Cfg.InsertCount, 0))
	}
	return r, nil
}

// SharesTables implements workload.SharedTables: the shards share the table.
func (w *Workload) SharesTables() bool { return true }

// Attach implements workload.SharedTables.
func (w *Workload) Attach(ctx context.Context, eng table.Engine, k table.Keeper) (workload.Run, error) {
	if err := workload.AttachAll(ctx, k, w.Tables(), false); err != nil && w.Cfg.InsertCount > 0 {
		return nil, err
	}
	return w.newRun(eng, 0), nil
}

func (w *Workload) newRun(eng table.Engine, loaded int64) *Run {
	r := &Run{w: w, eng: eng, ack: gen.NewAckCounter(0)}
	r.load = workload.Loader{Clients: w.Cfg.Concurrency, Shard: w.Shard, Batches: []workload.Batches{{Table: w.t, Rows: loadBatch,
		Count: (w.Cfg.InsertCount + loadBatch - 1) / loadBatch, Fill: w.fill}}}
	r.load.SetLoaded(loaded)
	return r
}

// fill writes load batch i: the keys of write numbers i×loadBatch on, their values drawn from a
// generator seeded by the number.
func (w *Workload) fill(i int64, rows *table.Rows) {
	for n := i * loadBatch; n < min((i+1)*loadBatch, w.Cfg.InsertCount); n++ {
		rng := gen.NewRand(gen.Mix(w.Seed ^ uint64(n)))
		row := rows.Append()
		row[0].I, row[1].B = w.key(n), w.value(rows, &rng)
	}
}

// Prepare implements workload.Run: nothing precedes a step.
func (r *Run) Prepare(context.Context, string) (string, error) { return "", nil }

// Close implements workload.Run.
func (r *Run) Close() error { return r.sessions.Close() }

// Rows implements workload.Run: the rows this process loaded and the new keys it wrote.
func (r *Run) Rows() int64 { return r.load.Rows() + r.written() }

// written is the number of new keys the acknowledged writes added (none past the cycle).
func (r *Run) written() int64 {
	if r.w.Cfg.Zipfian {
		return 0
	}
	n := r.ack.Last() + 1
	return max(min(n, (r.w.Cfg.CycleLength-r.w.Cfg.InsertCount)/int64(max(r.w.Shard.Count, 1))), 0)
}

// number returns the write number of this shard's n-th write (after the load's numbers).
func (r *Run) number(n int64) int64 {
	s := r.w.Shard
	return (r.w.Cfg.InsertCount + n*int64(max(s.Count, 1)) + int64(s.Index)) % r.w.Cfg.CycleLength
}

// Step implements workload.Run.
func (r *Run) Step(ctx context.Context, name string) (runner.Step, error) {
	if err := r.sessions.Close(); err != nil {
		return runner.Step{}, err
	}
	if name == StepLoad {
		return r.load.Step(ctx, name, r.eng, &r.sessions)
	}
	return r.runStep(ctx)
}
