package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/store"
)

// runsFlags are the flags of runs and its subcommands.
type runsFlags struct {
	store, out, format                    string
	workload, engine, label, since, until string
	files                                 bool
}

func newRunsCmd(env *Env) *cobra.Command {
	f := &runsFlags{}
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List the runs recorded in the results store; label, delete and import runs",
		Long: `List the runs recorded in the results store, newest first: one line per run with its id, label,
workload, targets, start (UTC), duration, status and number of step records.

rumbench run records every run in the store (default <out>/rumbench.db, a SQLite file; a
postgres:// URL for a shared PostgreSQL database). A run is named by its id or a unique prefix.
Dates are UTC: --since 2026-11-20 starts at midnight, --until 2026-11-21 includes that day.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runsList(env, f) },
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&f.store, "store", "", "results store: a SQLite file or a postgres:// URL (default <out>/rumbench.db)")
	pf.StringVar(&f.out, "out", "results", "results directory (holds the default store)")
	fl := cmd.Flags()
	fl.StringVar(&f.workload, "workload", "", "only runs of this workload")
	fl.StringVar(&f.engine, "engine", "", "only runs with a target on this engine")
	fl.StringVar(&f.label, "label", "", "only runs with this label")
	fl.StringVar(&f.since, "since", "", "only runs started at or after this date (YYYY-MM-DD, UTC) or RFC3339 time")
	fl.StringVar(&f.until, "until", "", "only runs started before the end of this date (YYYY-MM-DD, UTC) or before this RFC3339 time")
	fl.StringVar(&f.format, "format", "text", "output format: text or json")

	label := &cobra.Command{
		Use:   "label RUN LABEL",
		Short: "Set the label of a recorded run (in the store; the run id and directory keep theirs)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkLabel(args[1]); err != nil {
				return err
			}
			return withStore(env, f, false, func(ctx context.Context, s *store.Store) error {
				id, err := s.SetLabel(ctx, args[0], args[1])
				if err != nil {
					return runError(err)
				}
				fmt.Fprintf(env.Stdout, "%s: label %s\n", id, args[1])
				return nil
			})
		},
	}
	del := &cobra.Command{
		Use:   "delete RUN",
		Short: "Delete a run from the store (--files: also its run directory)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(env, f, false, func(ctx context.Context, s *store.Store) error {
				return runsDelete(ctx, env, s, args[0], f.files)
			})
		},
	}
	del.Flags().BoolVar(&f.files, "files", false, "also remove the run directory")
	imp := &cobra.Command{
		Use:   "import DIR...",
		Short: "Record run directories in the store (a directory of run directories imports each)",
		Args:  cobra.MinimumNArgs(1),
		RunE:  func(cmd *cobra.Command, args []string) error { return runsImport(env, f, args) },
	}
	cmd.AddCommand(label, del, imp)
	return cmd
}

// storeSpec returns the store the --store and --out flags name: "" means <out>/rumbench.db;
// "none" (allowed for run only) means no store.
func storeSpec(flag, out string, allowNone bool) (string, error) {
	switch {
	case flag == "none" && allowNone:
		return "none", nil
	case flag == "none":
		return "", usagef("--store none: this command needs a store (a SQLite file or a postgres:// URL)")
	case flag == "":
		return filepath.Join(out, "rumbench.db"), nil
	}
	if err := store.CheckSpec(flag); err != nil {
		return "", usagef("--store: %v", strings.TrimPrefix(err.Error(), "store "))
	}
	return flag, nil
}

// withStore opens the store of the flags (an existing one unless create) for fn.
func withStore(env *Env, f *runsFlags, create bool, fn func(context.Context, *store.Store) error) error {
	spec, err := storeSpec(f.store, f.out, false)
	if err != nil {
		return err
	}
	ctx, cancel := env.Context()
	defer cancel()
	open := store.OpenExisting
	if create {
		open = store.Open
	}
	s, err := open(ctx, spec)
	if errors.Is(err, store.ErrNoStore) {
		return usagef("%v (rumbench run records runs there; give --store or --out, or record run directories with rumbench runs import DIR)", err)
	}
	if err != nil {
		return err
	}
	defer s.Close()
	return fn(ctx, s)
}

// runError makes an unknown or ambiguous run id a usage error.
func runError(err error) error {
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrAmbiguous) {
		return usageError{err}
	}
	return err
}

// checkLabel refuses labels that would not survive a one-line listing.
func checkLabel(label string) error {
	if label == "" || strings.ContainsAny(label, "/\\ \t\n") {
		return usagef("label %q: must be non-empty, without spaces or slashes", label)
	}
	return nil
}

// parseWhen parses a --since or --until value: a UTC date (for --until, the end of that day)
// or an RFC3339 time.
func parseWhen(flag, v string, endOfDay bool) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if d, err := time.Parse("2006-01-02", v); err == nil {
		if endOfDay {
			d = d.AddDate(0, 0, 1)
		}
		return d, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, usagef("%s %q: want a date YYYY-MM-DD or an RFC3339 time (2026-11-21T14:00:00Z)", flag, v)
	}
	return t, nil
}

func runsList(env *Env, f *runsFlags) error {
	if f.format != "text" && f.format != "json" {
		return usagef("--format %q: valid: text, json", f.format)
	}
	since, err := parseWhen("--since", f.since, false)
	if err != nil {
		return err
	}
	until, err := parseWhen("--until", f.until, true)
	if err != nil {
		return err
	}
	filter := store.Filter{Workload: f.workload, Engine: f.engine, Label: f.label, Since: since, Until: until}
	return withStore(env, f, false, func(ctx context.Context, s *store.Store) error {
		runs, err := s.List(ctx, filter)
		if err != nil {
			return err
		}
		if f.format == "json" {
			b, err := json.MarshalIndent(runs, "", "  ")
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(env.Stdout, "%s\n", b)
			return err
		}
		return writeRuns(env.Stdout, runs)
	})
}

// writeRuns prints one line per run under a header.
func writeRuns(w io.Writer, runs []store.RunSummary) error {
	if len(runs) == 0 {
		_, err := fmt.Fprintln(w, "no runs")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tLABEL\tWORKLOAD\tTARGETS\tSTART (UTC)\tDURATION\tSTATUS\tSTEPS")
	for _, r := range runs {
		// What the store holds is printed escaped (input.Printable): a shared store's rows are
		// not this process's to trust.
		p := input.Printable
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\n", p(r.RunID), p(r.Label), p(r.Workload), p(strings.Join(r.Targets, ",")),
			r.Start.Format("2006-01-02 15:04:05"), duration(r), p(r.Status), r.Steps)
	}
	return tw.Flush()
}

func duration(r store.RunSummary) string {
	if r.End.IsZero() {
		return "-"
	}
	d := r.End.Sub(r.Start)
	switch {
	case d < time.Second:
		return fmt.Sprintf("%.2fs", d.Seconds())
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}

func runsDelete(ctx context.Context, env *Env, s *store.Store, run string, files bool) error {
	sum, err := s.Get(ctx, run)
	if err != nil {
		return runError(err)
	}
	if _, err := s.Delete(ctx, sum.RunID); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "%s: deleted from %s\n", sum.RunID, s.Name())
	if !files || sum.Dir == "" {
		return nil
	}
	m, err := results.ReadManifest(sum.Dir)
	switch {
	case os.IsNotExist(err):
		fmt.Fprintf(env.Stdout, "%s: the run directory %s no longer exists\n", sum.RunID, sum.Dir)
		return nil
	case err != nil:
		return fmt.Errorf("not removing %s: %v", sum.Dir, err)
	case m.RunID != sum.RunID:
		return fmt.Errorf("not removing %s: it holds run %s, not %s", sum.Dir, m.RunID, sum.RunID)
	}
	if err := os.RemoveAll(sum.Dir); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "%s: removed %s\n", sum.RunID, sum.Dir)
	return nil
}

// runDirs returns the run directories an import argument names: itself if it holds run.json,
// else its subdirectories that do.
func runDirs(arg string) ([]string, error) {
	st, err := os.Stat(arg)
	if err != nil || !st.IsDir() {
		return nil, usagef("import %s: not a directory", arg)
	}
	if _, err := os.Stat(filepath.Join(arg, "run.json")); err == nil {
		return []string{arg}, nil
	}
	entries, err := os.ReadDir(arg)
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(arg, e.Name(), "run.json")); e.IsDir() && err == nil {
			dirs = append(dirs, filepath.Join(arg, e.Name()))
		}
	}
	if len(dirs) == 0 {
		return nil, usagef("import %s: no run directory there (no run.json in it or in its subdirectories)", arg)
	}
	sort.Strings(dirs)
	return dirs, nil
}

func runsImport(env *Env, f *runsFlags, args []string) error {
	var dirs []string
	for _, a := range args {
		d, err := runDirs(a)
		if err != nil {
			return err
		}
		dirs = append(dirs, d...)
	}
	return withStore(env, f, true, func(ctx context.Context, s *store.Store) error {
		failed := 0
		for _, d := range dirs {
			run, err := results.Load(d)
			if err == nil {
				err = s.Record(ctx, run)
			}
			if err != nil {
				if ctx.Err() != nil {
					return errInterrupted
				}
				fmt.Fprintf(env.Stderr, "rumbench: import %s: %v\n", d, err)
				failed++
				continue
			}
			fmt.Fprintf(env.Stdout, "%s: imported from %s (%s; steps %d, intervals %d)\n", run.Manifest.RunID, d,
				run.Manifest.Status, len(run.Steps), len(run.Intervals))
		}
		if failed > 0 {
			return fmt.Errorf("%d of %d run directories not imported", failed, len(dirs))
		}
		return nil
	})
}

// recordRun records the run directory dir in the store spec ("none": not at all) at the end of
// a run, interrupted or failed runs included. A failure is reported on stderr and leaves the
// run's outcome (and its directory) as they are.
func recordRun(ctx context.Context, env *Env, spec, dir string, quiet, complete bool) {
	if spec == "none" {
		return
	}
	ctx = context.WithoutCancel(ctx) // an interrupted run is recorded too
	name := spec
	run, err := results.Load(dir)
	if err == nil {
		var s *store.Store
		if s, err = openStore(ctx, spec); err == nil {
			name = s.Name()
			rctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
			err = s.Record(rctx, run)
			cancel()
			s.Close()
		}
	}
	if err != nil {
		state := "is complete"
		if !complete {
			state = "holds what was written"
		}
		fmt.Fprintf(env.Stderr, "rumbench: the run is not in the results store: %v (its directory %s %s; rumbench runs import records it)\n", err, dir, state)
		return
	}
	if !quiet {
		fmt.Fprintf(env.Stderr, "rumbench: run recorded in %s\n", name)
	}
}

// recordStarted records a run that has just started (status running) in the store; the error
// is the store's (one that cannot be opened or written), nil with no store.
func recordStarted(ctx context.Context, spec, dir string) error {
	if spec == "none" {
		return nil
	}
	run, err := results.Load(dir)
	if err != nil {
		return nil // the run's own files: the run says so at its end
	}
	s, err := openStore(ctx, spec)
	if err != nil {
		return err
	}
	defer s.Close()
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return s.Record(rctx, run)
}

// openStore opens the store within 30 s (an unreachable PostgreSQL server must not hold up the
// end of a run).
func openStore(ctx context.Context, spec string) (*store.Store, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return store.Open(ctx, spec)
}
