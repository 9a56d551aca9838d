// Package ycsb is YCSB's core workload (the Yahoo! Cloud Serving Benchmark, workloads A to F) as
// a rumbench workload: YCSB's usertable, its property files and their semantics, with rumbench's
// measurement (response time from the intended start under --target, and what each operation
// cost the storage).
//
// Steps:
//
//	load   insert insertcount records from insertstart (YCSB's load phase), --loaders clients,
//	       one record per transaction as YCSB does (the quick profile: 100), or --load-batch
//	run    the operation mix (read, update, insert, scan, read-modify-write) by --threads clients,
//	       until operationcount operations or the run's duration, paced when --target is given
//
// Configuration comes from YCSB property files (-P FILE, or --workload-letter a..f for the six
// files YCSB ships) and -p key=value overrides, read by package ycsbconf; the key and request
// generators are package ycsbgen's. The profile sizes the run (recordcount and the run's
// duration) unless -p recordcount or -p operationcount / maxexecutiontime say otherwise.
//
// Every value written is self-verifying (see fieldValue): the checks read rows back and prove
// each field is one that the load or an update wrote, whole.
package ycsb

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/workload"
	"github.com/rumbench/rumbench/internal/workload/ycsb/ycsbconf"
)

// Step names.
const (
	StepLoad = "load"
	StepRun  = "run"
)

// Steps are the workload's steps in run order.
var Steps = []string{StepLoad, StepRun}

// profile is a named scale: records loaded, records per load transaction and the run's
// duration.
type profile struct {
	records   int64
	loadBatch int
	runSecs   float64
}

// profiles: quick loads 20,000 records and runs 10 s (a minute per engine with its checks),
// loading 100 records per transaction: YCSB's one synced commit per record took longer than the
// run (13.5 s on a 2-core VM); small 1M records and 60 s; standard 10M records (about 11 GB with
// the default record) and 600 s, both loading as YCSB does.
var profiles = map[string]profile{
	"quick":    {records: 20_000, loadBatch: 100, runSecs: 10},
	"small":    {records: 1_000_000, loadBatch: 1, runSecs: 60},
	"standard": {records: 10_000_000, loadBatch: 1, runSecs: 600},
}

var profileNames = []string{"quick", "small", "standard"}

func init() {
	workload.Register(workload.Spec{
		Name:        "ycsb",
		Description: "YCSB core workloads A-F from YCSB's property files: load, then a read/update/insert/scan/read-modify-write mix; per-operation latency and cost",
		Steps:       Steps,
		Profiles:    profileNames,
		Rates: []workload.Rate{
			{Name: "ips", Unit: "rows/s", Meaning: "records inserted per second (load)"},
			{Name: "ops", Unit: "operations/s", Meaning: "operations per second, every kind counted once: YCSB's throughput (run)"},
		},
		// CPU and KB written per operation of the run step: per row written (wKB/i) when the
		// mix writes, per operation (wKB/op) when it only reads; the other is left out.
		Headline: []string{"run:tcpu_us/op", "run:wKB/i", "run:wKB/op"},
		Clients:  "threads",
		// The data's shape is in properties (recordcount, fieldcount ...): run --reuse sets
		// those the command line does not as -p NAME=VALUE.
		DataProperty: "property",
		New:          newDefinition,
	})
}

// definition is the workload's flags.
type definition struct {
	fs                      *pflag.FlagSet
	files, props            []string
	letter, steps           string
	threads, loaders, batch int
	target, runSecs         float64
}

func newDefinition() workload.Definition {
	d := &definition{fs: pflag.NewFlagSet("ycsb", pflag.ContinueOnError)}
	fl := d.fs
	fl.StringArrayVarP(&d.files, "property-file", "P", nil, "YCSB property file (repeatable; later files override earlier ones)")
	fl.StringArrayVarP(&d.props, "property", "p", nil, "YCSB property override key=value (repeatable; applied after the files)")
	fl.StringVar(&d.letter, "workload-letter", "", "YCSB's shipped workload a..f, read before -P files (default a when no -P is given)")
	fl.StringVar(&d.steps, "steps", "load,run", "steps to run: load,run or load")
	fl.IntVar(&d.threads, "threads", 0, "client threads of the run step (default: threadcount property, 1)")
	fl.IntVar(&d.loaders, "loaders", 0, "client threads of the load step (default: --threads)")
	fl.IntVar(&d.batch, "load-batch", 0, "records per load transaction (default from --profile: quick 100; small and standard 1, as YCSB inserts one per transaction)")
	fl.Float64Var(&d.target, "target", 0, "total operations per second of the run step, paced (YCSB -target; default: target property, 0 unthrottled)")
	fl.Float64Var(&d.runSecs, "run-secs", 0, "seconds the run step lasts (default: maxexecutiontime, else the profile's unless -p operationcount is given)")
	return d
}

