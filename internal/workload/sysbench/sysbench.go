// Package sysbench is the sysbench OLTP microbenchmark suite as database engine developers run it:
// sbtest tables loaded and indexed, then 32 microbenchmarks (42 with the .pre reads) in the
// reference order, each reported as QPS (every statement, BEGIN and COMMIT included) and
// compared across engines or configurations as relative QPS in four groups.
//
// On SQL engines each event runs the reference SQL text; engines without SQL run the same
// logical statements through the table model (see table.Stmt). docs/sysbench.md lists every test
// with its statements.
package sysbench

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/rumbench/rumbench/internal/workload"
)

// Groups of tests, as the reference's reports split them.
const (
	GroupPoint    = "point"     // point queries
	GroupRange    = "range"     // range queries without aggregation
	GroupRangeAgg = "range_agg" // range queries with aggregation
	GroupWrite    = "write"     // writes
)

// Test is one microbenchmark.
type Test struct {
	// Name is the reference's name ("range-covered-pk", "read-only_range=100").
	Name  string
	Group string
	// Write says the test changes data: it runs for WriteSecs, and the post-write flush follows
	// the last write test of the write phase.
	Write bool
	// Range is the range size R (read-only, read-write) or the IN-list length (random-points).
	Range int
	event eventKind
}

// The reference order of the current 32-test set (sysbench-and-peers.md §1.3): writes first,
// then the flush, scan, the aggregating range queries, the point and range queries, delete and
// insert last.
var tests32 = []Test{
	{Name: "update-inlist", Group: GroupWrite, Write: true, Range: 100, event: evUpdateInlist},
	{Name: "update-index", Group: GroupWrite, Write: true, event: evUpdateIndex},
	{Name: "update-nonindex", Group: GroupWrite, Write: true, event: evUpdateNonIndex},
	{Name: "update-one", Group: GroupWrite, Write: true, event: evUpdateOne},
	{Name: "update-zipf", Group: GroupWrite, Write: true, event: evUpdateZipf},
	{Name: "write-only", Group: GroupWrite, Write: true, Range: 10000, event: evWriteOnly},
	{Name: "read-write_range=10", Group: GroupWrite, Write: true, Range: 10, event: evReadWrite},
	{Name: "read-write_range=100", Group: GroupWrite, Write: true, Range: 100, event: evReadWrite},
	{Name: "scan", Group: GroupRange, event: evScan},
	{Name: "read-only_range=10", Group: GroupRangeAgg, Range: 10, event: evReadOnly},
	{Name: "read-only_range=100", Group: GroupRangeAgg, Range: 100, event: evReadOnly},
	{Name: "read-only_range=10000", Group: GroupRangeAgg, Range: 10000, event: evReadOnly},
	{Name: "read-only-simple", Group: GroupRangeAgg, Range: 1000, event: evReadOnlySimple},
	{Name: "read-only-sum", Group: GroupRangeAgg, Range: 1000, event: evReadOnlySum},
	{Name: "read-only-order", Group: GroupRangeAgg, Range: 1000, event: evReadOnlyOrder},
	{Name: "read-only-distinct", Group: GroupRangeAgg, Range: 1000, event: evReadOnlyDistinct},
	{Name: "read-only-count", Group: GroupRangeAgg, Range: 1000, event: evReadOnlyCount},
	{Name: "point-query", Group: GroupPoint, event: evPointQuery},
	{Name: "random-points_range=10", Group: GroupPoint, Range: 10, event: evRandomPoints},
	{Name: "random-points_range=100", Group: GroupPoint, Range: 100, event: evRandomPoints},
	{Name: "random-points_range=1000", Group: GroupPoint, Range: 1000, event: evRandomPoints},
	{Name: "hot-points", Group: GroupPoint, Range: 100, event: evHotPoints},
	{Name: "points-covered-pk", Group: GroupPoint, Range: 100, event: evPointsCoveredPK},
	{Name: "points-notcovered-pk", Group: GroupPoint, Range: 100, event: evPointsNotCoveredPK},
	{Name: "range-covered-pk", Group: GroupRange, Range: 100, event: evRangeCoveredPK},
	{Name: "range-notcovered-pk", Group: GroupRange, Range: 100, event: evRangeNotCoveredPK},
	{Name: "points-covered-si", Group: GroupPoint, Range: 100, event: evPointsCoveredSI},
	{Name: "points-notcovered-si", Group: GroupPoint, Range: 100, event: evPointsNotCoveredSI},
	{Name: "range-covered-si", Group: GroupRange, Range: 100, event: evRangeCoveredSI},
	{Name: "range-notcovered-si", Group: GroupRange, Range: 100, event: evRangeNotCoveredSI},
	{Name: "delete", Group: GroupWrite, Write: true, event: evDelete},
	{Name: "insert", Group: GroupWrite, Write: true, event: evInsert},
}

