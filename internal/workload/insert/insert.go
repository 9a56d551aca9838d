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
package insert

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/rumbench/rumbench/internal/workload"
)

// StepNames lists the steps in the order they run.
var StepNames = []string{"l.i0", "l.x", "l.i1", "l.i2", "qr100", "qp100", "qr500", "qp500", "qr1000", "qp1000"}

// Config sizes the workload. Sizes are per client, as in the reference's scripts.
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
	// Seed makes the data and the query keys reproducible.
	Seed uint64
	// Steps are the steps to run, in reference order; empty means all.
	Steps []string
	// CleanupWaitSecs is how long to wait after the cleanup before the first query step starts,
	// counted from the cleanup's start; negative means the reference's 60 s + 1 s per million
	// loaded rows (at most 1200 s).
	CleanupWaitSecs float64
	// Warmup is excluded from the measurement of each query step.
	Warmup time.Duration
	// Now is the clock for dateandtime (nil: time.Now).
	Now func() time.Time
	// Regime is the profile's regime, RegimeCached or RegimeIOBound; with RegimeCached
	// CacheMB sizes each engine's cache (cache.go).
	Regime string
}

// Default returns the quick profile's configuration.
func Default() Config {
	return Config{Clients: 1, Rows: 200_000, Writes: 50_000, QuerySecs: 5, Seed: 3221223452, CleanupWaitSecs: 0}
}

// runs says whether step is among the steps to run (every step when none is chosen).
func (c *Config) runs(step string) bool { return len(c.Steps) == 0 || slices.Contains(c.Steps, step) }

// Validate checks the configuration and returns one error that says what is wrong and what is
// valid.
func (c *Config) Validate() error {
	switch {
	case c.Clients < 1 || c.Clients > 1024:
		return fmt.Errorf("--clients %d: must be 1..1024", c.Clients)
	case c.Rows < 0 || (c.Rows == 0 && c.runs("l.i0")):
		return fmt.Errorf("--rows %d: must be >= 1 (the rows each client loads in l.i0)", c.Rows)
	case c.Writes < 0 || (c.Writes == 0 && (c.runs("l.i1") || c.runs("l.i2"))):
		return fmt.Errorf("--writes %d: must be >= 1 (the rows each client inserts in l.i1 and l.i2)", c.Writes)
	case !(c.QuerySecs > 0) || math.IsInf(c.QuerySecs, 1):
		return fmt.Errorf("--query-secs %g: must be > 0", c.QuerySecs)
	case c.RowsPerCommit < 0 || c.RowsPerCommit > 100_000:
		return fmt.Errorf("--rows-per-commit %d: must be 0 (per-step default) or 1..100000", c.RowsPerCommit)
	}
	for _, s := range c.Steps {
		if stepIndex(s) < 0 {
			return fmt.Errorf("unknown step %q (valid: %s)", s, strings.Join(StepNames, ", "))
		}
	}
	return nil
}

func stepIndex(name string) int {
	for i, s := range StepNames {
		if s == name {
			return i
		}
	}
	return -1
}

// Workload is the configured insert benchmark.
type Workload struct {
	cfg   Config
	steps []string
	// shard is the part of a split run this process does (workload.Sharder): with Count
	// shards the run has Count × Clients clients and this one runs clients
	// Index×Clients .. (Index+1)×Clients−1.
	shard workload.Shard
}

var _ workload.Workload = (*Workload)(nil)

// New returns the workload for a validated configuration. Steps run in reference order whatever
// the order of cfg.Steps.
func New(cfg Config) (*Workload, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	w := &Workload{cfg: cfg}
	for _, s := range StepNames {
		if len(cfg.Steps) == 0 || slices.Contains(cfg.Steps, s) {
			w.steps = append(w.steps, s)
		}
	}
	return w, nil
}

// Name implements workload.Workload.
func (w *Workload) Name() string { return "insert" }

// Steps implements workload.Workload.
func (w *Workload) Steps() []string { return w.steps }

