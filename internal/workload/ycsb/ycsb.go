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

	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/workload"
	"github.com/rumbench/rumbench/internal/workload/ycsb/ycsbconf"
)

// Step names.
const (
	StepLoad = "load"
	StepRun  = "run"
)

var stepDecls = []workload.StepDecl{{Name: StepLoad, Load: true}, {Name: StepRun}}

// Steps are the workload's steps in run order.
var Steps = workload.StepNames(stepDecls)

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

// byProfile returns one figure of every profile, by profile name.
func byProfile[T any](f func(profile) T) map[string]T {
	m := make(map[string]T, len(profiles))
	for name, p := range profiles {
		m[name] = f(p)
	}
	return m
}

// settings are the workload's flags. The data's shape is in YCSB's properties, which the property
// files (-P, --workload-letter) and overrides (-p) set: those flags are Runtime, and the
// properties that shape the data are the reuse identity (dataProperties).
var settings = workload.Params[Config]{
	workload.Strings(func(c *Config) *[]string { return &c.Files }, workload.List{Name: "property-file", Short: "P", Runtime: true,
		Help: "YCSB property file (repeatable; later files override earlier ones)"}),
	workload.Strings(func(c *Config) *[]string { return &c.Overrides }, workload.List{Name: "property", Short: "p", Key: "overrides", Runtime: true,
		Help: "YCSB property override key=value (repeatable; applied after the files)"}),
	workload.String(func(c *Config) *string { return &c.Letter }, workload.Text{Name: "workload-letter", Runtime: true, MaxLen: 1,
		Help: "YCSB's shipped workload a..f, read before -P files (default a when no -P is given)"}),
	workload.String(func(c *Config) *string { return &c.StepList }, workload.Text{Name: "steps", Runtime: true, Default: "load,run",
		Help: "steps to run: load,run or load"}),
	workload.Int(func(c *Config) *int { return &c.Threads }, workload.Number[int]{Name: "threads", Runtime: true, Steps: []string{StepRun},
		Help: "client threads of the run step (default: the threadcount property, 1)", Min: 1, Max: 4096}),
	workload.Int(func(c *Config) *int { return &c.Loaders }, workload.Number[int]{Name: "loaders", Runtime: true, Steps: []string{StepLoad},
		Help: "client threads of the load step (default: --threads)", Min: 1, Max: 4096}),
	workload.Int(func(c *Config) *int { return &c.LoadBatch }, workload.Number[int]{Name: "load-batch", Unit: "records", Runtime: true, Steps: []string{StepLoad},
		Help:     "records per load transaction (1: YCSB's one insert per transaction)",
		Profiles: byProfile(func(p profile) int { return p.loadBatch }), Min: 1, Max: 100_000}),
	workload.Float(func(c *Config) *float64 { return &c.Target }, workload.Number[float64]{Name: "target", Unit: "operations/s", Runtime: true, Steps: []string{StepRun},
		Help: "total operations per second of the run step: a spelling of --rate, uniform arrivals as YCSB's -target (default: the target property; 0 unthrottled)",
		Min:  0, Max: 1e9}),
	workload.Float(func(c *Config) *float64 { return &c.RunSecs }, workload.Number[float64]{Name: "run-secs", Unit: "s", Runtime: true, Steps: []string{StepRun},
		Help:     "seconds the run step lasts (default: maxexecutiontime, else the profile's unless -p operationcount is given; 0: by operationcount only)",
		Profiles: byProfile(func(p profile) float64 { return p.runSecs }), Min: 0, Max: 7 * 86400}),
}

// shape is the workload in the framework's shape.
var shape = workload.Shape[Config]{Name: "ycsb", Settings: settings, Steps: stepDecls,
	Choose: func(c *Config) *string { return &c.StepList }, ChooseFlag: "steps",
	Clients: func(c *Config) *int { return &c.Threads },
	Resolve: resolve, Validate: validate, Build: buildWorkload,
	Record: dataProperties, RecordRun: func(b *workload.Base[Config]) map[string]any { return runProperties(&b.Cfg) }, Banner: shown,
	CheckShard: checkShard, ShardPart: shardPart}

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

// newDefinition returns the workload's definition: its flags, then Build.
func newDefinition() workload.Definition { return workload.Define(shape) }

