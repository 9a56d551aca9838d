package mysql

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/engine/sqlfam"
	"github.com/rumbench/rumbench/internal/netblock"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload/insert"
)

// The statements of the client-path benchmark, as the reference runs them: sysbench's point
// query and the insert benchmark's 100-row INSERT into pi1 (sqlfam.InsertSQL for the table of
// insert.NewTable).
const (
	pointSQL   = "SELECT c FROM sbtest1 WHERE id=?"
	sbRows     = 10_000
	insertRows = 100
)

// piTable is the insert benchmark's table (insert.NewTable(0)), without its secondary indexes
// as l.i0 loads it.
func piTable() *table.Table {
	t := insert.NewTable(0)
	t.Indexes = nil
	return t
}

// multiInsertSQL is the multi-row INSERT of n rows of t that the mysql engine sends.
func multiInsertSQL(t *table.Table, n int) string { return sqlfam.InsertSQL(dialect{}, t, n) }

// clientPath is one way of running a statement: open connects, run runs text with args.
type clientPath struct {
	name string
	open func(dsn string) (sqlfam.Conn, error)
	// prepared paths prepare the statement once and run it; the others send its text each time.
	prepared bool
	// interpolate: the driver writes the arguments into the text; the others' unprepared
	// statements are written by textQuery (sent as COM_QUERY without arguments).
	interpolate bool
}

func nativeConn(dsn string) (sqlfam.Conn, error) { return connectRaw(dsn, false) }

func wireConn(dsn string) (sqlfam.Conn, error) { return connectRaw(dsn, true) }

// connectRaw opens a native session's connection over a raw socket, its statements through wire
// when own is set, else through the driver.
func connectRaw(dsn string, own bool) (sqlfam.Conn, error) {
	c, err := newConnector(dsn, sqlfam.ClientChoice{Native: true, IO: "raw"})
	if err != nil {
		return nil, err
	}
	c.ownWire = own
	return c.Connect(context.Background())
}

func mymysqlConn(dsn string) (sqlfam.Conn, error) { return mmConnect(dsn, netblock.DialRaw) }

// clientPaths are the paths compared: rumbench's wire with prepared statements (the native
// session's default) and with the text written by textQuery (its unprepared statements);
// go-sql-driver's driver connection with prepared statements (wire=driver), with its client-side
// interpolation (text protocol), with the text written by textQuery; ziutek/mymysql's native
// engine with prepared statements bound once to their slots, and with the text of textQuery.
var clientPaths = []clientPath{
	{name: "wire-prepared", open: wireConn, prepared: true},
	{name: "wire-owntext", open: wireConn},
	{name: "gosql-prepared", open: nativeConn, prepared: true},
	{name: "gosql-interpolate", open: nativeConn, interpolate: true},
	{name: "gosql-owntext", open: nativeConn},
	{name: "mymysql-prepared", open: mymysqlConn, prepared: true},
	{name: "mymysql-owntext", open: mymysqlConn},
}

// BenchmarkClientPath measures the client's CPU per statement (user+sys of the process over the
// loop, "cpu-us/op") and its allocations for each client path on a private MariaDB, over the
// raw blocking socket rumbench's sessions use, one session on its locked thread with a P of its
// own as a session has; each path's inserts start from an empty pi1. -count repeats each path
// before the next: run the test binary several times instead, each starting with another path
// (CLIENTPATH_ROTATE), so that the paths alternate:
//
//	go test -c -o /tmp/mysql.test ./internal/engine/mysql
//	for i in 0 1 2 3 4 5 6; do (cd internal/engine/mysql && CLIENTPATH_ROTATE=$i /tmp/mysql.test -test.run '^$' -test.bench BenchmarkClientPath); done
func BenchmarkClientPath(b *testing.B) {
	ctx := context.Background()
	e := testEngine(b, nil)
	dsn := e.Srv.DSN()
	pi := piTable()
	if err := e.CreateTable(ctx, pi, false); err != nil {
		b.Fatal(err)
	}
	if err := loadSbtest(ctx, e); err != nil {
		b.Fatal(err)
	}
	if err := warmUp(ctx, dsn, 2*time.Second); err != nil {
		b.Fatal(err)
	}
	paths := rotated()
	next := int64(1) // the next transactionid
	for _, p := range paths {
		b.Run("point-query/"+p.name, func(b *testing.B) {
			benchPath(b, p, dsn, pointSQL, func(args []sqlfam.Arg, i int) []sqlfam.Arg {
				return append(args[:0], sqlfam.Arg{Kind: sqlfam.ArgInt, I: int64(1 + (uint64(i)*2654435761)%sbRows)})
			}, []sqlfam.ColKind{sqlfam.ColBytes})
		})
	}
	gen := insert.NewGenerator(1, 0)
	var rows table.Rows
	text := multiInsertSQL(pi, insertRows)
	for _, p := range paths {
		b.Run("insert100/"+p.name, func(b *testing.B) {
			// Every path inserts into an empty table.
			if _, err := e.DB().ExecContext(ctx, "TRUNCATE TABLE pi1"); err != nil {
				b.Fatal(err)
			}
			benchPath(b, p, dsn, text, func(args []sqlfam.Arg, _ int) []sqlfam.Arg {
				gen.Fill(&rows, next, insertRows, time.Now().Unix())
				next += insertRows
				args = args[:0]
				for r := range rows.N {
					for c, v := range rows.Row(r) {
						args = append(args, argOf(pi.Columns[c], v))
					}
				}
				return args
			}, nil)
		})
	}
}

