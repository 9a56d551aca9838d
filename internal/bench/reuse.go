package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
)

// markerTable holds one row: what the preparing run loaded (marker), written by rumbench prepare
// at its end and read by run --reuse. It lives in the database beside the workload's tables, so
// it travels with a data directory or a server.
var markerTable = &table.Table{Name: "rumbench_prepared", Columns: []table.Column{
	{Name: "id", Type: table.Int64, NotNull: true},
	{Name: "doc", Type: table.Bytes, Text: true},
}}

// marker is what a prepared database holds about its load.
type marker struct {
	RunID    string    `json:"run_id"`
	Prepared time.Time `json:"prepared_at"`
	Workload string    `json:"workload"`
	// Profile is the preparing run's --profile ("" in a record written before it was kept).
	Profile string            `json:"profile,omitempty"`
	Data    map[string]any    `json:"data"`
	Engine  string            `json:"engine"`
	Options map[string]string `json:"options"`
}

// Preparation is what rumbench prepare recorded beside a target's data: the run, the workload
// and its profile, and the settings that shaped the data (workload.Reuser's DataConfig, its
// numbers as json.Number, exact).
type Preparation struct {
	// Target is the label of the target whose data it describes.
	Target string
	marker
}

// ReadPreparations opens each target of cfg (a run --reuse) as its run would, reads what its
// preparation recorded and closes it again, so that the CLI can take the data's settings
// before it builds the run. An error is the user's where nothing was prepared or can be kept
// (UsageError), else a failure to open or read.
func ReadPreparations(ctx context.Context, cfg Config) ([]Preparation, error) {
	var out []Preparation
	for _, t := range cfg.Targets {
		m, err := readPreparation(ctx, cfg, t)
		if err != nil {
			return nil, err
		}
		out = append(out, Preparation{Target: t.Label, marker: m})
	}
	return out, nil
}

func readPreparation(ctx context.Context, cfg Config, t results.Target) (marker, error) {
	spec, ok := engine.Lookup(t.Engine.Name)
	if !ok {
		return marker{}, UsageError{fmt.Errorf("unknown engine %q", t.Engine.Name)}
	}
	reuser, _ := cfg.Workload.(workload.Reuser)
	switch {
	case reuser == nil:
		return marker{}, UsageError{fmt.Errorf("--reuse: workload %s has no load to keep", cfg.Workload.Name())}
	case spec.Server && !external(t):
		// Refused before a private server is started for nothing.
		return marker{}, UsageError{errors.New("--reuse: a server rumbench starts is private to one run: prepare and reuse a server you run, with --dsn")}
	}
	dir := ""
	if !external(t) {
		dir = targetDir(cfg, t, 1)
	}
	eng, err := spec.Open(ctx, engine.Options{Dir: dir, CacheBytes: cfg.cacheBytes(t.Engine.Name), Sync: cfg.Sync, Extra: t.Engine.Options})
	if err != nil {
		return marker{}, fmt.Errorf("%s: %w", t.Label, err)
	}
	defer eng.Close()
	keeper, _ := eng.(table.Keeper)
	if err := canKeep(cfg, t, eng, reuser, keeper); err != nil {
		return marker{}, err
	}
	return readMarker(ctx, t, eng, keeper)
}

// readMarker reads the preparation's record in eng; a missing one is the user's error.
func readMarker(ctx context.Context, t results.Target, eng table.Engine, keeper table.Keeper) (marker, error) {
	exists, _, err := keeper.AttachTable(ctx, markerTable)
	if err != nil {
		return marker{}, err
	}
	if !exists {
		return marker{}, UsageError{fmt.Errorf("%s: --reuse: no prepared data here: run rumbench prepare with the same flags first", t.Label)}
	}
	sess, err := eng.NewSession(ctx)
	if err != nil {
		return marker{}, err
	}
	defer sess.Close()
	out := table.NewRows(2, 1)
	if err := sess.Get(ctx, markerTable, []int64{1}, []int{0, 1}, out); err != nil {
		return marker{}, err
	}
	if out.N != 1 {
		return marker{}, UsageError{fmt.Errorf("%s: --reuse: the preparation's record is missing: run rumbench prepare again", t.Label)}
	}
	var m marker
	dec := json.NewDecoder(bytes.NewReader(out.Row(0)[1].B))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return marker{}, fmt.Errorf("%s: --reuse: the preparation's record: %w", t.Label, err)
	}
	// A record written before an option became a client option still names it.
	m.Options = dataOptions(m.Engine, m.Options)
	return m, nil
}

