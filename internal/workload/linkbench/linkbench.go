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
// The workload is in the framework's shape (workload.Define, Base): its settings are declared
// once below; its load keeps its own step (load.go), since the reference's split of the links
// among the loaders is not a list of batches in any order.
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

	"github.com/rumbench/rumbench/internal/gen"
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

// maxLoops bounds --loops.
const maxLoops = 100

var profileNames = []string{"quick", "small", "cached", "iobound"}

// regimes are the profiles' regimes (workload.CachePlanner): the cached ones size every
// engine's cache to hold the graph (cache.go).
var regimes = map[string]string{"quick": workload.RegimeCached, "small": workload.RegimeCached,
	"cached": workload.RegimeCached, "iobound": workload.RegimeIOBound}

// Config is the workload's configuration: one field per setting, then what the workload's
// Build derives from them.
type Config struct {
	Reference, Mix, Properties  string
	MaxID1, MaxDegree, Requests int64
	Loaders, Requesters, Loops  int
	LoadSplit                   string
	LoopSecs, RequestRate       float64
	Expunge                     bool
	Percentiles                 string

	// Graph is LinkBench's configuration: --reference's, the profile's size, the --properties
	// file, --mix and --maxid1 (given, it wins over the file's).
	Graph lbgen.Config
	// warmupSecs at the start of each loop are not measured (--warmup-secs; 0 by default).
	warmupSecs float64
	// regime is the profile's (regimes).
	regime string
	// pcts are the parsed --percentiles.
	pcts []float64
}

// loopSteps are the names of every loop --loops allows: the steps the loops' settings matter to.
var loopSteps = loopNames(maxLoops)

var steps = append([]workload.StepDecl{{Name: StepLoad, Load: true}}, loopDecls()...)

func loopDecls() []workload.StepDecl {
	out := make([]workload.StepDecl, len(loopSteps))
	for i, n := range loopSteps {
		out[i] = workload.StepDecl{Name: n}
	}
	return out
}

