package enginetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/engine/kv"
	"github.com/rumbench/rumbench/internal/table"
)

// stmtTable is a sysbench-shaped table: an int32 auto-increment key, an int32 k with an index,
// and a text column c.
func stmtTable(name string) *table.Table {
	return &table.Table{
		Name: name,
		Columns: []table.Column{
			{Name: "id", Type: table.Int32, NotNull: true, AutoIncrement: true},
			{Name: "k", Type: table.Int32, NotNull: true},
			{Name: "c", Type: table.Bytes, NotNull: true, MaxLen: 32, Text: true},
		},
		Indexes: []table.Index{{Name: "k", Columns: []int{1}}},
	}
}

// stmts builds the statements of the case on tb; each has its SQL text and its logical form.
type stmts struct {
	tb *table.Table
}

func (s stmts) mk(sql string, st table.Stmt) *table.Stmt {
	st.Table, st.SQL = s.tb, strings.ReplaceAll(sql, "{T}", s.tb.Name)
	return &st
}

// fill inserts rows 1..20 of the table (id, k = kOf(id), c = "c01".."c20") and returns the
// INSERT it used.
func (s stmts) fill(h *harness, sess table.Session, kOf func(id int64) int64) *table.Stmt {
	h.t.Helper()
	ins := s.mk("INSERT INTO {T} (id, k, c) VALUES (?, ?, ?)", table.Stmt{Kind: table.InsertRow, Index: -1})
	for id := int64(1); id <= 20; id++ {
		if _, n := exec(h, sess, ins, false, table.Value{I: id}, table.Value{I: kOf(id)}, bv(fmt.Sprintf("c%02d", id))); n != 1 {
			h.t.Fatalf("insert %d: %d rows", id, n)
		}
	}
	return ins
}

func iv(xs ...int64) []table.Value {
	out := make([]table.Value, len(xs))
	for i, x := range xs {
		out[i] = table.Value{I: x}
	}
	return out
}

func bv(s string) table.Value { return table.Value{B: []byte(s)} }

// exec runs st and returns the result rows formatted "v1,v2" (sorted when sorted is true) and
// the count Exec returned.
// perStatement reports whether the engine runs without multi-document transactions: every
// statement commits itself, and Rollback drops nothing (the document engine on a server
// without transactions, as its Info says).
func perStatement(h *harness) bool { return h.e.Info().Options["txn"] == "per-statement" }

func exec(h *harness, s table.Session, st *table.Stmt, sorted bool, args ...table.Value) ([]string, int64) {
	h.t.Helper()
	cols := max(len(st.Cols), 1)
	out := table.NewRows(cols, 8)
	n, err := s.Exec(h.ctx, st, args, out)
	if err != nil {
		h.t.Fatalf("%s %v: %v", st.SQL, args, err)
	}
	var rows []string
	for r := 0; r < out.N; r++ {
		var cells []string
		for i, v := range out.Row(r) {
			if st.Agg == table.NoAgg || st.Agg == table.OrderBy || st.Agg == table.Distinct {
				if st.Table.Columns[st.Cols[i]].Type == table.Bytes {
					cells = append(cells, strings.TrimRight(string(v.B), " "))
					continue
				}
			}
			cells = append(cells, fmt.Sprint(v.I))
		}
		rows = append(rows, strings.Join(cells, ","))
	}
	if sorted {
		slices.Sort(rows)
	}
	return rows, n
}

func wantRows(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("%s: got %v, want %v", what, got, want)
	}
}