// resolve reads the property files and overrides, then sizes the workload from the profile
// where the properties do not, and gives the flags not given their properties' values.
func resolve(c *Config, profileName string, given func(string) bool) error {
	props, givenProps, err := c.readProperties()
	if err != nil {
		return err
	}
	// The profile sizes the run unless -p does: the shipped files' recordcount=1000 and
	// operationcount=1000 are placeholders that YCSB users override on the command line.
	if !givenProps["recordcount"] {
		props["recordcount"] = fmt.Sprint(profiles[profileName].records)
		if !givenProps["insertcount"] {
			delete(props, "insertcount")
		}
	}
	byCount := givenProps["operationcount"]
	if !byCount {
		delete(props, "operationcount")
	}
	core, unknown, err := ycsbconf.Build(props)
	if err != nil {
		return err
	}
	if core.RecordCount == 0 {
		return fmt.Errorf("-p recordcount=0: the load needs records (want an integer >= 1)")
	}
	c.Core, c.Unknown = core, unknown
	if !given("threads") {
		c.Threads = core.ThreadCount
	}
	if !given("loaders") {
		c.Loaders = c.Threads
	}
	if !given("target") {
		c.Target = float64(core.Target)
	}
	switch {
	case given("run-secs"):
	case core.MaxExecutionTime > 0:
		c.RunSecs = float64(core.MaxExecutionTime)
	case byCount && core.OperationCount > 0:
		c.RunSecs = 0 // the operation count ends the run
	}
	return nil
}

// readProperties reads the shipped workload of --workload-letter (a when neither it nor -P is
// given), the -P files in order and the -p overrides; it returns the properties, the names -p
// set, and records the sources read in c.Sources.
func (c *Config) readProperties() (ycsbconf.Props, map[string]bool, error) {
	props := ycsbconf.Props{}
	c.Sources = nil
	letter := c.Letter
	if letter == "" && len(c.Files) == 0 {
		letter = "a"
	}
	if letter != "" {
		lp, err := ycsbconf.Letter(letter)
		if err != nil {
			return nil, nil, fmt.Errorf("--workload-letter: %v", err)
		}
		for k, v := range lp {
			props[k] = v
		}
		c.Sources = append(c.Sources, "workload"+strings.ToLower(letter))
	}
	for _, f := range c.Files {
		fp, err := readPropertyFile(f)
		if err != nil {
			return nil, nil, err
		}
		for k, v := range fp {
			props[k] = v
		}
		c.Sources = append(c.Sources, f)
	}
	given := map[string]bool{}
	for _, kv := range c.Overrides {
		if err := props.Set(kv); err != nil {
			return nil, nil, fmt.Errorf("-p %s", err)
		}
		k, _, _ := strings.Cut(kv, "=")
		given[strings.TrimSpace(k)] = true
	}
	return props, given, nil
}