// CheckPreparations refuses, in one line naming the target, a preparation whose data does not
// match cfg (workload, data settings, engine and its options): what run --reuse would refuse
// once it opened the target, said before anything starts. way, when not nil, says the way out
// when the data setting key differs ("" for the default: prepare again, or the same settings).
// Of several data settings that differ, the line names the first with a way out (a flag the
// command line gave, which may be what the others follow from), else the first.
func CheckPreparations(cfg Config, preps []Preparation, way func(key string) string) error {
	for _, p := range preps {
		for _, t := range cfg.Targets {
			if t.Label != p.Target {
				continue
			}
			diffs := markerDiff(p.marker, wantMarker(cfg, t))
			if len(diffs) == 0 {
				continue
			}
			d, out := diffs[0], "prepare again, or run with the same settings"
			for _, x := range diffs {
				if way == nil || x.key == "" {
					continue
				}
				if w := way(x.key); w != "" {
					d, out = x, w
					break
				}
			}
			return UsageError{fmt.Errorf("%s: --reuse: the data was prepared by run %s with %s: %s", t.Label, p.RunID, d.text, out)}
		}
	}
	return nil
}

// wantMarker is the record of the data run --reuse of cfg on target t expects.
func wantMarker(cfg Config, t results.Target) marker {
	want := marker{Workload: cfg.Workload.Name(), Engine: t.Engine.Name, Options: dataOptions(t.Engine.Name, t.Engine.Options)}
	if r, ok := cfg.Workload.(workload.Reuser); ok {
		want.Data = r.DataConfig()
	}
	return want
}

// dataOptions are the options of engine (as its Info records them) that describe the data:
// without those that say where the server is or how it runs, and without the engine's client
// options (engine.Spec.ClientOptions), which --reuse may change.
func dataOptions(engineName string, o map[string]string) map[string]string {
	out := maps.Clone(o)
	for _, k := range []string{"dsn", "server_config", "server_bin"} {
		delete(out, k)
	}
	if spec, ok := engine.Lookup(engineName); ok {
		for _, k := range spec.ClientOptions {
			delete(out, k)
		}
	}
	if out == nil {
		out = map[string]string{}
	}
	return out
}