// rotated returns clientPaths rotated left by $CLIENTPATH_ROTATE places (0 when unset), so that
// successive runs can start with a different path.
func rotated() []clientPath {
	k, _ := strconv.Atoi(os.Getenv("CLIENTPATH_ROTATE"))
	k = (k%len(clientPaths) + len(clientPaths)) % len(clientPaths)
	return append(slices.Clone(clientPaths[k:]), clientPaths[:k]...)
}

// warmUp runs point queries for d before the measures: the server, just started and loaded, and
// the machine settle (the first path measured took up to 5 times the others' CPU without it).
func warmUp(ctx context.Context, dsn string, d time.Duration) error {
	c, err := nativeConn(dsn)
	if err != nil {
		return err
	}
	defer c.Close()
	st, err := c.Prepare(ctx, pointSQL)
	if err != nil {
		return err
	}
	var out table.Rows
	for i, end := 0, time.Now().Add(d); time.Now().Before(end); i++ {
		out.Reset(1)
		if _, err := st.Query(ctx, []sqlfam.Arg{{Kind: sqlfam.ArgInt, I: int64(1 + i%sbRows)}}, []sqlfam.ColKind{sqlfam.ColBytes}, &out); err != nil {
			return err
		}
	}
	return nil
}

// argOf is the native session's conversion of a cell to an argument on MySQL.
func argOf(c table.Column, v table.Value) sqlfam.Arg {
	switch {
	case c.Type == table.Bytes && c.Text:
		return sqlfam.Arg{Kind: sqlfam.ArgText, B: v.B}
	case c.Type == table.Bytes:
		return sqlfam.Arg{Kind: sqlfam.ArgBytes, B: v.B}
	case c.Type == table.Timestamp:
		return sqlfam.Arg{Kind: sqlfam.ArgTime, I: v.I}
	}
	return sqlfam.Arg{Kind: sqlfam.ArgInt, I: v.I}
}

// benchPath runs text b.N times on a new connection of p, with the arguments args gives for
// each iteration.
func benchPath(b *testing.B, p clientPath, dsn, text string, args func([]sqlfam.Arg, int) []sqlfam.Arg, cols []sqlfam.ColKind) {
	ctx := context.Background()
	c, err := p.open(dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	run := func(a []sqlfam.Arg, out *table.Rows) (sqlfam.Result, error) { return c.Query(ctx, text, a, cols, out) }
	switch {
	case p.prepared:
		st, err := c.Prepare(ctx, text)
		if err != nil {
			b.Fatal(err)
		}
		run = func(a []sqlfam.Arg, out *table.Rows) (sqlfam.Result, error) { return st.Query(ctx, a, cols, out) }
	case p.interpolate:
		nc := c.(*conn)
		run = func(a []sqlfam.Arg, out *table.Rows) (sqlfam.Result, error) {
			return nc.interpolated(text, a, cols, out)
		}
	}
	procs := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(procs + 1)
	defer runtime.GOMAXPROCS(procs)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var a []sqlfam.Arg
	var out table.Rows
	want := int64(1)
	if cols == nil {
		want = insertRows
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	for i := range b.N {
		a = args(a, i)
		out.Reset(len(cols))
		res, err := run(a, &out)
		if err != nil {
			b.Fatal(err)
		}
		if res.Rows != want {
			b.Fatalf("%d rows, want %d", res.Rows, want)
		}
	}
	cpu := processCPU() - cpu0
	b.StopTimer()
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-us/op")
}

// processCPU is the process's user+sys CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadSbtest creates sysbench's sbtest1 (its DDL on MySQL) with sbRows rows.
func loadSbtest(ctx context.Context, e *engineWithServer) error {
	db := e.DB()
	if _, err := db.ExecContext(ctx, `CREATE TABLE sbtest1 (id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL,
		c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id)) ENGINE = InnoDB`); err != nil {
		return err
	}
	for from := 1; from <= sbRows; from += 1000 {
		var q strings.Builder
		q.WriteString("INSERT INTO sbtest1 (id, k, c, pad) VALUES ")
		for id := from; id < from+1000; id++ {
			if id > from {
				q.WriteString(",")
			}
			c := strings.TrimSuffix(strings.Repeat(fmt.Sprintf("%011d-", id*7919%100000000000), 10), "-")
			fmt.Fprintf(&q, "(%d, %d, '%s', '%s')", id, id%sbRows, c[:119], c[:59])
		}
		if _, err := db.ExecContext(ctx, q.String()); err != nil {
			return err
		}
	}
	_, err := db.ExecContext(ctx, "CREATE INDEX k_1 ON sbtest1(k)")
	return err
}
