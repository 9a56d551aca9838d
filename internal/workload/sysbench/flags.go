package sysbench

import (
	"github.com/spf13/pflag"

	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/workload"
)

// profile is a named scale of the suite.
type profile struct {
	tableSize                       int64
	readSecs, writeSecs, warmupSecs float64
	cleanupSec                      float64
}

// profiles: quick runs the 32 tests in about 3.5 minutes per engine; standard is the
// reference's small-server setup (1 table of 50M rows, 600 s reads, 900 s writes).
var profiles = map[string]profile{
	"quick":    {tableSize: 100_000, readSecs: 5, writeSecs: 5, warmupSecs: 1, cleanupSec: 0},
	"small":    {tableSize: 1_000_000, readSecs: 60, writeSecs: 60, warmupSecs: 5, cleanupSec: 10},
	"standard": {tableSize: 50_000_000, readSecs: 600, writeSecs: 900, warmupSecs: 5, cleanupSec: -1},
}

var profileNames = []string{"quick", "small", "standard"}

// Groups are the test groups in the reference's report order, with their titles.
var Groups = []results.Group{
	{Name: GroupPoint, Title: "point queries"},
	{Name: GroupRange, Title: "range queries without aggregation"},
	{Name: GroupRangeAgg, Title: "range queries with aggregation"},
	{Name: GroupWrite, Title: "writes"},
}

func init() {
	workload.Register(workload.Spec{
		Name:        "sysbench",
		Description: "sysbench OLTP microbenchmarks (32, or 42 with --pre): point, range, aggregate and write tests; QPS and relative QPS",
		// Every step of either set, in run order: the .pre reads (42-test set only), then the 32.
		Steps:    append(append([]string{StepLoad, StepIndex}, names(Tests(true)[:len(preTests)])...), names(tests32)...),
		Profiles: profileNames,
		Groups:   Groups,
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

// definition is the suite's flags.
type definition struct {
	fs                           *pflag.FlagSet
	tests, randType, percentiles string
	pre, prepared                bool
	tables, threads              int
	tableSize, events            int64
	readSecs, writeSecs          float64
}

func newDefinition() workload.Definition {
	d := &definition{fs: pflag.NewFlagSet("sysbench", pflag.ContinueOnError)}
	fl := d.fs
	fl.StringVar(&d.tests, "tests", "", "comma-separated tests to run, in reference order (default all 32, or 42 with --pre; see rumbench workloads sysbench)")
	fl.BoolVar(&d.pre, "pre", false, "the 42-test set, with the .pre reads right after the load")
	fl.IntVar(&d.tables, "tables", 1, "number of sbtest tables")
	fl.Int64Var(&d.tableSize, "table-size", 0, "rows per table (default from --profile)")
	fl.IntVar(&d.threads, "threads", 1, "concurrent clients of every test")
	fl.Float64Var(&d.readSecs, "read-secs", 0, "seconds per read test (default from --profile)")
	fl.Float64Var(&d.writeSecs, "write-secs", 0, "seconds per write test (default from --profile)")
	fl.StringVar(&d.randType, "rand-type", "uniform", "how ids are drawn: uniform or zipfian")
	fl.BoolVar(&d.prepared, "prepared", true, "prepared statements (--prepared=false sends the SQL text each time)")
	fl.Int64Var(&d.events, "events", 0, "stop each test after this many events (0: by time only)")
	fl.StringVar(&d.percentiles, "percentiles", "", "response-time percentiles to report, comma-separated (default 50,95,99,99.9)")
	return d
}

func (d *definition) Flags() *pflag.FlagSet { return d.fs }

// Build makes the suite from the flags and the profile.
func (d *definition) Build(s workload.Shared) (workload.Workload, error) {
	p, err := workload.PickProfile("sysbench", profiles, s.Profile)
	if err != nil {
		return nil, err
	}
	changed := d.fs.Changed
	c := Config{Tables: d.tables, TableSize: p.tableSize, Threads: d.threads, ReadSecs: p.readSecs,
		WriteSecs: p.writeSecs, WarmupSecs: p.warmupSecs, Events: d.events, Pre: d.pre, RandType: d.randType,
		ZipfExp: 0.8, Prepared: d.prepared, CleanupWaitSecs: p.cleanupSec, Seed: s.Seed}
	if changed("table-size") {
		c.TableSize = d.tableSize
	}
	if changed("read-secs") {
		c.ReadSecs = d.readSecs
	}
	if changed("write-secs") {
		c.WriteSecs = d.writeSecs
	}
	if s.WarmupSecs != nil {
		c.WarmupSecs = *s.WarmupSecs
	}
	if s.CleanupWaitSecs != nil {
		c.CleanupWaitSecs = *s.CleanupWaitSecs
	}
	if c.Percentiles, err = workload.ParsePercentiles("--percentiles", d.percentiles); err != nil {
		return nil, err
	}
	if d.tests != "" {
		if c.Tests, err = workload.SplitList("--tests", d.tests); err != nil {
			return nil, err
		}
	}
	if err := c.checkSizes(s); err != nil {
		return nil, err
	}
	return New(c)
}
