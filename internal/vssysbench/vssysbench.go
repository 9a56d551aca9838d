// Package vssysbench runs sysbench and rumbench side by side against one private server per
// engine and compares what each client costs: CPU per statement, measured from outside the same
// way for both (utime+stime of the client process from /proc/<pid>/stat, over its measured
// phase: the load excluded), and QPS.
//
// Each client has a table of its own, loaded once per server and kept across the repeats:
// sysbench's in the database sbtest (`sysbench prepare`), each rumbench variant's in a database
// rb_v1, rb_v2... (`rumbench prepare`, then `rumbench run --reuse`, which neither loads nor
// flushes before its first test). So every client's update-index meets a table its own earlier
// runs aged, and none starts right after a checkpoint (after which PostgreSQL writes a full page
// image at the first change of every page: 1.8 times the WAL per statement on this table). Each
// repeat runs, for each thread count, the tests with each client in turn, in the same order
// (update-index, read-only, point-query: rumbench's reference order), so that the clients meet
// the server in the same state and the same host load; the ratios are taken within a repeat.
//
// With Config.InsertRows, each repeat also loads the insert benchmark's table (l.i0) on each
// server with rumbench and with iiload (tools/pyload/iiload.py), a Python client of the insert
// benchmark made as iibench.py is, and compares their client CPU per loaded row.
package vssysbench

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	_ "github.com/go-sql-driver/mysql" // database/sql driver "mysql": creating the database sbtest
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/server"
)

// Test is one test run by both clients: rumbench's test name and sysbench's Lua script and
// options.
type Test struct {
	Name    string   // rumbench's --tests name
	Script  string   // sysbench's bundled Lua script
	Options []string // sysbench's options for it
	Short   string   // the name printed
}

// Tests are the tests compared: point-query, read-only (range 100) and update-index.
var Tests = []Test{
	{Name: "update-index", Script: "oltp_update_index", Short: "update-index"},
	{Name: "read-only_range=100", Script: "oltp_read_only", Options: []string{"--range-size=100"}, Short: "read-only"},
	{Name: "point-query", Script: "oltp_point_select", Short: "point-query"},
}

// Config is a comparison.
type Config struct {
	// Engines are rumbench engine names: postgres, mysql.
	Engines []string
	// Threads are the client thread counts, each run by both clients.
	Threads []int
	// Rows is the table size; Secs the seconds of each test; Repeats the repeats.
	Rows    int64
	Secs    float64
	Repeats int
	// Sysbench is sysbench's executable.
	Sysbench string
	// Variants are the rumbench configurations compared with sysbench, each run in every repeat.
	Variants []Variant
	// Dir holds the servers' instances and rumbench's results; it is removed at the end.
	Dir string
	// InsertRows, when above 0, also loads the insert benchmark's table (l.i0) of that many rows
	// in every repeat on each engine's server, with each variant (after a run of it on the null
	// engine) and with the Python loader, and reports their client CPU per row.
	InsertRows int64
	// Python is the interpreter of the Python loader, PyLoad its script (tools/pyload/iiload.py).
	Python, PyLoad string
}

// InsertRowsPerCommit is the rows per statement (and commit) of both clients' l.i0.
const InsertRowsPerCommit = 100

// pyTable is the Python loader's table, beside rumbench's pi1 in the database rumbench.
const pyTable = "pyload_pi1"

// Variant is one rumbench configuration: a name for the tables, its executable and extra flags
// of every run (e.g. --engine-opt io=netpoll).
type Variant struct {
	Name string
	Bin  string
	Args []string
}

// Result is one client's figures for one test run.
type Result struct {
	Statements int64
	Secs       float64 // the measured seconds
	CPUSecs    float64 // the client's CPU over its measured phase
	OwnCPUUs   float64 // rumbench's own ccpu_us/op (0 for sysbench)
	// WALSyncs and WALSyncUs are PostgreSQL's WAL syncs over the run and the µs spent in them
	// (pg_stat_wal with track_wal_io_timing on); 0 where not measured.
	WALSyncs, WALSyncUs int64
}

// WALUsPerSync is the WAL's fsync latency during the run, µs (0 when not measured).
func (r Result) WALUsPerSync() float64 {
	if r.WALSyncs <= 0 {
		return 0
	}
	return float64(r.WALSyncUs) / float64(r.WALSyncs)
}