// openRun opens the workload's run on eng and says which steps to skip:
//   - Reuse: the data an earlier rumbench prepare loaded, after checking that it matches this
//     run (workload, data settings, engine and options); the load steps are skipped;
//   - otherwise on a --dsn server: the workload's tables are dropped first with Fresh, and their
//     presence is refused without it (a previous run's tables);
//   - Prepare: only the load steps run.
func openRun(ctx context.Context, cfg Config, t results.Target, eng table.Engine) (workload.Run, map[string]bool, error) {
	skip := map[string]bool{}
	reuser, _ := cfg.Workload.(workload.Reuser)
	keeper, _ := eng.(table.Keeper)
	if cfg.Reuse || cfg.Prepare {
		if err := canKeep(cfg, t, eng, reuser, keeper); err != nil {
			return nil, nil, err
		}
	}
	if cfg.Prepare {
		for _, s := range cfg.Workload.Steps() {
			skip[s] = !slices.Contains(reuser.LoadSteps(), s)
		}
	}
	if cfg.Reuse {
		if err := checkMarker(ctx, cfg, t, eng, keeper); err != nil {
			return nil, nil, err
		}
		run, err := reuser.Reopen(ctx, eng, keeper)
		if err != nil {
			return nil, nil, UsageError{fmt.Errorf("%s: --reuse: %w", t.Label, err)}
		}
		for _, s := range reuser.LoadSteps() {
			skip[s] = true
		}
		return run, skip, nil
	}
	if t.Engine.Options["dsn"] != "" && reuser != nil && keeper != nil {
		tables := append(reuser.Tables(), markerTable)
		for _, tb := range tables {
			if cfg.Fresh {
				if err := keeper.DropTable(ctx, tb); err != nil {
					return nil, nil, err
				}
				continue
			}
			exists, _, err := keeper.AttachTable(ctx, tb)
			if err != nil {
				return nil, nil, err
			}
			if exists {
				return nil, nil, UsageError{fmt.Errorf("%s: the server already holds table %s, from an earlier run: run on it with --reuse (after rumbench prepare), or drop rumbench's tables first with --fresh", t.Label, tb.Name)}
			}
		}
	}
	if st, ok := cfg.Workload.(workload.SharedTables); ok && cfg.Shard != nil && cfg.Shard.Count > 1 && st.SharesTables() {
		run, err := openShared(ctx, cfg, t, eng, keeper, st)
		return run, skip, err
	}
	run, err := cfg.Workload.Open(ctx, eng)
	return run, skip, err
}

// openShared opens a shard's run on tables all shards share: shard 0 creates them, then meets
// the others at the target's "open" barrier; the others meet it first, then attach.
func openShared(ctx context.Context, cfg Config, t results.Target, eng table.Engine, keeper table.Keeper, st workload.SharedTables) (workload.Run, error) {
	if cfg.Barrier == nil {
		return nil, UsageError{fmt.Errorf("--shard: workload %s shares its tables among the shards: they must meet at barriers in a PostgreSQL --store", cfg.Workload.Name())}
	}
	if keeper == nil {
		return nil, UsageError{fmt.Errorf("--shard: engine %s cannot attach to tables another shard created", t.Engine.Name)}
	}
	if cfg.Shard.Index == 0 {
		run, err := cfg.Workload.Open(ctx, eng)
		if err != nil {
			return nil, err
		}
		if err := cfg.Barrier(ctx, t.Label+"/open"); err != nil {
			run.Close()
			return nil, err
		}
		return run, nil
	}
	if err := cfg.Barrier(ctx, t.Label+"/open"); err != nil {
		return nil, err
	}
	return st.Attach(ctx, eng, keeper)
}

// canKeep refuses prepare and --reuse where the data cannot be kept or found again.
func canKeep(cfg Config, t results.Target, eng table.Engine, reuser workload.Reuser, keeper table.Keeper) error {
	what := "--reuse"
	if cfg.Prepare {
		what = "prepare"
	}
	s, _ := engine.Lookup(t.Engine.Name)
	switch {
	case reuser == nil:
		return UsageError{fmt.Errorf("%s: workload %s has no load to keep", what, cfg.Workload.Name())}
	case keeper == nil || !eng.Info().Stores:
		return UsageError{fmt.Errorf("%s: engine %s keeps no tables between runs", what, t.Engine.Name)}
	case s.Server && t.Engine.Options["dsn"] == "":
		return UsageError{fmt.Errorf("%s: a server rumbench starts is private to one run: prepare and reuse a server you run, with --dsn", what)}
	}
	return nil
}

// checkMarker reads the marker of the preparing run and refuses, in one line, data that does
// not match this run.
func checkMarker(ctx context.Context, cfg Config, t results.Target, eng table.Engine, keeper table.Keeper) error {
	m, err := readMarker(ctx, t, eng, keeper)
	if err != nil {
		return err
	}
	return CheckPreparations(cfg, []Preparation{{Target: t.Label, marker: m}}, nil)
}

// settingDiff is a setting in which prepared data differs from a run's: what it is in each
// ("fieldcount = 3, not 4"), and its key when it is one of the data settings (DataConfig).
type settingDiff struct{ text, key string }

