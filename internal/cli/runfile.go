package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"

	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/redact"
	"github.com/rumbench/rumbench/internal/workload"
)

// RunFileName is the resolved run file every run writes into its directory: every flag of the
// run with its value, so that "rumbench run -f RUN/run.yaml" or "rumbench run --replay RUN"
// runs it again.
const RunFileName = "run.yaml"

// A run file is a YAML mapping of run's long flag names to values:
//
//	workload: insert
//	engine: [pebble, bbolt]         # a list joins with commas for a comma-separated flag
//	steps: l.i0,l.x,l.i1
//	repeat: 5
//	engine-opt: {pebble.compression: zstd}   # a map gives key=value items of a repeatable flag
//	check: [ "ips>=1000", "l.i1:ratio(ips)>=0.05" ]
//
// The engine × server-config lists are the run's matrix. Values on the command line override
// the file's (a repeatable flag gets both). Relative server-config paths are relative to the
// file.

// fileFlags are the run command's flags that name a run file.
var fileFlags = []string{"-f", "--file", "--replay"}

// scanFlags walks a command line's arguments after its command (args[1:]) up to a "--": each
// flag of names, given as NAME VALUE or NAME=VALUE, goes to take, which says whether it stays;
// every other argument stays. It returns the command and the arguments that stayed, in order.
// A named flag without its value is a usage error ("NAME needs a value" and hint).
func scanFlags(args, names []string, hint string, take func(name, val string) (keep bool, err error)) ([]string, error) {
	rest := []string{args[0]}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(rest, args[i:]...), nil
		}
		name, val, hasVal := strings.Cut(a, "=")
		if !slices.Contains(names, name) {
			rest = append(rest, a)
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return nil, usagef("%s needs a value%s", name, hint)
			}
			i++
			val = args[i]
		}
		keep, err := take(name, val)
		if err != nil {
			return nil, err
		}
		if keep {
			rest = append(rest, name, val)
		}
	}
	return rest, nil
}