// settings are LinkBench's. The graph's (reference, maxid1, max-degree) shape the loaded data;
// --properties does too, through the graph settings it sets, which the reuse identity holds as
// derived figures (dataRecord). The others shape only the run.
var settings = workload.Params[Config]{
	workload.String(func(c *Config) *string { return &c.Reference }, workload.Text{Name: "reference", Default: lbgen.NameSmallDatum,
		Valid: []string{lbgen.NameSmallDatum, lbgen.NameUpstream},
		Help:  "whose settings: smalldatum (mdcallag/linkbench, the reports') or upstream (facebookarchive/linkbench)"}),
	workload.String(func(c *Config) *string { return &c.Mix }, workload.Text{Name: "mix", Key: "mix_name", Show: "mix", Runtime: true, Steps: loopSteps,
		Help: "operation mix: upstream, smalldatum or a LinkBench workload file (default: the reference's)"}),
	workload.String(func(c *Config) *string { return &c.Properties }, workload.Text{Name: "properties", Runtime: true,
		Help: "a LinkBench properties file applied after --reference (maxid1, payload sizes, distributions, mix ...)"}),
	workload.Int(func(c *Config) *int64 { return &c.MaxID1 }, workload.Number[int64]{Name: "maxid1", Unit: "ids",
		Help:     "node ids are [startid1, maxid1), startid1 1 unless --properties sets it (given, this flag wins over the file's maxid1)",
		Profiles: map[string]int64{"quick": 100_001, "small": 100_001, "cached": 2_000_001, "iobound": 40_000_001}, Min: 2, Max: 1 << 62}),
	workload.Int(func(c *Config) *int64 { return &c.MaxDegree }, workload.Number[int64]{Name: "max-degree", Unit: "links",
		Help:     "cap every node's out-degree, 0 for none (not a reference setting: it keeps a small graph small)",
		Profiles: map[string]int64{"quick": 10_000}, Zero: "no cap", Min: 1, Max: 1 << 40}),
	workload.Int(func(c *Config) *int { return &c.Loaders }, workload.Number[int]{Name: "loaders", Runtime: true, Steps: []string{StepLoad},
		Help: "load clients", Default: 2, Min: 1, Max: 1024}),
	workload.String(func(c *Config) *string { return &c.LoadSplit }, workload.Text{Name: "load-split", Runtime: true, Steps: []string{StepLoad},
		Default: SplitReference, Valid: []string{SplitReference, SplitSlices},
		Help: "how the loaders share the links: reference (a range of nodes, all their links, per loader, as LinkBench loads) or slices (a node of more than 100,000 links cut into slices every loader shares)"}),
	workload.Int(func(c *Config) *int { return &c.Requesters }, workload.Number[int]{Name: "requesters", Runtime: true, Steps: loopSteps,
		Help: "request clients of each loop", Default: 1, Min: 1, Max: 4096}),
	workload.Int(func(c *Config) *int { return &c.Loops }, workload.Number[int]{Name: "loops", Runtime: true,
		Help:     "request loops, one step each (loop1 .. loopN)",
		Profiles: map[string]int{"quick": 2, "small": 3, "cached": 24, "iobound": 24}, Min: 0, Max: maxLoops}),
	workload.Float(func(c *Config) *float64 { return &c.LoopSecs }, workload.Number[float64]{Name: "loop-secs", Unit: "s", Runtime: true, Steps: loopSteps,
		Help:     "seconds of each request loop",
		Profiles: map[string]float64{"quick": 10, "small": 60, "cached": 3600, "iobound": 3600}, Min: 0.001, Max: 7 * 86400}),
	workload.Int(func(c *Config) *int64 { return &c.Requests }, workload.Number[int64]{Name: "requests", Unit: "requests", Runtime: true, Steps: loopSteps,
		Help: "end each request loop after this many requests, spread over the requesters, if --loop-secs is not up first (0: by time only)",
		Zero: "by time only", Min: 1, Max: 1 << 50}),
	workload.Float(func(c *Config) *float64 { return &c.RequestRate }, workload.Number[float64]{Name: "request-rate", Unit: "requests/s", Runtime: true, Steps: loopSteps,
		Help: "requests per second of each requester: a spelling of --rate (the requesters' sum), Poisson arrivals as LinkBench's (0: unthrottled)",
		Zero: "unthrottled", Min: 0.001, Max: 1e9}),
	workload.Bool(func(c *Config) *bool { return &c.Expunge }, workload.Switch{Name: "expunge", Runtime: true, Steps: loopSteps,
		Help: "DELETE_LINK deletes the row instead of hiding it (visibility 0)"}),
	workload.PercentileList(func(c *Config) *string { return &c.Percentiles }, workload.Text{Name: "percentiles", Runtime: true,
		Help: "extra response-time percentiles, comma-separated (e.g. 99.99)"}),
}

// newDefinition is the workload's definition, its flags bound to their defaults.
func newDefinition() workload.Definition {
	return workload.Define(workload.Shape[Config]{Name: "linkbench", Settings: settings, Steps: steps, Pick: pickSteps,
		Clients: func(c *Config) *int { return &c.Requesters }, Record: dataRecord, RecordRun: runRecord, ShardPart: shardPart,
		Build: newWorkload})
}

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

// loopNames are loop1 .. loopN.
func loopNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = loopName(i + 1)
	}
	return out
}

// pickSteps is the load and --loops loops (at most maxLoops: a count above is refused).
func pickSteps(b *workload.Base[Config]) ([]string, error) {
	return append([]string{StepLoad}, loopNames(min(max(b.Cfg.Loops, 0), maxLoops))...), nil
}

// dataRecord is the graph's settings that --properties may set besides maxid1 and that shape
// what the load writes (the ids, the out-degrees, the id2s, the link counting, the payloads'
// sizes and bytes): derived figures of the loaded data, recorded and part of the reuse identity.
func dataRecord(c *Config) map[string]any {
	g := &c.Graph
	return map[string]any{"startid1": g.StartID1, "link_type_count": g.LinkTypeCount, "degree_data": g.DegreeData,
		"nlinks_func": g.NLinksFunc, "nlinks_config": g.NLinksConfig, "nlinks_default": g.NLinksDefault,
		"randomid2max": g.RandomID2Max, "never_change": g.NeverChange,
		"link_datasize": g.LinkDataSize, "node_datasize": g.NodeDataSize,
		"link_add_datagen": dataGenText(g.LinkAddData), "node_add_datagen": dataGenText(g.NodeAddData)}
}

