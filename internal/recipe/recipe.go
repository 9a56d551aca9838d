// Package recipe reproduces published benchmark reports. A recipe is a report's setup as run
// files (its parts: one rumbench run each), what the report looked like (its tables, with the
// published figures beside the measured ones) and its findings as checks over the measured
// figures. The recipes rumbench ships are embedded (List, Lookup); a user's recipe is a YAML
// file of the same shape (Parse). The package reads recipes and evaluates finished runs; the
// command line runs the parts.
package recipe

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rumbench/rumbench/internal/check"
	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/workload"
)

//go:embed recipes/*.yaml
var shipped embed.FS

// Scales are the scale names a recipe runs at: Quick (the default, minutes on a small machine)
// and Full (the report's own sizes).
const (
	Quick = "quick"
	Full  = "full"
)

// Scales lists the valid scale names.
var Scales = []string{Quick, Full}

// Recipe is one published report reproduced.
type Recipe struct {
	// Name is the recipe's name (rumbench run --recipe NAME): 1 to 64 of [a-z0-9-].
	Name string `yaml:"name"`
	// Title says what the report measured; Report cites it (who, where, when); Question is
	// the question it answers.
	Title    string `yaml:"title"`
	Report   string `yaml:"report"`
	Question string `yaml:"question"`
	// Scales says what each scale is, relative to the report (e.g. "1/100 of the rows").
	Scales map[string]string `yaml:"scales"`
	// Differences are what differs here from the report (engines standing in for
	// discontinued ones, an emulated device, a server version without a feature).
	Differences []string `yaml:"differences"`
	// Files are files the parts refer to by name (server config fragments): written beside
	// the parts' run files before they run.
	Files map[string]string `yaml:"files"`
	// Parts are the runs, in order.
	Parts []Part `yaml:"parts"`
	// Base is the target the relative figures divide by, as Label names it.
	Base string `yaml:"base"`
	// Tables are the report's tables.
	Tables []TableSpec `yaml:"tables"`
	// Findings are the report's findings as checks.
	Findings []Finding `yaml:"findings"`
}

// Part is one run of a recipe: the run file's flags, and the flags of each scale over them.
type Part struct {
	// Name names the part in target labels ("cached/rocksdb"): 1 to 32 of [a-z0-9-].
	Name string `yaml:"name"`
	// Flags is a run file's mapping of flag names to values (see rumbench run -f).
	Flags yaml.Node `yaml:"flags"`
	// Scale holds, per scale name, flags that override Flags at that scale.
	Scale map[string]yaml.Node `yaml:"scale"`
}

// TableSpec is one table of the report. Kind selects its shape:
//   - "steps": a row per target, a column per figure of Columns, for step Step;
//   - "relative": Metric (default: each step's headline rate) of every target relative to
//     the base, a row per step (a table per step group for grouped workloads);
//   - "latency": the response-time percentiles of each operation kind of step Step, a row
//     per target and kind (LinkBench's QoS table);
//   - "intervals": step Step cut into Intervals equal parts by rows written, a row per
//     part and target: size, bytes per row, write rate, bytes written, seconds, rows/s and
//     bytes written per row (the insert benchmark's per-interval table);
//   - "scaling": the scaling table (report.ScalingTables) of each part that swept a client
//     count (--threads 1,2,4,8 ...), of step Step or of every swept step.
type TableSpec struct {
	Kind    string   `yaml:"kind"`
	Title   string   `yaml:"title"`
	Step    string   `yaml:"step"`
	Columns []string `yaml:"columns"`
	// Headers renames columns to the report's names (Mcpu/i for cpu_us/op).
	Headers map[string]string `yaml:"headers"`
	// Metric is the figure of a relative table.
	Metric string `yaml:"metric"`
	// Intervals is the number of parts of an intervals table (default 5).
	Intervals int `yaml:"intervals"`
	// Published are the report's own rows, shown below the measured ones and labelled as
	// published: each maps "label" to the row's label and a column's name (as in Columns, an
	// intervals table's column, or a relative table's target with "group" naming the group
	// whose table gets the row) to the published figure as text. Latency tables have none
	// (say the published figures in Note).
	Published []map[string]string `yaml:"published"`
	// Note is printed under the table.
	Note string `yaml:"note"`
}

