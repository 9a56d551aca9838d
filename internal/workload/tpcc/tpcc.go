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

	"github.com/spf13/pflag"

	"github.com/rumbench/rumbench/internal/workload"
)

// Step names.
const (
	StepLoad = "load"
	StepRun  = "run"
)

// Bounds of the scale flags.
const (
	maxWarehouses = 10_000
	maxTerminals  = 4096
	maxLoaders    = 256
)

// profile is a named scale.
type profile struct {
	warehouses, terminals int
	runSecs               float64
}

// profiles: quick is one warehouse (about 500,000 rows) and a run of 20 s; small is 10
// warehouses and standard 100, the scales HammerDB and go-tpc users start from.
var profiles = map[string]profile{
	"quick":    {warehouses: 1, terminals: 4, runSecs: 20},
	"small":    {warehouses: 10, terminals: 16, runSecs: 120},
	"standard": {warehouses: 100, terminals: 64, runSecs: 600},
}

var profileNames = []string{"quick", "small", "standard"}

func init() {
	workload.Register(workload.Spec{
		Name:        "tpcc",
		Description: "TPC-C order entry: load W warehouses, then terminals run New-Order, Payment, Order-Status, Delivery and Stock-Level (45/43/4/4/4); tpmC, latency per transaction type, cost per transaction, consistency checks",
		Steps:       []string{StepLoad, StepRun},
		Profiles:    profileNames,
		Rates: []workload.Rate{
			{Name: "ips", Unit: "rows/s", Meaning: "rows loaded per second, every table's (load)"},
			{Name: "tpmC", Unit: "New-Orders/min", Meaning: "New-Order transactions completed per minute, rolled back ones included (the specification's tpmC); per-op figures are per transaction of any type (run)"},
		},
		Headline: []string{"run:wKB/i", "run:fl/op", "run:tcpu_us/op", "run:scpu_us/op", "load:db_MB"},
		Clients:  "terminals",
		New:      newDefinition,
	})
}

// definition is the workload's flags.
type definition struct {
	fs                             *pflag.FlagSet
	warehouses, terminals, loaders int
	runSecs                        float64
	transactions                   int64
	think                          bool
	pcts                           string
}

func newDefinition() workload.Definition {
	d := &definition{fs: pflag.NewFlagSet("tpcc", pflag.ContinueOnError)}
	fl := d.fs
	fl.IntVar(&d.warehouses, "warehouses", 0, "warehouses W, 1..10000 (default from --profile)")
	fl.IntVar(&d.terminals, "terminals", 0, "terminals of the run, 1..10·W, each bound to a warehouse and a district (default from --profile)")
	fl.IntVar(&d.loaders, "loaders", 2, "load clients, 1..256")
	fl.Float64Var(&d.runSecs, "run-secs", 0, "seconds of the run step (default from --profile)")
	fl.Int64Var(&d.transactions, "transactions", 0, "end the run after this many transactions over all terminals, if --run-secs is not up first (0: by time only)")
	fl.BoolVar(&d.think, "think", false, "keying and think times of the specification (clause 5.2.5) before and after each transaction: a conforming run (off: back to back, as go-tpc and HammerDB run)")
	fl.StringVar(&d.pcts, "percentiles", "", "extra response-time percentiles, comma-separated (e.g. 99.9)")
	return d
}

func (d *definition) Flags() *pflag.FlagSet { return d.fs }

// Build makes the workload from the flags and the profile.
func (d *definition) Build(s workload.Shared) (workload.Workload, error) {
	p, err := workload.PickProfile("tpcc", profiles, s.Profile)
	if err != nil {
		return nil, err
	}
	c := Config{Warehouses: p.warehouses, Terminals: p.terminals, Loaders: d.loaders, RunSecs: p.runSecs, Transactions: d.transactions, Think: d.think,
		Scale: SpecScale, Seed: s.Seed}
	changed := d.fs.Changed
	if changed("warehouses") {
		c.Warehouses = d.warehouses
		if !changed("terminals") {
			c.Terminals = min(p.terminals, max(c.Warehouses, 1)*Districts)
		}
	}
	if changed("terminals") {
		c.Terminals = d.terminals
	}
	if changed("run-secs") {
		c.RunSecs = d.runSecs
	}
	if s.WarmupSecs != nil {
		c.WarmupSecs = *s.WarmupSecs
	}
	if c.Percentiles, err = workload.ParsePercentiles("--percentiles", d.pcts); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := s.Memory.Check("tpcc", c.memNeed()); err != nil {
		return nil, err
	}
	return New(c)
}