// dataGenText is a payload generator as the record shows it ("motif 32-100 uniqueness 0.225
// motif 512 B").
func dataGenText(d lbgen.DataGen) string {
	if d.Generator == lbgen.DataMotif {
		return fmt.Sprintf("%s %d-%d uniqueness %g motif %d B", d.Generator, d.StartByte, d.EndByte, d.Uniqueness, d.MotifBytes)
	}
	return fmt.Sprintf("%s %d-%d", d.Generator, d.StartByte, d.EndByte)
}

// runRecord is what the run's record holds besides the settings: the mix's percentages, the
// warm-up, the graph's nodes and the profile's regime.
func runRecord(b *workload.Base[Config]) map[string]any {
	c := &b.Cfg
	g := &c.Graph
	mix := map[string]float64{}
	for op := range lbgen.NumOps {
		mix[lbgen.Op(op).Property()] = g.Mix.Percent[op]
	}
	return map[string]any{"mix": mix, "getlinklist_history": g.Mix.GetLinkListHistory, "warmup_secs": c.warmupSecs,
		"nodes": g.MaxID1 - g.StartID1, "regime": c.regime}
}

// Workload is the configured LinkBench.
type Workload struct {
	*workload.Base[Config]
	model *lbgen.Model
	st    *stmts
	// linkCount is the load's links, once links has counted them (0: not yet).
	linkCount int64
}

var _ workload.Workload = (*Workload)(nil)

// newWorkload makes the workload from its settings: the graph (readGraph), the warm-up, the
// percentiles, the memory the settings need (refused above s.Memory), the model and the
// statements.
func newWorkload(b *workload.Base[Config], s workload.Shared) (workload.Workload, error) {
	c := &b.Cfg
	if err := c.readGraph(b.Given("maxid1")); err != nil {
		return nil, err
	}
	c.warmupSecs, c.regime = b.WarmupSecs(0), regimes[s.Profile]
	c.pcts, _ = workload.ParsePercentiles("--percentiles", c.Percentiles)
	if err := s.Memory.Check("linkbench", c.memNeed()); err != nil {
		return nil, err
	}
	m, err := lbgen.NewModel(c.Graph, b.Seed)
	if err != nil {
		return nil, err
	}
	st := newStmts()
	if err := st.validate(); err != nil {
		return nil, err
	}
	return &Workload{Base: b, model: m, st: st}, nil
}

// readGraph makes c.Graph: the reference's configuration with the profile's (or the flags')
// maxid1 and out-degree cap, then the --properties file, --mix, and --maxid1 when the command
// line gives it (givenMaxID1: it wins over the file's). It writes back into c the maxid1 and
// the mix's name the graph has, so the record and the banner say them.
func (c *Config) readGraph(givenMaxID1 bool) error {
	g, err := lbgen.NamedConfig(c.Reference)
	if err != nil {
		return fmt.Errorf("--reference %s: want smalldatum or upstream", input.Short(c.Reference))
	}
	g.MaxID1, g.MaxDegree = c.MaxID1, c.MaxDegree
	if c.Properties != "" {
		data, err := input.ReadFile(c.Properties, input.MaxFileBytes)
		if err != nil {
			return fmt.Errorf("--properties %s: %v", input.Short(c.Properties), err)
		}
		if err := lbgen.LoadConfig(c.Properties, bytes.NewReader(data), &g); err != nil {
			return fmt.Errorf("--properties: %v", err)
		}
	}
	if c.Mix == "" {
		c.Mix = c.Reference
	} else if g.Mix, err = readMix(c.Mix); err != nil {
		return err
	}
	if givenMaxID1 {
		g.MaxID1 = c.MaxID1
	}
	if err := g.Validate(); err != nil {
		return fmt.Errorf("%v", strings.TrimPrefix(err.Error(), "lbgen: "))
	}
	c.MaxID1, c.Graph = g.MaxID1, g
	return nil
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

// SpelledRate implements workload.RateSpelling: --request-rate is each requester's, the run's
// rate their sum over every shard's requesters, with exponential gaps as LinkBench's requesters
// draw them.
func (w *Workload) SpelledRate() (string, float64, gen.Arrivals, bool) {
	all := w.Cfg.Requesters * max(w.Shard.Count, 1)
	return "request-rate", w.Cfg.RequestRate * float64(all), gen.Poisson, w.Cfg.RequestRate > 0
}