func (d *definition) Flags() *pflag.FlagSet { return d.fs }

// Build reads the property files and overrides, then sizes the workload from the profile where
// the properties do not.
func (d *definition) Build(s workload.Shared) (workload.Workload, error) {
	p, err := workload.PickProfile("ycsb", profiles, s.Profile)
	if err != nil {
		return nil, err
	}
	props := ycsbconf.Props{}
	var sources []string
	letter := d.letter
	if letter == "" && len(d.files) == 0 {
		letter = "a"
	}
	if letter != "" {
		lp, err := ycsbconf.Letter(letter)
		if err != nil {
			return nil, fmt.Errorf("--workload-letter: %v", err)
		}
		for k, v := range lp {
			props[k] = v
		}
		sources = append(sources, "workload"+strings.ToLower(letter))
	}
	for _, f := range d.files {
		fp, err := readPropertyFile(f)
		if err != nil {
			return nil, err
		}
		for k, v := range fp {
			props[k] = v
		}
		sources = append(sources, f)
	}
	given := map[string]bool{}
	for _, kv := range d.props {
		if err := props.Set(kv); err != nil {
			return nil, fmt.Errorf("-p %s", err)
		}
		k, _, _ := strings.Cut(kv, "=")
		given[strings.TrimSpace(k)] = true
	}
	// The profile sizes the run unless -p does: the shipped files' recordcount=1000 and
	// operationcount=1000 are placeholders that YCSB users override on the command line.
	if !given["recordcount"] {
		props["recordcount"] = fmt.Sprint(p.records)
		if !given["insertcount"] {
			delete(props, "insertcount")
		}
	}
	byCount := given["operationcount"]
	if !byCount {
		delete(props, "operationcount")
	}
	core, unknown, err := ycsbconf.Build(props)
	if err != nil {
		return nil, err
	}
	if core.RecordCount == 0 {
		return nil, fmt.Errorf("-p recordcount=0: the load needs records (want an integer >= 1)")
	}
	c := Config{Core: core, Threads: core.ThreadCount, LoadBatch: p.loadBatch, Target: float64(core.Target),
		Seed: s.Seed, Sources: sources, Overrides: d.props, Unknown: unknown}
	if d.fs.Changed("load-batch") {
		c.LoadBatch = d.batch
	}
	if d.fs.Changed("threads") {
		c.Threads = d.threads
	}
	c.Loaders = c.Threads
	if d.fs.Changed("loaders") {
		c.Loaders = d.loaders
	}
	if d.fs.Changed("target") {
		c.Target = d.target
	}
	switch {
	case d.fs.Changed("run-secs"):
		c.RunSecs = d.runSecs
	case core.MaxExecutionTime > 0:
		c.RunSecs = float64(core.MaxExecutionTime)
	case !byCount || core.OperationCount == 0:
		c.RunSecs = p.runSecs
	}
	if s.WarmupSecs != nil {
		c.WarmupSecs = *s.WarmupSecs
	}
	if c.Steps, err = workload.SplitList("--steps", d.steps); err != nil {
		return nil, err
	}
	if err := c.checkSizes(s); err != nil {
		return nil, err
	}
	return New(c)
}

