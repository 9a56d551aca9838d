package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/redact"
	"github.com/rumbench/rumbench/internal/report"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/store"
)

// mergeFlags are the merge command's flags.
type mergeFlags struct {
	out, store, group, label string
	quiet, wide              bool
}

func newMergeCmd(env *Env) *cobra.Command {
	f := &mergeFlags{}
	cmd := &cobra.Command{
		Use:   "merge RUN... | --group ID",
		Short: "Merge the shards of a split run (run --shard) into one run",
		Long: `Merge the runs of the shards of one split run (rumbench run --shard I/N) into one run, as if
one client had run all their clients: operation counts summed, rates summed per aligned
interval, response-time histograms merged bucket by bucket (percentiles read from the merged
histogram, never averaged), client process figures summed, host-wide figures counted once per
host, each shard's own figures kept in the step records (shards).

RUN is a run directory, or a run id (or unique prefix) under --out or in the store; --group ID
merges the shards the results store recorded for the group. The merged run is written to
<out>/<run-id>/ and recorded in the store; report, compare and the HTML report read it like any
run.`,
		RunE: func(cmd *cobra.Command, args []string) error { return runMerge(env, f, args) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.out, "out", "results", "results directory: where the merged run is written, and where run ids are looked up")
	fl.StringVar(&f.store, "store", "", "results store the shards were recorded in and the merged run is recorded in (default <out>/rumbench.db; a SQLite file, a postgres:// URL, or none)")
	fl.StringVar(&f.group, "group", "", "merge the shards of this group, as the store recorded them (instead of RUN arguments)")
	fl.StringVar(&f.label, "label", "", "label added to the merged run's id (default <group>-merged)")
	fl.BoolVar(&f.quiet, "quiet", false, "do not print the merged run's tables")
	fl.BoolVar(&f.wide, "wide", false, "print every figure in the step tables, not the brief view")
	return cmd
}

func runMerge(env *Env, f *mergeFlags, args []string) error {
	switch {
	case f.group == "" && len(args) == 0:
		return usagef("rumbench merge needs the shards' runs (RUN...) or --group ID")
	case f.group != "" && len(args) > 0:
		return usagef("rumbench merge takes RUN... or --group ID, not both")
	}
	if f.label != "" {
		if err := input.CheckName(f.label); err != nil {
			return usagef("--label %q: %v (it names the run directory)", input.Short(f.label), err)
		}
	}
	storeAt, err := storeSpec(f.store, f.out, true)
	if err != nil {
		return err
	}
	ctx, cancel := env.Context()
	defer cancel()
	var runs []*results.Run
	if f.group != "" {
		runs, err = groupRuns(ctx, storeAt, f.group)
	} else {
		runs, err = loadRuns(env, &outputFlags{out: f.out, store: f.store}, args)
	}
	if err != nil {
		return err
	}
	for _, r := range runs {
		if r.Intervals == nil && r.Dir != "" {
			if ivs, err := results.ReadIntervals(r.Dir); err == nil {
				r.Intervals = ivs
			}
		}
	}
	label := f.label
	if label == "" && len(runs) > 0 && runs[0].Manifest.Shard != nil {
		label = runs[0].Manifest.Shard.Group + "-merged"
	}
	runID := env.Now().UTC().Format("20060102T150405Z") + "-" + label
	m, steps, ivs, err := results.Merge(runs, runID)
	if err != nil {
		return usageError{err}
	}
	if err := input.CheckName(label); err != nil {
		// From the shards' manifests: their group id names the merged run unless --label does.
		return usagef("the merged run's label %q (the shards' group, then -merged): %v: give one with --label", input.Short(label), err)
	}
	m.Label, m.Command = label, append([]string{"rumbench"}, redact.Args(env.Args)...)
	dir, err := writeMerged(f.out, runID, m, steps, ivs)
	if err != nil {
		return err
	}
	recordRun(ctx, env, storeAt, dir, f.quiet, true)
	if !f.quiet && len(steps) > 0 {
		if err := report.Text(env.Stdout, steps, viewOf(f.wide)); err != nil {
			return err
		}
		fmt.Fprintln(env.Stdout)
	}
	for _, t := range m.Targets {
		if t.Check != "" {
			fmt.Fprintf(env.Stdout, "invariants %s: %s\n", t.Label, t.Check)
		}
	}
	fmt.Fprintf(env.Stdout, "merged %d shards of group %s\nresults: %s\n", len(runs), m.Merged.Group, dir)
	if m.Status != results.StatusOK {
		return fmt.Errorf("the merged run is %s: %s", m.Status, m.Error)
	}
	return nil
}

// groupRuns loads the runs of the shards of group from the store at storeAt, in shard order; a
// group with a shard that never started is refused.
func groupRuns(ctx context.Context, storeAt, group string) ([]*results.Run, error) {
	if storeAt == "none" {
		return nil, usagef("--group needs a results store (--store)")
	}
	st, err := store.OpenExisting(ctx, storeAt)
	if err != nil {
		return nil, usagef("--group %s: %v", input.Short(group), err)
	}
	defer st.Close()
	ids, count, err := st.GroupRuns(ctx, group)
	if errors.Is(err, store.ErrNotFound) {
		return nil, usageError{err}
	}
	if err != nil {
		return nil, err
	}
	if len(ids) < count {
		return nil, fmt.Errorf("group %s has %d shards; the store holds %d of them (a shard that never started cannot be merged)", group, count, len(ids))
	}
	var runs []*results.Run
	for i, id := range ids {
		if id == "" {
			return nil, fmt.Errorf("group %s: shard %d joined but its run never started", group, i)
		}
		r, err := st.Load(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("group %s: shard %d: %w", group, i, err)
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// writeMerged writes the merged run (its manifest m, step records and intervals) into a run
// directory under out named runID (with -2, -3 ... when that exists) and returns the directory.
func writeMerged(out, runID string, m *results.Manifest, steps []results.Step, ivs []results.Interval) (string, error) {
	w, err := results.Create(out, runID, m.Private)
	if err != nil {
		return "", err
	}
	m.RunID = w.RunID()
	for i := range ivs {
		if err := w.Interval(&ivs[i]); err != nil {
			w.Close()
			return "", err
		}
	}
	for _, s := range steps {
		if err := w.Step(s); err != nil {
			w.Close()
			return "", err
		}
	}
	if err := w.Manifest(m); err != nil {
		w.Close()
		return "", err
	}
	return w.Dir(), w.Close()
}
