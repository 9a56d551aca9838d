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
				fmt.Fprintf(tw, "%s\t%s\n", name, s.Description)
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
		Use:   "workloads",
		Short: "List the workloads and their steps",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "WORKLOAD\tSTEPS\tDESCRIPTION")
			for _, name := range workload.Names() {
				s, _ := workload.Lookup(name)
				fmt.Fprintf(tw, "%s\t%s\t%s\n", name, strings.Join(s.Steps, ","), s.Description)
			}
			return tw.Flush()
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