// Config implements workload.Workload.
func (w *Workload) Config() map[string]any {
	m := map[string]any{
		"clients":           w.cfg.Clients,
		"rows":              w.cfg.Rows,
		"writes":            w.cfg.Writes,
		"query_secs":        w.cfg.QuerySecs,
		"rows_per_commit":   w.cfg.RowsPerCommit,
		"delete_per_insert": w.cfg.DeletePerInsert,
		"seed":              w.cfg.Seed,
		"warmup_secs":       w.cfg.Warmup.Seconds(),
		"steps":             w.steps,
		"cleanup_wait_secs": w.cleanupWait().Seconds(),
		"secondary_indexes": 3,
		"regime":            w.cfg.Regime,
		"rows_per_query":    rowsPerQuery,
		"data_length":       fmt.Sprintf("%d..%d", dataMinLen, dataMaxLen),
		"data_random_pct":   dataRandomPct,
	}
	if part := w.ShardPart(); part != "" {
		m["shard"] = part
	}
	return m
}

var _ workload.Sharder = (*Workload)(nil)

// SetShard implements workload.Sharder: the run has Count × Clients clients, each with its own
// table, and shard Index runs the Clients of them numbered from Index × Clients. The rows,
// keys and query choices of a client depend on its number only, so the shards together do what
// one process with Count × Clients clients does.
func (w *Workload) SetShard(s workload.Shard) error {
	if s.Count > 1 && w.cfg.Clients*s.Count > 1<<20 {
		return fmt.Errorf("--shard %s: %d clients in all is too many (at most %d)", s, w.cfg.Clients*s.Count, 1<<20)
	}
	w.shard = s
	return nil
}

// ShardPart implements workload.Sharder ("" in an unsplit run).
func (w *Workload) ShardPart() string {
	if w.shard.Count <= 1 {
		return ""
	}
	nos := w.clientNos()
	return fmt.Sprintf("clients %d..%d of %d: tables pi%d..pi%d", nos[0]+1, nos[len(nos)-1]+1, w.cfg.Clients*w.shard.Count, nos[0]+1, nos[len(nos)-1]+1)
}

// clientNos are the numbers (0-based; client i has table pi<i+1>) of the clients this process
// runs.
func (w *Workload) clientNos() []int {
	first := w.shard.Index * w.cfg.Clients
	out := make([]int, w.cfg.Clients)
	for i := range out {
		out[i] = first + i
	}
	return out
}

// Settings implements workload.Workload.
func (w *Workload) Settings() []workload.Setting {
	queries := StepNames[4:]
	return []workload.Setting{
		workload.Show("clients", w.cfg.Clients),
		workload.Show("rows", w.cfg.Rows).For("l.i0"),
		workload.Show("writes", w.cfg.Writes).For("l.i1", "l.i2"),
		workload.Show("query_secs", w.cfg.QuerySecs).For(queries...),
		workload.Show("rows_per_commit", w.cfg.RowsPerCommit).For(append([]string{"l.i0", "l.i1", "l.i2"}, queries...)...),
		workload.Show("delete_per_insert", w.cfg.DeletePerInsert).For(append([]string{"l.i1", "l.i2"}, queries...)...),
		workload.Show("seed", w.cfg.Seed),
	}
}

// Unloaded implements workload.Unloaded: the steps after l.i0 run on the rows it loaded; without
// it they start on empty tables (Open creates them, on every engine).
func (w *Workload) Unloaded(bool) (string, bool) {
	if len(w.steps) == 0 || slices.Contains(w.steps, "l.i0") {
		return "", false
	}
	verb := "start"
	if len(w.steps) == 1 {
		verb = "starts"
	}
	return fmt.Sprintf("l.i0 (the load of --rows) does not run: %s %s on empty tables", strings.Join(w.steps, ", "), verb), false
}

// cleanupWait is the configured wait after the cleanup, the reference's formula when negative.
func (w *Workload) cleanupWait() time.Duration {
	if w.cfg.CleanupWaitSecs >= 0 {
		return time.Duration(w.cfg.CleanupWaitSecs * float64(time.Second))
	}
	secs := 60 + float64(w.cfg.Rows*int64(w.cfg.Clients*max(w.shard.Count, 1)))/1e6
	return time.Duration(min(secs, 1200) * float64(time.Second))
}

// rowsPerCommit returns the batch size of a step's writer.
func (w *Workload) rowsPerCommit(step string) int {
	if w.cfg.RowsPerCommit > 0 {
		return w.cfg.RowsPerCommit
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

// SetClients implements workload.Concurrent: the steps built from now on run n clients
// (Clients).
func (w *Workload) SetClients(n int) error {
	return workload.SetClients(&w.cfg, n, func(c *Config, n int) { c.Clients = n }, (*Config).Validate)
}
