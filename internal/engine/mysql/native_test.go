package mysql

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/engine/sqlfam"
	"github.com/rumbench/rumbench/internal/server"
	"github.com/rumbench/rumbench/internal/table"
)

// testEngine opens the mysql engine on a private MariaDB (managed mode) with the options extra;
// it is closed when the test ends. The test skips when MariaDB is not installed.
func testEngine(tb testing.TB, extra map[string]string) *engineWithServer {
	tb.Helper()
	if err := server.CheckBinaries(server.MariaDB, ""); err != nil {
		if errors.Is(err, server.ErrBinaryNotFound) {
			tb.Skipf("skipping: %v", err)
		}
		tb.Fatal(err)
	}
	if extra == nil {
		extra = map[string]string{}
	}
	dir := tb.TempDir()
	// The server runs as the mysql user: it must traverse the directory.
	os.Chmod(filepath.Dir(dir), 0o755)
	os.Chmod(dir, 0o755)
	eng, err := open(context.Background(), "mysql", "innodb", engine.Options{Dir: filepath.Join(dir, "e"), CacheBytes: 64 << 20, Extra: extra})
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
