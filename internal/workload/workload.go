// Package workload is the registry of workloads and the contract between a workload and the
// orchestration that runs it.
//
// A workload declares its tables and steps, generates its data deterministically (batch i is a
// pure function of the seed and i) and hands the runner per-worker operation closures. It owns no
// loop and never prints.
package workload

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/memneed"
	"github.com/rumbench/rumbench/internal/registry"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/table"
)

// Workload is a configured workload, ready to run on any number of engines in turn.
type Workload interface {
	// Name is the registered name.
	Name() string
	// Steps returns the names of the steps that will run, in order.
	Steps() []string
	// Config returns the effective configuration, every default resolved, for the manifest.
	Config() map[string]any
	// Settings are the effective settings the run's banner shows, in order, each with the steps
	// it matters to (Banner shows those of the steps that run).
	Settings() []Setting
	// Open creates the workload's tables on eng and returns the state of one run on it.
	Open(ctx context.Context, eng table.Engine) (Run, error)
}

// Setting is one effective setting of a workload as the run's banner shows it: Name=Value.
type Setting struct {
	Name, Value string
	// Steps are the steps the setting matters to; nil: every step (the data's shape, the seed).
	Steps []string
}

// Show returns a setting that matters to every step (nil Steps), its value formatted with %v.
func Show(name string, value any) Setting { return Setting{Name: name, Value: fmt.Sprint(value)} }

// For returns the setting for the given steps only (none: no step, the setting is not shown).
func (s Setting) For(steps ...string) Setting {
	s.Steps = append(make([]string, 0, len(steps)), steps...)
	return s
}

// Banner renders, in one line of name=value pairs, the settings that matter to at least one of
// steps (the steps that run).
func Banner(settings []Setting, steps []string) string {
	var parts []string
	for _, s := range settings {
		if s.Steps == nil || slices.ContainsFunc(s.Steps, func(st string) bool { return slices.Contains(steps, st) }) {
			parts = append(parts, s.Name+"="+s.Value)
		}
	}
	return strings.Join(parts, " ")
}

// Unloaded is a workload whose chosen steps may run where nothing loaded their data: a step
// list without the step that loads, scripts that read tables a step they do not run would load.
// rumbench run asks it before a run that loads its own data (not --reuse, not prepare), and
// says or refuses, before anything starts, what it answers.
type Unloaded interface {
	// Unloaded says what the steps that run find when nothing loads their data: fresh is true
	// when a target's database starts empty (an engine's new data directory, a server rumbench
	// starts), false for a --dsn server, which may hold it already. line is "" when the steps
	// load what they use; refuse says they cannot run at all (line then names the flag that
	// loads).
	Unloaded(fresh bool) (line string, refuse bool)
}

// CachePlanner is implemented by workloads whose profiles state a regime and size each
// engine's cache for it. The CLI asks it for every engine when --cache-mb is not given (an
// explicit --cache-mb applies to every engine).
type CachePlanner interface {
	// Regime is the regime the profile is meant to run in: "cached" or "IO-bound".
	Regime() string
	// CacheMB returns the cache, MiB, that puts engine in the regime at the workload's scale,
	// at most maxBytes (0: no bound); false when the engine has no rule (it keeps the run's
	// default) or the profile leaves caches to the run.
	CacheMB(engine string, maxBytes int64) (int64, bool)
}

// Warner is implemented by workloads that have something to say before the run starts (YCSB's
// unknown properties): each line is printed as a warning before the banner.
type Warner interface {
	Warnings() []string
}

// Reuser is a workload whose load can run once and be used by later runs: rumbench prepare runs
// its load steps and keeps the data; rumbench run --reuse opens a run on that data (Reopen) and
// runs the other steps. run --fresh on a --dsn server drops its tables, and only those.
type Reuser interface {
	// LoadSteps are the steps of Steps that create and load the data, in order.
	LoadSteps() []string
	// Tables are the tables the workload creates, as Open creates them.
	Tables() []*table.Table
	// DataConfig is the settings that shape the loaded data (sizes, seed, schema options): a
	// run reuses data only when its DataConfig equals the preparing run's (as JSON).
	DataConfig() map[string]any
	// Reopen opens a run on data an earlier run loaded with an equal DataConfig, instead of
	// Open: it attaches every table (an error names one that is missing or not indexed as the
	// load steps leave it) and derives from the data what the later steps and the invariant
	// check need (row counts, next keys).
	Reopen(ctx context.Context, eng table.Engine, k table.Keeper) (Run, error)
}

