package enginetest

import (
	"slices"
	"testing"

	"github.com/rumbench/rumbench/internal/table"
)

// testRawSQL checks table.SQLSession: every SQL engine's sessions run a user's statement text
// with '?' markers and bound arguments, return rows as text with their column names, and keep
// the session's transactions; engines without SQL do not implement it. The server engines run
// it on both client paths (their native connection and database/sql).
func testRawSQL(t *testing.T, h *harness) {
	rawSQLOn(t, h)
	if h.name == "postgres" || h.name == "mysql" {
		t.Run("client=sql", func(t *testing.T) { rawSQLOn(t, openHarnessWith(t, h.name, map[string]string{"client": "sql"})) })
	}
}

func rawSQLOn(t *testing.T, h *harness) {
	s := h.session()
	rs, ok := s.(table.SQLSession)
	if !ok {
		if h.e.Info().Family == "sql" {
			t.Fatalf("engine %s is an SQL engine whose sessions do not implement table.SQLSession", h.name)
		}
		t.Skipf("engine %s (family %s) runs no SQL text", h.name, h.e.Info().Family)
	}
	tb := stmtTable("rawsql")
	h.createTable(tb, true)
	out := table.NewRows(1, 4)
	run := func(text string, args ...table.Value) int64 {
		t.Helper()
		n, err := rs.ExecSQL(h.ctx, text, args, out)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		return n
	}
	for id := int64(1); id <= 3; id++ {
		if n := run("INSERT INTO rawsql (id, k, c) VALUES (?, ?, ?)", table.Value{I: id}, table.Value{I: 10 * id}, bv("c'?")); n != 1 {
			t.Fatalf("insert %d: %d rows changed, want 1", id, n)
		}
	}
	// A number sent as text goes to an integer column; the '?' in quotes is no marker.
	if n := run("UPDATE rawsql SET k = k + ? WHERE id >= ? AND c = 'c''?'", bv("5"), table.Value{I: 2}); n != 2 {
		t.Fatalf("update: %d rows changed, want 2", n)
	}
	q := "SELECT id, k, c, NULL AS n FROM rawsql WHERE id >= ? ORDER BY id"
	if n := run(q, table.Value{I: 1}); n != 3 {
		t.Fatalf("select: %d rows, want 3", n)
	}
	if got := rs.SQLColumns(q); !slices.Equal(got, []string{"id", "k", "c", "n"}) {
		t.Errorf("columns %q, want id k c n", got)
	}
	var got []string
	for r := 0; r < out.N; r++ {
		row := out.Row(r)
		if row[3].B != nil {
			t.Errorf("row %d: NULL read as %q", r, row[3].B)
		}
		got = append(got, string(row[0].B)+" "+string(row[1].B)+" "+string(row[2].B))
	}
	wantRows(t, "select", got, "1 10 c'?", "2 25 c'?", "3 35 c'?")
	// The session's transactions hold: a rolled-back update leaves no trace.
	if err := s.Begin(h.ctx); err != nil {
		t.Fatal(err)
	}
	run("UPDATE rawsql SET k = ? WHERE id = ?", table.Value{I: -1}, table.Value{I: 1})
	if err := s.Rollback(h.ctx); err != nil {
		t.Fatal(err)
	}
	sum := "SELECT sum(k) AS total FROM rawsql"
	if run(sum); out.N != 1 || string(out.Row(0)[0].B) != "70" {
		t.Errorf("sum after rollback: %d rows %v, want 70", out.N, out.Vals)
	}
	// QueryReadOnly reads and changes nothing: a statement that writes fails, and the session
	// writes again afterwards.
	if n, err := rs.QueryReadOnly(h.ctx, sum, out); err != nil || n != 1 || string(out.Row(0)[0].B) != "70" {
		t.Errorf("read-only sum: %d rows %v, %v; want 70", n, out.Vals, err)
	}
	writes := []string{"DELETE FROM rawsql", "UPDATE rawsql SET k = 0", "DROP TABLE rawsql", "INSERT INTO rawsql (id, k, c) VALUES (9, 9, 'x')"}
	if h.name == "postgres" {
		writes = append(writes, "WITH d AS (DELETE FROM rawsql RETURNING id) SELECT count(*) FROM d")
	}
	for _, w := range writes {
		if _, err := rs.QueryReadOnly(h.ctx, w, out); err == nil {
			t.Errorf("%s ran read-only without error", w)
		}
	}
	if run(sum); out.N != 1 || string(out.Row(0)[0].B) != "70" {
		t.Errorf("sum after the read-only writes: %d rows %v, want 70", out.N, out.Vals)
	}
	if n := run("UPDATE rawsql SET k = k + ? WHERE id = ?", table.Value{I: 1}, table.Value{I: 1}); n != 1 {
		t.Errorf("update after QueryReadOnly: %d rows changed, want 1", n)
	}
	if rs.SQLColumns("SELECT 1") != nil || rs.SQLColumns("UPDATE rawsql SET k = ? WHERE id = ?") != nil {
		t.Error("SQLColumns of a statement that never ran or returns no rows is not nil")
	}
	if _, err := rs.ExecSQL(h.ctx, "SELEKT nothing", nil, out); err == nil {
		t.Error("a statement that does not parse ran without error")
	}
}