// expandRunFile returns args with a run file's flags in place of -f FILE or --replay RUN, for
// the run and prepare commands; other command lines are returned as they are.
func expandRunFile(args []string) ([]string, error) {
	if len(args) == 0 || (args[0] != "run" && args[0] != "prepare") {
		return args, nil
	}
	var file, flag string
	rest, err := scanFlags(args, fileFlags, " (a run file, or for --replay a run directory)", func(name, val string) (bool, error) {
		if file != "" {
			return false, usagef("%s %s: one run file per run (already %s %s)", name, input.Short(val), flag, input.Short(file))
		}
		file, flag = val, name
		if name == "--replay" {
			file = filepath.Join(val, RunFileName)
			if _, err := os.Stat(file); err != nil {
				return false, usagef("--replay %s: no %s in it (a run directory of this version of rumbench holds one)", input.Short(val), RunFileName)
			}
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	if file == "" {
		return args, nil
	}
	// The command line's workload, which the file's flags are those of.
	head, tail := rest[:1], rest[1:]
	if w, named := namedWorkload(rest); named {
		if _, ok := workload.Lookup(w); !ok {
			return nil, unknownWorkload(w)
		}
		if rest[1] == w && !strings.HasPrefix(w, "-") {
			head, tail = rest[:2], rest[2:] // the word stays after the command
		}
	}
	fromFile, err := runFileArgs(file, rest)
	if err != nil {
		return nil, usageError{fmt.Errorf("%s %s: %w", flag, input.Short(file), err)}
	}
	// The file's flags first: those of the command line, after them, override them.
	return append(append(slices.Clone(head), fromFile...), tail...), nil
}

// runFileArgs reads a run file (a regular file of at most input.MaxFileBytes) and returns its
// flags as command-line arguments. Values are not checked here: the flags' parsers check them.
func runFileArgs(file string, cmdline []string) ([]string, error) {
	data, err := input.ReadFile(file, input.MaxFileBytes)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, errors.New("the file is empty")
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: want a mapping of flag names to values", root.Line)
	}
	// The flags known to run with the command line's workload, else the file's: the command
	// line's overrides the file's, which is then left out.
	workloadName, named := namedWorkload(cmdline)
	for i := 0; i+1 < len(root.Content) && !named; i += 2 {
		if root.Content[i].Value == "workload" {
			workloadName = root.Content[i+1].Value
			if _, ok := workload.Lookup(workloadName); !ok {
				return nil, fmt.Errorf("line %d: %v", root.Content[i+1].Line, unknownWorkload(workloadName))
			}
		}
	}
	if workloadName == defaultWorkload {
		workloadName = "" // rumbench run itself: its messages say "rumbench run"
	}
	_, f := newRunFlags(&Env{}, workloadName, false)
	flags := f.cmdFlags
	// A run file describes a run: rumbench prepare -f FILE (or --replay RUN) loads the data of
	// that run and leaves out the flags it does not take.
	prepare := len(cmdline) > 0 && cmdline[0] == "prepare"
	dir := filepath.Dir(file)
	var out []string
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, val := root.Content[i], root.Content[i+1]
		fl := flags.Lookup(key.Value)
		if fl == nil || slices.Contains([]string{"file", "replay"}, key.Value) {
			if err := flagError(f, fmt.Errorf("unknown flag: --%s", input.Short(key.Value))); err != nil {
				return nil, fmt.Errorf("line %d: %v", key.Line, err)
			}
		}
		if (prepare && slices.Contains(runOnlyFlags, key.Value)) || (named && key.Value == "workload") {
			continue
		}
		items, err := flagValues(fl, val)
		if err != nil {
			return nil, fmt.Errorf("line %d: %s: %v", val.Line, input.Short(key.Value), err)
		}
		if masked := slices.ContainsFunc(items, func(v string) bool { return strings.Contains(v, redact.Mask) }); masked {
			// A password the file does not hold: the command line must give the flag again.
			name := "--" + key.Value
			if !slices.ContainsFunc(cmdline, func(a string) bool { return a == name || strings.HasPrefix(a, name+"=") }) {
				return nil, fmt.Errorf("line %d: the %s password is masked (%s): give %s again on the command line", val.Line, key.Value, redact.Args(items)[0], name)
			}
			continue
		}
		for _, v := range items {
			if key.Value == "server-config" && v != "" && !filepath.IsAbs(v) {
				v = filepath.Join(dir, v)
			}
			out = append(out, "--"+key.Value+"="+v)
		}
	}
	return out, nil
}

// repeatable says whether a flag takes one value per occurrence (--engine-opt, --check).
func repeatable(fl *pflag.Flag) bool {
	t := fl.Value.Type()
	return t == "stringArray" || t == "stringSlice"
}

// flagValues turns a YAML value into the values of one flag: a scalar is one value; a list is
// one value per item for a repeatable flag, else its items joined with commas; a mapping gives
// key=value items of a repeatable flag.
func flagValues(fl *pflag.Flag, v *yaml.Node) ([]string, error) {
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Tag == "!!null" {
			return nil, nil
		}
		return []string{v.Value}, nil
	case yaml.SequenceNode:
		var items []string
		for _, it := range v.Content {
			if it.Kind != yaml.ScalarNode {
				return nil, errors.New("a list item must be a single value")
			}
			items = append(items, it.Value)
		}
		if repeatable(fl) {
			return items, nil
		}
		return []string{strings.Join(items, ",")}, nil
	case yaml.MappingNode:
		if !repeatable(fl) {
			return nil, errors.New("takes one value, not a mapping")
		}
		var items []string
		for i := 0; i+1 < len(v.Content); i += 2 {
			if v.Content[i+1].Kind != yaml.ScalarNode {
				return nil, errors.New("a mapping's values must be single values")
			}
			items = append(items, v.Content[i].Value+"="+v.Content[i+1].Value)
		}
		return items, nil
	}
	return nil, errors.New("unsupported value")
}