// AttachAll attaches tables with k and returns an error naming the first that is missing, or
// that is not indexed when indexed is true.
func AttachAll(ctx context.Context, k table.Keeper, tables []*table.Table, indexed bool) error {
	for _, t := range tables {
		ok, ix, err := k.AttachTable(ctx, t)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("table %s is missing or empty (was the data prepared with rumbench prepare?)", t.Name)
		}
		if indexed && !ix && len(t.Indexes) > 0 {
			return fmt.Errorf("table %s has no secondary indexes: its load did not finish", t.Name)
		}
	}
	return nil
}

// Run is a workload's state on one engine.
type Run interface {
	// Prepare does the unmeasured work that precedes step name (e.g. the cleanup before the
	// query steps) and says what it did ("" for nothing).
	Prepare(ctx context.Context, name string) (string, error)
	// Step returns the measured step name, ready for runner.Run.
	Step(ctx context.Context, name string) (runner.Step, error)
	// Rows returns the rows the tables hold now by the workload's own count.
	Rows() int64
	// Check verifies the workload's invariants against the engine (row counts, one index entry
	// per row per secondary index, query result sizes) and summarizes what it checked.
	Check(ctx context.Context) (string, error)
	// Close releases the run's sessions. The engine stays open.
	Close() error
}

// AckChecker is implemented by runs that can verify, after a step into which faults were
// injected (rumbench run --fault), that every write the clients were told committed is present.
type AckChecker interface {
	// BeforeFaults takes, before step name runs, what its check compares with (a sum, a count).
	BeforeFaults(ctx context.Context, name string) error
	// CheckAcknowledged checks step name's acknowledged writes after it ran. A step whose
	// writes the workload cannot check returns a result with Checked false and why in How.
	CheckAcknowledged(ctx context.Context, name string) (results.AckCheck, error)
}

// Spec describes a registered workload: what `rumbench workloads NAME` shows and how the run
// command builds it. A new workload is one package that registers a Spec in its init function,
// plus its import line in workload/all.
type Spec struct {
	Name        string
	Description string
	// Steps lists every step name the workload knows, in the order they run.
	Steps []string
	// Profiles are the scale names the workload knows (quick, small, standard), smallest first:
	// what --profile takes, its help lists and Build accepts (PickProfile).
	Profiles []string
	// Groups are the workload's step groups in report order (nil: its steps are not grouped).
	Groups []results.Group
	// Rates are the names its steps give their headline rate (runner.Presentation.RateName),
	// explained for `rumbench metrics`.
	Rates []Rate
	// Headline are the efficiency figures the run's summary shows beside the rates, in order:
	// catalog metric names (internal/metric), each either "NAME" (the geometric mean over the
	// steps of the summary's columns) or "STEP:NAME" (that step's figure; STEP may name a step
	// group: the geometric mean over its steps). A figure no step measured is left out of the
	// summary. Recorded in the run manifest (results.Manifest.Headline).
	Headline []string
	// Summary picks the summary's columns from the steps that run (Workload.Steps(), in run
	// order): step names or step group names, in order, at most MaxSummaryColumns. nil: every
	// group of a grouped workload, else the first MaxSummaryColumns steps (SummaryColumns).
	Summary func(steps []string) []string
	// Clients names the workload's flag that sets how many clients its measured steps run
	// ("threads", "requesters", "clients"), "" when it has none. A workload that names one
	// implements Concurrent, and the flag takes a list (--threads 1,2,4,8): a concurrency
	// sweep, each count a target of the run.
	Clients string
	// ClientsShapeData says the client count shapes the loaded data (the insert benchmark's
	// table per client): a sweep then loads afresh for each count, instead of loading once per
	// engine and running each count on the same data.
	ClientsShapeData bool
	// NeedsSQL says the workload runs SQL text (table.SQLSession): an engine without SQL
	// (engine.Spec.SQL false: the KV and document families) is refused before the run starts.
	NeedsSQL bool
	// DataProperty names the workload's repeatable NAME=VALUE flag that sets those of its
	// DataConfig keys (Reuser) that are no flag of their own (YCSB's --property, -p); "" for
	// none. rumbench run --reuse takes a DataConfig key the command line does not set from the
	// data's preparation: through the flag of the key's name (table_size: --table-size), else
	// as NAME=VALUE of this flag.
	DataProperty string
	// New returns a fresh definition, its flags bound to their defaults.
	New func() Definition
}

