// Package worktest runs a workload's steps on a real engine for tests: the open, sample and
// run-every-step loop that every workload's tests share.
package worktest

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/memneed"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/server/ferrettest"
	"github.com/rumbench/rumbench/internal/sysstat"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
)

// BuildSized parses args into d's flags and builds the workload of profile (seed 1) under a
// memory budget of budget bytes, as if --memory-limit allowed that: the size checks' error, or
// nil. A flag that does not parse fails the test.
func BuildSized(t testing.TB, d workload.Definition, profile string, budget int64, args ...string) error {
	t.Helper()
	if err := d.Flags().Parse(args); err != nil {
		t.Fatal(err)
	}
	_, err := d.Build(workload.Shared{Profile: profile, Seed: 1, Memory: memneed.Budget{Bytes: budget, From: "--memory-limit allows"}})
	return err
}

// Engine opens the registered engine name in a fresh directory (its parent traversable, as the
// managed servers run as the postgres and mysql users) with an 8 MiB cache; it is closed when the
// test ends. It returns the engine and its directory.
func Engine(t testing.TB, name string, sync bool, extra map[string]string) (table.Engine, string) {
	t.Helper()
	spec, ok := engine.Lookup(name)
	if !ok {
		t.Fatalf("engine %s is not registered", name)
	}
	if spec.Unavailable != "" {
		t.Skipf("engine %s: %s", name, spec.Unavailable)
	}
	if name == "mongo" {
		ferrettest.Helper(t) // its managed server, built when `make test` did not
	}
	dir := t.TempDir()
	os.Chmod(filepath.Dir(dir), 0o755)
	eng, err := spec.Open(context.Background(), engine.Options{Dir: dir, CacheBytes: 8 << 20, Sync: sync, Extra: extra})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng, dir
}

// Steps opens w on eng and runs each of its steps (Prepare, Step, runner.Run with 100 ms ticks),
// failing the test on an error or a status other than ok; check sees each step's result. It
// returns the run (closed when the test ends) for the invariant check.
func Steps(t testing.TB, eng table.Engine, dir string, w workload.Workload, check func(run workload.Run, step string, res results.Step)) workload.Run {
	t.Helper()
	ctx := context.Background()
	run, err := w.Open(ctx, eng)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Close() })
	sampler, err := sysstat.NewSampler(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer sampler.Close()
	label := eng.Info().Name
	for _, step := range w.Steps() {
		if _, err := run.Prepare(ctx, step); err != nil {
			t.Fatalf("%s prepare: %v", step, err)
		}
		st, err := run.Step(ctx, step)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		res, err := runner.Run(ctx, runner.Setup{Label: label, Engine: eng, Sampler: sampler, Rows: run.Rows, Tick: 100 * time.Millisecond}, st)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if res.Status != results.StatusOK && !onlyMeasurement(res) {
			t.Fatalf("%s: status %s %s %s", step, res.Status, res.Error, strings.Join(res.Degraded, "; "))
		}
		if check != nil {
			check(run, step, res)
		}
	}
	return run
}