// preTests are the read tests that the 42-test set also runs right after the load, before any
// write, as "<name>.pre".
var preTests = []string{
	"point-query", "points-covered-pk", "points-notcovered-pk", "points-covered-si", "points-notcovered-si",
	"random-points_range=10", "random-points_range=100", "random-points_range=1000",
	"range-covered-pk", "range-notcovered-pk", "range-covered-si", "range-notcovered-si",
	"read-only_range=10", "read-only_range=100", "read-only_range=10000",
}

// readOnlyVariants are the tests the 32-test set added; the 42-test set does not have them.
var readOnlyVariants = []string{"read-only-simple", "read-only-sum", "read-only-order", "read-only-distinct", "read-only-count"}

// Load steps, before the tests.
const (
	StepLoad  = "load"
	StepIndex = "create-index"
)

// Tests returns the test list in run order: the 32-test set, or with pre the 42-test set (the
// .pre reads after the load, without the five read-only variants).
func Tests(pre bool) []Test {
	var out []Test
	if pre {
		for _, name := range preTests {
			t, _ := lookup(name)
			t.Name += ".pre"
			out = append(out, t)
		}
	}
	for _, t := range tests32 {
		if pre && slices.Contains(readOnlyVariants, t.Name) {
			continue
		}
		out = append(out, t)
	}
	return out
}

func lookup(name string) (Test, bool) {
	for _, t := range tests32 {
		if t.Name == name {
			return t, true
		}
	}
	return Test{}, false
}

func names(ts []Test) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

// Config sizes and shapes the workload.
type Config struct {
	// Tables is the number of sbtest tables; TableSize the rows each holds after the load.
	Tables    int
	TableSize int64
	// Threads is the number of concurrent clients of every test (and of the load, up to Tables).
	Threads int
	// ReadSecs and WriteSecs are each read and write test's measured duration; WarmupSecs run
	// before it, unmeasured.
	ReadSecs, WriteSecs, WarmupSecs float64
	// Events, when > 0, ends each test after this many events (spread over the threads), before
	// its duration if it comes first: runs with the same seed then do the same work.
	Events int64
	// Tests selects tests by name (empty: all), run in the reference order.
	Tests []string
	// Pre selects the 42-test set with the .pre reads.
	Pre bool
	// RandType is "uniform" or "zipfian": how ids and range starts are drawn.
	RandType string
	// ZipfExp is the zipfian exponent (sysbench --rand-zipfian-exp, 0.8).
	ZipfExp float64
	// Prepared runs statements prepared once per connection (sysbench --db-ps-mode=auto);
	// false sends the text each time (--db-ps-mode=disable).
	Prepared bool
	// Percentiles are extra latency percentiles to report.
	Percentiles []float64
	// CleanupWaitSecs is the wait after each flush (after the load, after the writes); negative:
	// the reference's min(1200, 60 + rows/1M) seconds.
	CleanupWaitSecs float64
	// Verify checks the size of every result against what the statement must return (tests).
	Verify bool
	// Seed makes the data and the keys reproducible.
	Seed uint64
}

// Default returns the quick scale: 1 table of 100,000 rows, 5 s per test, 1 s warm-up.
func Default() Config {
	return Config{Tables: 1, TableSize: 100_000, Threads: 1, ReadSecs: 5, WriteSecs: 5, WarmupSecs: 1,
		RandType: "uniform", ZipfExp: 0.8, Prepared: true, Seed: 3221223452}
}

// Validate checks the configuration and says what is wrong and what is valid.
func (c *Config) Validate() error {
	switch {
	case c.Tables < 1 || c.Tables > 1000:
		return fmt.Errorf("--tables %d: must be 1..1000", c.Tables)
	case c.TableSize < 1 || c.TableSize > 1<<31-1:
		return fmt.Errorf("--table-size %d: must be 1..2147483647", c.TableSize)
	case c.Threads < 1 || c.Threads > 4096:
		return fmt.Errorf("--threads %d: must be 1..4096", c.Threads)
	case !(c.ReadSecs > 0 && c.WriteSecs > 0) || math.IsInf(c.ReadSecs+c.WriteSecs, 1):
		return fmt.Errorf("--read-secs %g, --write-secs %g: must be > 0", c.ReadSecs, c.WriteSecs)
	case !(c.WarmupSecs >= 0) || math.IsInf(c.WarmupSecs, 1):
		return fmt.Errorf("--warmup-secs %g: must be >= 0", c.WarmupSecs)
	case c.Events < 0:
		return fmt.Errorf("--events %d: must be >= 0", c.Events)
	case c.RandType != "uniform" && c.RandType != "zipfian":
		return fmt.Errorf("--rand-type %q: must be uniform or zipfian", c.RandType)
	case c.ZipfExp <= 0 || c.ZipfExp >= 1:
		return fmt.Errorf("zipfian exponent %g: must be in (0, 1)", c.ZipfExp)
	}
	for _, p := range c.Percentiles {
		if p <= 0 || p >= 100 {
			return fmt.Errorf("--percentiles %g: each must be in (0, 100)", p)
		}
	}
	valid := names(Tests(c.Pre))
	for _, name := range c.Tests {
		if !slices.Contains(valid, name) {
			set := "32-test set"
			if c.Pre {
				set = "42-test set (--pre)"
			}
			return fmt.Errorf("unknown test %q in the %s (valid: %s)", name, set, strings.Join(valid, ", "))
		}
	}
	return nil
}

