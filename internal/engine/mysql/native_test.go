package mysql

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/engine/sqlfam"
	"github.com/rumbench/rumbench/internal/table"
)

// testEngine opens the mysql engine on a private MariaDB (managed mode) with the options extra;
// it is closed when the test ends. The test skips when MariaDB is not installed.
func testEngine(tb testing.TB, extra map[string]string) *engineWithServer {
	tb.Helper()
	requireMariaDB(tb)
	if extra == nil {
		extra = map[string]string{}
	}
	eng, err := open(context.Background(), "mysql", "innodb", engine.Options{Dir: filepath.Join(serverDir(tb), "e"), CacheBytes: 64 << 20, Extra: extra})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { eng.Close() })
	return eng.(*engineWithServer)
}

// interpolated is Query with the arguments always interpolated by the driver (as before textQuery).
func (c *conn) interpolated(text string, args []sqlfam.Arg, cols []sqlfam.ColKind, out *table.Rows) (sqlfam.Result, error) {
	vals := c.values(args, false)
	if cols == nil {
		r, err := c.q.Exec(text, vals)
		return result(r, err)
	}
	rows, err := c.q.Query(text, vals)
	if err != nil {
		return sqlfam.Result{}, err
	}
	return c.read(rows, cols, out)
}

// TestTextQuery checks textQuery's text against the values' forms in go-sql-driver's
// interpolation.
func TestTextQuery(t *testing.T) {
	ts := func(s string) int64 {
		x, err := time.Parse(time.DateTime, s)
		if err != nil {
			t.Fatal(err)
		}
		return x.Unix()
	}
	cases := []struct {
		arg  sqlfam.Arg
		want string // "" when textQuery leaves it to the driver
	}{
		{sqlfam.Arg{Kind: sqlfam.ArgInt, I: 0}, "0"},
		{sqlfam.Arg{Kind: sqlfam.ArgInt, I: -9223372036854775808}, "-9223372036854775808"},
		{sqlfam.Arg{Kind: sqlfam.ArgTime, I: ts("2026-11-24 10:31:07")}, "'2026-11-24 10:31:07'"},
		{sqlfam.Arg{Kind: sqlfam.ArgTime, I: ts("2026-11-24 00:00:00")}, "'2026-11-24'"},
		{sqlfam.Arg{Kind: sqlfam.ArgTime, I: ts("0001-01-01 00:00:00")}, "'0000-00-00'"},
		{sqlfam.Arg{Kind: sqlfam.ArgTime, I: ts("9999-12-31 23:59:59")}, "'9999-12-31 23:59:59'"},
		{sqlfam.Arg{Kind: sqlfam.ArgText, B: []byte("abc xyz")}, "'abc xyz'"},
		{sqlfam.Arg{Kind: sqlfam.ArgText, B: []byte{}}, "''"},
		{sqlfam.Arg{Kind: sqlfam.ArgText}, "NULL"},
		{sqlfam.Arg{Kind: sqlfam.ArgBytes, B: []byte("k1")}, "_binary'k1'"},
		{sqlfam.Arg{Kind: sqlfam.ArgBytes}, "NULL"},
		{sqlfam.Arg{Kind: sqlfam.ArgText, B: []byte("it's")}, ""},
		{sqlfam.Arg{Kind: sqlfam.ArgText, B: []byte(`a\b`)}, ""},
		{sqlfam.Arg{Kind: sqlfam.ArgBytes, B: []byte{'a', 0}}, ""},
	}
	var q textQuery
	for _, c := range cases {
		b, ok := q.build("SELECT ? FROM t WHERE a = ?", []sqlfam.Arg{c.arg, {Kind: sqlfam.ArgInt, I: 7}})
		want := "SELECT " + c.want + " FROM t WHERE a = 7"
		if c.want == "" && ok || c.want != "" && string(b) != want {
			t.Errorf("%+v: %q, %v; want %q", c.arg, b, ok, want)
		}
	}
	for _, text := range []string{"SELECT '?', ?", "SELECT `a?`, ?", "SELECT ? -- ?", "SELECT ? /* ? */", "SELECT \"?\", ?"} {
		if _, ok := q.build(text, []sqlfam.Arg{{Kind: sqlfam.ArgInt, I: 1}}); ok {
			t.Errorf("%q: built, want left to the driver", text)
		}
	}
	if _, ok := q.build("SELECT ?, ?", []sqlfam.Arg{{Kind: sqlfam.ArgInt, I: 1}}); ok {
		t.Error("two placeholders, one argument: built")
	}
}