// UsPerStatement is the client CPU per statement, µs.
func (r Result) UsPerStatement() float64 { return r.CPUSecs * 1e6 / float64(max(r.Statements, 1)) }

// QPS is statements per second.
func (r Result) QPS() float64 { return float64(r.Statements) / math.Max(r.Secs, 1e-9) }

// key names one comparison cell.
type key struct {
	engine, test, variant string
	threads               int
}

// Run runs the comparison and prints its tables to w. Every server it starts is stopped before
// it returns, also on error and cancellation.
func Run(ctx context.Context, cfg Config, w io.Writer) error {
	if cfg.InsertRows > 0 {
		if _, err := os.Stat(cfg.PyLoad); err != nil {
			return fmt.Errorf("the Python loader: %w", err)
		}
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return err
	}
	sb := map[key][]Result{}
	rb := map[key][]Result{}
	ins := map[key][]Result{}
	for _, eng := range cfg.Engines {
		if err := runEngine(ctx, cfg, eng, w, sb, rb, ins); err != nil {
			return err
		}
	}
	printTables(w, cfg, sb, rb)
	printWALTable(w, cfg, sb, rb)
	if cfg.InsertRows > 0 {
		printInsertTable(w, cfg, ins)
	}
	return nil
}

// runEngine starts the engine's server, prepares sysbench's table and runs every repeat.
func runEngine(ctx context.Context, cfg Config, eng string, w io.Writer, sb, rb, ins map[key][]Result) (err error) {
	kind, settings, plugins := serverSettings(eng)
	srv, err := server.Start(ctx, server.Config{Kind: kind, Dir: filepath.Join(cfg.Dir, eng+"-server"), Settings: settings, Plugins: plugins})
	if err != nil {
		return err
	}
	defer func() {
		if serr := srv.Stop(context.WithoutCancel(ctx)); serr != nil && err == nil {
			err = serr
		}
	}()
	fmt.Fprintf(w, "== %s: %s, port %d\n", eng, srv.Version(), srv.Port())
	if err := admin(ctx, srv, "CREATE DATABASE sbtest"); err != nil {
		return err
	}
	sbArgs := sysbenchConn(srv)
	prep := append(append([]string{"oltp_common"}, sbArgs...), "--tables=1", "--table-size="+strconv.FormatInt(cfg.Rows, 10), "prepare")
	if _, err := runProcess(ctx, time.Second, nil, cfg.Sysbench, prep...); err != nil {
		return fmt.Errorf("sysbench prepare: %w", err)
	}
	for i, v := range cfg.Variants {
		if err := prepareRumbench(ctx, cfg, v, i, srv, eng); err != nil {
			return err
		}
	}
	for rep := 1; rep <= cfg.Repeats; rep++ {
		for _, th := range cfg.Threads {
			// The clients take turns, in an order reversed every other repeat, so that a drift of
			// the host's load shows in the spread rather than in one client's figures.
			clients := append([]string{""}, variantNames(cfg)...)
			if rep%2 == 0 {
				slices.Reverse(clients)
			}
			for _, c := range clients {
				if c == "" {
					for _, t := range Tests {
						r, err := runSysbench(ctx, cfg, srv, sbArgs, t, th)
						if err != nil {
							return err
						}
						k := key{engine: eng, test: t.Short, threads: th}
						sb[k] = append(sb[k], r)
					}
					continue
				}
				vi := slices.Index(variantNames(cfg), c)
				v := cfg.Variants[vi]
				rs, err := runRumbench(ctx, cfg, v, variantDSN(srv, vi), eng, th, rep)
				if err != nil {
					return err
				}
				for _, t := range Tests {
					k := key{eng, t.Short, v.Name, th}
					rb[k] = append(rb[k], rs[t.Name])
				}
			}
			for _, t := range Tests {
				s := sb[key{engine: eng, test: t.Short, threads: th}]
				last := s[len(s)-1]
				fmt.Fprintf(w, "%s %-12s threads %d repeat %d: sysbench %.1f µs/stmt %.0f qps", eng, t.Short, th, rep, last.UsPerStatement(), last.QPS())
				for _, v := range cfg.Variants {
					rr := rb[key{eng, t.Short, v.Name, th}]
					r := rr[len(rr)-1]
					fmt.Fprintf(w, "; %s %.1f µs/stmt (own %.1f) %.0f qps", v.Name, r.UsPerStatement(), r.OwnCPUUs, r.QPS())
				}
				if walMeasured(last) {
					fmt.Fprintf(w, "; WAL µs/sync: sysbench %.0f", last.WALUsPerSync())
					for _, v := range cfg.Variants {
						rr := rb[key{eng, t.Short, v.Name, th}]
						if r := rr[len(rr)-1]; walMeasured(r) {
							fmt.Fprintf(w, ", %s %.0f", v.Name, r.WALUsPerSync())
						} else {
							fmt.Fprintf(w, ", %s -", v.Name) // a build without wal_sync_time_us
						}
					}
				}
				fmt.Fprintln(w)
			}
		}
		if cfg.InsertRows > 0 {
			if err := insertRepeat(ctx, cfg, srv, eng, rep, w, ins); err != nil {
				return err
			}
		}
	}
	return nil
}

