package cli

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/rumbench/rumbench/internal/bench"
	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/metric"
	"github.com/rumbench/rumbench/internal/workload"
)

func newEnginesCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "engines",
		Short: "List the engines and their --engine-opt options",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ENGINE\tDESCRIPTION")
			for _, name := range engine.Names() {
				s, _ := engine.Lookup(name)
				desc := s.Description
				if s.Unavailable != "" {
					desc += " [not in this build: " + s.Unavailable + "]"
				}
				fmt.Fprintf(tw, "%s\t%s\n", name, desc)
				keys := make([]string, 0, len(s.Options))
				for k := range s.Options {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					fmt.Fprintf(tw, "\t  --engine-opt %s.%s=...  %s\n", name, k, s.Options[k])
				}
			}
			return tw.Flush()
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
			tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "WORKLOAD\tSTEPS\tDESCRIPTION")
			for _, name := range workload.Names() {
				s, _ := workload.Lookup(name)
				steps := strings.Join(s.Steps, ",")
				if len(steps) > 60 {
					steps = fmt.Sprintf("%d steps: %s,...", len(s.Steps), strings.Join(s.Steps[:3], ","))
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\n", name, steps, s.Description)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintln(env.Stdout, "\nrumbench workloads NAME shows a workload's own flags, steps and profiles.")
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
	fmt.Fprintf(w, "%s: %s\n\nprofiles: %s (--profile; the first is the default)\nsteps, in run order:\n", s.Name, s.Description, strings.Join(s.Profiles, ", "))
	for _, st := range s.Steps {
		fmt.Fprintf(w, "  %s\n", st)
	}
	if len(s.Groups) > 0 {
		fmt.Fprintln(w, "step groups (one table each):")
		for _, g := range s.Groups {
			fmt.Fprintf(w, "  %-10s %s\n", g.Name, g.Title)
		}
	}
	fmt.Fprintf(w, "flags of --workload %s (with the shared flags of rumbench run --help):\n%s", s.Name, s.New().Flags().FlagUsages())
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
				tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
				for _, w := range workload.Names() {
					s, _ := workload.Lookup(w)
					for _, r := range s.Rates {
						fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", w, r.Name, r.Unit, r.Meaning)
					}
				}
				return tw.Flush()
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