// testStatements runs every kind of statement the table model has (sysbench's) and checks the
// results against what the SQL says: the same on KV engines (computed in the adapter) and SQL
// engines (the text itself).
func testStatements(t *testing.T, h *harness) {
	tb := stmtTable("stmts")
	h.createTable(tb, false)
	s := h.session()
	st := stmts{tb}
	ins := st.fill(h, s, func(id int64) int64 { return id % 5 })
	if err := h.e.CreateIndexes(h.ctx, tb); err != nil {
		t.Fatal(err)
	}
	sel := func(sql string, st2 table.Stmt) *table.Stmt { st2.Kind = table.Select; return st.mk(sql, st2) }
	pointC := sel("SELECT c FROM {T} WHERE id=?", table.Stmt{Index: -1, Match: table.Eq, Cols: []int{2}})
	got, _ := exec(h, s, pointC, false, iv(3)...)
	wantRows(t, "point select", got, "c03")

	inPK := sel("SELECT id, c FROM {T} WHERE id IN (?, ?, ?, ?)", table.Stmt{Index: -1, Match: table.In, InLen: 4, Cols: []int{0, 2}})
	got, n := exec(h, s, inPK, true, iv(7, 2, 2, 99)...)
	wantRows(t, "IN list with a repeat and a missing key", got, "2,c02", "7,c07")
	if n != 2 {
		t.Errorf("IN list: Exec returned %d, want 2", n)
	}
	rangePK := sel("SELECT id FROM {T} WHERE id BETWEEN ? AND ?", table.Stmt{Index: -1, Match: table.Between, Cols: []int{0}})
	got, _ = exec(h, s, rangePK, true, iv(18, 25)...)
	wantRows(t, "pk range past the end", got, "18", "19", "20")

	inK := sel("SELECT k, c FROM {T} WHERE k IN (?, ?)", table.Stmt{Index: 0, Match: table.In, InLen: 2, Cols: []int{1, 2}})
	got, _ = exec(h, s, inK, true, iv(1, 1)...)
	wantRows(t, "index IN, not covered", got, "1,c01", "1,c06", "1,c11", "1,c16")
	rangeK := sel("SELECT k FROM {T} WHERE k BETWEEN ? AND ?", table.Stmt{Index: 0, Match: table.Between, Cols: []int{1}})
	got, _ = exec(h, s, rangeK, true, iv(3, 4)...)
	wantRows(t, "index range, covered", got, "3", "3", "3", "3", "4", "4", "4", "4")

	sum := sel("SELECT SUM(k) FROM {T} WHERE id BETWEEN ? AND ?", table.Stmt{Index: -1, Match: table.Between, Agg: table.Sum, AggCol: 1})
	got, _ = exec(h, s, sum, false, iv(1, 10)...)
	wantRows(t, "SUM(k)", got, "20") // (1+2+3+4+0) × 2
	got, _ = exec(h, s, sum, false, iv(100, 200)...)
	wantRows(t, "SUM(k) of no rows", got, "0")
	count := sel("SELECT count(c) FROM {T} WHERE id BETWEEN ? AND ?", table.Stmt{Index: -1, Match: table.Between, Agg: table.Count, AggCol: 2})
	got, _ = exec(h, s, count, false, iv(5, 14)...)
	wantRows(t, "count(c)", got, "10")

	// Updates: c of two rows to one value, then ORDER BY and DISTINCT see it.
	updC := st.mk("UPDATE {T} SET c=? WHERE id IN (?, ?)", table.Stmt{Kind: table.Update, Index: -1, Match: table.In, InLen: 2, Set: []table.Assign{{Col: 2}}})
	if _, n := exec(h, s, updC, false, bv("c99"), table.Value{I: 1}, table.Value{I: 3}); n != 2 {
		t.Errorf("UPDATE ... IN: %d rows changed, want 2", n)
	}
	order := sel("SELECT c FROM {T} WHERE id BETWEEN ? AND ? ORDER BY c", table.Stmt{Index: -1, Match: table.Between, Cols: []int{2}, Agg: table.OrderBy, AggCol: 2})
	got, _ = exec(h, s, order, false, iv(1, 4)...)
	wantRows(t, "ORDER BY c", got, "c02", "c04", "c99", "c99")
	distinct := sel("SELECT DISTINCT c FROM {T} WHERE id BETWEEN ? AND ? ORDER BY c", table.Stmt{Index: -1, Match: table.Between, Cols: []int{2}, Agg: table.Distinct, AggCol: 2})
	got, _ = exec(h, s, distinct, false, iv(1, 4)...)
	wantRows(t, "DISTINCT c", got, "c02", "c04", "c99")

	// k=k+1 moves the row in the index.
	updK := st.mk("UPDATE {T} SET k=k+1 WHERE id=?", table.Stmt{Kind: table.Update, Index: -1, Match: table.Eq, Set: []table.Assign{{Col: 1, Add: 1}}})
	exec(h, s, updK, false, iv(5)...) // k 0 → 1
	got, _ = exec(h, s, inK, true, iv(0, 1)...)
	wantRows(t, "index after k=k+1", got, "0,c10", "0,c15", "0,c20", "1,c05", "1,c06", "1,c11", "1,c16", "1,c99")

	del := st.mk("DELETE FROM {T} WHERE id=?", table.Stmt{Kind: table.Delete, Index: -1, Match: table.Eq})
	if _, n := exec(h, s, del, false, iv(4)...); n != 1 {
		t.Errorf("delete: %d rows, want 1", n)
	}
	if _, n := exec(h, s, del, false, iv(4)...); n != 0 {
		t.Errorf("delete of a missing row: %d rows, want 0", n)
	}
	// The engine generates the key: one above the largest.
	auto := st.mk("", table.Stmt{Kind: table.InsertRow, Index: -1, AutoID: true})
	exec(h, s, auto, false, table.Value{I: 2}, bv("auto"))
	got, _ = exec(h, s, inPK, true, iv(21, 21, 21, 21)...)
	wantRows(t, "auto-increment key", got, "21,auto")
	if _, err := s.Exec(h.ctx, ins, []table.Value{{I: 5}, {I: 0}, bv("dup")}, table.NewRows(1, 1)); err == nil {
		t.Errorf("insert of an existing key succeeded")
	}

	// A rolled-back transaction leaves nothing; a committed one reads its own writes.
	if err := s.Begin(h.ctx); err != nil {
		t.Fatal(err)
	}
	exec(h, s, del, false, iv(2)...)
	exec(h, s, updC, false, bv("gone"), table.Value{I: 6}, table.Value{I: 7})
	if err := s.Rollback(h.ctx); err != nil {
		t.Fatal(err)
	}
	got, _ = exec(h, s, inPK, true, iv(2, 6, 7, 7)...)
	if perStatement(h) {
		// Each statement committed itself: the rollback had nothing to drop.
		wantRows(t, "after rollback in the per-statement mode", got, "6,gone", "7,gone")
	} else {
		wantRows(t, "after rollback", got, "2,c02", "6,c06", "7,c07")
	}
	if err := s.Begin(h.ctx); err != nil {
		t.Fatal(err)
	}
	exec(h, s, del, false, iv(2)...)
	exec(h, s, ins, false, table.Value{I: 2}, table.Value{I: 4}, bv("new"))
	exec(h, s, updK, false, iv(2)...) // reads the row the transaction inserted: k 4 → 5
	if err := s.Commit(h.ctx); err != nil {
		t.Fatal(err)
	}
	got, _ = exec(h, s, inPK, true, iv(2, 2, 2, 2)...)
	wantRows(t, "after commit", got, "2,new")
	got, _ = exec(h, s, rangeK, true, iv(5, 5)...)
	wantRows(t, "index after the transaction", got, "5")

	scan := sel("SELECT * FROM {T} WHERE LENGTH(c) < 0", table.Stmt{Index: -1, Match: table.All, Cols: []int{0, 1, 2}, Filter: true, FilterCol: 2})
	if n, err := s.Exec(h.ctx, scan, nil, table.NewRows(3, 1)); errors.Is(err, table.ErrUnsupported) {
		t.Logf("%s: refused: %v", scan.SQL, err)
	} else if err != nil || n != 0 {
		t.Errorf("LENGTH(c) < 0 returned %d rows, %v", n, err)
	}
	if rows, entries := h.count(s, tb, -1), h.count(s, tb, 0); rows != 20 || entries != 20 {
		t.Errorf("%d rows, %d index entries, want 20 and 20", rows, entries)
	}
	var conflict error = table.ErrConflict
	if !errors.Is(fmt.Errorf("wrapped: %w", conflict), table.ErrConflict) {
		t.Error("ErrConflict does not unwrap")
	}
}