func variantNames(cfg Config) []string {
	var out []string
	for _, v := range cfg.Variants {
		out = append(out, v.Name)
	}
	return out
}

// serverSettings are the settings rumbench's engines give their managed servers (cache 64 MiB,
// sync on commit, binlog off).
func serverSettings(eng string) (server.Kind, []server.Setting, []string) {
	if eng == "postgres" {
		// track_wal_io_timing: the WAL's fsync latency in each client's window (WALUsPerSync).
		return server.Postgres, []server.Setting{{Name: "shared_buffers", Value: "64MB"}, {Name: "synchronous_commit", Value: "on"},
			{Name: "max_parallel_maintenance_workers", Value: "0"}, {Name: "track_wal_io_timing", Value: "on"}}, nil
	}
	return server.MariaDB, []server.Setting{{Name: "skip-log-bin"}, {Name: "innodb_flush_log_at_trx_commit", Value: "1"},
		{Name: "innodb_buffer_pool_size", Value: "67108864"}}, nil
}

// admin runs q on the server's database rumbench.
func admin(ctx context.Context, srv *server.Server, q string) error {
	db, err := serverDB(srv)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	return nil
}

// serverDB opens srv's database rumbench.
func serverDB(srv *server.Server) (*sql.DB, error) {
	driver := "pgx"
	if srv.Kind() == server.MariaDB {
		driver = "mysql"
	}
	return sql.Open(driver, srv.DSN())
}

// walSyncs reads PostgreSQL's cumulative WAL syncs and the µs spent in them (0, 0 on MariaDB).
// Backends publish their counters at most once a second and as they exit, which may follow
// their client's exit: after a run, settle waits (up to 2 s) for two readings 100 ms apart to
// agree.
func walSyncs(ctx context.Context, srv *server.Server, settle bool) (syncs, us int64, err error) {
	if srv.Kind() != server.Postgres {
		return 0, 0, nil
	}
	db, err := serverDB(srv)
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()
	read := func() (int64, int64, error) {
		var s, u int64
		err := db.QueryRowContext(ctx, "SELECT wal_sync, (wal_sync_time * 1000)::bigint FROM pg_stat_wal").Scan(&s, &u)
		return s, u, err
	}
	if syncs, us, err = read(); err != nil || !settle {
		return syncs, us, err
	}
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		s, u, err := read()
		if err != nil || s == syncs {
			return syncs, us, err
		}
		syncs, us = s, u
	}
	return syncs, us, nil
}

// sysbenchConn returns sysbench's connection options for srv, database sbtest.
func sysbenchConn(srv *server.Server) []string {
	port := strconv.Itoa(srv.Port())
	if srv.Kind() == server.Postgres {
		return []string{"--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port=" + port, "--pgsql-user=postgres",
			"--pgsql-password=" + srv.Password(), "--pgsql-db=sbtest"}
	}
	return []string{"--db-driver=mysql", "--mysql-host=127.0.0.1", "--mysql-port=" + port, "--mysql-user=rumbench",
		"--mysql-password=" + srv.Password(), "--mysql-db=sbtest"}
}