// markerDiff names the settings in which the prepared data (got) differs from this run's
// (want), none when they agree: the workload or the engine alone when they differ, else each
// data setting that does (in key order), then the first engine option.
func markerDiff(got, want marker) []settingDiff {
	switch {
	case got.Workload != want.Workload:
		return []settingDiff{{text: fmt.Sprintf("workload %s, not %s", got.Workload, want.Workload)}}
	case got.Engine != want.Engine:
		return []settingDiff{{text: fmt.Sprintf("engine %s, not %s", got.Engine, want.Engine)}}
	}
	// Compared as JSON, numbers as their text (the record is decoded with json.Number).
	norm := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	var wantData map[string]any
	dec := json.NewDecoder(strings.NewReader(norm(want.Data)))
	dec.UseNumber()
	dec.Decode(&wantData)
	var diffs []settingDiff
	for _, k := range sortedKeys(wantData, got.Data) {
		if a, b := norm(got.Data[k]), norm(wantData[k]); a != b {
			diffs = append(diffs, settingDiff{fmt.Sprintf("%s = %s, not %s", k, a, b), k})
		}
	}
	for _, k := range sortedKeys(want.Options, got.Options) {
		if got.Options[k] != want.Options[k] {
			return append(diffs, settingDiff{text: fmt.Sprintf("engine option %s = %q, not %q", k, got.Options[k], want.Options[k])})
		}
	}
	return diffs
}

// sortedKeys returns the keys of a and b, sorted, each once.
func sortedKeys[V any](a, b map[string]V) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// writeMarker records, at the end of rumbench prepare, what was loaded.
func writeMarker(ctx context.Context, cfg Config, runID string, t results.Target, eng table.Engine) error {
	keeper := eng.(table.Keeper)
	if err := keeper.DropTable(ctx, markerTable); err != nil {
		return err
	}
	if err := eng.CreateTable(ctx, markerTable, false); err != nil {
		return err
	}
	m := marker{RunID: runID, Prepared: time.Now().UTC(), Workload: cfg.Workload.Name(), Profile: cfg.Profile,
		Data: cfg.Workload.(workload.Reuser).DataConfig(), Engine: t.Engine.Name, Options: dataOptions(t.Engine.Name, t.Engine.Options)}
	doc, err := json.Marshal(m)
	if err != nil {
		return err
	}
	sess, err := eng.NewSession(ctx)
	if err != nil {
		return err
	}
	defer sess.Close()
	rows := table.NewRows(2, 1)
	row := rows.AppendRaw()
	row[0], row[1] = table.Value{I: 1}, table.Value{B: doc}
	return sess.Insert(ctx, markerTable, rows)
}

// RunSteps returns the steps of cfg's workload that its run runs, in order: the load steps for
// prepare, the others with --reuse, else all of them.
func RunSteps(cfg Config) []string {
	all := cfg.Workload.Steps()
	r, ok := cfg.Workload.(workload.Reuser)
	if !ok || !(cfg.Prepare || cfg.Reuse) {
		return all
	}
	var out []string
	for _, s := range all {
		if slices.Contains(r.LoadSteps(), s) == cfg.Prepare {
			out = append(out, s)
		}
	}
	return out
}

// errNotPrepared is returned by a step list that prepare leaves empty.
var errNotPrepared = errors.New("no load step selected")

// prepareSteps checks that prepare has a load step to run.
func prepareSteps(cfg Config) error {
	r, ok := cfg.Workload.(workload.Reuser)
	if !ok {
		return UsageError{fmt.Errorf("prepare: workload %s has no load to keep", cfg.Workload.Name())}
	}
	for _, s := range cfg.Workload.Steps() {
		if slices.Contains(r.LoadSteps(), s) {
			return nil
		}
	}
	return UsageError{fmt.Errorf("prepare: %w: the load steps of %s are %s", errNotPrepared, cfg.Workload.Name(), strings.Join(r.LoadSteps(), ","))}
}
