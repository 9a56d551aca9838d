// Package linkbench is LinkBench, the social-graph benchmark (nodes, links between them and a
// count per node and link type), as the reports this project reproduces run it: a load phase,
// then loops of requests of ten operations in the reference's mix, each reported with its
// response-time percentiles (QoS) and its cost per operation.
//
// The tables and statements follow the reference's schema and the SQL of the fork behind the
// Small Datum reports (mdcallag/linkbench: LinkStoreSql, LinkStoreMysql, LinkStorePgsql);
// engines without SQL run the same logical statements through the table model. The graph and
// the requests come from package lbgen, with either reference's data and mix
// (--reference smalldatum, the default, or upstream) and a mix of one's own (--mix).
//
// Steps:
//
//	load     the nodes, then each node's links and count rows, by --loaders clients taking
//	         ranges of 2048 nodes, all their links each (--load-split reference, the default, as
//	         LinkBench loads), or with a node of more than 100,000 links cut into slices that
//	         every loader shares (--load-split slices)
//	loopN    --requesters clients issue requests for --loop-secs seconds (or until --requests
//	         are done); N = 1..--loops
package linkbench

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/workload"
	"github.com/rumbench/rumbench/internal/workload/linkbench/lbgen"
)

// StepLoad is the load step's name; the request loops are "loop1" .. "loopN".
const StepLoad = "load"

// Visibility values (the reference's).
const (
	visibilityHidden  = lbgen.VisibilityHidden
	visibilityDefault = lbgen.VisibilityDefault
)

// profile is a named scale.
type profile struct {
	maxID1, maxDegree int64
	loops             int
	loopSecs          float64
	regime            string // workload.RegimeCached or workload.RegimeIOBound
}

// profiles: quick is under a minute per engine (100,000 nodes, out-degrees capped at 10,000
// links, two loops of 10 s); small is the reference clients' own test scale (100,000 nodes, 4.6M links with
// the fork's data); cached and iobound are the report's two setups (maxid1 2M and 40M, 24
// loops of an hour, the 24th reported).
var profiles = map[string]profile{
	"quick":   {maxID1: 100_001, maxDegree: 10_000, loops: 2, loopSecs: 10, regime: workload.RegimeCached},
	"small":   {maxID1: 100_001, loops: 3, loopSecs: 60, regime: workload.RegimeCached},
	"cached":  {maxID1: 2_000_001, loops: 24, loopSecs: 3600, regime: workload.RegimeCached},
	"iobound": {maxID1: 40_000_001, loops: 24, loopSecs: 3600, regime: workload.RegimeIOBound},
}

var profileNames = []string{"quick", "small", "cached", "iobound"}

// maxLoops bounds --loops.
const maxLoops = 100

func init() {
	// The loops are as many as --loops says: the list shows their pattern.
	steps := []string{StepLoad, loopName(1), loopName(2), "... loopN (--loops, at most 100)"}
	workload.Register(workload.Spec{
		Name:        "linkbench",
		Description: "LinkBench social graph: load nodes, links and counts, then loops of ten request types in the reference's mix; QoS and cost per operation",
		Steps:       steps,
		Profiles:    profileNames,
		Rates: []workload.Rate{
			{Name: "ips", Unit: "links/s", Meaning: "links loaded per second, nodes and count rows included in the per-link costs (load)"},
			{Name: "rps", Unit: "requests/s", Meaning: "requests per second, every operation once: LinkBench's Requests/second (loops)"},
		},
		// The reference's load legend (ips, wKB/i, Mcpu/i, size); its query results are
		// those of the last loop.
		Headline: []string{"load:wKB/i", "load:tcpu_us/op", "load:db_MB"},
		Summary:  summarySteps,
		Clients:  "requesters",
		New:      newDefinition,
	})
}

// summarySteps picks the summary's columns: the load and the last loop (the reference reports
// the last of its loops).
func summarySteps(steps []string) []string {
	var out []string
	if slices.Contains(steps, StepLoad) {
		out = append(out, StepLoad)
	}
	if n := len(steps); n > 0 && steps[n-1] != StepLoad {
		out = append(out, steps[n-1])
	}
	return out
}