// LoggingPostgres opens a private PostgreSQL that logs every statement it receives
// (log_statement = 'all'), in a fresh directory; the test skips when the engine is not
// registered. Close the engine before reading the log with LoggedStatements.
func LoggingPostgres(t testing.TB) (table.Engine, string) {
	t.Helper()
	spec, ok := engine.Lookup("postgres")
	if !ok {
		t.Skip("no postgres engine")
	}
	dir := t.TempDir()
	os.Chmod(filepath.Dir(dir), 0o755)
	conf := filepath.Join(t.TempDir(), "log.conf")
	os.Chmod(filepath.Dir(conf), 0o755)
	if err := os.WriteFile(conf, []byte("log_statement = 'all'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	eng, err := spec.Open(context.Background(), engine.Options{Dir: dir, CacheBytes: 8 << 20, Extra: map[string]string{"server_config": conf}})
	if err != nil {
		t.Fatal(err)
	}
	return eng, dir
}

// LoggingMariaDB opens a private MariaDB (the mysql engine, InnoDB) that writes every statement
// it receives to its general log, a file in a fresh directory; the test skips when the engine is
// not registered or its binaries are missing. It returns the engine and the log's path: close the
// engine before reading it with MariaDBStatements.
func LoggingMariaDB(t testing.TB) (table.Engine, string) {
	t.Helper()
	spec, ok := engine.Lookup("mysql")
	if !ok {
		t.Skip("no mysql engine")
	}
	if spec.Check != nil {
		if err := spec.Check(nil); err != nil {
			t.Skipf("mysql: %v", err)
		}
	}
	dir := t.TempDir()
	os.Chmod(filepath.Dir(dir), 0o755)
	logDir := t.TempDir()
	os.Chmod(logDir, 0o777) // the server may run as another user
	os.Chmod(filepath.Dir(logDir), 0o755)
	path := filepath.Join(logDir, "general.log")
	conf := filepath.Join(logDir, "log.cnf")
	if err := os.WriteFile(conf, []byte("[mysqld]\ngeneral_log = 1\ngeneral_log_file = "+path+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	eng, err := spec.Open(context.Background(), engine.Options{Dir: dir, CacheBytes: 8 << 20, Extra: map[string]string{"server_config": conf}})
	if err != nil {
		t.Fatal(err)
	}
	return eng, path
}

var (
	// A general log line: [time] thread id, command, argument.
	myLogLine = regexp.MustCompile(`^(?:\d{6}\s+[\d:]+)?\s+(\d+)\s(Query|Execute)\t(.*)$`)
	// Literals MariaDB writes for the values of an executed statement (or a client writes into
	// its text): strings, with an optional introducer, and numbers not part of a name.
	myString = regexp.MustCompile(`(?:_binary|_latin1|_utf8mb4)?'(?:[^'\\]|\\.|'')*'`)
	myNumber = regexp.MustCompile(`-?\b[0-9]+\b`)
)

// NormalizeMySQL returns a MariaDB statement with its string and number literals shown as ?, as
// MariaDBStatements shows what the server logged: a statement text with ? placeholders and one
// with the values written in read the same.
func NormalizeMySQL(stmt string) string {
	return myNumber.ReplaceAllString(myString.ReplaceAllString(stmt, "?"), "?")
}

// MariaDBStatements reads the statements (text queries and executions of prepared statements)
// that the MariaDB of LoggingMariaDB logged at path, grouped by the Mark that precedes them,
// literals shown as ? (NormalizeMySQL), each prefixed with the number of the connection that sent
// it, connections numbered in the order of their first statement after the first Mark ("2:
// COMMIT"): a test sees which statements went on which connection. rumbench's size query is left out.
func MariaDBStatements(t testing.TB, path string) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	cur := ""
	conns := map[string]int{}
	for _, line := range strings.Split(string(data), "\n") {
		m := myLogLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		stmt := m[3]
		if mk := marker.FindStringSubmatch(stmt); mk != nil {
			cur = mk[1]
			continue
		}
		if cur == "" || strings.Contains(stmt, "information_schema.tables") {
			continue
		}
		n, ok := conns[m[1]]
		if !ok {
			n = len(conns) + 1
			conns[m[1]] = n
		}
		got[cur] = append(got[cur], strconv.Itoa(n)+": "+NormalizeMySQL(stmt))
	}
	return got
}

// Mark returns the statement that marks the start of name's statements in the log.
func Mark(name string) string { return "SELECT 'rumbench-test:" + name + "'" }

var (
	logStatement  = regexp.MustCompile(`LOG:  (?:statement|execute [^:]*): (.*)$`)
	pgPlaceholder = regexp.MustCompile(`\$[0-9]+`)
	marker        = regexp.MustCompile(`^SELECT 'rumbench-test:(.*)'$`)
	// pgx's simple protocol sends values inline as ' 'value' ' (unprepared statements).
	inlineValue = regexp.MustCompile(` '(?:[^']|'')*' ?`)
)

// LoggedStatements reads the statements the PostgreSQL of LoggingPostgres logged in dir, grouped
// by the Mark that precedes them, placeholders and inline values shown as ?. rumbench's size
// query and database/sql's connection checks are left out.
func LoggedStatements(t testing.TB, dir string) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	cur := ""
	for _, line := range strings.Split(string(data), "\n") {
		m := logStatement.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		stmt := pgPlaceholder.ReplaceAllString(m[1], "?")
		if mk := marker.FindStringSubmatch(stmt); mk != nil {
			cur = mk[1]
			continue
		}
		if cur == "" || stmt == "SELECT pg_database_size(current_database())" || stmt == "-- ping" {
			continue
		}
		got[cur] = append(got[cur], inlineValue.ReplaceAllString(stmt, "?"))
	}
	return got
}

// onlyMeasurement says whether a step is degraded only for its figures: the sampler's ticks
// came late (a loaded test machine starving it of CPU) or the tests' tiny scale gave a step
// fewer operations than per-op figures need (runner.MinOps). The workload worked.
func onlyMeasurement(res results.Step) bool {
	if res.Status != results.StatusDegraded {
		return false
	}
	for _, why := range res.Degraded {
		if !strings.Contains(why, "ticks were late") && !strings.Contains(why, "measured, fewer than "+strconv.Itoa(runner.MinOps)+":") {
			return false
		}
	}
	return true
}

// CacheCase is one expectation of a workload's cache rule (workload.CachePlanner): built with
// Args on Profile, the workload gives Engine MiB of cache under a bound of Max bytes (0: none),
// or no rule when OK is false, in Regime (workload.RegimeCached when empty).
type CacheCase struct {
	Profile, Engine string
	Args            []string
	Max, MiB        int64
	OK              bool
	Regime          string
}

// CheckCaches builds the workload of newDef for each case and checks its cache rule.
func CheckCaches(t *testing.T, newDef func() workload.Definition, cases []CacheCase) {
	t.Helper()
	for _, c := range cases {
		d := newDef()
		if err := d.Flags().Parse(c.Args); err != nil {
			t.Fatal(err)
		}
		w, err := d.Build(workload.Shared{Profile: c.Profile, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		p, ok := w.(workload.CachePlanner)
		if !ok {
			t.Fatalf("%s: the workload sizes no caches", w.Name())
		}
		regime := c.Regime
		if regime == "" {
			regime = workload.RegimeCached
		}
		if mb, ok := p.CacheMB(c.Engine, c.Max); mb != c.MiB || ok != c.OK || p.Regime() != regime {
			t.Errorf("%s %s %v (max %d): %d MiB %v %s, want %d %v %s", c.Profile, c.Engine, c.Args, c.Max, mb, ok, p.Regime(), c.MiB, c.OK, regime)
		}
	}
}
