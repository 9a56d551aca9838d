package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rumbench/rumbench/internal/hostnoise"
	"github.com/rumbench/rumbench/internal/stats"
)

// hostNoiseWindows are the window lengths host-noise summarizes, seconds: a write step of the
// quick profile, a query step of it, and a step four times that.
var hostNoiseWindows = []int{1, 5, 20}

func newHostNoiseCmd(env *Env) *cobra.Command {
	var probes string
	cfg := hostnoise.Config{}
	cmd := &cobra.Command{
		Use:   "host-noise",
		Short: "Measure how far this host moves a step's rate between runs: CPU, device flushes, shared cache",
		Long: `Run three probes, one after another, each on one thread for --secs seconds: cpu (SHA-256 over
16 KiB: compute in the core's own caches), device (4 KiB pwrite + fdatasync in a file of
--data-dir: what a commit that syncs waits for) and cache (a dependent load through every cache
line of --cache-mb MiB on huge pages: what a query step over data of that size reads, from CPU
caches the host may share with other tenants). Nothing else should run meanwhile.

For windows of 1, 5 and 20 s (a quick write step, a quick query step, a longer one; each when it
fits six times into --secs, so 20 s from --secs 120) it prints the cv of the probe's rate between
windows and what three windows drawn at random spread by (the largest over the smallest, median
and 90th percentile): a step whose rate follows the probe moves at least that much between three
runs; "ratio" is the same for the ratio of two such windows (a summary ratio), and "within" the
share of those within 1.10. docs/reproducibility.md explains the figures and what they meant for
the default run on a 2-core VM.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, name := range strings.Split(probes, ",") {
				p, err := hostnoise.ParseProbe(strings.TrimSpace(name))
				if err != nil {
					return usageError{err}
				}
				if !slices.Contains(cfg.Probes, p) {
					cfg.Probes = append(cfg.Probes, p)
				}
			}
			if err := cfg.Validate(); err != nil {
				return usageError{err}
			}
			ctx, cancel := env.Context()
			defer cancel()
			out, err := hostnoise.Run(ctx, cfg)
			printHostNoise(env.Stdout, cfg, out)
			if ctx.Err() != nil {
				return errInterrupted
			}
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&probes, "probes", "cpu,device,cache", "the probes to run, in order: cpu, device, cache")
	fl.IntVar(&cfg.Secs, "secs", 60, fmt.Sprintf("seconds each probe runs (%d to %d)", hostnoise.MinSecs, hostnoise.MaxSecs))
	fl.StringVar(&cfg.Dir, "data-dir", ".", "an existing directory on the device to probe (the device probe's file is removed after)")
	fl.IntVar(&cfg.CacheMB, "cache-mb", 16, fmt.Sprintf("the cache probe's working set, MiB (%d to %d): about the size of the data a query step reads", hostnoise.MinCacheMB, hostnoise.MaxCacheMB))
	return cmd
}

// printHostNoise prints one row per probe and window length of what was measured: windows that
// did not fit hostnoise.MinWindows times into the probe's seconds are left out.
func printHostNoise(w io.Writer, cfg hostnoise.Config, out map[hostnoise.Probe][]float64) {
	fmt.Fprintf(w, "%-7s %-9s %12s %6s %4s %6s %15s %15s %7s\n", "probe", "unit", "median/s", "window", "n", "cv%", "3 runs med/p90", "ratio med/p90", "within")
	for _, p := range cfg.Probes {
		rates, ok := out[p]
		if !ok || len(rates) == 0 {
			continue
		}
		med := stats.Summarize(rates).Median
		for _, win := range hostNoiseWindows {
			f, ok := hostnoise.Summarize(rates, win, 1)
			if !ok {
				continue
			}
			fmt.Fprintf(w, "%-7s %-9s %12.0f %5ds %4d %6.1f %15s %15s %6.0f%%\n", p, p.Unit(), med, win, f.Windows, f.CVPct,
				fmt.Sprintf("%.2f/%.2f", f.Spread, f.Spread90), fmt.Sprintf("%.2f/%.2f", f.RatioSpread, f.RatioSpread90), f.WithinGoalPct)
		}
	}
	if cfg.Secs < hostnoise.MinWindows*hostNoiseWindows[len(hostNoiseWindows)-1] {
		fmt.Fprintf(w, "(windows that fit fewer than %d times into --secs %d are left out)\n", hostnoise.MinWindows, cfg.Secs)
	}
}