// CheckProfile refuses a profile name that is not one of s.Profiles, naming the valid ones: the
// one check of --profile, made by the CLI before Build and by Build itself (PickProfile).
func (s Spec) CheckProfile(name string) error {
	if slices.Contains(s.Profiles, name) {
		return nil
	}
	return fmt.Errorf("unknown profile %q (valid: %s)", input.Short(name), strings.Join(s.Profiles, ", "))
}

// PickProfile returns the settings of profile name of the registered workload w from its table
// profiles; an error when name is not one of w's Spec.Profiles (Spec.CheckProfile) or the table
// has no entry for it.
func PickProfile[P any](w string, profiles map[string]P, name string) (P, error) {
	var zero P
	spec, ok := Lookup(w)
	if !ok {
		return zero, fmt.Errorf("unknown workload %q", w)
	}
	if err := spec.CheckProfile(name); err != nil {
		return zero, err
	}
	p, ok := profiles[name]
	if !ok {
		return zero, fmt.Errorf("workload %s: profile %s has no settings", w, name)
	}
	return p, nil
}

// SetClients is Concurrent.SetClients for a workload whose configuration is *cfg: it sets n
// clients on a copy of it with set and keeps the copy when validate accepts it (an error names
// the flag and what is valid).
func SetClients[C any](cfg *C, n int, set func(*C, int), validate func(*C) error) error {
	c := *cfg
	set(&c, n)
	if err := validate(&c); err != nil {
		return err
	}
	*cfg = c
	return nil
}

// Concurrent is a workload whose client count can change between runs on the same data: a
// concurrency sweep builds it with the largest count (sizes and memory checked for it), then
// sets each count before the steps that run with it.
type Concurrent interface {
	// SetClients makes the steps that Run.Step (or Open, when Spec.ClientsShapeData) builds
	// from now on run n clients; Config and Summary describe the count last set. An error is
	// the user's (n out of range for the workload) and names the flag.
	SetClients(n int) error
}

// RateSpelling is a workload whose own flag is a spelling of the run's --rate, kept from its
// reference (YCSB's --target, LinkBench's --request-rate): given, it sets the run's fixed rate,
// which paces the steps as --rate does.
type RateSpelling interface {
	// SpelledRate returns the flag, the rate it gives (per second over all clients) and the
	// arrivals of its reference; ok is false when the flag sets no rate.
	SpelledRate() (flag string, rate float64, arrivals gen.Arrivals, ok bool)
}

// MaxSummaryColumns bounds the rate columns (steps or step groups) of a run's summary, so a
// person reads it in seconds.
const MaxSummaryColumns = 8

// SummaryColumns returns the rate columns of the summary of a run of spec whose steps are
// steps: spec.Summary's choice, or by default every group of a grouped workload, else the
// first MaxSummaryColumns steps; never more than MaxSummaryColumns.
func SummaryColumns(spec Spec, steps []string) []string {
	var cols []string
	switch {
	case spec.Summary != nil:
		cols = spec.Summary(steps)
	case len(spec.Groups) > 0:
		for _, g := range spec.Groups {
			cols = append(cols, g.Name)
		}
	}
	if len(cols) == 0 {
		cols = steps
	}
	return slices.Clone(cols[:min(len(cols), MaxSummaryColumns)])
}

// Rate is a name a workload gives the headline rate of some of its steps.
type Rate struct {
	Name, Unit, Meaning string
}