// TestTextInsert runs the insert benchmark's multi-row INSERT with insert=text through a session
// and with go-sql-driver's interpolation, and checks in the server's general log that both sent
// the same text (COM_QUERY): strings the driver escapes, NULL, a midnight among the values.
func TestTextInsert(t *testing.T) {
	ctx := context.Background()
	e := testEngine(t, map[string]string{"insert": "text"})
	db := e.DB()
	pi, pi2 := piTable(), piTable()
	pi2.Name = "pi2"
	for _, tb := range []*table.Table{pi, pi2} {
		if err := e.CreateTable(ctx, tb, false); err != nil {
			t.Fatal(err)
		}
	}
	rows := table.NewRows(len(pi.Columns), 8)
	for i, d := range []string{"plain text", "", "it's", `back\slash`, "new\nline", "NULL"} {
		row := rows.Append()
		row[0].I = int64(i + 1)
		row[1].I = time.Date(2026, 11, 24, 10, i*7, i, 0, time.UTC).Unix()
		if i == 1 {
			row[1].I = time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC).Unix() // a midnight: the date alone
		}
		row[2].I, row[3].I, row[4].I, row[5].I = int64(i), 99_999, 255, -1
		if d != "NULL" {
			row[6].B = rows.CopyBytes([]byte(d))
		}
	}
	if _, err := db.ExecContext(ctx, "SET GLOBAL log_output = 'TABLE', GLOBAL general_log = 1"); err != nil {
		t.Fatal(err)
	}
	s, err := e.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Insert(ctx, pi, rows); err != nil {
		t.Fatal(err)
	}
	sc, err := nativeConn(e.Srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	c := sc.(*conn)
	var args []sqlfam.Arg
	for r := range rows.N {
		for i, v := range rows.Row(r) {
			args = append(args, argOf(pi.Columns[i], v))
		}
	}
	if _, err := c.interpolated(multiInsertSQL(pi2, rows.N), args, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "SET GLOBAL general_log = 0"); err != nil {
		t.Fatal(err)
	}
	logged := map[string]string{}
	lr, err := db.QueryContext(ctx, `SELECT command_type, CONVERT(argument USING utf8mb4) FROM mysql.general_log
		WHERE argument LIKE 'INSERT INTO pi%'`)
	if err != nil {
		t.Fatal(err)
	}
	defer lr.Close()
	for lr.Next() {
		var kind, text string
		if err := lr.Scan(&kind, &text); err != nil {
			t.Fatal(err)
		}
		logged[text[:len("INSERT INTO pi1")]] = kind + ": " + text
	}
	if err := lr.Err(); err != nil {
		t.Fatal(err)
	}
	got, want := logged["INSERT INTO pi1"], strings.Replace(logged["INSERT INTO pi2"], "pi2", "pi1", 1)
	if got != want || !strings.HasPrefix(got, "Query: ") {
		t.Errorf("insert=text sent\n%s\nthe driver's interpolation\n%s", got, want)
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM pi1 a JOIN pi2 b USING (transactionid, dateandtime, cashregisterid, customerid, productid, price, data)").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != rows.N-1 { // NULL data does not join
		t.Errorf("%d rows alike in pi1 and pi2, want %d", n, rows.N-1)
	}
}

// TestOwnWireRefusal: a dsn with TLS or compression keeps statements with the driver, and the
// engine says so before connecting: the wire option reported is the path that runs.
func TestOwnWireRefusal(t *testing.T) {
	for _, c := range []struct{ dsn, want string }{
		{"root@tcp(127.0.0.1:3306)/db", ""},
		{"root@tcp(127.0.0.1:3306)/db?tls=false", ""},
		{"root@tcp(127.0.0.1:3306)/db?tls=skip-verify", "TLS (tls=skip-verify)"},
		{"root@tcp(127.0.0.1:3306)/db?tls=preferred", "TLS (tls=preferred)"},
		{"root@tcp(127.0.0.1:3306)/db?compress=true", "compression (compress=true)"},
		{"root@tcp(127.0.0.1:3306)/db?tls=true&compress=true", "TLS (tls=true) and compression (compress=true)"},
	} {
		if got := ownWireRefusal(c.dsn); got != c.want {
			t.Errorf("%s: %q, want %q", c.dsn, got, c.want)
		}
	}
	_, err := open(context.Background(), "mysql", "innodb", engine.Options{Dir: t.TempDir(),
		Extra: map[string]string{"dsn": "root@tcp(127.0.0.1:1)/db?tls=skip-verify", "wire": "own"}})
	if err == nil || !strings.Contains(err.Error(), "wire=own: the dsn asks for TLS (tls=skip-verify), which stays with the driver (valid: wire=driver") {
		t.Fatalf("wire=own with a TLS dsn: %v", err)
	}
}