// testStringKeys runs the statements YCSB issues on a table with a string primary key: batch
// inserts, point reads, IN lists, From scans (k >= ? ORDER BY k LIMIT ?), updates, deletes,
// and a secondary index whose entries carry the string key.
func testStringKeys(t *testing.T, h *harness) {
	tb := &table.Table{
		Name: "skeys",
		Columns: []table.Column{
			{Name: "ykey", Type: table.Bytes, NotNull: true, MaxLen: 64, Text: true},
			{Name: "f0", Type: table.Bytes, MaxLen: 16, Text: true},
			{Name: "n", Type: table.Int64},
		},
		Indexes: []table.Index{{Name: "n", Columns: []int{2}}},
	}
	h.createTable(tb, true)
	s := h.session()
	rows := table.NewRows(3, 12)
	for i := 1; i <= 12; i++ {
		row := rows.AppendRaw()
		row[0], row[1], row[2] = bv(fmt.Sprintf("user%02d", i)), bv(fmt.Sprintf("v%d", i)), table.Value{I: int64(i % 3)}
	}
	if err := s.Insert(h.ctx, tb, rows); err != nil {
		t.Fatal(err)
	}
	st := stmts{tb}
	sel := func(sql string, st2 table.Stmt) *table.Stmt { st2.Kind = table.Select; return st.mk(sql, st2) }
	read := sel("SELECT f0, n FROM {T} WHERE ykey = ?", table.Stmt{Index: -1, Match: table.Eq, Cols: []int{1, 2}})
	got, _ := exec(h, s, read, false, bv("user07"))
	wantRows(t, "point read", got, "v7,1")
	got, _ = exec(h, s, read, false, bv("user7"))
	wantRows(t, "point read of a missing key", got)
	in := sel("SELECT ykey, f0 FROM {T} WHERE ykey IN (?, ?, ?)", table.Stmt{Index: -1, Match: table.In, InLen: 3, Cols: []int{0, 1}})
	got, _ = exec(h, s, in, true, bv("user03"), bv("user01"), bv("user03"))
	wantRows(t, "IN list", got, "user01,v1", "user03,v3")
	scan := sel("SELECT ykey, f0 FROM {T} WHERE ykey >= ? ORDER BY ykey LIMIT ?", table.Stmt{Index: -1, Match: table.From, Cols: []int{0, 1}})
	got, _ = exec(h, s, scan, false, bv("user05"), table.Value{I: 3})
	wantRows(t, "scan of 3 from user05", got, "user05,v5", "user06,v6", "user07,v7")
	got, _ = exec(h, s, scan, false, bv("user055"), table.Value{I: 2})
	wantRows(t, "scan from between two keys", got, "user06,v6", "user07,v7")
	got, _ = exec(h, s, scan, false, bv("user11"), table.Value{I: 5})
	wantRows(t, "scan past the end", got, "user11,v11", "user12,v12")
	got, _ = exec(h, s, scan, false, bv("user01"), table.Value{I: 0})
	wantRows(t, "scan of 0 rows", got)
	between := sel("SELECT ykey FROM {T} WHERE ykey BETWEEN ? AND ?", table.Stmt{Index: -1, Match: table.Between, Cols: []int{0}})
	got, _ = exec(h, s, between, false, bv("user10"), bv("user12"))
	wantRows(t, "key range", got, "user10", "user11", "user12")
	byN := sel("SELECT ykey, f0 FROM {T} WHERE n = ?", table.Stmt{Index: 0, Match: table.Eq, Cols: []int{0, 1}})
	got, _ = exec(h, s, byN, true, table.Value{I: 0})
	wantRows(t, "secondary index to string keys", got, "user03,v3", "user06,v6", "user09,v9", "user12,v12")

	upd := st.mk("UPDATE {T} SET f0 = ? WHERE ykey = ?", table.Stmt{Kind: table.Update, Index: -1, Match: table.Eq, Set: []table.Assign{{Col: 1}}})
	if _, n := exec(h, s, upd, false, bv("new"), bv("user02")); n != 1 {
		t.Errorf("update: %d rows changed, want 1", n)
	}
	if err := s.Begin(h.ctx); err != nil {
		t.Fatal(err)
	}
	exec(h, s, upd, false, bv("txn"), bv("user04"))
	got, _ = exec(h, s, read, false, bv("user04"))
	wantRows(t, "a transaction reads its own update", got, "txn,1")
	if err := s.Commit(h.ctx); err != nil {
		t.Fatal(err)
	}
	ins := st.mk("INSERT INTO {T} (ykey, f0, n) VALUES (?, ?, ?)", table.Stmt{Kind: table.InsertRow, Index: -1})
	exec(h, s, ins, false, bv("user13"), bv("v13"), table.Value{I: 1})
	if _, err := s.Exec(h.ctx, ins, []table.Value{bv("user13"), bv("dup"), {I: 0}}, table.NewRows(1, 1)); err == nil {
		t.Errorf("insert of an existing string key succeeded")
	}
	del := st.mk("DELETE FROM {T} WHERE ykey = ?", table.Stmt{Kind: table.Delete, Index: -1, Match: table.Eq})
	if _, n := exec(h, s, del, false, bv("user06")); n != 1 {
		t.Errorf("delete: %d rows, want 1", n)
	}
	got, _ = exec(h, s, scan, false, bv("user01"), table.Value{I: 20})
	wantRows(t, "every row after the writes", got, "user01,v1", "user02,new", "user03,v3", "user04,txn", "user05,v5",
		"user07,v7", "user08,v8", "user09,v9", "user10,v10", "user11,v11", "user12,v12", "user13,v13")
	if rows, entries := h.count(s, tb, -1), h.count(s, tb, 0); rows != 12 || entries != 12 {
		t.Errorf("%d rows, %d index entries, want 12 and 12", rows, entries)
	}
}

