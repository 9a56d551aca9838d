// Package tpcc is TPC-C, the order-entry OLTP benchmark (TPC Benchmark C, revision 5.11): nine
// tables loaded with the specification's data for --warehouses W, then terminals bound to a
// warehouse and a district running New-Order, Payment, Order-Status, Delivery and Stock-Level
// in the 45/43/4/4/4 mix, reported as tpmC (New-Orders per minute) with the response time of
// each transaction type and the cost per transaction; the specification's consistency
// conditions 1 to 4 are checked after the load and after the run.
//
// The statements follow go-tpc's (pingcap/go-tpc), the client most teams compare with, where
// the table model can say them; engines without SQL run the same logical statements.
// docs/tpcc.md lists every difference from go-tpc and from the specification.
//
// Steps:
//
//	load   the item table, then each warehouse's rows (warehouse and districts, stock, each
//	       district's customers with their history, orders, order lines and new orders), by
//	       --loaders clients taking parts from one list, in batches
//	run    --terminals terminals for --run-secs seconds
package tpcc

import (
	"fmt"

	"github.com/rumbench/rumbench/internal/workload"
)

// Step names.
const (
	StepLoad = "load"
	StepRun  = "run"
)

var steps = []workload.StepDecl{{Name: StepLoad, Load: true}, {Name: StepRun}}

// Bounds of the scale flags.
const (
	maxWarehouses = 10_000
	maxTerminals  = 4096
	maxLoaders    = 256
)

// settings are the workload's flags, in banner order. The profiles: quick is one warehouse
// (about 500,000 rows) and a run of 20 s; small is 10 warehouses and standard 100, the scales
// HammerDB and go-tpc users start from.
var settings = workload.Params[Config]{
	workload.Int(func(c *Config) *int { return &c.Warehouses }, workload.Number[int]{Name: "warehouses", Help: "warehouses W",
		Profiles: map[string]int{"quick": 1, "small": 10, "standard": 100}, Min: 1, Max: maxWarehouses}),
	workload.Int(func(c *Config) *int { return &c.Loaders }, workload.Number[int]{Name: "loaders", Runtime: true, Steps: []string{StepLoad},
		Help: "load clients", Default: 2, Min: 1, Max: maxLoaders}),
	workload.Int(func(c *Config) *int { return &c.Terminals }, workload.Number[int]{Name: "terminals", Runtime: true, Steps: []string{StepRun},
		Help:     "terminals of the run, at most 10 per warehouse, each bound to a warehouse and a district (a profile's count is cut to 10·W)",
		Profiles: map[string]int{"quick": 4, "small": 16, "standard": 64}, Min: 1, Max: maxTerminals}),
	workload.Float(func(c *Config) *float64 { return &c.RunSecs }, workload.Number[float64]{Name: "run-secs", Unit: "s", Runtime: true, Steps: []string{StepRun},
		Help:     "seconds of the run step",
		Profiles: map[string]float64{"quick": 20, "small": 120, "standard": 600}, Min: 0, Max: 7 * 86400, Check: positive}),
	workload.Bool(func(c *Config) *bool { return &c.Think }, workload.Switch{Name: "think", Runtime: true, Steps: []string{StepRun},
		Help: "keying and think times of the specification (clause 5.2.5) before and after each transaction: a conforming run (off: back to back, as go-tpc and HammerDB run)"}),
	workload.Int(func(c *Config) *int64 { return &c.Transactions }, workload.Number[int64]{Name: "transactions", Runtime: true, Steps: []string{StepRun},
		Help: "end the run after this many transactions over all terminals, if --run-secs is not up first (0: by time only)",
		Min:  0, Max: 1 << 62}),
	workload.String(func(c *Config) *string { return &c.PercentileList }, workload.Text{Name: "percentiles", Runtime: true,
		Help:  "extra response-time percentiles, comma-separated (e.g. 99.9)",
		Check: func(v string) error { _, err := workload.ParsePercentiles("--percentiles", v); return err }}),
}

// positive refuses a run of no time.
func positive(v float64) error {
	if v > 0 {
		return nil
	}
	return fmt.Errorf("want a run of (0, 604800] seconds")
}

// shape is the workload in the framework's shape.
var shape = workload.Shape[Config]{Name: "tpcc", Settings: settings, Steps: steps,
	Clients: func(c *Config) *int { return &c.Terminals }, Resolve: resolve, Validate: validate, Build: build,
	Record: func(c *Config) map[string]any {
		return map[string]any{"items": c.Scale.Items, "customers_per_district": c.Scale.Customers}
	},
	RecordRun: func(b *workload.Base[Config]) map[string]any {
		c := &b.Cfg
		load, run := constants(c.Seed)
		return map[string]any{"c_last_load": load.CLast, "c_last_run": run.CLast, "c_id": load.CID, "c_item": load.CItem,
			"warmup_secs": c.WarmupSecs, "percentiles": c.Percentiles}
	},
	CheckShard: checkShard, ShardPart: shardPart}

