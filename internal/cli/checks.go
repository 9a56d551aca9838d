package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rumbench/rumbench/internal/check"
	"github.com/rumbench/rumbench/internal/report"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/workload"
)

// checkFlags are the gates of run and compare: --check EXPR (repeatable) and --junit FILE.
type checkFlags struct {
	exprs []string
	junit string
}

func (c *checkFlags) add(fl *pflag.FlagSet) {
	fl.StringArrayVar(&c.exprs, "check", nil, "a gate on the results, [STEP:]NAME OP NUMBER, e.g. qps>=20000, l.i1:p99_us<=5000, ratio(ips)>=0.95 (repeatable; a rate name without STEP checks the steps whose headline rate it is); exit code 1 when one fails")
	fl.StringVar(&c.junit, "junit", "", "write the checks as a JUnit XML report to this file")
}

// parse parses the checks, or returns a usage error; --junit without a check is refused.
func (c *checkFlags) parse() ([]check.Expr, error) {
	rates := workload.RateNames()
	var out []check.Expr
	for _, text := range c.exprs {
		e, err := check.Parse(text, rates)
		if err != nil {
			return nil, usageError{err}
		}
		out = append(out, e)
	}
	if c.junit != "" && len(out) == 0 {
		return nil, usagef("--junit %s: there is no --check to report", c.junit)
	}
	if c.junit != "" {
		if err := writable(c.junit); err != nil {
			return nil, usagef("--junit %s: %v", c.junit, err)
		}
	}
	return out, nil
}

// writable checks that file can be created (its directory exists and accepts a new file),
// without leaving it behind when it did not exist.
func writable(file string) error {
	_, statErr := os.Stat(file)
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	f.Close()
	if os.IsNotExist(statErr) {
		os.Remove(file)
	}
	return nil
}

// seriesOfRuns makes the check series of runs: one per run × target, labelled as compare
// labels them.
func seriesOfRuns(runs []*results.Run) []check.Series {
	var out []check.Series
	for ri, r := range runs {
		out = append(out, check.SeriesOf(r, func(target string) string {
			if len(runs) > 1 {
				return fmt.Sprintf("r%d/%s", ri+1, target)
			}
			return target
		})...)
	}
	return out
}

// runChecks evaluates exprs over series (ratios against series[base]), prints the outcome as
// a table on w, writes the JUnit file when asked, and returns an error (exit code 1) when a
// check failed.
func runChecks(w io.Writer, exprs []check.Expr, series []check.Series, base int, junit, suite string) error {
	if len(exprs) == 0 {
		return nil
	}
	rs := check.Evaluate(exprs, series, base)
	t := &report.Table{Title: "checks", Columns: []report.Column{{Name: "check"}, {Name: "step"}, {Name: "target"}, {Name: "result"}, {Name: "measured"}}}
	for _, r := range rs {
		res := report.TextCell("pass")
		switch {
		case r.Noisy:
			res = report.TextCell("NOISY")
			res.Flag = "bad"
		case !r.Pass:
			res = report.TextCell("FAIL")
			res.Flag = "bad"
		}
		t.Rows = append(t.Rows, []report.Cell{report.TextCell(r.Expr.Text), report.TextCell(orDash(r.Step)),
			report.TextCell(orDash(r.Target)), res, report.TextCell(check.Describe(r))})
	}
	fmt.Fprintln(w)
	if err := report.WriteText(w, t); err != nil {
		return err
	}
	if junit != "" {
		f, err := os.Create(junit)
		if err != nil {
			return err
		}
		if err := check.JUnit(f, suite, rs); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		fmt.Fprintf(w, "junit: %s\n", junit)
	}
	if n := check.Failed(rs); n > 0 {
		return fmt.Errorf("%d of %d checks failed (%s)", n, len(rs), failedList(rs))
	}
	return nil
}

func failedList(rs []check.Result) string {
	var out []string
	for _, r := range rs {
		if !r.Pass {
			item := strings.Join(strings.Fields(r.Step+" "+r.Target+" "+r.Expr.Text), " ")
			if r.Noisy {
				item += ": within noise"
			}
			out = append(out, item)
		}
	}
	if len(out) > 3 {
		out = append(out[:3], "...")
	}
	return strings.Join(out, "; ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