var sbQueries = regexp.MustCompile(`queries:\s+(\d+)\s+\(([0-9.]+) per sec`)
var sbTime = regexp.MustCompile(`total time:\s+([0-9.]+)s`)

// runSysbench runs one test; its CPU is counted from the line "Threads started!" (after the
// connections and the statements' preparation) to its exit, PostgreSQL's WAL syncs from its start
// until its backends have published their counters.
func runSysbench(ctx context.Context, cfg Config, srv *server.Server, conn []string, t Test, threads int) (Result, error) {
	syncs0, us0, err := walSyncs(ctx, srv, false)
	if err != nil {
		return Result{}, err
	}
	args := append(append([]string{t.Script}, conn...), t.Options...)
	args = append(args, "--tables=1", "--table-size="+strconv.FormatInt(cfg.Rows, 10), "--threads="+strconv.Itoa(threads),
		"--time="+strconv.FormatFloat(cfg.Secs, 'f', -1, 64), "--events=0", "--rand-type=uniform", "run")
	const started = "Threads started!"
	p, err := runProcess(ctx, 100*time.Millisecond, []string{started}, cfg.Sysbench, args...)
	if err != nil {
		return Result{}, err
	}
	syncs1, us1, err := walSyncs(ctx, srv, true)
	if err != nil {
		return Result{}, err
	}
	out := p.Output()
	m, mt := sbQueries.FindStringSubmatch(out), sbTime.FindStringSubmatch(out)
	c0, ok := p.marks[started]
	if m == nil || mt == nil || !ok {
		return Result{}, fmt.Errorf("sysbench %s: no query count or start line in its output:\n%s", t.Script, tail(out, 30))
	}
	os.WriteFile(filepath.Join(cfg.Dir, fmt.Sprintf("sysbench-%s-%d.out", t.Short, threads)), []byte(out), 0o644)
	n, _ := strconv.ParseInt(m[1], 10, 64)
	secs, _ := strconv.ParseFloat(mt[1], 64)
	return Result{Statements: n, Secs: secs, CPUSecs: p.total() - c0, WALSyncs: syncs1 - syncs0, WALSyncUs: us1 - us0}, nil
}

// variantDSN is srv's DSN on the database of the i-th variant's table (rb_v1, rb_v2...).
func variantDSN(srv *server.Server, i int) string {
	return strings.Replace(srv.DSN(), "/rumbench", fmt.Sprintf("/rb_v%d", i+1), 1)
}

// prepareRumbench creates the i-th variant's database and loads its table with its own
// executable (rumbench prepare, its preparation record included).
func prepareRumbench(ctx context.Context, cfg Config, v Variant, i int, srv *server.Server, eng string) error {
	if err := admin(ctx, srv, fmt.Sprintf("CREATE DATABASE rb_v%d", i+1)); err != nil {
		return err
	}
	args := append([]string{"prepare", "--workload", "sysbench", "--engine", eng, "--dsn", variantDSN(srv, i),
		"--table-size", strconv.FormatInt(cfg.Rows, 10), "--quiet", "--store", "none",
		"--out", filepath.Join(cfg.Dir, fmt.Sprintf("results-%s-%s-prepare", v.Name, eng)),
		"--data-dir", filepath.Join(cfg.Dir, "rumbench-data")}, v.Args...)
	if _, err := runProcess(ctx, time.Second, nil, v.Bin, args...); err != nil {
		return fmt.Errorf("%s prepare: %w", v.Name, err)
	}
	return nil
}

