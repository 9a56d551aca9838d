package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rumbench/rumbench/internal/bench"
	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/live"
	"github.com/rumbench/rumbench/internal/report"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/store"
)

// outputFlags are the flags report and compare share.
type outputFlags struct {
	format, output, out, store string
	wide                       bool // report: every figure in text and md (csv, tsv, json and html have them all)
}

// viewOf is the step tables' view: report.Wide when wide, else report.Brief.
func viewOf(wide bool) report.View {
	if wide {
		return report.Wide
	}
	return report.Brief
}

func (o *outputFlags) add(cmd *cobra.Command, formats []string) {
	fl := cmd.Flags()
	fl.StringVar(&o.format, "format", "text", "output format: "+strings.Join(formats, ", "))
	fl.StringVarP(&o.output, "output", "o", "", "write to this file instead of stdout")
	fl.StringVar(&o.out, "out", "results", "results directory holding the run ids given as arguments")
	fl.StringVar(&o.store, "store", "", "results store to read runs from when their directory is gone (default <out>/rumbench.db; a SQLite file or a postgres:// URL)")
}

var reportFormats = []string{"text", "md", "csv", "tsv", "json", "html", "gobench", "openmetrics"}

func newReportCmd(env *Env) *cobra.Command {
	o := &outputFlags{}
	cmd := &cobra.Command{
		Use:   "report RUN...",
		Short: "Print the step tables of finished runs in a chosen format",
		Long: `Print the tables of one or more runs: one table per step with a row per target, and the
response times. RUN is a run directory or a run id (or a unique prefix of one) under --out.

Formats: text (as rumbench run prints), md (Markdown), csv and tsv (one block per table, full
precision), json, html (one self-contained file with charts), gobench (Go benchmark lines for
benchstat) and openmetrics (the runs' series with timestamps, as --metrics-listen serves them
live, for "promtool tsdb create-blocks-from openmetrics": docs/live.md). text and md show the
brief view of the step tables (rates, size, I/O, syncs, CPU and memory per op, worst response
time, and any column that flags trouble); --wide shows every figure, as the other formats do.`,
		Args: needRuns,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(reportFormats, o.format) {
				return usagef("unknown format %q (valid: %s)", o.format, strings.Join(reportFormats, ", "))
			}
			runs, err := loadRuns(env, o, args)
			if err != nil {
				return err
			}
			return writeOutput(env, o.output, func(w io.Writer) error {
				switch o.format {
				case "html":
					return report.HTML(w, runs, report.HTMLOptions{})
				case "gobench":
					return report.GoBench(w, runs)
				case "openmetrics":
					return live.WriteRuns(w, runs)
				}
				view := viewOf(o.wide)
				if o.format != "text" && o.format != "md" {
					view = report.Wide // machine formats keep every figure
				}
				return report.Render(w, o.format, report.RunsDocument(runs, view))
			})
		},
	}
	o.add(cmd, reportFormats)
	cmd.Flags().BoolVar(&o.wide, "wide", false, "text and md: every figure in the step tables, not the brief view (csv, tsv, json and html hold them all)")
	return cmd
}

// needRuns refuses a report or compare command without a run argument.
func needRuns(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return usagef("rumbench %s needs at least one RUN: a run directory, or a run id (or unique prefix) under --out", cmd.Name())
	}
	return nil
}

// writeOutput renders into a buffer, then writes it to the file (when given) or stdout, so a
// failed render leaves no partial file.
func writeOutput(env *Env, file string, render func(io.Writer) error) error {
	var b bytes.Buffer
	if err := render(&b); err != nil {
		return err
	}
	if file == "" {
		_, err := env.Stdout.Write(b.Bytes())
		return err
	}
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		return usagef("-o %s: %v", input.Short(file), input.Reason(err))
	}
	return nil
}

// loadRuns reads the runs named on the command line: each a run directory (holding run.json) or
// a run id, or a unique prefix of one, under --out; a run whose directory is gone is read from the
// results store.
func loadRuns(env *Env, o *outputFlags, args []string) ([]*results.Run, error) {
	runs := make([]*results.Run, 0, len(args))
	for _, a := range args {
		dir, err := resolveRun(o.out, a)
		if err != nil {
			if r := loadFromStore(env, o, a); r != nil {
				runs = append(runs, r)
				continue
			}
			return nil, err
		}
		r, err := results.Load(dir)
		if err != nil {
			return nil, usageError{err} // a directory that is not a run's, or a damaged one
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// loadFromStore reads run id (or prefix) arg from the results store, nil when there is no store
// or it does not hold the run.
func loadFromStore(env *Env, o *outputFlags, arg string) *results.Run {
	spec, err := storeSpec(o.store, o.out, false)
	if err != nil {
		return nil
	}
	ctx, cancel := env.Context()
	defer cancel()
	s, err := store.OpenExisting(ctx, spec)
	if err != nil {
		return nil
	}
	defer s.Close()
	r, err := s.Load(ctx, arg)
	if err != nil {
		return nil
	}
	return r
}

// resolveRun finds the directory of a run argument, or returns a usage error saying what is
// valid.
func resolveRun(out, arg string) (string, error) {
	if _, err := os.Stat(filepath.Join(arg, "run.json")); err == nil {
		return arg, nil
	}
	if strings.ContainsRune(arg, os.PathSeparator) {
		return "", usagef("%s is not a run directory (it holds no run.json)", input.Short(arg))
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		return "", usagef("run %q: not a run directory, and --out %s cannot be read: %v", input.Short(arg), input.Short(out), input.Reason(err))
	}
	var ids, matches []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(out, e.Name(), "run.json")); !e.IsDir() || err != nil {
			continue
		}
		ids = append(ids, e.Name())
		if e.Name() == arg {
			return filepath.Join(out, arg), nil
		}
		if strings.HasPrefix(e.Name(), arg) {
			matches = append(matches, e.Name())
		}
	}
	switch len(matches) {
	case 1:
		return filepath.Join(out, matches[0]), nil
	case 0:
		sort.Strings(ids)
		if len(ids) == 0 {
			return "", usagef("run %q: no run directory of that name, and %s holds no runs", input.Short(arg), input.Short(out))
		}
		if len(ids) > 5 {
			ids = append(ids[len(ids)-5:], "...")
		}
		return "", usagef("run %q: no such run in %s (latest: %s)", input.Short(arg), input.Short(out), strings.Join(ids, ", "))
	}
	return "", usagef("run %q is ambiguous in %s: %s", input.Short(arg), input.Short(out), strings.Join(matches, ", "))
}

// writeRunReport writes report.html into a run directory from what the directory holds (a failed
// or interrupted run included) and returns its path.
func writeRunReport(dir string) (string, error) {
	r, err := results.Load(dir)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := report.HTML(&b, []*results.Run{r}, report.HTMLOptions{}); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "report.html")
	if err := os.WriteFile(path, b.Bytes(), results.FileMode(r.Manifest.Private)); err != nil {
		os.Remove(path) // no truncated report
		return "", fmt.Errorf("could not write %s: %w (%s)", path, err, bench.SpaceLeft(dir))
	}
	return path, nil
}
