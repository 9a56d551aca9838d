package sysbench

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/sysstat"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload/worktest"
)

// in returns an IN list of n placeholders as the statements write it.
func in(n int) string { return "(" + strings.TrimSuffix(strings.Repeat("?, ", n), ", ") + ")" }

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func seq(parts ...any) []string {
	var out []string
	for _, p := range parts {
		switch v := p.(type) {
		case string:
			out = append(out, v)
		case []string:
			out = append(out, v...)
		}
	}
	return out
}

// referenceSQL is the reference table of statements per event (sysbench-and-peers.md §1.3), for
// one table, as PostgreSQL receives them (placeholders shown as ?).
func referenceSQL() map[string][]string {
	const (
		point    = "SELECT c FROM sbtest1 WHERE id=?"
		simple   = "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?"
		sum      = "SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?"
		order    = "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c"
		distinct = "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c"
		updIdx   = "UPDATE sbtest1 SET k=k+1 WHERE id=?"
		updNon   = "UPDATE sbtest1 SET c=? WHERE id=?"
		del      = "DELETE FROM sbtest1 WHERE id=?"
		ins      = "INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)"
	)
	points := repeat(point, 10)
	return map[string][]string{
		"point-query":              {point},
		"random-points_range=10":   {"SELECT c FROM sbtest1 WHERE id IN " + in(10)},
		"random-points_range=100":  {"SELECT c FROM sbtest1 WHERE id IN " + in(100)},
		"random-points_range=1000": {"SELECT c FROM sbtest1 WHERE id IN " + in(1000)},
		"hot-points":               {"SELECT c FROM sbtest1 WHERE id IN " + in(100)},
		"points-covered-pk":        {"SELECT id FROM sbtest1 WHERE id IN " + in(100)},
		"points-notcovered-pk":     {"SELECT id, c FROM sbtest1 WHERE id IN " + in(100)},
		"points-covered-si":        {"SELECT k FROM sbtest1 WHERE k IN " + in(100)},
		"points-notcovered-si":     {"SELECT k, c FROM sbtest1 WHERE k IN " + in(100)},
		"range-covered-pk":         {"SELECT id FROM sbtest1 WHERE id BETWEEN ? AND ?"},
		"range-notcovered-pk":      {"SELECT id, c FROM sbtest1 WHERE id BETWEEN ? AND ?"},
		"range-covered-si":         {"SELECT k FROM sbtest1 WHERE k BETWEEN ? AND ?"},
		"range-notcovered-si":      {"SELECT k, c FROM sbtest1 WHERE k BETWEEN ? AND ?"},
		"scan":                     {"SELECT * FROM sbtest1 WHERE LENGTH(c) < 0"},
		"read-only_range=10":       seq("BEGIN", points, simple, sum, order, distinct, "COMMIT"),
		"read-only_range=100":      seq("BEGIN", points, simple, sum, order, distinct, "COMMIT"),
		"read-only_range=10000":    seq("BEGIN", points, simple, sum, order, distinct, "COMMIT"),
		"read-only-simple":         seq("BEGIN", points, simple, "COMMIT"),
		"read-only-sum":            seq("BEGIN", points, sum, "COMMIT"),
		"read-only-order":          seq("BEGIN", points, order, "COMMIT"),
		"read-only-distinct":       seq("BEGIN", points, distinct, "COMMIT"),
		"read-only-count":          {"SELECT count(c) FROM sbtest1 WHERE id BETWEEN ? AND ?"},
		"update-index":             {updIdx},
		"update-nonindex":          {updNon},
		"update-one":               {updNon},
		"update-zipf":              {updNon},
		"update-inlist":            {"UPDATE sbtest1 SET c=? WHERE id IN " + in(100)},
		"delete":                   {del},
		"insert":                   {"INSERT INTO sbtest1 (k, c, pad) VALUES (?, ?, ?)"}, // PostgreSQL: the key is left out
		"write-only":               seq("BEGIN", updIdx, updNon, del, ins, "COMMIT"),
		"read-write_range=10":      seq("BEGIN", points, simple, sum, order, distinct, updIdx, updNon, del, ins, "COMMIT"),
		"read-write_range=100":     seq("BEGIN", points, simple, sum, order, distinct, updIdx, updNon, del, ins, "COMMIT"),
	}
}

// TestReferenceSQL runs one event of each of the 32 tests on a private PostgreSQL that logs every
// statement it receives, and compares the logged statements of each test with the reference
// table, in order, prepared and unprepared.
func TestReferenceSQL(t *testing.T) {
	if _, ok := engine.Lookup("postgres"); !ok {
		t.Skip("no postgres engine")
	}
	for _, prepared := range []bool{true, false} {
		name := "prepared"
		if !prepared {
			name = "unprepared"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := captureStatements(t, prepared)
			ref := referenceSQL()
			if len(ref) != 32 {
				t.Fatalf("reference table has %d tests", len(ref))
			}
			for _, test := range Tests(false) {
				want := ref[test.Name]
				if strings.Join(got[test.Name], "\n") != strings.Join(want, "\n") {
					t.Errorf("%s: statements\n%s\nwant\n%s", test.Name, strings.Join(got[test.Name], "\n"), strings.Join(want, "\n"))
				}
			}
		})
	}
}

// captureStatements runs one event per test and returns the statements PostgreSQL logged for
// each test.
func captureStatements(t *testing.T, prepared bool) map[string][]string {
	ctx := context.Background()
	eng, dir := worktest.LoggingPostgres(t)
	cfg := Config{Tables: 1, TableSize: 300, Threads: 1, ReadSecs: 30, WriteSecs: 30, Events: 1,
		RandType: "uniform", Prepared: prepared}
	w, err := New(cfg, 5)
	if err != nil {
		t.Fatal(err)
	}
	run, err := w.Open(ctx, eng)
	if err != nil {
		t.Fatal(err)
	}
	sampler, err := sysstat.NewSampler(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer sampler.Close()
	db := eng.(interface{ DB() *sql.DB }).DB()
	for _, step := range w.Steps() {
		if _, err := run.Prepare(ctx, step); err != nil {
			t.Fatal(err)
		}
		// The marker follows the flush's statements: what the log shows after it is the test's.
		if _, err := db.ExecContext(ctx, worktest.Mark(step)); err != nil {
			t.Fatal(err)
		}
		st, err := run.Step(ctx, step)
		if err != nil {
			t.Fatal(err)
		}
		// The engine is wrapped so that the runner does not sample the server's counters (their
		// queries would be logged between the test's statements).
		if _, err := runner.Run(ctx, runner.Setup{Label: "postgres", Engine: struct{ table.Engine }{eng}, Sampler: sampler, Tick: 100 * time.Millisecond}, st); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if _, err := db.ExecContext(ctx, worktest.Mark("")); err != nil { // end of the test
			t.Fatal(err)
		}
	}
	run.Close()
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	return worktest.LoggedStatements(t, dir)
}