// runRumbench runs every test in one rumbench run on the table prepareRumbench loaded (at dsn),
// and returns each test's figures: its CPU over the test's measured window.
func runRumbench(ctx context.Context, cfg Config, v Variant, dsn, eng string, threads, rep int) (map[string]Result, error) {
	out := filepath.Join(cfg.Dir, fmt.Sprintf("results-%s-%s-%d-%d", v.Name, eng, threads, rep))
	var names []string
	for _, t := range Tests {
		names = append(names, t.Name)
	}
	secs := strconv.FormatFloat(cfg.Secs, 'f', -1, 64)
	args := append([]string{"run", "--workload", "sysbench", "--engine", eng, "--dsn", dsn, "--tests", strings.Join(names, ","),
		"--threads", strconv.Itoa(threads), "--table-size", strconv.FormatInt(cfg.Rows, 10), "--read-secs", secs, "--write-secs", secs,
		"--warmup-secs", "0", "--cleanup-wait-secs", "0", "--quiet", "--store", "none", "--out", out,
		"--data-dir", filepath.Join(cfg.Dir, "rumbench-data"), "--reuse"}, v.Args...)
	p, err := runProcess(ctx, 50*time.Millisecond, nil, v.Bin, args...)
	if err != nil {
		return nil, err
	}
	steps, err := readSteps(out)
	if err != nil {
		return nil, err
	}
	res := map[string]Result{}
	for _, st := range steps {
		from := st.End.Add(-time.Duration(st.Secs * float64(time.Second)))
		res[st.Step] = Result{Statements: st.Ops, Secs: st.Secs, CPUSecs: p.window(from, st.End), OwnCPUUs: st.ClientCPUUsPerOp,
			WALSyncs: st.ServerCounters["wal_sync"], WALSyncUs: st.ServerCounters["wal_sync_time_us"]}
	}
	for _, t := range Tests {
		if _, ok := res[t.Name]; !ok {
			return nil, fmt.Errorf("rumbench: no result for %s in %s", t.Name, out)
		}
	}
	return res, nil
}

// readSteps reads the steps.json of the one run directory under out.
func readSteps(out string) ([]results.Step, error) {
	files, err := filepath.Glob(filepath.Join(out, "*", "steps.json"))
	if err != nil || len(files) != 1 {
		return nil, fmt.Errorf("rumbench: expected one steps.json under %s, found %d (%v)", out, len(files), err)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		return nil, err
	}
	var steps []results.Step
	if err := json.Unmarshal(data, &steps); err != nil {
		return nil, fmt.Errorf("%s: %w", files[0], err)
	}
	return steps, nil
}

// printTables prints, per engine, test and thread count, sysbench's and each variant's median
// figures and the ratios variant/sysbench of every repeat with their median and range.
func printTables(w io.Writer, cfg Config, sb, rb map[key][]Result) {
	fmt.Fprintf(w, "\nclient CPU µs per statement and QPS, medians of %d repeats; ratios rumbench/sysbench within each repeat: median [min-max]\n", cfg.Repeats)
	fmt.Fprintf(w, "%-9s %-13s %3s %-10s %9s %9s %18s %9s %9s %18s\n", "engine", "test", "thr", "rumbench", "sb_us", "rb_us", "cpu_ratio", "sb_qps", "rb_qps", "qps_ratio")
	for _, eng := range cfg.Engines {
		for _, t := range Tests {
			for _, th := range cfg.Threads {
				for _, v := range cfg.Variants {
					s, r := sb[key{engine: eng, test: t.Short, threads: th}], rb[key{eng, t.Short, v.Name, th}]
					n := min(len(s), len(r))
					if n == 0 {
						continue
					}
					var su, ru, sq, rq, cr, qr []float64
					for i := 0; i < n; i++ {
						su, ru = append(su, s[i].UsPerStatement()), append(ru, r[i].UsPerStatement())
						sq, rq = append(sq, s[i].QPS()), append(rq, r[i].QPS())
						cr, qr = append(cr, ru[i]/su[i]), append(qr, rq[i]/sq[i])
					}
					fmt.Fprintf(w, "%-9s %-13s %3d %-10s %9.1f %9.1f %18s %9.0f %9.0f %18s\n", eng, t.Short, th, v.Name, median(su), median(ru),
						spread(cr), median(sq), median(rq), spread(qr))
				}
			}
		}
	}
}

// walMeasured says whether r's run synced PostgreSQL's WAL enough for its fsync latency to mean
// something (a sync per 100 statements or more: the write tests), and timed the syncs (a
// rumbench build older than wal_sync_time_us does not report the time).
func walMeasured(r Result) bool {
	return r.WALSyncs > 0 && r.WALSyncUs > 0 && r.WALSyncs*100 >= r.Statements
}