// Finding is a finding of the report stated as a check over the measured figures.
type Finding struct {
	// Claim is the finding in words; Published the report's figure for it.
	Claim     string `yaml:"claim"`
	Published string `yaml:"published"`
	// Target is the target the check is evaluated on ("part/target", "part/target@N" for a
	// count of a sweep), Base the one ratio() divides by (default: the recipe's base). A sweep
	// figure (speedup@N, eff@N) names the swept target ("part/target").
	Target string `yaml:"target"`
	Base   string `yaml:"base"`
	// Check is a --check expression ([STEP:]NAME OP NUMBER, ratio(NAME) OP NUMBER).
	Check string `yaml:"check"`
	// Steps limits the check to these steps or step groups (none: every step that has
	// the figure, for a rate name every step whose headline rate it is, or the check's own
	// STEP); a rate name is then the figure of each of them, the headline or not. Every step
	// evaluated must pass.
	Steps []string `yaml:"steps"`
	// IdleHost says the finding needs an idle host to be decided: measured on a busy host
	// (a step it covers, of the target or the base, marked busy host: metric.BusyHost) its
	// verdict is NeedsIdleHost, whatever its figures say.
	IdleHost bool `yaml:"idle-host"`
}

// maxRecipeBytes bounds a recipe file.
const maxRecipeBytes = input.MaxFileBytes

