package sysbench

import (
	"fmt"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/workload"
)

// Profiles: quick runs the 32 tests in about 3.5 minutes per engine; standard is the
// reference's small-server setup (1 table of 50M rows, 600 s reads, 900 s writes). Each
// setting's table entry below holds its default per profile.
var profileNames = []string{"quick", "small", "standard"}

// Groups are the test groups in the reference's report order, with their titles.
var Groups = []results.Group{
	{Name: GroupPoint, Title: "point queries"},
	{Name: GroupRange, Title: "range queries without aggregation"},
	{Name: GroupRangeAgg, Title: "range queries with aggregation"},
	{Name: GroupWrite, Title: "writes"},
}

// The tests of either set by what they do, the steps the settings matter to.
var testSteps, readTests, writeTests = func() (all, reads, writes []string) {
	for _, d := range stepDecls[2:] {
		all = append(all, d.Name)
		if testsByName[d.Name].Write {
			writes = append(writes, d.Name)
		} else {
			reads = append(reads, d.Name)
		}
	}
	return all, reads, writes
}()

// settings are the suite's flags, in the banner's order. The tables and their size shape the
// data; the threads matter to every step (the load runs up to --tables of them); the rest to
// the tests.
var settings = workload.Params[Config]{
	workload.Int(func(c *Config) *int { return &c.Tables }, workload.Number[int]{Name: "tables",
		Help: "number of sbtest tables", Default: 1, Min: 1, Max: 1000}),
	workload.Int(func(c *Config) *int64 { return &c.TableSize }, workload.Number[int64]{Name: "table-size", Unit: "rows",
		Help:     "rows per table",
		Profiles: map[string]int64{"quick": 100_000, "small": 1_000_000, "standard": 50_000_000}, Min: 1, Max: 1<<31 - 1}),
	workload.Int(func(c *Config) *int { return &c.Threads }, workload.Number[int]{Name: "threads", Runtime: true,
		Help: "concurrent clients of every test", Default: 1, Min: 1, Max: 4096}),
	workload.Float(func(c *Config) *float64 { return &c.ReadSecs }, workload.Number[float64]{Name: "read-secs", Unit: "s", Runtime: true, Steps: readTests,
		Help:     "seconds per read test",
		Profiles: map[string]float64{"quick": 5, "small": 60, "standard": 600}, Min: 0.001, Max: workload.MaxStepSecs}),
	workload.Float(func(c *Config) *float64 { return &c.WriteSecs }, workload.Number[float64]{Name: "write-secs", Unit: "s", Runtime: true, Steps: writeTests,
		Help:     "seconds per write test",
		Profiles: map[string]float64{"quick": 5, "small": 60, "standard": 900}, Min: 0.001, Max: workload.MaxStepSecs}),
	workload.Float(func(c *Config) *float64 { return &c.RunSecs }, workload.Number[float64]{Name: "run-secs", Unit: "s", Runtime: true, Unshown: true, Steps: testSteps,
		Help: "seconds per test, read and write alike (sets --read-secs and --write-secs; sysbench's --time)", Min: 0, Max: workload.MaxStepSecs}),
	workload.WarmupSecs(func(c *Config) *float64 { return &c.WarmupSecs }, workload.Number[float64]{Steps: testSteps,
		Help: "seconds before each test's measured time", Profiles: map[string]float64{"quick": 1, "small": 5, "standard": 5}}),
	workload.Int(func(c *Config) *int64 { return &c.Events }, workload.Number[int64]{Name: "events", Runtime: true, Steps: testSteps,
		Help: "stop each test after this many events (0: by time only)", Min: 0, Max: 1 << 40}),
	workload.String(func(c *Config) *string { return &c.RandType }, workload.Text{Name: "rand-type", Runtime: true, Steps: testSteps,
		Help: "how ids are drawn: uniform or zipfian", Default: "uniform", Valid: []string{"uniform", "zipfian"}}),
	workload.Bool(func(c *Config) *bool { return &c.Prepared }, workload.Switch{Name: "prepared", Runtime: true, Steps: testSteps,
		Help: "prepared statements (--prepared=false sends the SQL text each time)", Default: true}),
	workload.String(func(c *Config) *string { return &c.Tests }, workload.Text{Name: "tests", Runtime: true, Unshown: true,
		Help: "comma-separated tests to run, in reference order (default all 32, or 42 with --pre; see rumbench workloads sysbench)"}),
	workload.Bool(func(c *Config) *bool { return &c.Pre }, workload.Switch{Name: "pre", Runtime: true, Unshown: true,
		Help: "the 42-test set, with the .pre reads right after the load"}),
	workload.Parsed(func(c *Config) *string { return &c.PercentileList }, func(c *Config) *[]float64 { return &c.Percentiles },
		workload.Items[float64]{Name: "percentiles", Runtime: true, Unshown: true, Steps: testSteps, Parse: workload.ParsePercentiles,
			Help: "response-time percentiles to report, comma-separated (default 50,95,99,99.9)"}),
	workload.CleanupWaitSecs(func(c *Config) *float64 { return &c.CleanupWaitSecs }, workload.Number[float64]{Unshown: true, Steps: testSteps,
		Help:     "seconds of the flush's settling wait after the load and after the writes, -1 for the reference's 60 + 1 per million rows (at most 1200)",
		Profiles: map[string]float64{"small": 10, "standard": -1}}),
}

// shape declares the suite to the framework: settings, steps, the recorded figures.
var shape = workload.Shape[Config]{Name: "sysbench", Settings: settings, Steps: stepDecls, Pick: func(b *workload.Base[Config]) ([]string, error) { return pickSteps(&b.Cfg) },
	Clients: func(c *Config) *int { return &c.Threads }, Record: recordData, RecordRun: recordRun, Build: build, Resolve: resolve}

// resolve makes --run-secs the length of every test, read and write.
func resolve(c *Config, _ string, given func(string) bool) error {
	if !given("run-secs") {
		return nil
	}
	if c.RunSecs <= 0 {
		return fmt.Errorf("--run-secs %g: want a length above 0 s", c.RunSecs)
	}
	if given("read-secs") || given("write-secs") {
		return fmt.Errorf("--run-secs sets every test's length: give it or --read-secs/--write-secs, not both")
	}
	c.ReadSecs, c.WriteSecs = c.RunSecs, c.RunSecs
	return nil
}

func init() {
	workload.Register(workload.Spec{
		Name:        "sysbench",
		Description: "sysbench OLTP microbenchmarks (32, or 42 with --pre): point, range, aggregate and write tests; QPS and relative QPS",
		Steps:       workload.StepNames(stepDecls),
		Profiles:    profileNames,
		Groups:      Groups,
		Rates: []workload.Rate{
			{Name: "ips", Unit: "rows/s", Meaning: "rows loaded per second (load)"},
			{Name: "rate", Unit: "rows/s", Meaning: "rows indexed per second (create-index)"},
			{Name: "qps", Unit: "statements/s", Meaning: "statements per second, BEGIN and COMMIT included: the reference's QPS (every test but scan)"},
			{Name: "Krps", Unit: "thousand rows/s", Meaning: "thousand rows scanned per second: table rows / mean event latency in ms (scan)"},
		},
		// The summary has a column per group (the default); beside the rates, CPU per statement
		// over the tests, and the write tests' device flushes and syncs per commit (--syscalls):
		// what explained the reference's binlog results.
		Headline: []string{"tcpu_us/op", "write:fl/op", "write:sync/c"},
		Clients:  "threads",
		New:      newDefinition,
	})
}

func newDefinition() workload.Definition { return workload.Define(shape) }
