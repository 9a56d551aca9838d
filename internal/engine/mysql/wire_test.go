package mysql

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/rumbench/rumbench/internal/engine/sqlfam"
	"github.com/rumbench/rumbench/internal/table"
)

// wirePair opens a connection through wire and one through the driver on the same server.
func wirePair(t *testing.T, dsn string) (own, drv *conn) {
	t.Helper()
	for _, o := range []bool{true, false} {
		c, err := connectRaw(dsn, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if o {
			own = c.(*conn)
		} else {
			drv = c.(*conn)
		}
	}
	if own.w == nil || drv.w != nil {
		t.Fatalf("wire on the own connection: %v, on the driver's: %v", own.w != nil, drv.w != nil)
	}
	if !own.w.deprecateEOF {
		t.Error("MariaDB and the driver agree on CLIENT_DEPRECATE_EOF; the handshake watcher did not see it")
	}
	return own, drv
}

// rowsText renders rows for comparison, telling NULL (nil) from empty bytes.
func rowsText(r *table.Rows) string {
	var b bytes.Buffer
	for i := range r.N {
		for _, v := range r.Row(i) {
			if v.B == nil {
				fmt.Fprintf(&b, "%d|nil ", v.I)
			} else {
				fmt.Fprintf(&b, "%d|%q ", v.I, v.B)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// TestWireValues reads every column type the workloads use, and the others' edges, through wire
// and through the driver, prepared (binary rows) and as text (text rows): the rows must be the
// same, NULL and empty strings kept apart.
func TestWireValues(t *testing.T) {
	ctx := context.Background()
	e := testEngine(t, nil)
	own, drv := wirePair(t, e.Srv.DSN())
	for _, q := range []string{
		`CREATE TABLE v (id BIGINT PRIMARY KEY, ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT, mi MEDIUMINT, i INT,
			iu INT UNSIGNED, bi BIGINT, fl FLOAT, db DOUBLE, de DECIMAL(20,4), yr YEAR, d DATE, dt DATETIME,
			ts TIMESTAMP NULL, bu BIGINT UNSIGNED, vc VARCHAR(20), vb VARBINARY(20), tx TEXT, bl BLOB)`,
		`INSERT INTO v VALUES
			(1, -128, 255, -32768, -8388608, -2147483648, 4294967295, -9223372036854775808, 1.5, -2.75, 12345.6789,
			 2026, '2026-11-24', '2026-11-24 14:15:09', '2026-11-24 14:15:09', 18446744073709551615, 'abc', 'x\0y', 'long text', 'blob'),
			(2, 127, 0, 32767, 8388607, 2147483647, 0, 9223372036854775807, -0.5, 1e15, -0.9999,
			 1970, '0000-00-00', '0000-00-00 00:00:00', '1970-01-01 00:00:01', 0, '', '', '', ''),
			(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
	} {
		if _, err := own.Query(ctx, q, nil, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	const sel = "SELECT id, ti, tu, si, mi, i, iu, bi, fl, db, de, yr, d, dt, ts, bu, vc, vb, tx, bl FROM v WHERE id >= ? ORDER BY id"
	kinds := []sqlfam.ColKind{sqlfam.ColInt, sqlfam.ColInt, sqlfam.ColInt, sqlfam.ColInt, sqlfam.ColInt, sqlfam.ColInt,
		sqlfam.ColInt, sqlfam.ColInt, sqlfam.ColInt, sqlfam.ColInt, sqlfam.ColInt, sqlfam.ColInt, sqlfam.ColTime,
		sqlfam.ColTime, sqlfam.ColTime, sqlfam.ColInt, sqlfam.ColBytes, sqlfam.ColBytes, sqlfam.ColBytes, sqlfam.ColBytes}
	args := []sqlfam.Arg{{Kind: sqlfam.ArgInt, I: 1}}
	var want string
	for _, c := range []*conn{drv, own} {
		for _, prepared := range []bool{true, false} {
			out := table.NewRows(len(kinds), 4)
			var err error
			if prepared {
				var st sqlfam.Stmt
				if st, err = c.Prepare(ctx, sel); err != nil {
					t.Fatal(err)
				}
				// Twice: MariaDB leaves the column definitions out of the second reply.
				for range 2 {
					out.Reset(len(kinds))
					_, err = st.Query(ctx, args, kinds, out)
				}
			} else {
				_, err = c.Query(ctx, sel, args, kinds, out)
			}
			if err != nil {
				t.Fatalf("wire %v, prepared %v: %v", c.w != nil, prepared, err)
			}
			got := rowsText(out)
			if want == "" {
				want = got
				continue
			}
			if got != want {
				t.Errorf("wire %v, prepared %v: rows\n%s\nthe driver's (prepared)\n%s", c.w != nil, prepared, got, want)
			}
		}
	}
	// The values themselves, once: the edges of the integer types, a timestamp, the zero date.
	for _, w := range []string{"-128|nil 255|nil", "-9223372036854775808|nil", "9223372036854775807|nil", "4294967295|nil", "-1|nil",
		"12345|nil", fmt.Sprint(time.Date(2026, 11, 24, 14, 15, 9, 0, time.UTC).Unix()), fmt.Sprint(time.Time{}.Unix()), `0|"x\x00y"`, `0|""`} {
		if !bytes.Contains([]byte(want), []byte(w)) {
			t.Errorf("rows lack %s:\n%s", w, want)
		}
	}
}

// TestWireWrites checks writes through wire: rows affected and the auto-increment key, a
// timestamp argument and NULL arguments stored as the driver stores them, a server error as the
// driver's MySQLError with the connection usable afterwards, and a result of the wrong width.
func TestWireWrites(t *testing.T) {
	ctx := context.Background()
	e := testEngine(t, nil)
	own, drv := wirePair(t, e.Srv.DSN())
	if _, err := own.Query(ctx, "CREATE TABLE w (id BIGINT AUTO_INCREMENT PRIMARY KEY, ts DATETIME, b VARBINARY(10), s VARCHAR(10))", nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	const ins = "INSERT INTO w (ts, b, s) VALUES (?, ?, ?), (?, ?, ?)"
	ts := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC).Unix()
	args := []sqlfam.Arg{{Kind: sqlfam.ArgTime, I: ts}, {Kind: sqlfam.ArgBytes}, {Kind: sqlfam.ArgText, B: []byte("é")},
		{Kind: sqlfam.ArgTime, I: ts + 3661}, {Kind: sqlfam.ArgBytes, B: []byte{}}, {Kind: sqlfam.ArgText}}
	for _, c := range []*conn{own, drv} {
		st, err := c.Prepare(ctx, ins)
		if err != nil {
			t.Fatal(err)
		}
		r, err := st.Query(ctx, args, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Rows != 2 || r.LastID == 0 {
			t.Errorf("wire %v: result %+v, want 2 rows and the first key", c.w != nil, r)
		}
	}
	out := table.NewRows(4, 4)
	kinds := []sqlfam.ColKind{sqlfam.ColInt, sqlfam.ColTime, sqlfam.ColBytes, sqlfam.ColBytes}
	if _, err := own.Query(ctx, "SELECT id, ts, b, s FROM w ORDER BY id", nil, kinds, out); err != nil {
		t.Fatal(err)
	}
	got := rowsText(out)
	want := fmt.Sprintf("1|nil %d|nil 0|nil 0|\"é\" \n2|nil %d|nil 0|\"\" 0|nil \n3|nil %[1]d|nil 0|nil 0|\"é\" \n4|nil %[2]d|nil 0|\"\" 0|nil \n", ts, ts+3661)
	if got != want {
		t.Errorf("rows written through wire (1, 2) and the driver (3, 4):\n%s\nwant\n%s", got, want)
	}

	// A duplicate key: the server's error, then the connection goes on.
	st, err := own.Prepare(ctx, "INSERT INTO w (id) VALUES (?)")
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.Query(ctx, []sqlfam.Arg{{Kind: sqlfam.ArgInt, I: 1}}, nil, nil)
	var me *gomysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1062 || string(me.SQLState[:]) != "23000" {
		t.Fatalf("duplicate key: %v, want the server's error 1062 (23000)", err)
	}
	if _, err := st.Query(ctx, []sqlfam.Arg{{Kind: sqlfam.ArgInt, I: 10}}, nil, nil); err != nil {
		t.Fatalf("after an error: %v", err)
	}
	if _, err := own.Prepare(ctx, "SELEC 1"); err == nil {
		t.Fatal("a syntax error prepared")
	}
	// A result of another width than asked: an error, the connection still in step.
	out.Reset(1)
	if _, err := own.Query(ctx, "SELECT id, ts FROM w", nil, []sqlfam.ColKind{sqlfam.ColInt}, out); err == nil {
		t.Fatal("a result of 2 columns read as 1")
	}
	out.Reset(1)
	if r, err := own.Query(ctx, "SELECT COUNT(*) FROM w", nil, []sqlfam.ColKind{sqlfam.ColInt}, out); err != nil || r.Rows != 1 || out.Row(0)[0].I != 5 {
		t.Fatalf("count after errors: %+v %v %s", r, err, rowsText(out))
	}
}

// TestWireLongPacket sends and reads a value longer than one packet (16 MiB): the command is
// split into packets and the row joined from them.
func TestWireLongPacket(t *testing.T) {
	ctx := context.Background()
	e := testEngine(t, nil)
	// For the connections opened after it.
	if _, err := e.DB().ExecContext(ctx, "SET GLOBAL max_allowed_packet = 64 << 20"); err != nil {
		t.Fatal(err)
	}
	own, _ := wirePair(t, e.Srv.DSN())
	if _, err := own.Query(ctx, "CREATE TABLE l (id BIGINT PRIMARY KEY, b LONGBLOB)", nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("0123456789abcdef"), (17<<20)/16+3)
	st, err := own.Prepare(ctx, "INSERT INTO l VALUES (?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Query(ctx, []sqlfam.Arg{{Kind: sqlfam.ArgInt, I: 1}, {Kind: sqlfam.ArgBytes, B: big}}, nil, nil); err != nil {
		t.Fatal(err)
	}
	sel, err := own.Prepare(ctx, "SELECT b FROM l WHERE id = ?")
	if err != nil {
		t.Fatal(err)
	}
	out := table.NewRows(1, 1)
	if _, err := sel.Query(ctx, []sqlfam.Arg{{Kind: sqlfam.ArgInt, I: 1}}, []sqlfam.ColKind{sqlfam.ColBytes}, out); err != nil {
		t.Fatal(err)
	}
	if out.N != 1 || !bytes.Equal(out.Row(0)[0].B, big) {
		t.Fatalf("read back %d rows, %d bytes; wrote %d", out.N, len(out.Row(0)[0].B), len(big))
	}
}

// TestWireInterrupt interrupts a statement in flight: it fails at once, and later statements
// fail without touching the socket.
func TestWireInterrupt(t *testing.T) {
	ctx := context.Background()
	e := testEngine(t, nil)
	own, _ := wirePair(t, e.Srv.DSN())
	time.AfterFunc(200*time.Millisecond, own.Interrupt)
	start := time.Now()
	out := table.NewRows(1, 1)
	_, err := own.Query(ctx, "SELECT SLEEP(30)", nil, []sqlfam.ColKind{sqlfam.ColInt}, out)
	if err == nil || time.Since(start) > 5*time.Second {
		t.Fatalf("interrupted sleep: %v after %v", err, time.Since(start))
	}
	if _, err := own.Query(ctx, "SELECT 1", nil, []sqlfam.ColKind{sqlfam.ColInt}, out); err == nil {
		t.Fatal("a statement ran on an interrupted connection")
	}
}

// TestWireAllocs checks that a prepared point query and a 100-row insert through wire allocate
// nothing once their buffers have grown.
func TestWireAllocs(t *testing.T) {
	ctx := context.Background()
	e := testEngine(t, nil)
	own, _ := wirePair(t, e.Srv.DSN())
	pi := piTable()
	if err := e.CreateTable(ctx, pi, false); err != nil {
		t.Fatal(err)
	}
	ins, err := own.Prepare(ctx, multiInsertSQL(pi, insertRows))
	if err != nil {
		t.Fatal(err)
	}
	var args []sqlfam.Arg
	data := []byte("0123456789")
	next := int64(1)
	insert := func() {
		args = args[:0]
		for r := range insertRows {
			for _, col := range pi.Columns {
				v := table.Value{I: next + int64(r)}
				if col.Type == table.Bytes {
					v.B = data
				}
				args = append(args, argOf(col, v))
			}
		}
		next += insertRows
		if _, err := ins.Query(ctx, args, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := testing.AllocsPerRun(50, insert); n > 0 {
		t.Errorf("a 100-row insert: %v allocations", n)
	}
	sel, err := own.Prepare(ctx, "SELECT transactionid, dateandtime, cashregisterid FROM pi1 WHERE transactionid = ?")
	if err != nil {
		t.Fatal(err)
	}
	out := table.NewRows(3, 1)
	kinds := []sqlfam.ColKind{sqlfam.ColInt, sqlfam.ColTime, sqlfam.ColInt}
	arg := []sqlfam.Arg{{Kind: sqlfam.ArgInt}}
	i := int64(0)
	query := func() {
		out.Reset(3)
		i++
		arg[0].I = i
		if r, err := sel.Query(ctx, arg, kinds, out); err != nil || r.Rows != 1 {
			t.Fatalf("point query %d: %+v %v", i, r, err)
		}
	}
	if n := testing.AllocsPerRun(200, query); n > 0 {
		t.Errorf("a point query: %v allocations", n)
	}
}
