package insert

import (
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/rumbench/rumbench/internal/workload"
)

// profile is a named scale of the insert benchmark (per client).
type profile struct {
	rows, writes          int64
	querySecs, cleanupSec float64
	// regime is the regime the profile runs in (RegimeCached: each engine's cache holds its
	// working set, cache.go; RegimeIOBound: under the CLI's memory cap).
	regime string
}

// profiles: quick finishes the 3 default engines in about 2 minutes on 2 cores; standard is the
// reference's per-client sizes (load 10M, l.i1 16M + l.i2 4M, 1800 s query steps, the
// reference's settling wait after the cleanup); iobound is sized for the memory cap the CLI
// gives it (256 MiB, 32 MiB cache): a B-tree's database grows to about 5 times the cap, its
// secondary indexes to about twice the cap.
var profiles = map[string]profile{
	"quick":    {rows: 200_000, writes: 50_000, querySecs: 5, cleanupSec: 0, regime: RegimeCached},
	"small":    {rows: 2_000_000, writes: 1_000_000, querySecs: 60, cleanupSec: 10, regime: RegimeCached},
	"standard": {rows: 10_000_000, writes: 20_000_000, querySecs: 1800, cleanupSec: -1, regime: RegimeCached},
	"iobound":  {rows: 4_000_000, writes: 500_000, querySecs: 20, cleanupSec: 0, regime: RegimeIOBound},
}

var profileNames = []string{"quick", "small", "standard", "iobound"}

func init() {
	workload.Register(workload.Spec{
		Name:        "insert",
		Description: "insert benchmark (iibench): load, index, random-key inserts, queries with a paced background writer",
		Steps:       StepNames,
		Profiles:    profileNames,
		Rates: []workload.Rate{
			{Name: "ips", Unit: "rows/s", Meaning: "rows inserted per second (l.i0, l.i1, l.i2)"},
			{Name: "rate", Unit: "rows/s", Meaning: "rows indexed per second: (100 + rows in the table) / (insert + index build time) (l.x)"},
			{Name: "qps", Unit: "queries/s", Meaning: "range or point queries per second, beside the paced background writer (qr*, qp*)"},
		},
		// The reference's load legend: KB written and CPU per insert, and the size, of the
		// random-key inserts.
		Headline:         []string{"l.i1:wKB/i", "l.i1:tcpu_us/op", "l.i1:db_MB"},
		Summary:          summarySteps,
		Clients:          "clients",
		ClientsShapeData: true, // one table per client
		New:              newDefinition,
	})
}

// summaryMain are the steps of the summary: the loads, the index build and the queries beside
// the lightest and the heaviest background writer (qr500 and qp500 lie between them).
var summaryMain = []string{"l.i0", "l.x", "l.i1", "l.i2", "qr100", "qp100", "qr1000", "qp1000"}

// summarySteps picks the summary's columns from the steps that run: those of summaryMain, or
// all of them (workload.SummaryColumns keeps the first 8) when none of summaryMain runs.
func summarySteps(steps []string) []string {
	var out []string
	for _, s := range steps {
		if slices.Contains(summaryMain, s) {
			out = append(out, s)
		}
	}
	return out
}

// definition is the insert benchmark's flags.
type definition struct {
	fs                     *pflag.FlagSet
	steps                  string
	rows, writes           int64
	querySecs              float64
	clients, rowsPerCommit int
	deletePerInsert        bool
}

func newDefinition() workload.Definition {
	d := &definition{fs: pflag.NewFlagSet("insert", pflag.ContinueOnError)}
	fl := d.fs
	fl.StringVar(&d.steps, "steps", "", "comma-separated steps to run (default all: "+strings.Join(StepNames, ",")+")")
	fl.Int64Var(&d.rows, "rows", 0, "rows each client loads in l.i0 (default from --profile)")
	fl.Int64Var(&d.writes, "writes", 0, "rows each client inserts in l.i1 (4/5) and l.i2 (1/5) (default from --profile)")
	fl.Float64Var(&d.querySecs, "query-secs", 0, "seconds per query step (default from --profile)")
	fl.IntVar(&d.clients, "clients", 1, "clients, each with its own table, writer and query thread")
	fl.IntVar(&d.rowsPerCommit, "rows-per-commit", 0, "rows per insert transaction for every step (default per step: l.i0 100, l.i1 50, l.i2 5, queries 50)")
	fl.BoolVar(&d.deletePerInsert, "delete-per-insert", false, "delete as many of the oldest rows as each batch inserts (constant table size)")
	return d
}

func (d *definition) Flags() *pflag.FlagSet { return d.fs }

// Build makes the insert benchmark from the flags and the profile.
func (d *definition) Build(s workload.Shared) (workload.Workload, error) {
	p, err := workload.PickProfile("insert", profiles, s.Profile)
	if err != nil {
		return nil, err
	}
	changed := d.fs.Changed
	c := Config{Clients: d.clients, Rows: p.rows, Writes: p.writes, QuerySecs: p.querySecs,
		CleanupWaitSecs: p.cleanupSec, Regime: p.regime, RowsPerCommit: d.rowsPerCommit, DeletePerInsert: d.deletePerInsert, Seed: s.Seed}
	if changed("rows") {
		c.Rows = d.rows
	}
	if changed("writes") {
		c.Writes = d.writes
	}
	if changed("query-secs") {
		c.QuerySecs = d.querySecs
	}
	if s.CleanupWaitSecs != nil {
		c.CleanupWaitSecs = *s.CleanupWaitSecs
	}
	if s.WarmupSecs != nil {
		c.Warmup = time.Duration(*s.WarmupSecs * float64(time.Second))
	}
	if d.steps != "" {
		var err error
		if c.Steps, err = workload.SplitList("--steps", d.steps); err != nil {
			return nil, err
		}
	}
	if err := c.checkSizes(s); err != nil {
		return nil, err
	}
	return New(c)
}