// resolvedRunFile renders the run's flags (fs, parsed) as a run file: the flags it was given
// and alwaysWritten with their values, the workload and engines first, then the others by
// name; every other flag as a comment with its default (which may depend on --profile, so
// setting it would change the run). Passwords (a --dsn, a --store URL, a dsn engine option) are
// masked (the file is then replayed with that flag given again); the file flags themselves are
// left out.
func resolvedRunFile(fs *pflag.FlagSet, runID string) ([]byte, error) {
	type entry struct {
		name string
		node *yaml.Node
	}
	var entries []entry
	var defaults []string
	var bad error
	fs.VisitAll(func(fl *pflag.Flag) {
		if slices.Contains([]string{"file", "replay", "help"}, fl.Name) || fl.Hidden {
			return
		}
		if !fl.Changed && !slices.Contains(alwaysWritten, fl.Name) {
			// At its default: a comment (a default may depend on --profile, so it is not set).
			if v := fl.Value.String(); v != "" && v != "[]" {
				defaults = append(defaults, fmt.Sprintf("#   %s: %s", fl.Name, v))
			} else {
				defaults = append(defaults, fmt.Sprintf("#   %s:", fl.Name))
			}
			return
		}
		var n *yaml.Node
		if repeatable(fl) {
			vals, err := arrayValues(fl)
			if err != nil {
				bad = err
				return
			}
			if len(vals) == 0 {
				return
			}
			n = &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
			for _, v := range vals {
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: redact.DSN(v)})
			}
		} else {
			v := redact.DSN(fl.Value.String())
			n = &yaml.Node{Kind: yaml.ScalarNode, Value: v}
			if fl.Value.Type() == "string" {
				n.Style = scalarStyle(v)
			}
		}
		entries = append(entries, entry{fl.Name, n})
	})
	if bad != nil {
		return nil, bad
	}
	first := map[string]int{"workload": 0, "engine": 1, "profile": 2}
	sort.SliceStable(entries, func(i, j int) bool {
		a, aok := first[entries[i].name]
		b, bok := first[entries[j].name]
		switch {
		case aok && bok:
			return a < b
		case aok != bok:
			return aok
		}
		return entries[i].name < entries[j].name
	})
	m := &yaml.Node{Kind: yaml.MappingNode}
	for _, e := range entries {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: e.name}, e.node)
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# rumbench run file of run %s: the flags it was given (and its workload, engines, profile\n# and seed). Run it again: rumbench run -f <this file>, or rumbench run --replay <its run directory>.\n", runID)
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{m}}); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	if len(defaults) > 0 {
		fmt.Fprintf(&buf, "# The other flags were at their defaults (0 or empty: from --profile or the workload):\n%s\n", strings.Join(defaults, "\n"))
	}
	return buf.Bytes(), nil
}

// alwaysWritten are the flags a run file states even at their defaults: what ran, where, how
// large, with which random data.
var alwaysWritten = []string{"workload", "engine", "profile", "seed"}

// scalarStyle quotes a string value that YAML would read as something else (empty, a number,
// a boolean, null).
func scalarStyle(v string) yaml.Style {
	if v == "" {
		return yaml.DoubleQuotedStyle
	}
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		return yaml.DoubleQuotedStyle
	}
	switch strings.ToLower(v) {
	case "true", "false", "yes", "no", "on", "off", "null", "~":
		return yaml.DoubleQuotedStyle
	}
	return 0
}

// arrayValues returns a repeatable flag's values.
func arrayValues(fl *pflag.Flag) ([]string, error) {
	if sv, ok := fl.Value.(pflag.SliceValue); ok {
		return sv.GetSlice(), nil
	}
	return nil, fmt.Errorf("flag --%s: cannot read its values", fl.Name)
}