func loopName(i int) string { return "loop" + strconv.Itoa(i) }

// definition is the workload's flags.
type definition struct {
	fs                                     *pflag.FlagSet
	reference, mix, props, pcts, loadSplit string
	maxID1, maxDegree                      int64
	loaders, requesters, loops             int
	requests                               int64
	loopSecs, requestRate                  float64
	expunge                                bool
}

func newDefinition() workload.Definition {
	d := &definition{fs: pflag.NewFlagSet("linkbench", pflag.ContinueOnError)}
	fl := d.fs
	fl.StringVar(&d.reference, "reference", "smalldatum", "whose settings: smalldatum (mdcallag/linkbench, the reports') or upstream (facebookarchive/linkbench)")
	fl.StringVar(&d.mix, "mix", "", "operation mix: upstream, smalldatum or a LinkBench workload file (default: the reference's)")
	fl.StringVar(&d.props, "properties", "", "a LinkBench properties file applied after --reference (maxid1, payload sizes, distributions, mix ...)")
	fl.Int64Var(&d.maxID1, "maxid1", 0, "node ids are [1, maxid1) (default from --profile)")
	fl.Int64Var(&d.maxDegree, "max-degree", -1, "cap every node's out-degree (0: none; default from --profile: quick caps at 10000)")
	fl.IntVar(&d.loaders, "loaders", 2, "load clients")
	fl.StringVar(&d.loadSplit, "load-split", SplitReference, "how the loaders share the links: reference (a range of nodes, all their links, per loader, as LinkBench loads) or slices (a node of more than 100,000 links cut into slices every loader shares)")
	fl.IntVar(&d.requesters, "requesters", 1, "request clients of each loop")
	fl.IntVar(&d.loops, "loops", 0, "request loops, one step each (default from --profile)")
	fl.Float64Var(&d.loopSecs, "loop-secs", 0, "seconds of each request loop (default from --profile)")
	fl.Int64Var(&d.requests, "requests", 0, "end each request loop after this many requests, spread over the requesters, if --loop-secs is not up first (0: by time only)")
	fl.Float64Var(&d.requestRate, "request-rate", 0, "requests per second of each requester, paced, with latency from the intended start (0: unthrottled)")
	fl.BoolVar(&d.expunge, "expunge", false, "DELETE_LINK deletes the row instead of hiding it (visibility 0)")
	fl.StringVar(&d.pcts, "percentiles", "", "extra response-time percentiles, comma-separated (e.g. 99.99)")
	return d
}

func (d *definition) Flags() *pflag.FlagSet { return d.fs }

// Build makes the workload from the flags and the profile.
func (d *definition) Build(s workload.Shared) (workload.Workload, error) {
	p, err := workload.PickProfile("linkbench", profiles, s.Profile)
	if err != nil {
		return nil, err
	}
	g, err := lbgen.NamedConfig(d.reference)
	if err != nil {
		return nil, fmt.Errorf("--reference %s: want smalldatum or upstream", input.Short(d.reference))
	}
	g.MaxID1, g.MaxDegree = p.maxID1, p.maxDegree
	if d.props != "" {
		data, err := input.ReadFile(d.props, input.MaxFileBytes)
		if err != nil {
			return nil, fmt.Errorf("--properties %s: %v", input.Short(d.props), err)
		}
		if err := lbgen.LoadConfig(d.props, bytes.NewReader(data), &g); err != nil {
			return nil, fmt.Errorf("--properties: %v", err)
		}
	}
	if d.mix != "" {
		if g.Mix, err = readMix(d.mix); err != nil {
			return nil, err
		}
	}
	changed := d.fs.Changed
	if changed("maxid1") {
		g.MaxID1 = d.maxID1
	}
	if changed("max-degree") {
		g.MaxDegree = d.maxDegree
	}
	c := Config{Graph: g, Reference: d.reference, MixName: d.mix, Loaders: d.loaders, LoadSplit: d.loadSplit, Requesters: d.requesters,
		Loops: p.loops, LoopSecs: p.loopSecs, Requests: d.requests, RequestRate: d.requestRate, Expunge: d.expunge, Seed: s.Seed,
		Regime: p.regime}
	if c.MixName == "" {
		c.MixName = d.reference
	}
	if changed("loops") {
		c.Loops = d.loops
	}
	if changed("loop-secs") {
		c.LoopSecs = d.loopSecs
	}
	if s.WarmupSecs != nil {
		c.WarmupSecs = *s.WarmupSecs
	}
	if c.Percentiles, err = workload.ParsePercentiles("--percentiles", d.pcts); err != nil {
		return nil, err
	}
	if err := c.checkSizes(s); err != nil {
		return nil, err
	}
	return New(c)
}