// Config is the configured workload.
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
	// Percentiles are extra response-time percentiles to report.
	Percentiles []float64
	// Seed makes the data and the transactions reproducible.
	Seed uint64
}

// Validate checks the counts and durations; an error names the flag and what is valid.
func (c *Config) Validate() error {
	switch {
	case c.Warehouses < 1 || c.Warehouses > maxWarehouses:
		return fmt.Errorf("--warehouses %d: must be 1..%d", c.Warehouses, maxWarehouses)
	case c.Terminals < 1 || c.Terminals > min(maxTerminals, c.Warehouses*Districts):
		return fmt.Errorf("--terminals %d: must be 1..%d (10 per warehouse, at most %d)", c.Terminals, min(maxTerminals, c.Warehouses*Districts), maxTerminals)
	case c.Loaders < 1 || c.Loaders > maxLoaders:
		return fmt.Errorf("--loaders %d: must be 1..%d", c.Loaders, maxLoaders)
	case c.Transactions < 0:
		return fmt.Errorf("--transactions %d: must be >= 0", c.Transactions)
	case !(c.RunSecs > 0) || c.RunSecs > 7*86400 || !(c.WarmupSecs >= 0):
		return fmt.Errorf("--run-secs %g, --warmup-secs %g: want a run of (0, 604800] seconds and no negative warm-up", c.RunSecs, c.WarmupSecs)
	case c.Scale.Items < maxLines*2 || c.Scale.Items > SpecScale.Items || c.Scale.Customers < 30 || c.Scale.Customers > SpecScale.Customers:
		return fmt.Errorf("scale %+v: want 30..100000 items and 30..3000 customers per district", c.Scale)
	}
	return nil
}

// Workload is the configured TPC-C.
type Workload struct {
	cfg       Config
	st        *stmts
	load, run Constants
	// shard is the part of a split run this process does (workload.Sharder).
	shard workload.Shard
}

var _ workload.Workload = (*Workload)(nil)

// New returns the workload for cfg.
func New(cfg Config) (*Workload, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	st := newStmts()
	if err := st.validate(); err != nil {
		return nil, err
	}
	w := &Workload{cfg: cfg, st: st}
	w.load, w.run = constants(cfg.Seed)
	return w, nil
}

// Name implements workload.Workload.
func (w *Workload) Name() string { return "tpcc" }

// Steps implements workload.Workload.
func (w *Workload) Steps() []string { return []string{StepLoad, StepRun} }

// Config implements workload.Workload.
func (w *Workload) Config() map[string]any {
	c := &w.cfg
	return map[string]any{"warehouses": c.Warehouses, "terminals": c.Terminals, "loaders": c.Loaders, "run_secs": c.RunSecs, "transactions": c.Transactions,
		"warmup_secs": c.WarmupSecs, "think": c.Think, "items": c.Scale.Items, "customers_per_district": c.Scale.Customers,
		"c_last_load": w.load.CLast, "c_last_run": w.run.CLast, "c_id": w.load.CID, "c_item": w.load.CItem,
		"percentiles": c.Percentiles, "seed": c.Seed}
}

// Settings implements workload.Workload.
func (w *Workload) Settings() []workload.Setting {
	c := &w.cfg
	return []workload.Setting{
		workload.Show("warehouses", c.Warehouses),
		workload.Show("loaders", c.Loaders).For(StepLoad),
		workload.Show("terminals", c.Terminals).For(StepRun),
		workload.Show("run_secs", c.RunSecs).For(StepRun),
		workload.Show("think", c.Think).For(StepRun),
		workload.Show("seed", c.Seed),
	}
}

// SetClients implements workload.Concurrent: the run steps built from now on run n terminals
// (bound to warehouses and districts as --terminals binds them).
func (w *Workload) SetClients(n int) error {
	return workload.SetClients(&w.cfg, n, func(c *Config, n int) { c.Terminals = n }, (*Config).Validate)
}
