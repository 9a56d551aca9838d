package insert

import (
	"slices"
	"strings"

	"github.com/rumbench/rumbench/internal/workload"
)

// Profiles: quick finishes the 3 default engines in about 2 minutes on 2 cores; standard is the
// reference's per-client sizes (load 10M, l.i1 16M + l.i2 4M, 1800 s query steps, the
// reference's settling wait after the cleanup); iobound is sized for the memory cap the CLI
// gives it (256 MiB, 32 MiB cache): a B-tree's database grows to about 5 times the cap, its
// secondary indexes to about twice the cap. Each setting's table entry below holds its
// default per profile; regimeOf the regime each runs in.
var profileNames = []string{"quick", "small", "standard", "iobound"}

// regimeOf is the regime profile runs in: RegimeIOBound under the CLI's memory cap (iobound),
// else RegimeCached (each engine's cache holds its working set, cache.go).
func regimeOf(profile string) string {
	if profile == "iobound" {
		return RegimeIOBound
	}
	return RegimeCached
}

// Steps of the groups the settings matter to.
var (
	loadSteps   = []string{"l.i0"}
	writeSteps  = []string{"l.i1", "l.i2"}
	queries     = StepNames[4:]
	writerSteps = append([]string{"l.i0", "l.i1", "l.i2"}, queries...)
	deleteSteps = append(slices.Clone(writeSteps), queries...)
)

// settings are the insert benchmark's flags, in the banner's order. The clients (one table
// each) and the rows each loads shape the data; the rest only how the steps run.
var settings = workload.Params[Config]{
	workload.Int(func(c *Config) *int { return &c.Clients }, workload.Number[int]{Name: "clients",
		Help: "clients, each with its own table, writer and query thread", Default: 1, Min: 1, Max: 1024}),
	workload.Int(func(c *Config) *int64 { return &c.Rows }, workload.Number[int64]{Name: "rows", Unit: "rows", Steps: loadSteps,
		Help:     "rows each client loads in l.i0",
		Profiles: map[string]int64{"quick": 200_000, "small": 2_000_000, "standard": 10_000_000, "iobound": 4_000_000}, Min: 1, Max: 1 << 40}),
	workload.Int(func(c *Config) *int64 { return &c.Writes }, workload.Number[int64]{Name: "writes", Unit: "rows", Steps: writeSteps,
		Help:     "rows each client inserts in l.i1 (4/5) and l.i2 (1/5)",
		Profiles: map[string]int64{"quick": 50_000, "small": 1_000_000, "standard": 20_000_000, "iobound": 500_000}, Min: 1, Max: 1 << 40}),
	workload.Float(func(c *Config) *float64 { return &c.QuerySecs }, workload.Number[float64]{Name: "query-secs", Unit: "s", Runtime: true, Steps: queries,
		Help:     "seconds per query step",
		Profiles: map[string]float64{"quick": 5, "small": 60, "standard": 1800, "iobound": 20}, Min: 0.001, Max: 7 * 86400}),
	workload.Int(func(c *Config) *int { return &c.RowsPerCommit }, workload.Number[int]{Name: "rows-per-commit", Runtime: true, Steps: writerSteps,
		Help: "rows per insert transaction for every step (default per step: l.i0 100, l.i1 50, l.i2 5, queries 50)",
		Zero: "per-step default", Min: 1, Max: 100_000}),
	workload.Bool(func(c *Config) *bool { return &c.DeletePerInsert }, workload.Switch{Name: "delete-per-insert", Runtime: true, Steps: deleteSteps,
		Help: "delete as many of the oldest rows as each batch inserts (constant table size)"}),
	workload.String(func(c *Config) *string { return &c.Steps }, workload.Text{Name: "steps", Runtime: true, Unshown: true,
		Help: "comma-separated steps to run (default all: " + strings.Join(StepNames, ",") + ")"}),
	workload.WarmupSecs(func(c *Config) *float64 { return &c.WarmupSecs }, workload.Number[float64]{Unshown: true, Steps: queries,
		Help: "seconds at the start of each query step that are not measured"}),
	workload.CleanupWaitSecs(func(c *Config) *float64 { return &c.CleanupWaitSecs }, workload.Number[float64]{Unshown: true, Steps: queries,
		Help:     "seconds from the cleanup's start to the first query step, -1 for the reference's 60 + 1 per million loaded rows (at most 1200)",
		Profiles: map[string]float64{"small": 10, "standard": -1}}),
}

// shape declares the insert benchmark to the framework: settings, steps, the recorded figures.
var shape = workload.Shape[Config]{Name: "insert", Settings: settings, Steps: stepDecls,
	Choose: func(c *Config) *string { return &c.Steps }, ChooseFlag: "steps",
	Clients: func(c *Config) *int { return &c.Clients }, RecordRun: recordRun, Build: build}

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

func newDefinition() workload.Definition { return workload.Define(shape) }

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