// testCompositeKeys runs statements on a LinkBench-shaped table: a primary key of three columns
// (link_type, id1, id2), a covering index that holds key columns and a string, point reads and
// IN lists under a key prefix, prefix scans, an index range under a three-column prefix, and
// updates and deletes by the full key that move index entries.
func testCompositeKeys(t *testing.T, h *harness) {
	tb := &table.Table{
		Name:   "links",
		KeyLen: 3,
		Columns: []table.Column{
			{Name: "link_type", Type: table.Int64},
			{Name: "id1", Type: table.Int64},
			{Name: "id2", Type: table.Int64},
			{Name: "visibility", Type: table.Int32, NotNull: true},
			{Name: "data", Type: table.Bytes, MaxLen: 255, NotNull: true, Text: true},
			{Name: "time", Type: table.Int64, NotNull: true},
			{Name: "extra", Type: table.Int64},
		},
		Indexes: []table.Index{{Name: "id1_type", Columns: []int{1, 0, 3, 5, 2, 4}}},
	}
	h.createTable(tb, true)
	s := h.session()
	rows := table.NewRows(len(tb.Columns), 32)
	for id1 := int64(1); id1 <= 3; id1++ {
		for id2 := int64(1); id2 <= 5; id2++ {
			for lt := int64(1); lt <= 2; lt++ {
				row := rows.AppendRaw()
				row[0], row[1], row[2] = table.Value{I: lt}, table.Value{I: id1}, table.Value{I: id2 * 10}
				row[3], row[4] = table.Value{I: id2 % 2}, bv(fmt.Sprintf("d%d.%d.%d", lt, id1, id2))
				row[5], row[6] = table.Value{I: 100 + id2}, table.Value{I: id1 * id2}
			}
		}
	}
	if err := s.Insert(h.ctx, tb, rows); err != nil {
		t.Fatal(err)
	}
	st := stmts{tb}
	sel := func(sql string, st2 table.Stmt) *table.Stmt { st2.Kind = table.Select; return st.mk(sql, st2) }
	point := sel("SELECT data, extra FROM {T} WHERE link_type = ? AND id1 = ? AND id2 = ?", table.Stmt{Index: -1, Prefix: 2, Match: table.Eq, Cols: []int{4, 6}})
	got, _ := exec(h, s, point, false, iv(2, 3, 40)...)
	wantRows(t, "point read by the full key", got, "d2.3.4,12")
	multi := sel("SELECT id2, data FROM {T} WHERE link_type = ? AND id1 = ? AND id2 IN (?, ?, ?)", table.Stmt{Index: -1, Prefix: 2, Match: table.In, InLen: 3, Cols: []int{2, 4}})
	got, _ = exec(h, s, multi, true, iv(1, 2, 50, 10, 50)...)
	wantRows(t, "IN on the last key column", got, "10,d1.2.1", "50,d1.2.5")
	prefix := sel("SELECT id2 FROM {T} WHERE link_type = ? AND id1 = ?", table.Stmt{Index: -1, Prefix: 2, Match: table.All, Cols: []int{2}})
	got, _ = exec(h, s, prefix, true, iv(1, 3)...)
	wantRows(t, "every row of a key prefix", got, "10", "20", "30", "40", "50")
	window := sel("SELECT id2, time, data FROM {T} WHERE id1 = ? AND link_type = ? AND visibility = ? AND time BETWEEN ? AND ?",
		table.Stmt{Index: 0, Prefix: 3, Match: table.Between, Cols: []int{2, 5, 4}})
	got, _ = exec(h, s, window, true, iv(2, 1, 1, 101, 103)...)
	wantRows(t, "index range under a three-column prefix, covered", got, "10,101,d1.2.1", "30,103,d1.2.3")
	notCovered := sel("SELECT id2, extra FROM {T} WHERE id1 = ? AND link_type = ? AND visibility = ?",
		table.Stmt{Index: 0, Prefix: 3, Match: table.All, Cols: []int{2, 6}})
	got, _ = exec(h, s, notCovered, true, iv(3, 2, 0)...)
	wantRows(t, "index prefix, rows fetched by their composite keys", got, "20,6", "40,12")

	// LinkBench's link list: newest first, a page of it, visibility a literal.
	page := sel("SELECT id2, time FROM {T} WHERE id1 = ? AND link_type = ? AND time >= ? AND time <= ? AND visibility = 1 ORDER BY time DESC LIMIT ? OFFSET ?",
		table.Stmt{Index: 0, Prefix: 3, Consts: []table.Value{{I: 1}}, Match: table.Between, Desc: true, Limit: true, Cols: []int{2, 5}})
	got, _ = exec(h, s, page, false, iv(2, 1, 0, 1000, 10, 0)...)
	wantRows(t, "visible links, newest first", got, "50,105", "30,103", "10,101")
	got, _ = exec(h, s, page, false, iv(2, 1, 0, 104, 1, 1)...)
	wantRows(t, "the second page of one", got, "10,101")
	got, _ = exec(h, s, page, false, iv(2, 1, 0, 1000, 10, 5)...)
	wantRows(t, "a page past the end", got)
	lastIDs := sel("SELECT id2 FROM {T} WHERE link_type = ? AND id1 = ? ORDER BY id2 DESC LIMIT ? OFFSET ?",
		table.Stmt{Index: -1, Prefix: 2, Match: table.All, Desc: true, Limit: true, Cols: []int{2}})
	got, _ = exec(h, s, lastIDs, false, iv(1, 3, 2, 1)...)
	wantRows(t, "a key prefix backwards, from the second row", got, "40", "30")

	hide := st.mk("UPDATE {T} SET visibility = ? WHERE link_type = ? AND id1 = ? AND id2 = ?",
		table.Stmt{Kind: table.Update, Index: -1, Prefix: 2, Match: table.Eq, Set: []table.Assign{{Col: 3}}})
	if _, n := exec(h, s, hide, false, iv(0, 1, 2, 10)...); n != 1 {
		t.Errorf("update by the full key: %d rows, want 1", n)
	}
	got, _ = exec(h, s, window, true, iv(2, 1, 1, 101, 103)...)
	wantRows(t, "the updated row left the visible range", got, "30,103,d1.2.3")
	del := st.mk("DELETE FROM {T} WHERE link_type = ? AND id1 = ? AND id2 = ?", table.Stmt{Kind: table.Delete, Index: -1, Prefix: 2, Match: table.Eq})
	if _, n := exec(h, s, del, false, iv(2, 3, 40)...); n != 1 {
		t.Errorf("delete by the full key: %d rows, want 1", n)
	}
	got, _ = exec(h, s, point, false, iv(2, 3, 40)...)
	wantRows(t, "the deleted row", got)
	ins := st.mk("INSERT INTO {T} (link_type, id1, id2, visibility, data, time, extra) VALUES (?, ?, ?, ?, ?, ?, ?)", table.Stmt{Kind: table.InsertRow, Index: -1})
	if _, err := s.Exec(h.ctx, ins, []table.Value{{I: 1}, {I: 1}, {I: 10}, {I: 1}, bv("dup"), {I: 1}, {I: 1}}, table.NewRows(1, 1)); err == nil {
		t.Errorf("insert of an existing composite key succeeded")
	}
	exec(h, s, ins, false, table.Value{I: 2}, table.Value{I: 3}, table.Value{I: 40}, table.Value{I: 1}, bv("back"), table.Value{I: 104}, table.Value{I: 0})
	got, _ = exec(h, s, point, false, iv(2, 3, 40)...)
	wantRows(t, "the row inserted again", got, "back,0")
	if rows, entries := h.count(s, tb, -1), h.count(s, tb, 0); rows != 30 || entries != 30 {
		t.Errorf("%d rows, %d index entries, want 30 and 30", rows, entries)
	}
}