// readPropertyFile reads -P path, a regular file of at most input.MaxFileBytes; a path that
// does not exist but names a shipped file ("workloada", "workloads/workloadc") reads the shipped
// copy, as YCSB's own checkout has them.
func readPropertyFile(path string) (ycsbconf.Props, error) {
	data, err := input.ReadFile(path, input.MaxFileBytes)
	if err == nil {
		return ycsbconf.Parse(bytes.NewReader(data), "-P "+input.Short(path))
	}
	if os.IsNotExist(err) {
		base := path[strings.LastIndexByte(path, '/')+1:]
		if l, ok := strings.CutPrefix(base, "workload"); ok && len(l) == 1 {
			if p, lerr := ycsbconf.Letter(l); lerr == nil {
				return p, nil
			}
		}
		return nil, fmt.Errorf("-P %s: no such file (the shipped workloads are workloada .. workloadf)", input.Short(path))
	}
	return nil, fmt.Errorf("-P %s: %v", input.Short(path), err)
}

// Config is the configured workload.
type Config struct {
	// Core is YCSB's core-workload configuration from the property files.
	Core ycsbconf.Config
	// Threads and Loaders are the client threads of the run and load steps.
	Threads, Loaders int
	// LoadBatch is the records per load transaction (1: YCSB's one insert per transaction).
	LoadBatch int
	// Target is the run step's total paced rate, operations per second (0: unthrottled).
	Target float64
	// RunSecs ends the run step after this many seconds (0: by Core.OperationCount only);
	// WarmupSecs at its start are not measured.
	RunSecs, WarmupSecs float64
	// Steps are the steps to run (load, or load and run).
	Steps []string
	// Seed makes keys, choices and values reproducible.
	Seed uint64
	// Sources are the property files read, in order (a shipped one by its name); Overrides the
	// -p arguments; Unknown the property names nobody knows (warned about).
	Sources, Overrides, Unknown []string
}

// Validate checks what the property reader does not: the client counts, the pace, the steps.
func (c *Config) Validate() error {
	switch {
	case c.Threads < 1 || c.Threads > 4096:
		return fmt.Errorf("--threads %d: must be 1..4096", c.Threads)
	case c.Loaders < 1 || c.Loaders > 4096:
		return fmt.Errorf("--loaders %d: must be 1..4096", c.Loaders)
	case c.LoadBatch < 1 || c.LoadBatch > 100_000:
		return fmt.Errorf("--load-batch %d: must be 1..100000", c.LoadBatch)
	case !(c.Target >= 0):
		return fmt.Errorf("--target %g: must be >= 0 operations per second (0: unthrottled)", c.Target)
	case !(c.RunSecs >= 0) || !(c.WarmupSecs >= 0):
		return fmt.Errorf("--run-secs %g, --warmup-secs %g: must be >= 0", c.RunSecs, c.WarmupSecs)
	case c.RunSecs == 0 && c.Core.OperationCount == 0 && slices.Contains(c.Steps, StepRun):
		return fmt.Errorf("the run step has no end: give -p operationcount=N or --run-secs")
	case c.Core.InsertCount < 1:
		return fmt.Errorf("insertcount=%d: the load needs records (want insertstart < recordcount)", c.Core.InsertCount)
	}
	if !slices.Equal(c.Steps, []string{StepLoad, StepRun}) && !slices.Equal(c.Steps, []string{StepLoad}) {
		return fmt.Errorf("--steps %s: valid are load,run and load (the run reads what the load wrote)", strings.Join(c.Steps, ","))
	}
	return nil
}

// Workload is the configured YCSB core workload.
type Workload struct {
	cfg Config
	// stmts are the statements of the run, shared by every engine's sessions.
	stmts *stmts
	// shard is the part of a split run this process does (workload.Sharder).
	shard workload.Shard
}

var _ workload.Workload = (*Workload)(nil)

// New returns the workload for cfg.
func New(cfg Config) (*Workload, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Workload{cfg: cfg, stmts: newStmts(&cfg.Core)}, nil
}

// Name implements workload.Workload.
func (w *Workload) Name() string { return "ycsb" }

// Steps implements workload.Workload.
func (w *Workload) Steps() []string { return w.cfg.Steps }

// maxListed is how many unknown properties the warning names.
const maxListed = 20

