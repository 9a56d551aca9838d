package cli

import (
	"errors"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rumbench/rumbench/internal/report"
)

var compareFormats = []string{"text", "md", "tsv", "csv", "json", "html"}

func newCompareCmd(env *Env) *cobra.Command {
	o := &outputFlags{}
	var base string
	var absolute bool
	cmd := &cobra.Command{
		Use:   "compare RUN...",
		Short: "Compare targets and runs relative to a base",
		Long: `Compare every target of the given runs: each cell is value(target) / value(base), printed with
two decimals (1 when both are 0, inf when only the base is 0). With one run each target is a
column; with several, each run × target pair is (labelled r<N>/<target>). The base is the first
target of the first run, or --base: a target, a column label (r2/pebble) or a run id or prefix.

Insert benchmark runs get one table per step (the rate and the efficiency metrics). Sysbench runs
get the relative QPS of each group (point queries, range queries without and with aggregation,
writes) with a row per test, then the same tables for cpu/o, cs/o, rKB/o, wKB/o and the other
per-operation costs. --absolute prints the figures instead of the ratios.`,
		Args: needRuns,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(compareFormats, o.format) {
				return usagef("unknown format %q (valid: %s)", o.format, strings.Join(compareFormats, ", "))
			}
			runs, err := loadRuns(env, o, args)
			if err != nil {
				return err
			}
			c, err := report.Compare(runs, base)
			if errors.Is(err, report.ErrNothingToCompare) {
				return usageError{err}
			}
			if errors.Is(err, report.ErrUnknownBase) {
				return usagef("--base: %v", err)
			}
			if err != nil {
				return err
			}
			return writeOutput(env, o.output, func(w io.Writer) error {
				if o.format == "html" {
					return report.HTML(w, runs, report.HTMLOptions{Base: base})
				}
				return report.Render(w, o.format, c.Document(absolute))
			})
		},
	}
	o.add(cmd, compareFormats)
	cmd.Flags().StringVar(&base, "base", "", "the base: a target, a column label (r2/pebble) or a run id or prefix (default the first target of the first run)")
	cmd.Flags().BoolVar(&absolute, "absolute", false, "print the figures, not the ratios to the base")
	return cmd
}