// Workload is the configured suite.
type Workload struct {
	cfg   Config
	tests []Test
	steps []string
	// shard is the part of a split run this process does (workload.Sharder).
	shard workload.Shard
	// shareTables: more shards than tables; every shard loads its id range of every table.
	shareTables bool
}

var _ workload.Workload = (*Workload)(nil)

// New returns the workload for cfg; tests run in the reference order whatever the order of
// cfg.Tests.
func New(cfg Config) (*Workload, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	w := &Workload{cfg: cfg, steps: []string{StepLoad, StepIndex}}
	for _, t := range Tests(cfg.Pre) {
		if len(cfg.Tests) == 0 || slices.Contains(cfg.Tests, t.Name) {
			w.tests = append(w.tests, t)
			w.steps = append(w.steps, t.Name)
		}
	}
	return w, nil
}

// Name implements workload.Workload.
func (w *Workload) Name() string { return "sysbench" }

// Steps implements workload.Workload.
func (w *Workload) Steps() []string { return w.steps }

// Config implements workload.Workload.
func (w *Workload) Config() map[string]any {
	m := map[string]any{
		"tables": w.cfg.Tables, "table_size": w.cfg.TableSize, "threads": w.cfg.Threads,
		"read_secs": w.cfg.ReadSecs, "write_secs": w.cfg.WriteSecs, "warmup_secs": w.cfg.WarmupSecs,
		"events": w.cfg.Events, "tests": names(w.tests), "pre": w.cfg.Pre, "rand_type": w.cfg.RandType,
		"rand_zipfian_exp": w.cfg.ZipfExp, "prepared": w.cfg.Prepared, "percentiles": w.cfg.Percentiles,
		"cleanup_wait_secs": w.cleanupWait().Seconds(), "seed": w.cfg.Seed,
		"secondary_index": "k", "c_length": cLen, "pad_length": padLen,
	}
	if part := w.ShardPart(); part != "" {
		m["shard"] = part
	}
	return m
}

// Settings implements workload.Workload: the tables' shape and the threads matter to every
// step (the load runs up to --tables threads); the tests' settings to the tests, the lengths to
// the read or the write tests.
func (w *Workload) Settings() []workload.Setting {
	var tests, reads, writes []string
	for _, t := range w.tests {
		tests = append(tests, t.Name)
		if t.Write {
			writes = append(writes, t.Name)
		} else {
			reads = append(reads, t.Name)
		}
	}
	return []workload.Setting{
		workload.Show("tables", w.cfg.Tables),
		workload.Show("table_size", w.cfg.TableSize),
		workload.Show("threads", w.cfg.Threads),
		workload.Show("read_secs", w.cfg.ReadSecs).For(reads...),
		workload.Show("write_secs", w.cfg.WriteSecs).For(writes...),
		workload.Show("warmup_secs", w.cfg.WarmupSecs).For(tests...),
		workload.Show("events", w.cfg.Events).For(tests...),
		workload.Show("rand_type", w.cfg.RandType).For(tests...),
		workload.Show("prepared", w.cfg.Prepared).For(tests...),
		workload.Show("seed", w.cfg.Seed),
	}
}

// cleanupWait is the wait after a flush: the configured one, or the reference's formula.
func (w *Workload) cleanupWait() time.Duration {
	if w.cfg.CleanupWaitSecs >= 0 {
		return time.Duration(w.cfg.CleanupWaitSecs * float64(time.Second))
	}
	secs := 60 + float64(w.cfg.TableSize*int64(w.cfg.Tables))/1e6
	return time.Duration(min(secs, 1200) * float64(time.Second))
}

func (w *Workload) test(name string) (Test, bool) {
	for _, t := range w.tests {
		if t.Name == name {
			return t, true
		}
	}
	return Test{}, false
}

// SetClients implements workload.Concurrent: the steps built from now on run n clients
// (Threads).
func (w *Workload) SetClients(n int) error {
	return workload.SetClients(&w.cfg, n, func(c *Config, n int) { c.Threads = n }, (*Config).Validate)
}