// buildWorkload makes the workload from its base, once the sizes are known to fit the run's engines
// and memory.
func buildWorkload(b *workload.Base[Config], s workload.Shared) (workload.Workload, error) {
	c := &b.Cfg
	c.Seed = b.Seed
	if s.WarmupSecs != nil {
		c.WarmupSecs = *s.WarmupSecs
		if err := validate(c); err != nil {
			return nil, err
		}
	}
	if err := c.checkSizes(s); err != nil {
		return nil, err
	}
	return &Workload{Base: b, stmts: newStmts(&c.Core)}, nil
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

// Config is the workload's configuration: one field per flag, then what the properties and
// the run give.
type Config struct {
	// Files are the -P property files, Overrides the -p key=value arguments, Letter
	// --workload-letter, StepList --steps.
	Files, Overrides []string
	Letter, StepList string
	// Threads and Loaders are the client threads of the run and load steps.
	Threads, Loaders int
	// LoadBatch is the records per load transaction (1: YCSB's one insert per transaction).
	LoadBatch int
	// Target is the run step's total paced rate, operations per second (0: unthrottled).
	Target float64
	// RunSecs ends the run step after this many seconds (0: by Core.OperationCount only);
	// WarmupSecs at its start are not measured.
	RunSecs, WarmupSecs float64

	// Core is YCSB's core-workload configuration from the property files.
	Core ycsbconf.Config
	// Sources are the property files read, in order (a shipped one by its name); Unknown the
	// property names nobody knows (warned about).
	Sources, Unknown []string
	// Seed makes keys, choices and values reproducible.
	Seed uint64
}

// validate checks what the property reader and the single flags do not: the steps, the run's
// end, the records, the warm-up.
func validate(c *Config) error {
	if c.StepList != "" {
		if steps, err := workload.SplitList("--steps", c.StepList); err == nil &&
			!slices.Equal(steps, []string{StepLoad, StepRun}) && !slices.Equal(steps, []string{StepLoad}) {
			return fmt.Errorf("--steps %s: valid are load,run and load (the run reads what the load wrote)", strings.Join(steps, ","))
		}
	}
	switch {
	case !(c.WarmupSecs >= 0):
		return fmt.Errorf("--warmup-secs %g: must be >= 0", c.WarmupSecs)
	case c.RunSecs == 0 && c.Core.OperationCount == 0 && runsRun(c):
		return fmt.Errorf("the run step has no end: give -p operationcount=N or --run-secs")
	case c.Core.InsertCount < 1:
		return fmt.Errorf("insertcount=%d: the load needs records (want insertstart < recordcount)", c.Core.InsertCount)
	}
	return nil
}

// runsRun says whether --steps selects the run step ("" selects every step).
func runsRun(c *Config) bool {
	steps, err := workload.SplitList("--steps", c.StepList)
	return c.StepList == "" || err == nil && slices.Contains(steps, StepRun)
}

// Workload is the configured YCSB core workload.
type Workload struct {
	*workload.Base[Config]
	// stmts are the statements of the run, shared by every engine's sessions.
	stmts *stmts
}

var _ workload.Workload = (*Workload)(nil)

// maxListed is how many unknown properties the warning names.
const maxListed = 20

// Warnings returns the lines the CLI prints before the run: the properties nobody knows (the
// first maxListed, each name cut as input.Short cuts it).
func (w *Workload) Warnings() []string {
	if len(w.Cfg.Unknown) == 0 {
		return nil
	}
	var names []string
	for _, u := range w.Cfg.Unknown[:min(len(w.Cfg.Unknown), maxListed)] {
		names = append(names, input.Short(u))
	}
	if n := len(w.Cfg.Unknown) - maxListed; n > 0 {
		names = append(names, fmt.Sprintf("and %d more", n))
	}
	return []string{fmt.Sprintf("unknown YCSB properties, ignored: %s", strings.Join(names, ", "))}
}

// dataProperties are the properties that decide the loaded keys and values: recorded, and the
// reuse identity (with the seed).
func dataProperties(cfg *Config) map[string]any {
	c := &cfg.Core
	return map[string]any{"table": c.Table, "recordcount": c.RecordCount, "insertstart": c.InsertStart, "insertcount": c.InsertCount,
		"fieldcount": c.FieldCount, "fieldlength": c.FieldLength, "minfieldlength": c.MinFieldLength,
		"fieldlengthdistribution": c.FieldLengthDistribution, "fieldnameprefix": c.FieldNamePrefix, "zeropadding": c.ZeroPadding,
		"insertorder": c.InsertOrder}
}

// runProperties are the other properties and what was read, recorded with the run.
func runProperties(cfg *Config) map[string]any {
	c := &cfg.Core
	return map[string]any{
		"sources": cfg.Sources, "unknown_properties": cfg.Unknown, "ignored_properties": c.Ignored,
		"operationcount": c.OperationCount, "warmup_secs": cfg.WarmupSecs,
		"readallfields": c.ReadAllFields, "writeallfields": c.WriteAllFields, "dataintegrity": c.DataIntegrity,
		"readproportion": c.ReadProportion, "updateproportion": c.UpdateProportion,
		"insertproportion": c.InsertProportion, "scanproportion": c.ScanProportion,
		"readmodifywriteproportion": c.ReadModifyWriteProportion,
		"requestdistribution":       c.RequestDistribution, "hotspotdatafraction": c.HotspotDataFraction,
		"hotspotopnfraction": c.HotspotOpnFraction, "exponential.percentile": c.ExponentialPercentile,
		"exponential.frac": c.ExponentialFrac, "minscanlength": c.MinScanLength,
		"maxscanlength": c.MaxScanLength, "scanlengthdistribution": c.ScanLengthDistribution,
	}
}

// shown is the banner: the property files and the records' shape matter to both steps, the
// loaders and the load batch to the load, the rest to the run.
func shown(cfg *Config) []workload.Setting {
	c := &cfg.Core
	var mix []string
	for i, f := range c.Proportions() {
		if f > 0 {
			mix = append(mix, fmt.Sprintf("%s:%g", opNames[i], f))
		}
	}
	out := []workload.Setting{
		workload.Show("sources", strings.Join(cfg.Sources, "+")),
		workload.Show("recordcount", c.RecordCount),
	}
	if c.OperationCount > 0 {
		out = append(out, workload.Show("operationcount", c.OperationCount).For(StepRun))
	}
	return append(out,
		workload.Show("run_secs", cfg.RunSecs).For(StepRun),
		workload.Show("threads", cfg.Threads).For(StepRun),
		workload.Show("loaders", cfg.Loaders).For(StepLoad),
		workload.Show("load_batch", cfg.LoadBatch).For(StepLoad),
		workload.Show("target", cfg.Target).For(StepRun),
		workload.Show("mix", strings.Join(mix, ",")).For(StepRun),
		workload.Show("requestdistribution", c.RequestDistribution).For(StepRun),
		workload.Show("fields", fmt.Sprintf("%dx%d(%s)", c.FieldCount, c.FieldLength, c.FieldLengthDistribution)),
		workload.Show("insertorder", c.InsertOrder),
	)
}

// SpelledRate implements workload.RateSpelling: --target (or the target property) is the run's
// rate over every shard's threads, evenly spaced as YCSB's -target spaces them.
func (w *Workload) SpelledRate() (string, float64, gen.Arrivals, bool) {
	return "target", w.Cfg.Target, gen.Uniform, w.Cfg.Target > 0
}