func init() {
	workload.Register(workload.Spec{
		Name:        "tpcc",
		Description: "TPC-C order entry: load W warehouses, then terminals run New-Order, Payment, Order-Status, Delivery and Stock-Level (45/43/4/4/4); tpmC, latency per transaction type, cost per transaction, consistency checks",
		Steps:       workload.StepNames(steps),
		Profiles:    []string{"quick", "small", "standard"},
		Rates: []workload.Rate{
			{Name: "ips", Unit: "rows/s", Meaning: "rows loaded per second, every table's (load)"},
			{Name: "tpmC", Unit: "New-Orders/min", Meaning: "New-Order transactions completed per minute, rolled back ones included (the specification's tpmC); per-op figures are per transaction of any type (run)"},
		},
		Headline: []string{"run:wKB/i", "run:fl/op", "run:tcpu_us/op", "run:scpu_us/op", "load:db_MB"},
		Clients:  "terminals",
		New:      newDefinition,
	})
}

// newDefinition returns the workload's definition: its flags, then Build.
func newDefinition() workload.Definition { return workload.Define(shape) }

// resolve gives the specification's scale and, when --warehouses is given without --terminals,
// cuts the profile's terminals to 10 per warehouse.
func resolve(c *Config, _ string, given func(string) bool) error {
	if c.Scale == (Scale{}) {
		c.Scale = SpecScale
	}
	if given("warehouses") && !given("terminals") {
		c.Terminals = min(c.Terminals, max(c.Warehouses, 1)*Districts)
	}
	return nil
}

// validate checks what no single setting can: the terminals against the warehouses, the
// warm-up and the scale.
func validate(c *Config) error {
	switch {
	case c.Terminals > c.Warehouses*Districts:
		return fmt.Errorf("--terminals %d: must be 1..%d (10 per warehouse, at most %d)", c.Terminals, min(maxTerminals, c.Warehouses*Districts), maxTerminals)
	case !(c.WarmupSecs >= 0):
		return fmt.Errorf("--warmup-secs %g: no negative warm-up", c.WarmupSecs)
	case c.Scale.Items < maxLines*2 || c.Scale.Items > SpecScale.Items || c.Scale.Customers < 30 || c.Scale.Customers > SpecScale.Customers:
		return fmt.Errorf("scale %+v: want 30..100000 items and 30..3000 customers per district", c.Scale)
	}
	return nil
}

// build makes the workload from its base, checking the memory its sizes need.
func build(b *workload.Base[Config], s workload.Shared) (workload.Workload, error) {
	if s.WarmupSecs != nil {
		b.Cfg.WarmupSecs = *s.WarmupSecs
		if err := validate(&b.Cfg); err != nil {
			return nil, err
		}
	}
	if err := s.Memory.Check("tpcc", b.Cfg.memNeed()); err != nil {
		return nil, err
	}
	return newWorkload(b)
}

// Config is the workload's configuration: one field per setting, and what tests and the run
// give besides.
type Config struct {
	// Warehouses is W; Scale the rows per warehouse and district (SpecScale but in tests).
	Warehouses int
	Scale      Scale
	// Terminals run the transactions, terminal t bound to warehouse t mod W + 1 and district
	// (t div W) mod 10 + 1; Loaders load.
	Terminals, Loaders int
	// RunSecs is the run step's measured length; WarmupSecs precede it, not measured.
	RunSecs, WarmupSecs float64
	// Transactions, when > 0, ends the run after this many transactions (over all terminals),
	// if RunSecs is not up first.
	Transactions int64
	// Think turns on the specification's keying and think times.
	Think bool
	// PercentileList is --percentiles; Percentiles the extra response-time percentiles it
	// lists, to report.
	PercentileList string
	Percentiles    []float64
	// Seed makes the data and the transactions reproducible.
	Seed uint64
}

// Workload is the configured TPC-C.
type Workload struct {
	*workload.Base[Config]
	st        *stmts
	load, run Constants
}

var _ workload.Workload = (*Workload)(nil)

// New returns the workload for cfg (every step, unsplit), checked as the flags are.
func New(cfg Config) (*Workload, error) {
	b, err := workload.NewBase(shape, cfg, cfg.Seed)
	if err != nil {
		return nil, err
	}
	return newWorkload(b)
}

// newWorkload makes the workload on its base: the seed, the percentiles, the statements and
// the NURand constants.
func newWorkload(b *workload.Base[Config]) (*Workload, error) {
	b.Cfg.Seed = b.Seed
	var err error
	if b.Cfg.Percentiles, err = workload.ParsePercentiles("--percentiles", b.Cfg.PercentileList); err != nil {
		return nil, err
	}
	st := newStmts()
	if err := st.validate(); err != nil {
		return nil, err
	}
	w := &Workload{Base: b, st: st}
	w.load, w.run = constants(b.Seed)
	return w, nil
}