// testStoreReverse walks a KV store backwards: SeekLT before, between, on and after keys, and
// Prev down to the first key (engines of other families skip it).
func testStoreReverse(t *testing.T, h *harness) {
	e, ok := h.e.(interface{ Store() kv.Store })
	if !ok {
		t.Skipf("engine %s is not a KV store", h.e.Info().Name)
	}
	st := e.Store()
	b := st.NewBatch()
	defer b.Close()
	for _, k := range []string{"rev/b", "rev/d", "rev/f"} {
		if err := b.Set([]byte(k), []byte("v"+k)); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	it, err := st.NewIter([]byte("rev/"), []byte("rev0"))
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	at := func(ok bool) string {
		if !ok || string(it.Key()) < "rev/" {
			return "-"
		}
		return string(it.Key()) + "=" + string(it.Value())
	}
	for _, c := range []struct{ seek, want string }{
		{"rev/a", "-"}, {"rev/b", "-"}, {"rev/c", "rev/b=vrev/b"}, {"rev/d", "rev/b=vrev/b"},
		{"rev/e", "rev/d=vrev/d"}, {"rev0", "rev/f=vrev/f"},
	} {
		if got := at(it.SeekLT([]byte(c.seek))); got != c.want {
			t.Errorf("SeekLT(%s) = %s, want %s", c.seek, got, c.want)
		}
	}
	var walk []string
	for ok := it.SeekLT([]byte("rev0")); ok && string(it.Key()) >= "rev/"; ok = it.Prev() {
		walk = append(walk, string(it.Key()))
	}
	if strings.Join(walk, " ") != "rev/f rev/d rev/b" {
		t.Errorf("backward walk %v, want rev/f rev/d rev/b", walk)
	}
}

// testLinkWrites runs LinkBench's write path on every engine: a locking read by the whole key
// with the arguments in the reference's order (id1, id2, link_type), an insert that meets an
// existing key (table.ErrDuplicate, then a rollback), a count update with count = count + ?
// and version = version + 1, and node inserts that return their generated keys.
func testLinkWrites(t *testing.T, h *harness) {
	links := &table.Table{Name: "lw_link", KeyLen: 3, Columns: []table.Column{
		{Name: "link_type", Type: table.Int64}, {Name: "id1", Type: table.Int64}, {Name: "id2", Type: table.Int64},
		{Name: "visibility", Type: table.Int32, NotNull: true}, {Name: "data", Type: table.Bytes, MaxLen: 255, Text: true}}}
	counts := &table.Table{Name: "lw_count", KeyLen: 2, Columns: []table.Column{
		{Name: "id", Type: table.Int64}, {Name: "link_type", Type: table.Int64},
		{Name: "count", Type: table.Int32, NotNull: true}, {Name: "time", Type: table.Int64}, {Name: "version", Type: table.Int64}}}
	nodes := &table.Table{Name: "lw_node", Columns: []table.Column{
		{Name: "id", Type: table.Int64, NotNull: true, AutoIncrement: true}, {Name: "type", Type: table.Int32},
		{Name: "data", Type: table.Bytes, Text: true}}}
	for _, tb := range []*table.Table{links, counts, nodes} {
		h.createTable(tb, true)
	}
	s := h.session()
	insLink := stmts{links}.mk("INSERT INTO {T} (link_type, id1, id2, visibility, data) VALUES (?, ?, ?, ?, ?)", table.Stmt{Kind: table.InsertRow, Index: -1})
	exec(h, s, insLink, false, table.Value{I: 7}, table.Value{I: 1}, table.Value{I: 2}, table.Value{I: 1}, bv("a"))
	insCount := stmts{counts}.mk("INSERT INTO {T} (id, link_type, count, time, version) VALUES (?, ?, ?, ?, ?)", table.Stmt{Kind: table.InsertRow, Index: -1})
	exec(h, s, insCount, false, iv(1, 7, 1, 0, 0)...)

	forUpdate := stmts{links}.mk("SELECT visibility FROM {T} WHERE id1 = ? AND id2 = ? AND link_type = ? FOR UPDATE",
		table.Stmt{Kind: table.Select, Index: -1, Prefix: 2, Match: table.Eq, KeyOrder: []int{1, 2, 0}, ForUpdate: true, Cols: []int{3},
			Dialects: map[string]string{"sqlite": strings.ReplaceAll("SELECT visibility FROM {T} WHERE id1 = ? AND id2 = ? AND link_type = ?", "{T}", links.Name)}})
	incCount := stmts{counts}.mk("UPDATE {T} SET count = count + ?, version = version + 1, time = ? WHERE id = ? AND link_type = ?",
		table.Stmt{Kind: table.Update, Index: -1, Prefix: 1, Match: table.Eq, Set: []table.Assign{{Col: 2, AddArg: true}, {Col: 4, Add: 1}, {Col: 3}}})
	readCount := stmts{counts}.mk("SELECT count, version, time FROM {T} WHERE id = ? AND link_type = ?",
		table.Stmt{Kind: table.Select, Index: -1, Prefix: 1, Match: table.Eq, Cols: []int{2, 4, 3}})

	// addLink of an existing link: the insert fails as a duplicate, the transaction rolls back,
	// then the update path: lock, read, update, count.
	if err := s.Begin(h.ctx); err != nil {
		t.Fatal(err)
	}
	_, err := s.Exec(h.ctx, insLink, []table.Value{{I: 7}, {I: 1}, {I: 2}, {I: 0}, bv("b")}, table.NewRows(1, 1))
	if !errors.Is(err, table.ErrDuplicate) {
		t.Fatalf("insert of an existing link: %v, want table.ErrDuplicate", err)
	}
	if err := s.Rollback(h.ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Begin(h.ctx); err != nil {
		t.Fatal(err)
	}
	got, _ := exec(h, s, forUpdate, false, iv(1, 2, 7)...) // id1, id2, link_type
	wantRows(t, "locking read in the reference's argument order", got, "1")
	got, _ = exec(h, s, forUpdate, false, iv(1, 3, 7)...)
	wantRows(t, "locking read of a missing link", got)
	if _, n := exec(h, s, incCount, false, iv(-1, 555, 1, 7)...); n != 1 {
		t.Errorf("count update: %d rows, want 1", n)
	}
	if err := s.Commit(h.ctx); err != nil {
		t.Fatal(err)
	}
	got, _ = exec(h, s, readCount, false, iv(1, 7)...)
	wantRows(t, "count = count + ?, version = version + 1, time = ?", got, "0,1,555")

	// The count upsert of addLink: a new (id, link_type) is inserted, an existing one counted up.
	upsert := stmts{counts}.mk("INSERT INTO {T} (id, link_type, count, time, version) VALUES (?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE count = count + ?, version = version + 1, time = ?",
		table.Stmt{Kind: table.Upsert, Index: -1, Set: []table.Assign{{Col: 2, AddArg: true}, {Col: 4, Add: 1}, {Col: 3}},
			Dialects: map[string]string{
				"postgres": "INSERT INTO " + counts.Name + " (id, link_type, count, time, version) VALUES (?, ?, ?, ?, ?) ON CONFLICT ON CONSTRAINT " + counts.Name + "_pkey DO UPDATE SET count = " + counts.Name + ".count + ?, version = " + counts.Name + ".version + 1, time = ?",
				"sqlite":   "INSERT INTO " + counts.Name + " (id, link_type, count, time, version) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id, link_type) DO UPDATE SET count = count + ?, version = version + 1, time = ?"}})
	exec(h, s, upsert, false, iv(2, 7, 1, 10, 0, 1, 10)...)
	exec(h, s, upsert, false, iv(1, 7, 1, 20, 0, 1, 20)...)
	exec(h, s, upsert, false, iv(2, 7, 1, 30, 0, 1, 30)...)
	got, _ = exec(h, s, readCount, false, iv(2, 7)...)
	wantRows(t, "an upsert that inserted, then updated", got, "2,1,30")
	got, _ = exec(h, s, readCount, false, iv(1, 7)...)
	wantRows(t, "an upsert of an existing count", got, "1,2,20")

	// A locking read outside a transaction holds nothing afterwards: another session's
	// locking read of the same row does not wait.
	exec(h, s, forUpdate, false, iv(1, 2, 7)...)
	done := make(chan error, 1)
	go func() {
		s2, err := h.e.NewSession(h.ctx)
		if err == nil {
			_, err = s2.Exec(h.ctx, forUpdate, iv(1, 2, 7), table.NewRows(1, 1))
			s2.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a locking read outside a transaction left its row locked")
	}

	addNode := &table.Stmt{Table: nodes, Kind: table.InsertRow, Index: -1, AutoID: true, ReturnID: true}
	var ids []int64
	for i := 0; i < 3; i++ {
		out := table.NewRows(1, 1)
		if _, err := s.Exec(h.ctx, addNode, []table.Value{{I: 2048}, bv(fmt.Sprintf("node%d", i))}, out); err != nil {
			t.Fatal(err)
		}
		if out.N != 1 {
			t.Fatalf("node insert returned %d rows, want its key", out.N)
		}
		ids = append(ids, out.Row(0)[0].I)
	}
	if ids[0] < 1 || ids[1] != ids[0]+1 || ids[2] != ids[1]+1 {
		t.Errorf("generated node keys %v, want consecutive from 1 up", ids)
	}
	getNode := stmts{nodes}.mk("SELECT id, data FROM {T} WHERE id = ?", table.Stmt{Kind: table.Select, Index: -1, Match: table.Eq, Cols: []int{0, 2}})
	got, _ = exec(h, s, getNode, false, table.Value{I: ids[2]})
	wantRows(t, "the node under its returned key", got, fmt.Sprintf("%d,node2", ids[2]))

	// Nodes loaded with explicit keys: generated keys continue above them.
	loaded := table.NewRows(3, 2)
	for _, id := range []int64{100, 101} {
		row := loaded.AppendRaw()
		row[0], row[1], row[2] = table.Value{I: id}, table.Value{I: 2048}, bv("loaded")
	}
	if err := s.Insert(h.ctx, nodes, loaded); err != nil {
		t.Fatal(err)
	}
	s3 := h.session() // a new session, as a request phase opens its own
	out := table.NewRows(1, 1)
	if _, err := s3.Exec(h.ctx, addNode, []table.Value{{I: 2048}, bv("after")}, out); err != nil {
		t.Fatal(err)
	}
	if id := out.Row(0)[0].I; id <= 101 {
		t.Errorf("generated key %d after explicit keys up to 101", id)
	}

	// UPDATE ... WHERE id = ? AND type = ?: the type must match too.
	updNode := stmts{nodes}.mk("UPDATE {T} SET data = ? WHERE id = ? AND type = ?",
		table.Stmt{Kind: table.Update, Index: -1, Match: table.Eq, AlsoEq: []int{1}, Set: []table.Assign{{Col: 2}}})
	if _, n := exec(h, s, updNode, false, bv("x"), table.Value{I: 100}, table.Value{I: 7}); n != 0 {
		t.Errorf("update of a node of another type changed %d rows", n)
	}
	if _, n := exec(h, s, updNode, false, bv("new"), table.Value{I: 100}, table.Value{I: 2048}); n != 1 {
		t.Errorf("update of a node by id and type changed %d rows, want 1", n)
	}
	delNode := stmts{nodes}.mk("DELETE FROM {T} WHERE id = ? AND type = ?", table.Stmt{Kind: table.Delete, Index: -1, Match: table.Eq, AlsoEq: []int{1}})
	if _, n := exec(h, s, delNode, false, table.Value{I: 101}, table.Value{I: 9}); n != 0 {
		t.Errorf("delete of a node of another type deleted %d rows", n)
	}
	got, _ = exec(h, s, getNode, false, table.Value{I: 100})
	wantRows(t, "the node after its update", got, "100,new")

	// The reference's column order in an insert, a literal in an update, and IN under a prefix
	// given in the SQL's order (id1, link_type).
	insRef := stmts{links}.mk("INSERT INTO {T} (id1, id2, link_type, visibility, data) VALUES (?, ?, ?, ?, ?)",
		table.Stmt{Kind: table.InsertRow, Index: -1, InsertCols: []int{1, 2, 0, 3, 4}})
	exec(h, s, insRef, false, table.Value{I: 1}, table.Value{I: 5}, table.Value{I: 7}, table.Value{I: 1}, bv("e"))
	hideLink := stmts{links}.mk("UPDATE {T} SET visibility = 0 WHERE id1 = ? AND id2 = ? AND link_type = ?",
		table.Stmt{Kind: table.Update, Index: -1, Prefix: 2, Match: table.Eq, KeyOrder: []int{1, 2, 0}, Set: []table.Assign{{Col: 3, Const: true, Value: table.Value{I: 0}}}})
	if _, n := exec(h, s, hideLink, false, iv(1, 5, 7)...); n != 1 {
		t.Errorf("hide: %d rows, want 1", n)
	}
	multiget := stmts{links}.mk("SELECT id2, visibility, data FROM {T} WHERE id1 = ? AND link_type = ? AND id2 IN (?, ?, ?)",
		table.Stmt{Kind: table.Select, Index: -1, Prefix: 2, Match: table.In, InLen: 3, KeyOrder: []int{1, 0}, Cols: []int{2, 3, 4}})
	got, _ = exec(h, s, multiget, true, iv(1, 7, 5, 2, 9)...)
	wantRows(t, "multiget under (id1, link_type)", got, "2,1,a", "5,0,e")
}

// testCancelledStatement ends statements' contexts at moments spread over a round trip, before a
// statement starts or while it is in flight: the statement either completes with the right row
// or fails with the context's error, and the same session then runs the next statement, under
// another context, with the right result. This is how a step's time limit and an interrupt
// stop a worker, whose session outlives the contexts it runs statements with.
func testCancelledStatement(t *testing.T, h *harness) {
	tb := stmtTable("cancelled")
	h.createTable(tb, true)
	s := h.session()
	st := stmts{tb}
	st.fill(h, s, func(id int64) int64 { return id })
	pointC := st.mk("SELECT c FROM {T} WHERE id=?", table.Stmt{Kind: table.Select, Index: -1, Match: table.Eq, Cols: []int{2}})
	out := table.NewRows(1, 1)
	failed := 0
	for i := range 300 {
		id := int64(i%20 + 1)
		ctx, cancel := context.WithCancel(h.ctx)
		end := time.AfterFunc(time.Duration(i%30)*20*time.Microsecond, cancel)
		out.Reset(1)
		_, err := s.Exec(ctx, pointC, iv(id), out)
		end.Stop()
		cancel()
		switch {
		case err != nil && !errors.Is(err, context.Canceled):
			t.Fatalf("statement %d, its context cancelled: %v; want the context's error", i, err)
		case err != nil:
			failed++
		case out.N != 1 || strings.TrimRight(string(out.Row(0)[0].B), " ") != fmt.Sprintf("c%02d", id):
			t.Fatalf("statement %d completed under a cancelled context with %v, want c%02d", i, formatRows(tb, pointC.Cols, out, 0), id)
		}
		got, _ := exec(h, s, pointC, false, iv(21-id)...)
		wantRows(t, fmt.Sprintf("the statement after statement %d", i), got, fmt.Sprintf("c%02d", 21-id))
	}
	t.Logf("%d of 300 statements failed with the context's error", failed)
	updK := st.mk("UPDATE {T} SET k=k+1 WHERE id=?", table.Stmt{Kind: table.Update, Index: -1, Match: table.Eq, Set: []table.Assign{{Col: 1, Add: 1}}})
	if _, n := exec(h, s, updK, false, iv(7)...); n != 1 {
		t.Fatalf("update after the cancellations: %d rows changed, want 1", n)
	}
	pointK := st.mk("SELECT k FROM {T} WHERE id=?", table.Stmt{Kind: table.Select, Index: -1, Match: table.Eq, Cols: []int{1}})
	got, _ := exec(h, s, pointK, false, iv(7)...)
	wantRows(t, "k after the update", got, "8")
}
