package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rumbench/rumbench/internal/report"
	"github.com/rumbench/rumbench/internal/results"
)

var compareFormats = []string{"text", "md", "tsv", "csv", "json", "html"}

func newCompareCmd(env *Env) *cobra.Command {
	o := &outputFlags{}
	var base string
	var absolute, allowMixed bool
	var alpha float64
	var checks checkFlags
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
per-operation costs. --absolute prints the figures instead of the ratios.

Runs made with --repeat show each figure as the median of the repetitions with its confidence
interval (±), and each ratio with its interval and, when the difference from the base is not
significant at --alpha (Mann-Whitney U test), a "~".`,
		Args: needRuns,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(compareFormats, o.format) {
				return usagef("unknown format %q (valid: %s)", o.format, strings.Join(compareFormats, ", "))
			}
			if !(alpha > 0 && alpha < 1) {
				return usagef("--alpha %g: must be in (0, 1), e.g. 0.05", alpha)
			}
			exprs, err := checks.parse()
			if err != nil {
				return err
			}
			runs, err := loadRuns(env, o, args)
			if err != nil {
				return err
			}
			if err := mixedCaps(runs); err != nil && !allowMixed {
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
			c.Alpha = alpha
			err = writeOutput(env, o.output, func(w io.Writer) error {
				if o.format == "html" {
					return report.HTML(w, runs, report.HTMLOptions{Base: base, Alpha: alpha})
				}
				doc := c.Document(absolute)
				if st := report.ScalingTables(runs); len(st) > 0 {
					// The runs' concurrency sweeps: a line per run × target in each step's table.
					doc.Sections = append(doc.Sections, report.Section{Title: "scaling", Tables: st})
				}
				if rt := report.RateTables(runs); len(rt) > 0 {
					// The runs' sweeps of rates: a line per run × target and rate.
					doc.Sections = append(doc.Sections, report.Section{Title: "latency at fixed rates", Tables: rt})
				}
				if ft := report.FaultTable(runs); ft != nil {
					// The runs' faults: a line per target, step and fault.
					doc.Sections = append(doc.Sections, report.Section{Title: "faults", Tables: []*report.Table{ft}})
				}
				if ct := report.ClusterTables(runs); len(ct) > 0 {
					doc.Sections = append(doc.Sections, report.Section{Title: "clusters", Tables: ct})
				}
				return report.Render(w, o.format, doc)
			})
			if err != nil {
				return err
			}
			suite := runs[0].Manifest.RunID
			if len(runs) > 1 {
				suite = "compare"
			}
			return runChecks(env.Stdout, exprs, seriesOfRuns(runs), c.Base, checks.junit, suite)
		},
	}
	o.add(cmd, compareFormats)
	cmd.Flags().StringVar(&base, "base", "", "the base: a target, a column label (r2/pebble) or a run id or prefix (default the first target of the first run)")
	cmd.Flags().BoolVar(&absolute, "absolute", false, "print the figures, not the ratios to the base")
	checks.add(cmd.Flags())
	cmd.Flags().Float64Var(&alpha, "alpha", report.DefaultAlpha, "significance level of the test between repeated runs (--repeat): a larger p-value is marked ~")
	cmd.Flags().BoolVar(&allowMixed, "allow-mixed", false, "compare runs made under different memory caps (--memory-limit)")
	return cmd
}

// mixedCaps refuses runs made under different memory caps (--memory-limit): a capped and an
// uncapped run measure different regimes. The error names each run's cap.
func mixedCaps(runs []*results.Run) error {
	caps := map[int64]bool{}
	var each []string
	for _, r := range runs {
		var limit int64
		if r.Manifest.Memory != nil {
			limit = r.Manifest.Memory.LimitBytes
		}
		caps[limit] = true
		each = append(each, r.Manifest.RunID+" "+capText(limit))
	}
	if len(caps) < 2 {
		return nil
	}
	return usagef("the runs were made under different memory caps (%s): use --allow-mixed to compare them anyway", strings.Join(each, ", "))
}

// capText is a memory cap for a message: "cap 384 MiB" or "no cap".
func capText(limit int64) string {
	if limit == 0 {
		return "no cap"
	}
	if limit%(1<<30) == 0 {
		return fmt.Sprintf("cap %d GiB", limit>>30)
	}
	return fmt.Sprintf("cap %d MiB", limit>>20)
}
