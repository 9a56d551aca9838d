// Package insert is the insert benchmark (iibench): one table per client with an append-only
// primary key and three secondary indexes on random columns, loaded, indexed, written with
// random-key index maintenance, then queried by one closed-loop client per table while a
// background writer inserts at a fixed rate.
//
// Steps, per client (see docs/insert-benchmark.md):
//
//	l.i0    load Rows rows in primary-key order, no secondary indexes, 100 rows per commit
//	l.x     insert 100 rows, then create the 3 secondary indexes (rate = indexed rows/s)
//	l.i1    insert 4/5 of Writes rows, 50 rows per commit, as fast as possible
//	l.i2    insert 1/5 of Writes rows, 5 rows per commit
//	qr100   range queries + a writer paced at 100 rows/s (50 rows per commit) for QuerySecs
//	qp100   point queries + the same writer
//	qr500, qp500, qr1000, qp1000   the same at 500 and 1000 rows/s
//
// With DeletePerInsert each insert batch is followed, on its own session, by a delete of as many
// of the oldest rows, so the table size stays constant.
//
// The workload is in the framework's shape (workload.Define, Base): its settings are declared
// once in flags.go, from which the flags, their checks, the recorded configuration, the banner
// and the reuse identity (the clients, the rows each loads, the seed) derive.
package insert

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rumbench/rumbench/internal/workload"
)

// stepDecls are the steps in the order they run; l.i0 and l.x load the data that rumbench
// prepare keeps.
var stepDecls = []workload.StepDecl{{Name: "l.i0", Load: true}, {Name: "l.x", Load: true}, {Name: "l.i1"}, {Name: "l.i2"},
	{Name: "qr100"}, {Name: "qp100"}, {Name: "qr500"}, {Name: "qp500"}, {Name: "qr1000"}, {Name: "qp1000"}}

// StepNames lists the steps in the order they run.
var StepNames = workload.StepNames(stepDecls)

// Config sizes the workload: one field per setting (flags.go), then what the run derives. Sizes
// are per client, as in the reference's scripts.
type Config struct {
	// Clients is the number of clients; each has its own table (pi1..piN), writer and query thread.
	Clients int
	// Rows is the rows each client loads in l.i0.
	Rows int64
	// Writes is the rows each client inserts in l.i1 (4/5) and l.i2 (1/5).
	Writes int64
	// QuerySecs is the intended duration of each query step: its writer inserts QuerySecs × rate
	// rows. A step that has not finished after 3 × QuerySecs + 10 s is stopped and flagged.
	QuerySecs float64
	// RowsPerCommit overrides the per-step batch sizes (100, 50, 5, 50) when > 0 (not l.x's 100).
	RowsPerCommit int
	// DeletePerInsert deletes as many of the oldest rows as each batch inserts.
	DeletePerInsert bool
	// Steps are the steps to run, comma-separated, run in reference order; "" means all.
	Steps string
	// WarmupSecs at the start of each query step are not measured (--warmup-secs).
	WarmupSecs float64
	// CleanupWaitSecs is how long to wait after the cleanup before the first query step starts,
	// counted from the cleanup's start; -1 means the reference's 60 s + 1 s per million
	// loaded rows (at most 1200 s) (--cleanup-wait-secs).
	CleanupWaitSecs float64

	// Now is the clock for dateandtime (nil: time.Now).
	Now func() time.Time
	// Regime is the profile's regime, RegimeCached or RegimeIOBound (set by Build from the
	// profile); with RegimeCached CacheMB sizes each engine's cache (cache.go).
	Regime string
}

// Default returns the quick profile's configuration.
func Default() Config { return settings.Defaults("quick") }

// Workload is the configured insert benchmark. With a shard of a split run (workload.Sharder)
// the run has Shard.Count × Clients clients and this one runs clients
// Shard.Index×Clients .. (Shard.Index+1)×Clients−1.
type Workload struct {
	*workload.Base[Config]
}

var _ workload.Workload = (*Workload)(nil)

// New returns the workload for cfg, its settings taken as they are (no profile applied) and
// validated, its data and keys drawn from seed. Steps run in reference order whatever the
// order of cfg.Steps.
func New(cfg Config, seed uint64) (*Workload, error) {
	return workload.Make[Config, *Workload](shape, cfg, workload.Shared{Seed: seed})
}

