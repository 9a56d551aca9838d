// Package sysbench is the sysbench OLTP microbenchmark suite as database engine developers run it:
// sbtest tables loaded and indexed, then 32 microbenchmarks (42 with the .pre reads) in the
// reference order, each reported as QPS (every statement, BEGIN and COMMIT included) and
// compared across engines or configurations as relative QPS in four groups.
//
// On SQL engines each event runs the reference SQL text; engines without SQL run the same
// logical statements through the table model (see table.Stmt). docs/sysbench.md lists every test
// with its statements.
//
// The workload is in the framework's shape (workload.Define, Base): its settings are declared
// once in flags.go, from which the flags, their checks, the recorded configuration, the banner
// and the reuse identity (the tables, their size, the seed and the schema's constants) derive.
package sysbench

import (
	"fmt"
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

// testsByName are the tests of both sets by step name, the .pre reads included.
var testsByName = func() map[string]Test {
	m := map[string]Test{}
	for _, t := range append(Tests(true), tests32...) {
		m[t.Name] = t
	}
	return m
}()

// stepDecls are every step of either set, in run order: the load steps, the .pre reads
// (42-test set only), then the 32.
var stepDecls = func() []workload.StepDecl {
	out := []workload.StepDecl{{Name: StepLoad, Load: true}, {Name: StepIndex, Load: true}}
	for _, name := range append(names(Tests(true)[:len(preTests)]), names(tests32)...) {
		out = append(out, workload.StepDecl{Name: name})
	}
	return out
}()

// zipfExp is the zipfian exponent of --rand-type zipfian and update-zipf (sysbench
// --rand-zipfian-exp, 0.8).
const zipfExp = 0.8

// Config sizes and shapes the workload: one field per setting (flags.go), then what tests set.
type Config struct {
	// Tables is the number of sbtest tables; TableSize the rows each holds after the load.
	Tables    int
	TableSize int64
	// Threads is the number of concurrent clients of every test (and of the load, up to Tables).
	Threads int
	// ReadSecs and WriteSecs are each read and write test's measured duration; WarmupSecs run
	// before it, unmeasured.
	ReadSecs, WriteSecs, WarmupSecs float64
	// RunSecs, when given (--run-secs), is both ReadSecs and WriteSecs.
	RunSecs float64
	// Events, when > 0, ends each test after this many events (spread over the threads), before
	// its duration if it comes first: runs with the same seed then do the same work.
	Events int64
	// Tests selects tests by name, comma-separated ("": all), run in the reference order.
	Tests string
	// Pre selects the 42-test set with the .pre reads.
	Pre bool
	// RandType is "uniform" or "zipfian": how ids and range starts are drawn.
	RandType string
	// Prepared runs statements prepared once per connection (sysbench --db-ps-mode=auto);
	// false sends the text each time (--db-ps-mode=disable).
	Prepared bool
	// PercentileList is --percentiles as given; Percentiles the extra latency percentiles to
	// report that it lists.
	PercentileList string
	Percentiles    []float64
	// CleanupWaitSecs is the wait after each flush (after the load, after the writes); -1:
	// the reference's min(1200, 60 + rows/1M) seconds.
	CleanupWaitSecs float64

	// Verify checks the size of every result against what the statement must return (tests).
	Verify bool
}

// Default returns the quick scale: 1 table of 100,000 rows, 5 s per test, 1 s warm-up.
func Default() Config { return settings.Defaults("quick") }

// pickSteps returns the steps c runs: the load and the index build, then the tests --tests
// names (every test of the set when none) in the set's order, the 32-test set or with --pre the
// 42-test set. A name outside the set is refused in one line naming the set's tests.
func pickSteps(c *Config) ([]string, error) {
	set := Tests(c.Pre)
	var chosen []string
	if c.Tests != "" {
		var err error
		if chosen, err = workload.SplitList("--tests", c.Tests); err != nil {
			return nil, err
		}
	}
	valid := names(set)
	for _, name := range chosen {
		if !slices.Contains(valid, name) {
			which := "32-test set"
			if c.Pre {
				which = "42-test set (--pre)"
			}
			return nil, fmt.Errorf("unknown test %q in the %s (valid: %s)", name, which, strings.Join(valid, ", "))
		}
	}
	steps := []string{StepLoad, StepIndex}
	for _, name := range valid {
		if len(chosen) == 0 || slices.Contains(chosen, name) {
			steps = append(steps, name)
		}
	}
	return steps, nil
}

// Workload is the configured suite.
type Workload struct {
	*workload.Base[Config]
	// shareTables: more shards than tables; every shard loads its id range of every table.
	shareTables bool
}

var _ workload.Workload = (*Workload)(nil)

// New returns the workload for cfg, its settings taken as they are (no profile applied) and
// validated, its data and keys drawn from seed; tests run in the reference order whatever the
// order of cfg.Tests.
func New(cfg Config, seed uint64) (*Workload, error) {
	return workload.Make[Config, *Workload](shape, cfg, workload.Shared{Seed: seed})
}

// build makes the suite from its base, once the settings are valid, and checks the memory it
// needs against the run's.
func build(b *workload.Base[Config], s workload.Shared) (workload.Workload, error) {
	w := &Workload{Base: b}
	if err := s.Memory.Check("sysbench", memNeed(&b.Cfg, w.tests())); err != nil {
		return nil, err
	}
	return w, nil
}

// recordData are the schema's constants, part of the reuse identity.
func recordData(*Config) map[string]any {
	return map[string]any{"secondary_index": "k", "c_length": cLen, "pad_length": padLen}
}

// recordRun are the run's derived figures: the tests that run, the zipfian exponent and the
// wait the cleanup's formula gives.
func recordRun(b *workload.Base[Config]) map[string]any {
	var tests []string
	for _, t := range (&Workload{Base: b}).tests() {
		tests = append(tests, t.Name)
	}
	return map[string]any{"tests": tests, "rand_zipfian_exp": zipfExp, "cleanup_wait_secs": cleanupWait(&b.Cfg).Seconds()}
}

// cleanupWait is the wait after a flush: the configured one, or the reference's formula.
func cleanupWait(c *Config) time.Duration {
	return workload.CleanupWait(c.CleanupWaitSecs, c.TableSize*int64(c.Tables))
}

// tests are the tests that run, in order.
func (w *Workload) tests() []Test {
	var out []Test
	for _, name := range w.Steps() {
		if t, ok := testsByName[name]; ok {
			out = append(out, t)
		}
	}
	return out
}

// test returns the test of step name, false when name is no test that runs.
func (w *Workload) test(name string) (Test, bool) {
	t, ok := testsByName[name]
	return t, ok && w.Runs(name)
}