// readMix reads --mix: a mix's name or a LinkBench workload file (a regular file of at most
// input.MaxFileBytes).
func readMix(v string) (lbgen.Mix, error) {
	if m, err := lbgen.NamedMix(v); err == nil {
		return m, nil
	}
	data, err := input.ReadFile(v, input.MaxFileBytes)
	if err != nil {
		return lbgen.Mix{}, fmt.Errorf("--mix %s: neither upstream, smalldatum nor a readable file (%v)", input.Short(v), err)
	}
	m, err := lbgen.ParseMix(v, bytes.NewReader(data))
	if err != nil {
		return lbgen.Mix{}, fmt.Errorf("--mix: %v", err)
	}
	return m, nil
}

// Config is the configured workload.
type Config struct {
	// Graph is LinkBench's configuration: ids, out-degrees, payloads, access distributions, mix.
	Graph lbgen.Config
	// Reference and MixName name the settings and the mix used (for the record).
	Reference, MixName string
	// Loaders and Requesters are the clients of the load and of each request loop.
	Loaders, Requesters int
	// LoadSplit is how the loaders share the links: SplitReference ("" too) or SplitSlices.
	LoadSplit string
	// Loops request loops of LoopSecs each; WarmupSecs at the start of each are not measured.
	Loops                int
	LoopSecs, WarmupSecs float64
	// Requests, when > 0, ends each loop after this many requests (spread over all requesters,
	// every shard's), before LoopSecs if they are done sooner.
	Requests int64
	// RequestRate paces each requester at this many requests per second (0: unthrottled).
	RequestRate float64
	// Expunge deletes links instead of hiding them.
	Expunge bool
	// Percentiles are extra response-time percentiles to report.
	Percentiles []float64
	// Seed makes the graph and the requests reproducible.
	Seed uint64
	// Regime is the profile's: workload.RegimeCached (every engine's cache sized to hold the
	// graph, cache.go) or workload.RegimeIOBound; "" leaves the caches to the run.
	Regime string
}

// Validate checks the client counts, the loops and the graph's configuration.
func (c *Config) Validate() error {
	switch {
	case c.Loaders < 1 || c.Loaders > 1024:
		return fmt.Errorf("--loaders %d: must be 1..1024", c.Loaders)
	case c.Requesters < 1 || c.Requesters > 4096:
		return fmt.Errorf("--requesters %d: must be 1..4096", c.Requesters)
	case c.Loops < 0 || c.Loops > maxLoops:
		return fmt.Errorf("--loops %d: must be 0..%d", c.Loops, maxLoops)
	case c.LoadSplit != "" && c.LoadSplit != SplitReference && c.LoadSplit != SplitSlices:
		return fmt.Errorf("--load-split %s: want reference or slices", input.Short(c.LoadSplit))
	case c.Requests < 0:
		return fmt.Errorf("--requests %d: must be >= 0", c.Requests)
	case !(c.LoopSecs > 0) || !(c.WarmupSecs >= 0) || !(c.RequestRate >= 0):
		return fmt.Errorf("--loop-secs %g, --warmup-secs %g, --request-rate %g: want a positive loop and no negative figure", c.LoopSecs, c.WarmupSecs, c.RequestRate)
	}
	if err := c.Graph.Validate(); err != nil {
		return fmt.Errorf("%v", strings.TrimPrefix(err.Error(), "lbgen: "))
	}
	return nil
}