// build makes the insert benchmark from its base, once the settings are valid: the regime of
// the profile, the clock, and the memory the configuration needs checked against the run's.
func build(b *workload.Base[Config], s workload.Shared) (workload.Workload, error) {
	b.Cfg.Regime = regimeOf(s.Profile)
	if b.Cfg.Now == nil {
		b.Cfg.Now = time.Now
	}
	if err := s.Memory.Check("insert", b.Cfg.memNeed()); err != nil {
		return nil, err
	}
	return &Workload{Base: b}, nil
}

// recordRun are the run's derived figures that the manifest records: the wait the cleanup's
// formula gives, and the schema's and the queries' constants.
func recordRun(b *workload.Base[Config]) map[string]any {
	return map[string]any{
		"cleanup_wait_secs": cleanupWait(&b.Cfg, b.Shard).Seconds(),
		"secondary_indexes": 3,
		"regime":            b.Cfg.Regime,
		"rows_per_query":    rowsPerQuery,
		"data_length":       fmt.Sprintf("%d..%d", dataMinLen, dataMaxLen),
		"data_random_pct":   dataRandomPct,
	}
}

var _ workload.Sharder = (*Workload)(nil)

// SetShard implements workload.Sharder: the run has Count × Clients clients, each with its own
// table, and shard Index runs the Clients of them numbered from Index × Clients. The rows,
// keys and query choices of a client depend on its number only, so the shards together do what
// one process with Count × Clients clients does.
func (w *Workload) SetShard(s workload.Shard) error {
	if s.Count > 1 && w.Cfg.Clients*s.Count > 1<<20 {
		return fmt.Errorf("--shard %s: %d clients in all is too many (at most %d)", s, w.Cfg.Clients*s.Count, 1<<20)
	}
	return w.Base.SetShard(s)
}

// ShardPart implements workload.Sharder ("" in an unsplit run).
func (w *Workload) ShardPart() string {
	if w.Shard.Count <= 1 {
		return ""
	}
	nos := w.clientNos()
	return fmt.Sprintf("clients %d..%d of %d: tables pi%d..pi%d", nos[0]+1, nos[len(nos)-1]+1, w.Cfg.Clients*w.Shard.Count, nos[0]+1, nos[len(nos)-1]+1)
}

// clientNos are the numbers (0-based; client i has table pi<i+1>) of the clients this process
// runs.
func (w *Workload) clientNos() []int {
	first := w.Shard.Index * w.Cfg.Clients
	out := make([]int, w.Cfg.Clients)
	for i := range out {
		out[i] = first + i
	}
	return out
}

// Unloaded implements workload.Unloaded: the steps after l.i0 run on the rows it loaded; without
// it they start on empty tables (Open creates them, on every engine).
func (w *Workload) Unloaded(bool) (string, bool) {
	steps := w.Steps()
	if len(steps) == 0 || w.Runs("l.i0") {
		return "", false
	}
	verb := "start"
	if len(steps) == 1 {
		verb = "starts"
	}
	return fmt.Sprintf("l.i0 (the load of --rows) does not run: %s %s on empty tables", strings.Join(steps, ", "), verb), false
}

// cleanupWait is the configured wait after the cleanup, the reference's formula when -1 (its
// rows are those of every shard's clients).
func cleanupWait(c *Config, shard workload.Shard) time.Duration {
	return workload.CleanupWait(c.CleanupWaitSecs, c.Rows*int64(c.Clients*max(shard.Count, 1)))
}

// rowsPerCommit returns the batch size of a step's writer.
func (w *Workload) rowsPerCommit(step string) int {
	if w.Cfg.RowsPerCommit > 0 {
		return w.Cfg.RowsPerCommit
	}
	switch step {
	case "l.i0":
		return 100
	case "l.i2":
		return 5
	}
	return 50
}

// queryRate returns the background writer's rate per client of a query step (qr500 → 500).
func queryRate(step string) float64 {
	var n float64
	fmt.Sscanf(step[2:], "%g", &n)
	return n
}

// stepIndex is the position of step among StepNames (-1: none).
func stepIndex(step string) int { return slices.Index(StepNames, step) }
