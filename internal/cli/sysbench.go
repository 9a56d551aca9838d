package cli

import (
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rumbench/rumbench/internal/workload"
	"github.com/rumbench/rumbench/internal/workload/sysbench"
)

// sysbenchFlags are the run command's flags for --workload sysbench.
type sysbenchFlags struct {
	tests, randType, percentiles string
	pre, prepared                bool
	tables, threads              int
	tableSize, events            int64
	readSecs, writeSecs          float64
}

// sysbenchFlagNames and insertFlagNames are the flags that apply to one workload only.
var (
	sysbenchFlagNames = []string{"tests", "pre", "tables", "table-size", "threads", "read-secs", "write-secs", "rand-type", "prepared", "events", "percentiles"}
	insertFlagNames   = []string{"steps", "rows", "writes", "query-secs", "clients", "rows-per-commit", "delete-per-insert"}
)

func addSysbenchFlags(fl *pflag.FlagSet, f *sysbenchFlags) {
	fl.StringVar(&f.tests, "tests", "", "sysbench: comma-separated tests to run, in reference order (default all 32, or 42 with --pre; see rumbench workloads)")
	fl.BoolVar(&f.pre, "pre", false, "sysbench: the 42-test set, with the .pre reads right after the load")
	fl.IntVar(&f.tables, "tables", 1, "sysbench: number of sbtest tables")
	fl.Int64Var(&f.tableSize, "table-size", 0, "sysbench: rows per table (default from --profile)")
	fl.IntVar(&f.threads, "threads", 1, "sysbench: concurrent clients of every test")
	fl.Float64Var(&f.readSecs, "read-secs", 0, "sysbench: seconds per read test (default from --profile)")
	fl.Float64Var(&f.writeSecs, "write-secs", 0, "sysbench: seconds per write test (default from --profile)")
	fl.StringVar(&f.randType, "rand-type", "uniform", "sysbench: how ids are drawn: uniform or zipfian")
	fl.BoolVar(&f.prepared, "prepared", true, "sysbench: prepared statements (--prepared=false sends the SQL text each time)")
	fl.Int64Var(&f.events, "events", 0, "sysbench: stop each test after this many events (0: by time only)")
	fl.StringVar(&f.percentiles, "percentiles", "", "sysbench: response-time percentiles to report, comma-separated (default 50,95,99,99.9)")
}

// sysbenchProfile is a named scale of the sysbench suite.
type sysbenchProfile struct {
	tableSize                       int64
	readSecs, writeSecs, warmupSecs float64
	cleanupSec                      float64
}

// sysbenchProfiles: quick runs the 32 tests in about 3.5 minutes per engine; standard is the
// reference's small-server setup (1 table of 50M rows, 600 s reads, 900 s writes).
var sysbenchProfiles = map[string]sysbenchProfile{
	"quick":    {tableSize: 100_000, readSecs: 5, writeSecs: 5, warmupSecs: 1, cleanupSec: 0},
	"small":    {tableSize: 1_000_000, readSecs: 60, writeSecs: 60, warmupSecs: 5, cleanupSec: 10},
	"standard": {tableSize: 50_000_000, readSecs: 600, writeSecs: 900, warmupSecs: 5, cleanupSec: -1},
}

// refuseOtherFlags refuses flags set on the command line that apply to another workload.
func refuseOtherFlags(cmd *cobra.Command, workloadName string) error {
	other, owner := sysbenchFlagNames, "sysbench"
	if workloadName == "sysbench" {
		other, owner = insertFlagNames, "insert"
	}
	for _, name := range other {
		if cmd.Flags().Changed(name) {
			return usagef("--%s applies to --workload %s, not %s", name, owner, workloadName)
		}
	}
	return nil
}

// parsePercentiles parses "50,99,99.99".
func parsePercentiles(v string) ([]float64, error) {
	if v == "" {
		return nil, nil
	}
	var out []float64
	for _, s := range strings.Split(v, ",") {
		p, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || p <= 0 || p >= 100 {
			return nil, usagef("--percentiles %q: each value must be a number in (0, 100), e.g. 50,99,99.9", v)
		}
		out = append(out, p)
	}
	return out, nil
}

// buildSysbench makes the sysbench workload from the flags and the profile.
func buildSysbench(cmd *cobra.Command, f *runFlags) (workload.Workload, error) {
	p, ok := sysbenchProfiles[f.profile]
	if !ok {
		return nil, usagef("unknown profile %q (valid: %s)", f.profile, strings.Join(profileNames, ", "))
	}
	changed := cmd.Flags().Changed
	sf := &f.sb
	c := sysbench.Config{Tables: sf.tables, TableSize: p.tableSize, Threads: sf.threads, ReadSecs: p.readSecs,
		WriteSecs: p.writeSecs, WarmupSecs: p.warmupSecs, Events: sf.events, Pre: sf.pre, RandType: sf.randType,
		ZipfExp: 0.8, Prepared: sf.prepared, CleanupWaitSecs: p.cleanupSec, Seed: f.seed}
	if changed("table-size") {
		c.TableSize = sf.tableSize
	}
	if changed("read-secs") {
		c.ReadSecs = sf.readSecs
	}
	if changed("write-secs") {
		c.WriteSecs = sf.writeSecs
	}
	if changed("warmup-secs") {
		c.WarmupSecs = f.warmupSecs
	}
	if changed("cleanup-wait-secs") {
		c.CleanupWaitSecs = f.cleanupSec
	}
	var err error
	if c.Percentiles, err = parsePercentiles(sf.percentiles); err != nil {
		return nil, err
	}
	if sf.tests != "" {
		if c.Tests, err = splitList("--tests", sf.tests); err != nil {
			return nil, err
		}
	}
	w, err := sysbench.New(c)
	if err != nil {
		return nil, usageError{err}
	}
	return w, nil
}