// RateNames returns the names every registered workload gives its headline rates (ips, qps,
// rps ...), which checks, comparisons and recipes may name besides the catalog's metrics.
func RateNames() []string {
	var out []string
	for _, w := range Names() {
		s, _ := Lookup(w)
		for _, r := range s.Rates {
			out = append(out, r.Name)
		}
	}
	return out
}

// LookupRate returns the first registered workload's rate named name (in workload name order).
func LookupRate(name string) (Rate, bool) {
	for _, w := range Names() {
		s, _ := Lookup(w)
		for _, r := range s.Rates {
			if r.Name == name {
				return r, true
			}
		}
	}
	return Rate{}, false
}

// Definition is a workload being configured from the command line: the CLI adds its flags to
// the run command, parses the arguments, then calls Build.
type Definition interface {
	// Flags returns the workload's own flags. Their values, and whether each was given
	// (FlagSet.Changed), are read by Build.
	Flags() *pflag.FlagSet
	// Build makes the workload from its flags and the shared settings. An error is the user's
	// (a bad value or an unknown profile) and says what is valid.
	Build(s Shared) (Workload, error)
}

// Shared are the run settings every workload may use.
type Shared struct {
	// Profile is the scale name (one of Spec.Profiles).
	Profile string
	// Seed makes data and keys reproducible.
	Seed uint64
	// WarmupSecs and CleanupWaitSecs are --warmup-secs (excluded from the start of each
	// measured step that has a warm-up) and --cleanup-wait-secs (the settling wait after a
	// cleanup, negative for the workload's reference formula); nil when not given, so the
	// profile decides.
	WarmupSecs, CleanupWaitSecs *float64
	// Memory is what the run may plan to use (the smaller of the host's MemAvailable and
	// --memory-limit): Build refuses sizes whose estimated need is above it. The zero Budget
	// checks nothing.
	Memory memneed.Budget
	// Columns is the most columns a table may have on every engine of the run (zero: no limit).
	Columns ColumnLimit
	// Rate is the run's fixed rate (--rate, the largest of a sweep), per second over all
	// clients; 0 runs flat out. A workload refuses a configuration it cannot pace.
	Rate float64
}

var specs = registry.New[Spec]("workload")

// Register adds a workload spec. It panics when the name is taken.
func Register(s Spec) { specs.Register(s.Name, s) }

// Lookup returns the workload registered under name.
func Lookup(name string) (Spec, bool) { return specs.Lookup(name) }

// Names returns the registered workload names, sorted.
func Names() []string { return specs.Names() }

// Sessions are the sessions a run opened for its current step: each step works on its own
// sessions (connections), and Close ends them all before the next step or at the end.
type Sessions struct {
	open []table.Session
}

// Open opens a session on eng that Close will close.
func (s *Sessions) Open(ctx context.Context, eng table.Engine) (table.Session, error) {
	sess, err := eng.NewSession(ctx)
	if err != nil {
		return nil, err
	}
	s.open = append(s.open, sess)
	return sess, nil
}

// Close closes every open session and returns the first error.
func (s *Sessions) Close() error {
	var first error
	for _, sess := range s.open {
		if err := sess.Close(); err != nil && first == nil {
			first = err
		}
	}
	s.open = s.open[:0]
	return first
}

// MaxPercentiles bounds a list of percentiles to report (ParsePercentiles).
const MaxPercentiles = 16

// ParsePercentiles parses a comma-separated list of response-time percentiles ("50,99,99.99"),
// each in (0, 100), none twice, at most MaxPercentiles; "" is none. The error names the flag.
func ParsePercentiles(flag, v string) ([]float64, error) {
	out, err := parsePercentiles(v)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %v", flag, v, err)
	}
	return out, nil
}

// parsePercentiles is ParsePercentiles whose error says only what is wrong.
func parsePercentiles(v string) ([]float64, error) {
	if v == "" {
		return nil, nil
	}
	var out []float64
	for _, s := range strings.Split(v, ",") {
		p, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || !(p > 0 && p < 100) {
			return nil, fmt.Errorf("each value must be a number in (0, 100), e.g. 50,99,99.9")
		}
		if slices.Contains(out, p) {
			return nil, fmt.Errorf("%g is listed twice", p)
		}
		if len(out) == MaxPercentiles {
			return nil, fmt.Errorf("at most %d percentiles", MaxPercentiles)
		}
		out = append(out, p)
	}
	return out, nil
}