// Warnings returns the lines the CLI prints before the run: the properties nobody knows (the
// first maxListed, each name cut as input.Short cuts it).
func (w *Workload) Warnings() []string {
	if len(w.cfg.Unknown) == 0 {
		return nil
	}
	var names []string
	for _, u := range w.cfg.Unknown[:min(len(w.cfg.Unknown), maxListed)] {
		names = append(names, input.Short(u))
	}
	if n := len(w.cfg.Unknown) - maxListed; n > 0 {
		names = append(names, fmt.Sprintf("and %d more", n))
	}
	return []string{fmt.Sprintf("unknown YCSB properties, ignored: %s", strings.Join(names, ", "))}
}

// Config implements workload.Workload.
func (w *Workload) Config() map[string]any {
	c := &w.cfg.Core
	m := map[string]any{
		"sources": w.cfg.Sources, "overrides": w.cfg.Overrides, "unknown_properties": w.cfg.Unknown,
		"ignored_properties": c.Ignored,
		"table":              c.Table, "recordcount": c.RecordCount, "operationcount": c.OperationCount,
		"run_secs": w.cfg.RunSecs, "warmup_secs": w.cfg.WarmupSecs, "threads": w.cfg.Threads, "loaders": w.cfg.Loaders,
		"load_batch": w.cfg.LoadBatch, "target": w.cfg.Target, "steps": w.cfg.Steps, "seed": w.cfg.Seed,
		"fieldcount": c.FieldCount, "fieldlength": c.FieldLength, "minfieldlength": c.MinFieldLength,
		"fieldlengthdistribution": c.FieldLengthDistribution, "readallfields": c.ReadAllFields,
		"writeallfields": c.WriteAllFields, "dataintegrity": c.DataIntegrity,
		"readproportion": c.ReadProportion, "updateproportion": c.UpdateProportion,
		"insertproportion": c.InsertProportion, "scanproportion": c.ScanProportion,
		"readmodifywriteproportion": c.ReadModifyWriteProportion,
		"requestdistribution":       c.RequestDistribution, "hotspotdatafraction": c.HotspotDataFraction,
		"hotspotopnfraction": c.HotspotOpnFraction, "exponential.percentile": c.ExponentialPercentile,
		"exponential.frac": c.ExponentialFrac, "zeropadding": c.ZeroPadding, "insertorder": c.InsertOrder,
		"insertstart": c.InsertStart, "insertcount": c.InsertCount, "minscanlength": c.MinScanLength,
		"maxscanlength": c.MaxScanLength, "scanlengthdistribution": c.ScanLengthDistribution,
	}
	if part := w.ShardPart(); part != "" {
		m["shard"] = part
	}
	return m
}

// Settings implements workload.Workload: the property files and the records' shape matter to
// both steps, the loaders and the load batch to the load, the rest to the run.
func (w *Workload) Settings() []workload.Setting {
	c := &w.cfg.Core
	var mix []string
	for i, f := range c.Proportions() {
		if f > 0 {
			mix = append(mix, fmt.Sprintf("%s:%g", opNames[i], f))
		}
	}
	out := []workload.Setting{
		workload.Show("sources", strings.Join(w.cfg.Sources, "+")),
		workload.Show("recordcount", c.RecordCount),
	}
	if c.OperationCount > 0 {
		out = append(out, workload.Show("operationcount", c.OperationCount).For(StepRun))
	}
	return append(out,
		workload.Show("run_secs", w.cfg.RunSecs).For(StepRun),
		workload.Show("threads", w.cfg.Threads).For(StepRun),
		workload.Show("loaders", w.cfg.Loaders).For(StepLoad),
		workload.Show("load_batch", w.cfg.LoadBatch).For(StepLoad),
		workload.Show("target", w.cfg.Target).For(StepRun),
		workload.Show("mix", strings.Join(mix, ",")).For(StepRun),
		workload.Show("requestdistribution", c.RequestDistribution).For(StepRun),
		workload.Show("fields", fmt.Sprintf("%dx%d(%s)", c.FieldCount, c.FieldLength, c.FieldLengthDistribution)),
		workload.Show("insertorder", c.InsertOrder),
		workload.Show("seed", w.cfg.Seed),
	)
}

// SetClients implements workload.Concurrent: the steps built from now on run n clients
// (Threads).
func (w *Workload) SetClients(n int) error {
	return workload.SetClients(&w.cfg, n, func(c *Config, n int) { c.Threads = n }, (*Config).Validate)
}