// EqualSyncQPSRatio is the QPS ratio of rumbench (r) to sysbench (s) with the WAL's fsync
// latency of r's window brought to that of s's: where commits wait for the WAL's fsync, the
// statements a client gets through in a second are inversely proportional to it, and it is the
// device's (it varies from window to window by more than the clients differ), not the client's.
func EqualSyncQPSRatio(r, s Result) float64 {
	return r.QPS() / s.QPS() * r.WALUsPerSync() / s.WALUsPerSync()
}

// printWALTable prints, for the tests whose commits waited for PostgreSQL's WAL fsync, the
// fsync latency in each client's windows and the QPS ratio at equal fsync latency.
func printWALTable(w io.Writer, cfg Config, sb, rb map[key][]Result) {
	header := false
	for _, eng := range cfg.Engines {
		for _, t := range Tests {
			for _, th := range cfg.Threads {
				for _, v := range cfg.Variants {
					s, r := sb[key{engine: eng, test: t.Short, threads: th}], rb[key{eng, t.Short, v.Name, th}]
					var su, ru, eq []float64
					for i := 0; i < min(len(s), len(r)); i++ {
						if walMeasured(s[i]) && walMeasured(r[i]) {
							su, ru = append(su, s[i].WALUsPerSync()), append(ru, r[i].WALUsPerSync())
							eq = append(eq, EqualSyncQPSRatio(r[i], s[i]))
						}
					}
					if len(eq) == 0 {
						continue
					}
					if !header {
						fmt.Fprintf(w, "\nPostgreSQL WAL fsync latency in each client's windows (pg_stat_wal, track_wal_io_timing), µs, medians;\n"+
							"QPS ratio rumbench/sysbench at equal fsync latency (QPS ratio x rumbench's µs/sync / sysbench's) within each repeat: median [min-max]\n")
						fmt.Fprintf(w, "%-9s %-13s %3s %-10s %11s %11s %18s\n", "engine", "test", "thr", "rumbench", "sb_us/sync", "rb_us/sync", "qps_ratio_eq_sync")
						header = true
					}
					fmt.Fprintf(w, "%-9s %-13s %3d %-10s %11.0f %11.0f %18s\n", eng, t.Short, th, v.Name, median(su), median(ru), spread(eq))
				}
			}
		}
	}
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func spread(v []float64) string {
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return fmt.Sprintf("%.2f [%.2f-%.2f]", median(v), lo, hi)
}

// Keys of the insert comparison's results: the Python loader's (variant ""), each variant's on
// the server and on the null engine.
const (
	insServer = "l.i0"
	insNull   = "l.i0 null"
)

// insertRepeat runs one repeat of the insert comparison on srv: the Python loader and each
// variant (its null-engine run, then its run on srv) take turns, in an order reversed every other
// repeat. Each load starts without the other's table, and neither is left for the next tests.
func insertRepeat(ctx context.Context, cfg Config, srv *server.Server, eng string, rep int, w io.Writer, ins map[key][]Result) error {
	clients := append([]string{""}, variantNames(cfg)...)
	if rep%2 == 0 {
		slices.Reverse(clients)
	}
	for _, c := range clients {
		if err := dropInsertTables(ctx, srv); err != nil {
			return err
		}
		if c == "" {
			r, err := runPyLoad(ctx, cfg, srv, eng, rep)
			if err != nil {
				return err
			}
			k := key{engine: eng, test: insServer}
			ins[k] = append(ins[k], r)
			continue
		}
		v := cfg.Variants[slices.Index(variantNames(cfg), c)]
		null, err := runRumbenchInsert(ctx, cfg, v, "null", "", eng, rep)
		if err != nil {
			return err
		}
		r, err := runRumbenchInsert(ctx, cfg, v, eng, srv.DSN(), eng, rep)
		if err != nil {
			return err
		}
		kn, ks := key{engine: eng, test: insNull, variant: v.Name}, key{engine: eng, test: insServer, variant: v.Name}
		ins[kn], ins[ks] = append(ins[kn], null), append(ins[ks], r)
	}
	if err := dropInsertTables(ctx, srv); err != nil {
		return err
	}
	py := ins[key{engine: eng, test: insServer}]
	p := py[len(py)-1]
	fmt.Fprintf(w, "%s l.i0 %d rows repeat %d: python %.2f µs/row %.0f rows/s", eng, cfg.InsertRows, rep, p.UsPerStatement(), p.QPS())
	for _, v := range cfg.Variants {
		rr, nn := ins[key{eng, insServer, v.Name, 0}], ins[key{eng, insNull, v.Name, 0}]
		r, n := rr[len(rr)-1], nn[len(nn)-1]
		fmt.Fprintf(w, "; %s %.2f µs/row (own %.2f) %.0f rows/s, null own %.2f", v.Name, r.UsPerStatement(), r.OwnCPUUs, r.QPS(), n.OwnCPUUs)
	}
	fmt.Fprintln(w)
	return nil
}

// dropInsertTables drops rumbench's and the Python loader's insert benchmark tables.
func dropInsertTables(ctx context.Context, srv *server.Server) error {
	for _, t := range []string{"pi1", pyTable} {
		if err := admin(ctx, srv, "DROP TABLE IF EXISTS "+t); err != nil {
			return err
		}
	}
	return nil
}

// runRumbenchInsert runs rumbench's l.i0 on engine (on the server at dsn, or the null engine
// when dsn is empty) and returns its client CPU per row over the step's window.
func runRumbenchInsert(ctx context.Context, cfg Config, v Variant, engine, dsn, eng string, rep int) (Result, error) {
	out := filepath.Join(cfg.Dir, fmt.Sprintf("results-insert-%s-%s-%s-%d", v.Name, eng, engine, rep))
	args := []string{"run", "--engine", engine, "--steps", "l.i0", "--rows", strconv.FormatInt(cfg.InsertRows, 10)}
	if dsn != "" {
		args = append(args, "--dsn", dsn)
	}
	args = append(append(args, "--quiet", "--store", "none", "--out", out, "--data-dir", filepath.Join(cfg.Dir, "rumbench-data"), "--fresh"), v.Args...)
	p, err := runProcess(ctx, 50*time.Millisecond, nil, v.Bin, args...)
	if err != nil {
		return Result{}, err
	}
	steps, err := readSteps(out)
	if err != nil {
		return Result{}, err
	}
	for _, st := range steps {
		if st.Step == "l.i0" {
			from := st.End.Add(-time.Duration(st.Secs * float64(time.Second)))
			return Result{Statements: st.Ops, Secs: st.Secs, CPUSecs: p.window(from, st.End), OwnCPUUs: st.ClientCPUUsPerOp}, nil
		}
	}
	return Result{}, fmt.Errorf("rumbench: no l.i0 step in %s", out)
}

// The Python loader's line when it starts inserting, and its last line.
const pyStarted = "iiload: inserting"

var pyEnd = regexp.MustCompile(`iiload: rows (\d+) secs ([0-9.]+)`)

// pyLoadConn returns the Python loader's connection options for srv, database rumbench.
func pyLoadConn(srv *server.Server) []string {
	dbms, user := "postgres", "postgres"
	if srv.Kind() == server.MariaDB {
		dbms, user = "mysql", "rumbench"
	}
	return []string{"--dbms", dbms, "--host", "127.0.0.1", "--port", strconv.Itoa(srv.Port()), "--user", user,
		"--password", srv.Password(), "--database", "rumbench"}
}

// runPyLoad runs the Python loader on srv (its own table, which it drops and creates). Its CPU,
// that of its process tree (it forks its statement maker and reaps it before it exits), counts
// from its line "iiload: inserting" (after the interpreter's start, the connection and the
// table's creation) to its exit, as sysbench's counts from "Threads started!".
func runPyLoad(ctx context.Context, cfg Config, srv *server.Server, eng string, rep int) (Result, error) {
	args := append(append([]string{cfg.PyLoad}, pyLoadConn(srv)...), "--table", pyTable,
		"--rows", strconv.FormatInt(cfg.InsertRows, 10), "--rows-per-commit", strconv.Itoa(InsertRowsPerCommit))
	p, err := runTree(ctx, 100*time.Millisecond, []string{pyStarted}, cfg.Python, args...)
	if err != nil {
		return Result{}, err
	}
	out := p.Output()
	os.WriteFile(filepath.Join(cfg.Dir, fmt.Sprintf("pyload-%s-%d.out", eng, rep)), []byte(out), 0o644)
	rows, secs, err := parsePyLoad(out)
	c0, ok := p.marks[pyStarted]
	if err != nil || !ok {
		return Result{}, fmt.Errorf("%s: no start line or no rows and seconds in its output:\n%s", cfg.PyLoad, tail(out, 20))
	}
	return Result{Statements: rows, Secs: secs, CPUSecs: p.total() - c0}, nil
}

// parsePyLoad returns the rows and seconds of the Python loader's last line.
func parsePyLoad(out string) (rows int64, secs float64, err error) {
	m := pyEnd.FindStringSubmatch(out)
	if m == nil {
		return 0, 0, fmt.Errorf("no line %q", "iiload: rows N secs S")
	}
	if rows, err = strconv.ParseInt(m[1], 10, 64); err != nil {
		return 0, 0, err
	}
	if secs, err = strconv.ParseFloat(m[2], 64); err != nil {
		return 0, 0, err
	}
	return rows, secs, nil
}

// printInsertTable prints, per engine and variant, the median client CPU per loaded row of the
// null engine, of rumbench and of the Python loader, and, within each repeat, the ratio
// rumbench/Python and rumbench's µs per row above the null engine's: median [min-max]. The null
// engine's figure is rumbench's own (ccpu_us/op): its step lasts a few milliseconds, less than
// one tick of /proc/<pid>/stat.
func printInsertTable(w io.Writer, cfg Config, ins map[key][]Result) {
	fmt.Fprintf(w, "\ninsert benchmark l.i0, %d rows, %d rows per commit: client CPU µs per loaded row and rows/s, medians of %d repeats;"+
		" rumbench/python and rumbench-null within each repeat: median [min-max] (null: rumbench's own figure)\n", cfg.InsertRows, InsertRowsPerCommit, cfg.Repeats)
	fmt.Fprintf(w, "%-9s %-10s %8s %8s %8s %18s %18s %9s %9s\n", "engine", "rumbench", "null_us", "rb_us", "py_us", "cpu_ratio", "rb-null_us", "rb_rows/s", "py_rows/s")
	for _, eng := range cfg.Engines {
		py := ins[key{engine: eng, test: insServer}]
		for _, v := range cfg.Variants {
			nn, rr := ins[key{eng, insNull, v.Name, 0}], ins[key{eng, insServer, v.Name, 0}]
			n := min(len(py), len(nn), len(rr))
			if n == 0 {
				continue
			}
			var nu, ru, pu, cr, dn, rq, pq []float64
			for i := 0; i < n; i++ {
				nu, ru, pu = append(nu, nn[i].OwnCPUUs), append(ru, rr[i].UsPerStatement()), append(pu, py[i].UsPerStatement())
				cr, dn = append(cr, ru[i]/pu[i]), append(dn, ru[i]-nu[i])
				rq, pq = append(rq, rr[i].QPS()), append(pq, py[i].QPS())
			}
			fmt.Fprintf(w, "%-9s %-10s %8.2f %8.2f %8.2f %18s %18s %9.0f %9.0f\n", eng, v.Name, median(nu), median(ru), median(pu),
				spread(cr), spread(dn), median(rq), median(pq))
		}
	}
}

// Serve starts engine's server as a comparison does, creates the database sbtest, prints
// sysbench's connection options and rumbench's --dsn to w, and waits for ctx to end; then it
// stops the server. It is for running either client by hand against the same server.
func Serve(ctx context.Context, dir, eng string, w io.Writer) (err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	kind, settings, plugins := serverSettings(eng)
	srv, err := server.Start(ctx, server.Config{Kind: kind, Dir: filepath.Join(dir, eng+"-server"), Settings: settings, Plugins: plugins})
	if err != nil {
		return err
	}
	defer func() {
		if serr := srv.Stop(context.WithoutCancel(ctx)); serr != nil && err == nil {
			err = serr
		}
	}()
	if err := admin(ctx, srv, "CREATE DATABASE sbtest"); err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: %s\nsysbench %s\nrumbench --engine %s --dsn '%s'\niiload %s\n", eng, srv.Version(), strings.Join(sysbenchConn(srv), " "), eng, srv.DSN(),
		strings.Join(pyLoadConn(srv), " "))
	<-ctx.Done()
	return nil
}
