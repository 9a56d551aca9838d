package cli

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/server"
)

// Prepare once, run many, on a PostgreSQL server the user runs (--dsn): a second plain run is
// refused in one line naming the way out, prepare --fresh drops rumbench's tables and only
// those, run --reuse works twice in a row, and data prepared with other settings is refused.
func TestPrepareReuseDSN(t *testing.T) {
	_, data, d := dirs(t)
	srv, err := server.Start(context.Background(), server.Config{Kind: server.Postgres, Dir: filepath.Join(data, "srv")})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(context.Background())
	db, err := sql.Open("pgx", srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE keepme (id int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	sb := func(cmd string, extra ...string) transcript {
		args := append([]string{cmd, "--workload", "sysbench", "--engine", "postgres", "--dsn", srv.DSN(), "--tables", "2",
			"--table-size", "3000", "--tests", "point-query,update-index", "--read-secs", "1", "--write-secs", "1", "--quiet"}, d...)
		return run(t, nil, append(args, extra...)...)
	}
	if tr := sb("run"); tr.code != ExitOK {
		t.Fatalf("first run: exit %d %s", tr.code, tr.stderr)
	}
	tr := sb("run")
	if tr.code != ExitUsage || !strings.Contains(tr.stderr, "rumbench: postgres: the server already holds table sbtest1, from an earlier run: run on it with --reuse (after rumbench prepare), or drop rumbench's tables first with --fresh") {
		t.Fatalf("second plain run: exit %d, stderr %q", tr.code, tr.stderr)
	}
	if tr := sb("prepare", "--fresh"); tr.code != ExitOK || !strings.Contains(tr.stdout, "invariants postgres: ok: 6000 rows") {
		t.Fatalf("prepare --fresh: exit %d %s%s", tr.code, tr.stdout, tr.stderr)
	}
	for i := 1; i <= 2; i++ {
		var opt []string
		if i == 2 {
			// Another client path on the same data: a client option, not a data setting.
			opt = []string{"--engine-opt", "io=netpoll"}
		}
		tr := sb("run", append([]string{"--reuse"}, opt...)...)
		if tr.code != ExitOK {
			t.Fatalf("run --reuse %d: exit %d %s", i, tr.code, tr.stderr)
		}
		if strings.Contains(tr.stdout, "== load") || !strings.Contains(tr.stdout, "point-query") || !strings.Contains(tr.stdout, "invariants postgres: ok: 6000 rows, 6000 index entries") {
			t.Errorf("run --reuse %d did not skip the load or lost rows:\n%s", i, tr.stdout)
		}
	}
	// Repetitions on a --dsn server: each loads afresh, dropping the previous one's tables.
	if tr := sb("run", "--fresh", "--repeat", "2", "--tests", "point-query"); tr.code != ExitOK || strings.Count(tr.stdout, "invariants postgres: ok") != 1 {
		t.Fatalf("--repeat 2 on --dsn: exit %d %s%s", tr.code, tr.stdout, tr.stderr)
	}
	if tr := sb("prepare", "--fresh"); tr.code != ExitOK {
		t.Fatalf("prepare --fresh again: exit %d %s", tr.code, tr.stderr)
	}
	tr = sb("run", "--reuse", "--table-size", "4000")
	if tr.code != ExitUsage || !strings.Contains(tr.stderr, "--reuse: the data was prepared by run ") || !strings.Contains(tr.stderr, "with table_size = 3000, not 4000") {
		t.Errorf("reuse with another size: exit %d, stderr %q", tr.code, tr.stderr)
	}
	var tables []string
	rows, err := db.Query("SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		rows.Scan(&n)
		tables = append(tables, n)
	}
	if got := fmt.Sprint(tables); got != "[keepme rumbench_prepared sbtest1 sbtest2]" {
		t.Errorf("tables after the runs: %s", got)
	}
}

// Prepare and reuse in an embedded engine's data directory; refusals where nothing can be
// reused.
func TestPrepareReuseEmbedded(t *testing.T) {
	_, _, d := dirs(t)
	ins := func(cmd string, extra ...string) transcript {
		args := append([]string{cmd, "--engine", "pebble,sqlite", "--rows", "3000", "--writes", "1000", "--query-secs", "1", "--quiet"}, d...)
		return run(t, nil, append(args, extra...)...)
	}
	if tr := ins("prepare"); tr.code != ExitOK || strings.Contains(tr.stdout, "== l.i1") || !strings.Contains(tr.stdout, "== l.x") {
		t.Fatalf("prepare: exit %d %s%s", tr.code, tr.stdout, tr.stderr)
	}
	for i := 1; i <= 2; i++ {
		tr := ins("run", "--reuse", "--steps", "l.i1,qp100", "--delete-per-insert")
		if tr.code != ExitOK || strings.Contains(tr.stdout, "== l.i0") || !strings.Contains(tr.stdout, "invariants sqlite: ok: 3100 rows") {
			t.Fatalf("run --reuse %d: exit %d %s%s", i, tr.code, tr.stdout, tr.stderr)
		}
	}
	// Without deletes the table grows; the next reuse finds the new rows.
	if tr := ins("run", "--reuse", "--steps", "l.i2"); tr.code != ExitOK || !strings.Contains(tr.stdout, "invariants pebble: ok: 3300 rows") {
		t.Fatalf("run --reuse l.i2: exit %d %s%s", tr.code, tr.stdout, tr.stderr)
	}
	// qp100 inserts 100 rows a second in the background.
	if tr := ins("run", "--reuse", "--steps", "qp100"); tr.code != ExitOK || !strings.Contains(tr.stdout, "invariants pebble: ok: 3400 rows") {
		t.Fatalf("run --reuse after growth: exit %d %s%s", tr.code, tr.stdout, tr.stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--reuse", "--engine", "bbolt"}, "rumbench: --reuse: data dir "},
		{[]string{"prepare", "--engine", "null"}, "rumbench: prepare: engine null keeps no tables between runs"},
		{[]string{"prepare", "--engine", "postgres"}, "rumbench: prepare: a server rumbench starts is private to one run: prepare and reuse a server you run, with --dsn"},
		{[]string{"run", "--reuse", "--fresh", "--engine", "pebble"}, "rumbench: --fresh drops or empties the data that --reuse would use: give one of them"},
		{[]string{"run", "--reuse", "--repeat", "2", "--engine", "pebble"}, "rumbench: --repeat loads each repetition afresh: it does not go with prepare or --reuse"},
		{[]string{"prepare", "--steps", "l.i1", "--engine", "pebble"}, "rumbench: prepare: no load step selected: the load steps of insert are l.i0,l.x"},
		{[]string{"run", "--reuse", "--steps", "l.i0,l.x", "--engine", "pebble"}, "rumbench: --reuse skips the load steps (l.i0, l.x): no other step is selected"},
	} {
		tr := run(t, nil, append(c.args, append([]string{"--quiet"}, d...)...)...)
		if tr.code != ExitUsage || !strings.HasPrefix(tr.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, tr.code, tr.stderr, c.want)
		}
	}
}

// run --reuse takes the shape of the data it reuses: the prepared table size and profile
// (sysbench's flags), YCSB's record count and field count (its properties), each unless the
// command line gives it otherwise, which is refused in one line before anything starts.
func TestReuseTakesThePreparedShape(t *testing.T) {
	out, _, d := dirs(t)
	sb := func(cmd string, extra ...string) transcript {
		args := append([]string{cmd, "--workload", "sysbench", "--engine", "pebble", "--read-secs", "1", "--write-secs", "1"}, d...)
		return run(t, nil, append(args, extra...)...)
	}
	if tr := sb("prepare", "--table-size", "2000", "--profile", "small", "--quiet"); tr.code != ExitOK {
		t.Fatalf("prepare: exit %d %s", tr.code, tr.stderr)
	}
	runs := func() int { e, _ := os.ReadDir(out); return len(e) }
	tr := sb("run", "--reuse", "--tests", "point-query")
	if tr.code != ExitOK || !strings.Contains(tr.stdout, "invariants pebble: ok: 2000 rows") {
		t.Fatalf("run --reuse: exit %d %s%s", tr.code, tr.stdout, tr.stderr)
	}
	if !strings.Contains(tr.stderr, "prepared them: --profile small --table-size 2000\n") ||
		!strings.Contains(tr.stderr, "rumbench: sysbench on pebble, profile small") || !strings.Contains(tr.stderr, "table_size=2000") {
		t.Errorf("the banner does not say the settings taken from the preparation:\n%s", tr.stderr)
	}
	m, err := results.ReadManifest(filepath.Join(out, "20261121T120000Z-sysbench-2"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Config["profile"] != "small" || m.WorkloadConfig["table_size"] != float64(2000) {
		t.Errorf("run.json: profile %v, table_size %v", m.Config["profile"], m.WorkloadConfig["table_size"])
	}
	before := runs()
	tr = sb("run", "--reuse", "--tests", "point-query", "--table-size", "3000")
	if tr.code != ExitUsage || !regexp.MustCompile(`^rumbench: pebble: --reuse: the data was prepared by run \S+ with table_size = 2000, not 3000: leave out --table-size \(the data's is taken\), or prepare again\n$`).MatchString(tr.stderr) {
		t.Errorf("--table-size 3000 on data of 2000: exit %d, stderr %q", tr.code, tr.stderr)
	}
	if runs() != before || tr.stdout != "" {
		t.Errorf("a refused --reuse left a run directory or printed %q", tr.stdout)
	}

	// YCSB's data settings are properties: given with -p, taken as -p.
	_, _, d2 := dirs(t)
	yc := func(cmd string, extra ...string) transcript {
		args := append([]string{cmd, "--workload", "ycsb", "--engine", "pebble", "--run-secs", "1", "--quiet"}, d2...)
		return run(t, nil, append(args, extra...)...)
	}
	if tr := yc("prepare", "-p", "recordcount=1500", "-p", "fieldcount=3"); tr.code != ExitOK {
		t.Fatalf("prepare ycsb: exit %d %s", tr.code, tr.stderr)
	}
	if tr := yc("run", "--reuse"); tr.code != ExitOK || !strings.Contains(tr.stdout, "invariants pebble: ok: 1500 records") {
		t.Errorf("run --reuse ycsb: exit %d %s%s", tr.code, tr.stdout, tr.stderr)
	}
	tr = yc("run", "--reuse", "-p", "fieldcount=4")
	if tr.code != ExitUsage || !strings.Contains(tr.stderr, "with fieldcount = 3, not 4: leave out --property fieldcount=... (the data's is taken), or prepare again") {
		t.Errorf("-p fieldcount=4 on data of 3 fields: exit %d, stderr %q", tr.code, tr.stderr)
	}
}
