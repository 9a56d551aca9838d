package cli

import (
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/rumbench/rumbench/internal/bench"
	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/metric"
	"github.com/rumbench/rumbench/internal/textwrap"
	"github.com/rumbench/rumbench/internal/workload"
)

func newEnginesCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "engines",
		Short: "List the engines and their --engine-opt options",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			names := engine.Names()
			width := len("ENGINE")
			for _, name := range names {
				width = max(width, len(name))
			}
			w := env.Stdout
			fmt.Fprintf(w, "%-*s  DESCRIPTION\n", width, "ENGINE")
			indent := strings.Repeat(" ", width+2)
			for _, name := range names {
				s, _ := engine.Lookup(name)
				desc := s.Description
				if s.Unavailable != "" {
					desc += " [not in this build: " + s.Unavailable + "]"
				}
				fmt.Fprintln(w, textwrap.Hang(fmt.Sprintf("%-*s  ", width, name), desc, textwrap.Width))
				keys := slices.Sorted(maps.Keys(s.Options))
				for _, k := range keys {
					// The option on a line of its own, its help below it, both set in.
					fmt.Fprintf(w, "%s  --engine-opt %s.%s=...\n", indent, name, k)
					fmt.Fprintln(w, textwrap.Hang(indent+"      ", s.Options[k], textwrap.Width))
				}
			}
			return nil
		},
	}
}

func newWorkloadsCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "workloads [NAME]",
		Short: "List the workloads, or show one workload's flags, steps and profiles",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				return describeWorkload(env, args[0])
			}
			names := workload.Names()
			width := len("WORKLOAD")
			for _, name := range names {
				width = max(width, len(name))
			}
			w := env.Stdout
			fmt.Fprintf(w, "%-*s  DESCRIPTION; STEPS\n", width, "WORKLOAD")
			for _, name := range names {
				s, _ := workload.Lookup(name)
				steps := "steps " + strings.Join(s.Steps, ",")
				if len(steps) > 70 {
					steps = fmt.Sprintf("%d steps: %s,...", len(s.Steps), strings.Join(s.Steps[:3], ","))
				}
				fmt.Fprintln(w, textwrap.Hang(fmt.Sprintf("%-*s  ", width, name), s.Description+"; "+steps, textwrap.Width))
			}
			fmt.Fprintln(w, "\nrumbench workloads NAME shows a workload's own flags, steps and profiles.")
			return nil
		},
	}
}

// describeWorkload prints one workload: description, profiles, steps, groups and its flags.
func describeWorkload(env *Env, name string) error {
	s, ok := workload.Lookup(name)
	if !ok {
		return usagef("unknown workload %q (valid: %s)", name, strings.Join(workload.Names(), ", "))
	}
	w := env.Stdout
	fmt.Fprintf(w, "%s\n\nprofiles: %s (--profile; the first is the default)\nsteps, in run order:\n",
		textwrap.Indented(s.Name+": "+s.Description, textwrap.Width, 2), strings.Join(s.Profiles, ", "))
	for _, st := range s.Steps {
		fmt.Fprintf(w, "  %s\n", st)
	}
	if len(s.Groups) > 0 {
		fmt.Fprintln(w, "step groups (one table each):")
		for _, g := range s.Groups {
			fmt.Fprintf(w, "  %-10s %s\n", g.Name, g.Title)
		}
	}
	// The flags as rumbench run takes them: the client count takes a list (a sweep).
	flags := s.New().Flags()
	sweepFlag(s, flags)
	fmt.Fprintf(w, "flags of rumbench run %s (with the shared flags of rumbench run --help):\n%s", s.Name, flags.FlagUsagesWrapped(textwrap.Width))
	return nil
}

func newMetricsCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "metrics [NAME]",
		Short: "Explain the figures rumbench prints: name, unit, meaning, formula",
		Long: `List every figure (table column, comparison row, benchmark line unit) with its unit and meaning,
then the names each workload gives its headline rate; or show one in full: its steps.json field,
formula, which direction is better and when it is not measured ("-"). A latency column may be
given with its unit (p99_ms, max_us). "rumbench metrics repeat" explains the intervals and
significance marks of repeated runs (--repeat).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				if err := metric.Glossary(env.Stdout, ""); err != nil {
					return err
				}
				fmt.Fprintln(env.Stdout, "\nThe rate column (rate_per_sec) is named by the workload:")
				var ww, nw, uw int
				for _, w := range workload.Names() {
					s, _ := workload.Lookup(w)
					ww = max(ww, len(w))
					for _, r := range s.Rates {
						nw, uw = max(nw, len(r.Name)), max(uw, utf8.RuneCountInString(r.Unit))
					}
				}
				for _, w := range workload.Names() {
					s, _ := workload.Lookup(w)
					for _, r := range s.Rates {
						prefix := fmt.Sprintf("  %-*s  %-*s  %-*s  ", ww, w, nw, r.Name, uw, r.Unit)
						fmt.Fprintln(env.Stdout, textwrap.Hang(prefix, r.Meaning, textwrap.Width))
					}
				}
				return nil
			}
			name := args[0]
			found := false
			if _, ok := metric.Lookup(name); ok || metric.IsTopic(name) {
				found = true
				if err := metric.Glossary(env.Stdout, name); err != nil {
					return err
				}
			}
			for _, w := range workload.Names() {
				s, _ := workload.Lookup(w)
				for _, r := range s.Rates {
					if r.Name == name {
						if !found {
							fmt.Fprintf(env.Stdout, "%s: the headline rate (rumbench metrics rate) as workloads name it\n", name)
						}
						found = true
						fmt.Fprintf(env.Stdout, "  as the rate of --workload %s: %s, %s\n", w, r.Meaning, r.Unit)
					}
				}
			}
			if !found {
				return usagef("unknown metric %q (rumbench metrics lists them)", name)
			}
			return nil
		},
	}
}

func newVersionCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintln(env.Stdout, versionLine())
			return nil
		},
	}
}

// versionLine is what "rumbench version" and "rumbench --version" print, without the newline.
func versionLine() string {
	sha := bench.GitSHA
	if sha == "" {
		sha = "unknown"
	}
	return fmt.Sprintf("rumbench %s (git %s, %s)", bench.Version, sha, runtime.Version())
}