// Workload is the configured LinkBench.
type Workload struct {
	cfg   Config
	model *lbgen.Model
	st    *stmts
	steps []string
	// shard is the part of a split run this process does (workload.Sharder).
	shard workload.Shard
	// linkCount is the load's links, once links has counted them (0: not yet).
	linkCount int64
}

var _ workload.Workload = (*Workload)(nil)

// New returns the workload for cfg.
func New(cfg Config) (*Workload, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m, err := lbgen.NewModel(cfg.Graph, cfg.Seed)
	if err != nil {
		return nil, err
	}
	st := newStmts()
	if err := st.validate(); err != nil {
		return nil, err
	}
	w := &Workload{cfg: cfg, model: m, st: st, steps: []string{StepLoad}}
	for i := 1; i <= cfg.Loops; i++ {
		w.steps = append(w.steps, loopName(i))
	}
	return w, nil
}

// loadSplit is the configured load split's name.
func (w *Workload) loadSplit() string {
	if w.cfg.LoadSplit == "" {
		return SplitReference
	}
	return w.cfg.LoadSplit
}

// Name implements workload.Workload.
func (w *Workload) Name() string { return "linkbench" }

// Steps implements workload.Workload.
func (w *Workload) Steps() []string { return w.steps }

// Config implements workload.Workload.
func (w *Workload) Config() map[string]any {
	g := &w.cfg.Graph
	mix := map[string]float64{}
	for op := range lbgen.NumOps {
		mix[lbgen.Op(op).Property()] = g.Mix.Percent[op]
	}
	return map[string]any{
		"reference": w.cfg.Reference, "mix_name": w.cfg.MixName, "mix": mix, "getlinklist_history": g.Mix.GetLinkListHistory,
		"startid1": g.StartID1, "maxid1": g.MaxID1, "max_degree": g.MaxDegree, "link_type_count": g.LinkTypeCount,
		"degree_data": g.DegreeData, "link_datasize": g.LinkDataSize, "node_datasize": g.NodeDataSize,
		"loaders": w.cfg.Loaders, "load_split": w.loadSplit(), "requesters": w.cfg.Requesters, "loops": w.cfg.Loops, "loop_secs": w.cfg.LoopSecs, "requests": w.cfg.Requests,
		"warmup_secs": w.cfg.WarmupSecs, "request_rate": w.cfg.RequestRate, "expunge": w.cfg.Expunge,
		"percentiles": w.cfg.Percentiles, "seed": w.cfg.Seed, "nodes": w.model.Nodes(), "regime": w.cfg.Regime,
	}
}

// Settings implements workload.Workload: the graph's settings matter to every step (the loops
// choose ids in it), the loaders' to the load, the requesters' to the loops.
func (w *Workload) Settings() []workload.Setting {
	g := &w.cfg.Graph
	loops := slices.DeleteFunc(slices.Clone(w.steps), func(s string) bool { return s == StepLoad })
	out := []workload.Setting{
		workload.Show("reference", w.cfg.Reference),
		workload.Show("mix", w.cfg.MixName).For(loops...),
		workload.Show("maxid1", g.MaxID1),
	}
	if g.MaxDegree > 0 {
		out = append(out, workload.Show("max_degree", g.MaxDegree))
	}
	return append(out,
		workload.Show("loaders", w.cfg.Loaders).For(StepLoad),
		workload.Show("load_split", w.loadSplit()).For(StepLoad),
		workload.Show("requesters", w.cfg.Requesters).For(loops...),
		workload.Show("loop_secs", w.cfg.LoopSecs).For(loops...),
		workload.Show("requests", w.cfg.Requests).For(loops...),
		workload.Show("request_rate", w.cfg.RequestRate).For(loops...),
		workload.Show("expunge", w.cfg.Expunge).For(loops...),
		workload.Show("seed", w.cfg.Seed),
	)
}

// SetClients implements workload.Concurrent: the steps built from now on run n clients
// (Requesters).
func (w *Workload) SetClients(n int) error {
	return workload.SetClients(&w.cfg, n, func(c *Config, n int) { c.Requesters = n }, (*Config).Validate)
}