// SplitList splits a comma-separated flag value, refusing empty items and duplicates; the
// error names the flag.
func SplitList(flag, v string) ([]string, error) {
	var out []string
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			return nil, fmt.Errorf("%s %q: empty item in the comma-separated list", flag, v)
		}
		if slices.Contains(out, s) {
			return nil, fmt.Errorf("%s %q: %s is listed twice", flag, v, s)
		}
		out = append(out, s)
	}
	return out, nil
}

// Shard is one part of a run split among Count processes: this process is shard Index
// (0-based, 0 <= Index < Count). The zero value (Count 0) is no split.
type Shard struct {
	Index, Count int
}

// String renders the shard as on the command line ("1/3").
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Range returns this shard's part [lo, hi) of the n items [0, n): contiguous parts, in shard
// order, whose sizes differ by at most one, so the parts of shards 0..Count-1 cover [0, n) with no
// overlap and no gap. An unsplit Shard (Count 0) has all of [0, n).
func (s Shard) Range(n int64) (lo, hi int64) {
	if s.Count <= 1 {
		return 0, n
	}
	return n * int64(s.Index) / int64(s.Count), n * int64(s.Index+1) / int64(s.Count)
}

// ParseShard parses --shard "I/N" (0 <= I < N, N <= results.MaxShards); the error names the
// flag and says what is valid.
func ParseShard(v string) (Shard, error) {
	is, ns, ok := strings.Cut(v, "/")
	i, ierr := strconv.Atoi(is)
	n, nerr := strconv.Atoi(ns)
	if !ok || ierr != nil || nerr != nil || n < 1 || n > results.MaxShards || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("--shard %q: want I/N with 0 <= I < N <= %d (shard I of N, counted from 0, e.g. 0/3)", input.Short(v), results.MaxShards)
	}
	return Shard{Index: i, Count: n}, nil
}

// EngineChecker is a workload that cannot run on some engines, or with some of their options,
// for what it was configured to do: CheckEngine says why the engine of spec, opened with the
// options extra, cannot run it (nil: it can). The run calls it for every target before anything
// starts, so the refusal is one line and exit 2, with nothing written.
type EngineChecker interface {
	CheckEngine(spec engine.Spec, extra map[string]string) error
}

// Sharder is a workload whose work splits among processes: each process runs the same
// configuration with its own Shard, and the shards together do the work of one process with
// Count times the clients (threads) of one, on one shared database. The parts are deterministic
// (a pure function of the configuration and the shard) with no overlap and no gap: shards never
// write the same row, and every row one process would write is written by exactly one shard.
// The workload's own generated data, keys and query choices are those of the unsplit run with
// Count times the clients, client by client.
type Sharder interface {
	// SetShard restricts the workload to shard s before Open or Reopen; Steps, Config,
	// Summary, Tables and Check then describe and verify this shard's part only. An error is
	// the user's (a configuration that cannot be split that many ways) and says why.
	SetShard(s Shard) error
	// ShardPart says in one line which part of the work this shard does ("clients 3..5 of 9:
	// tables pi4..pi6"), for the run's banner and manifest.
	ShardPart() string
}

// SharedTables is a Sharder whose shards share their tables (YCSB's usertable) rather than each
// owning some: shard 0 creates them with Open; every other shard waits until it has, then
// attaches to them with Attach. The orchestration orders the two with a barrier, so a workload
// that implements SharedTables can be split only where the shards meet at barriers. Tables
// (workload.Reuser) then lists the shared tables for shard 0 only: the others never drop them.
type SharedTables interface {
	// SharesTables says whether this split run's shards share tables (set by SetShard; false:
	// each shard owns its own, and Open makes them).
	SharesTables() bool
	// Attach opens this shard's run on the tables shard 0 created (missing ones are an error),
	// in place of Open.
	Attach(ctx context.Context, eng table.Engine, k table.Keeper) (Run, error)
}