// List returns the shipped recipes, sorted by name.
func List() ([]*Recipe, error) {
	names, err := fs.Glob(shipped, "recipes/*.yaml")
	if err != nil {
		return nil, err
	}
	var out []*Recipe
	for _, n := range names {
		data, err := shipped.ReadFile(n)
		if err != nil {
			return nil, err
		}
		r, err := Parse(data)
		if err != nil {
			return nil, fmt.Errorf("shipped recipe %s: %w", path.Base(n), err)
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Source returns the YAML text of shipped recipe name, and whether there is one.
func Source(name string) ([]byte, bool) {
	data, err := shipped.ReadFile("recipes/" + name + ".yaml")
	return data, err == nil
}

// Lookup returns the shipped recipe name; the error names the valid ones.
func Lookup(name string) (*Recipe, error) {
	all, err := List()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, r := range all {
		if r.Name == name {
			return r, nil
		}
		names = append(names, r.Name)
	}
	return nil, fmt.Errorf("no recipe %q (valid: %s; or a recipe file)", input.Short(name), strings.Join(names, ", "))
}

// Load reads a recipe file (a regular file of at most input.MaxFileBytes).
func Load(file string) (*Recipe, error) {
	data, err := input.ReadFile(file, maxRecipeBytes)
	if err != nil {
		return nil, err
	}
	return Parse(data)
}

// IsRecipe says whether YAML text is a recipe rather than a run file: a mapping with a
// "parts" key.
func IsRecipe(data []byte) bool {
	var m map[string]yaml.Node
	if yaml.Unmarshal(data, &m) != nil {
		return false
	}
	_, ok := m["parts"]
	return ok
}

// Parse reads and checks a recipe: unknown keys, names, kinds, labels and checks are errors
// that say what is valid.
func Parse(data []byte) (*Recipe, error) {
	var r Recipe
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&r); err != nil {
		return nil, oneLine(err)
	}
	if err := r.validate(); err != nil {
		return nil, err
	}
	return &r, nil
}

// oneLine returns a YAML decoding error as one line: a *yaml.TypeError lists its errors on
// lines after "yaml: unmarshal errors:", so the first of them stands for it.
func oneLine(err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) || len(te.Errors) == 0 {
		return err
	}
	msg := strings.TrimSpace(te.Errors[0])
	if n := len(te.Errors) - 1; n > 0 {
		msg += fmt.Sprintf(" (and %d more)", n)
	}
	return errors.New(msg)
}

func validName(s string, max int) bool {
	if s == "" || len(s) > max || s[0] == '-' {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// validate checks the recipe's own consistency and the paths its parts' flags name (checkPaths);
// the rest of the parts' flags are checked by the run command's parsers (rumbench run checks
// every part before the first runs).
func (r *Recipe) validate() error {
	if !validName(r.Name, 64) {
		return fmt.Errorf("name %q: want 1 to 64 of a-z 0-9 -", input.Short(r.Name))
	}
	if r.Title == "" || r.Report == "" {
		return errors.New("a recipe needs a title and the report it reproduces (report)")
	}
	for s := range r.Scales {
		if !slices.Contains(Scales, s) {
			return fmt.Errorf("scales: unknown scale %q (valid: %s)", input.Short(s), strings.Join(Scales, ", "))
		}
	}
	for f := range r.Files {
		if f != path.Base(f) || strings.HasPrefix(f, ".") || input.CheckName(f) != nil {
			return fmt.Errorf("files: %q is not a plain file name (1 to 64 of A-Z a-z 0-9 . _ -)", input.Short(f))
		}
	}
	if len(r.Parts) == 0 {
		return errors.New("a recipe needs at least one part (a run)")
	}
	seen := map[string]bool{}
	for i, p := range r.Parts {
		if !validName(p.Name, 32) || seen[p.Name] {
			return fmt.Errorf("part %d: name %q: want a unique 1 to 32 of a-z 0-9 -", i+1, input.Short(p.Name))
		}
		seen[p.Name] = true
		if resolve(&p.Flags).Kind != yaml.MappingNode {
			return fmt.Errorf("part %s: flags: want a mapping of run flags to values", p.Name)
		}
		if err := r.checkPaths(p.Name, "flags", &p.Flags); err != nil {
			return err
		}
		for s, n := range p.Scale {
			if !slices.Contains(Scales, s) {
				return fmt.Errorf("part %s: scale: unknown scale %q (valid: %s)", p.Name, input.Short(s), strings.Join(Scales, ", "))
			}
			if resolve(&n).Kind != yaml.MappingNode {
				return fmt.Errorf("part %s: scale %s: want a mapping of run flags to values", p.Name, s)
			}
			if err := r.checkPaths(p.Name, "scale "+s, &n); err != nil {
				return err
			}
		}
	}
	for i, t := range r.Tables {
		switch t.Kind {
		case "steps":
			if t.Step == "" || len(t.Columns) == 0 {
				return fmt.Errorf("table %d: a steps table needs its step and columns", i+1)
			}
		case "relative", "scaling":
		case "latency":
			if t.Step == "" {
				return fmt.Errorf("table %d: a latency table needs its step", i+1)
			}
		case "intervals":
			if t.Step == "" || t.Intervals < 0 || t.Intervals > 100 {
				return fmt.Errorf("table %d: an intervals table needs its step and 0 to 100 intervals", i+1)
			}
		default:
			return fmt.Errorf("table %d: kind %q: want steps, relative, latency, intervals or scaling", i+1, input.Short(t.Kind))
		}
		for _, c := range t.Columns {
			if _, err := check.Parse(c+">=0", workload.RateNames()); err != nil {
				return fmt.Errorf("table %d: column %q: not a figure (a metric of rumbench metrics or a rate name)", i+1, input.Short(c))
			}
		}
	}
	for i, f := range r.Findings {
		if f.Claim == "" || f.Target == "" {
			return fmt.Errorf("finding %d: needs a claim and a target", i+1)
		}
		if _, err := check.Parse(f.Check, workload.RateNames()); err != nil {
			return fmt.Errorf("finding %d: %v", i+1, err)
		}
	}
	return nil
}

// CommandLineFlags are the run flags a part may not set: where a run writes (out, data-dir,
// store, cpuprofile, junit), which server programs it runs (server-bin), and what stands for the
// part or the recipe (file, replay, recipe, scale). They are the user's, given on the command
// line after the recipe, so a recipe file from elsewhere cannot write or run anything outside
// the recipe's own directory and the user's choices.
var CommandLineFlags = []string{"out", "data-dir", "store", "cpuprofile", "junit", "server-bin", "file", "replay", "recipe", "scale"}

// commandLineOptions are the engine options (--engine-opt KEY=VALUE or ENGINE.KEY=VALUE) a part
// may not set, for the reason of CommandLineFlags.
var commandLineOptions = []string{"server_bin", "server_config"}

// checkPaths checks the flags of a part (where names "flags" or "scale NAME") for paths that
// would leave the recipe: a server-config value must be one of the recipe's files (written
// beside the part's run file, which resolves it); CommandLineFlags and commandLineOptions are
// refused.
func (r *Recipe) checkPaths(part, where string, flags *yaml.Node) error {
	files := slices.Sorted(maps.Keys(r.Files))
	for _, kv := range pairs(flags) {
		key, val := kv[0].Value, kv[1]
		items := []string{val.Value}
		if val.Kind == yaml.SequenceNode {
			items = items[:0]
			for _, it := range val.Content {
				items = append(items, it.Value)
			}
		}
		switch {
		case slices.Contains(CommandLineFlags, key):
			return fmt.Errorf("part %s: %s: %s is the command line's, not a recipe's: give --%s after the recipe", part, where, key, key)
		case key == "server-config":
			for _, it := range items {
				if _, ok := r.Files[it]; !ok {
					return fmt.Errorf("part %s: %s: server-config %q: not a file of the recipe (its files: %s): a part's server config is one of the recipe's files", part, where, input.Short(it), strings.Join(files, ", "))
				}
			}
		case key == "engine-opt":
			opts := items
			if val.Kind == yaml.MappingNode {
				opts = opts[:0]
				for i := 0; i+1 < len(val.Content); i += 2 {
					opts = append(opts, val.Content[i].Value+"=")
				}
			}
			for _, o := range opts {
				k, _, _ := strings.Cut(o, "=")
				if _, short, ok := strings.Cut(k, "."); ok {
					k = short
				}
				if slices.Contains(commandLineOptions, k) {
					return fmt.Errorf("part %s: %s: engine-opt %s is the command line's, not a recipe's (server-config names the recipe's files)", part, where, input.Short(k))
				}
			}
		}
	}
	return nil
}

// RunFile returns the run file of part p at scale: its flags, the scale's flags over them,
// then the label "recipe-part" unless the part sets one.
func (r *Recipe) RunFile(p Part, scale string) ([]byte, error) {
	m := &yaml.Node{Kind: yaml.MappingNode}
	set := func(k, v *yaml.Node) {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == k.Value {
				m.Content[i+1] = v
				return
			}
		}
		m.Content = append(m.Content, k, v)
	}
	for _, kv := range pairs(&p.Flags) {
		set(kv[0], kv[1])
	}
	if sc, ok := p.Scale[scale]; ok {
		for _, kv := range pairs(&sc) {
			set(kv[0], kv[1])
		}
	}
	label := r.Name + "-" + p.Name
	if len(label) > 64 {
		label = label[:64]
	}
	set(&yaml.Node{Kind: yaml.ScalarNode, Value: "label"}, &yaml.Node{Kind: yaml.ScalarNode, Value: label})
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# recipe %s, part %s, scale %s\n", r.Name, p.Name, scale)
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// resolve follows a YAML alias (flags: *cached) to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// pairs are a mapping's key-value pairs, a merge key's (<<: *cached) mapping first so that
// the mapping's own keys override it.
func pairs(n *yaml.Node) [][2]*yaml.Node {
	n = resolve(n)
	var out [][2]*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; k.Value == "<<" && k.Tag == "!!merge" {
			out = append(pairs(n.Content[i+1]), out...)
			continue
		}
		out = append(out, [2]*yaml.Node{n.Content[i], resolve(n.Content[i+1])})
	}
	return out
}
