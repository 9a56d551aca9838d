package sysbench

import (
	"fmt"
	"strings"

	"github.com/rumbench/rumbench/internal/table"
)

// Column positions of sbtest.
const (
	colID = iota
	colK
	colC
	colPad
)

// Lengths of the c and pad values: 10 and 5 groups of 11 digits joined by '-'.
const (
	cLen   = 10*12 - 1
	padLen = 5*12 - 1
)

// newTable returns sbtest<n> (n from 1): id INTEGER auto-increment primary key, k INTEGER,
// c CHAR(120), pad CHAR(60), and the secondary index k_<n> on k (created after the load).
func newTable(n int) *table.Table {
	return &table.Table{
		Name: fmt.Sprintf("sbtest%d", n),
		Columns: []table.Column{
			{Name: "id", Type: table.Int32, NotNull: true, AutoIncrement: true},
			{Name: "k", Type: table.Int32, NotNull: true},
			{Name: "c", Type: table.Bytes, NotNull: true, MaxLen: 120, Text: true, Fixed: true},
			{Name: "pad", Type: table.Bytes, NotNull: true, MaxLen: 60, Text: true, Fixed: true},
		},
		Indexes: []table.Index{{Name: fmt.Sprintf("k_%d", n), Columns: []int{colK}}},
	}
}

// stmts are the statements of one table.
type stmts struct {
	t *table.Table

	pointSelect   *table.Stmt
	inlist        map[int]*table.Stmt // SELECT c ... id IN (R ids), by R
	pointsPK      [2]*table.Stmt      // covered, notcovered: SELECT id[, c] ... id IN (100)
	pointsSI      [2]*table.Stmt      // SELECT k[, c] ... k IN (100)
	rangePK       [2]*table.Stmt      // SELECT id[, c] ... id BETWEEN
	rangeSI       [2]*table.Stmt      // SELECT k[, c] ... k BETWEEN
	scan          *table.Stmt
	simpleRange   *table.Stmt
	sumRange      *table.Stmt
	orderRange    *table.Stmt
	distinctRange *table.Stmt
	countRange    *table.Stmt
	updateIndex   *table.Stmt
	updateNonIdx  *table.Stmt
	updateInlist  *table.Stmt
	deleteRow     *table.Stmt
	insertRow     *table.Stmt // explicit id (write-only, read-write)
	insertAuto    *table.Stmt // generated id (insert)
}

// placeholders returns "?, ?, ..." with n marks.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// newStmts builds every statement on t. The SQL texts are the reference's (mysql flavour, '?'
// placeholders); the logical forms say the same for engines without SQL.
func newStmts(t *table.Table, prepared bool) *stmts {
	n := t.Name
	mk := func(s table.Stmt) *table.Stmt {
		s.Table, s.Unprepared = t, !prepared
		return &s
	}
	pk := func(sql string, m table.Match, inLen int, cols ...int) *table.Stmt {
		return mk(table.Stmt{SQL: sql, Kind: table.Select, Index: -1, Match: m, InLen: inLen, Cols: cols})
	}
	si := func(sql string, m table.Match, inLen int, cols ...int) *table.Stmt {
		return mk(table.Stmt{SQL: sql, Kind: table.Select, Index: 0, Match: m, InLen: inLen, Cols: cols})
	}
	s := &stmts{t: t, inlist: map[int]*table.Stmt{}}
	s.pointSelect = pk("SELECT c FROM "+n+" WHERE id=?", table.Eq, 0, colC)
	for _, r := range []int{10, 100, 1000} {
		s.inlist[r] = pk("SELECT c FROM "+n+" WHERE id IN ("+placeholders(r)+")", table.In, r, colC)
	}
	s.pointsPK[0] = pk("SELECT id FROM "+n+" WHERE id IN ("+placeholders(100)+")", table.In, 100, colID)
	s.pointsPK[1] = pk("SELECT id, c FROM "+n+" WHERE id IN ("+placeholders(100)+")", table.In, 100, colID, colC)
	s.pointsSI[0] = si("SELECT k FROM "+n+" WHERE k IN ("+placeholders(100)+")", table.In, 100, colK)
	s.pointsSI[1] = si("SELECT k, c FROM "+n+" WHERE k IN ("+placeholders(100)+")", table.In, 100, colK, colC)
	s.rangePK[0] = pk("SELECT id FROM "+n+" WHERE id BETWEEN ? AND ?", table.Between, 0, colID)
	s.rangePK[1] = pk("SELECT id, c FROM "+n+" WHERE id BETWEEN ? AND ?", table.Between, 0, colID, colC)
	s.rangeSI[0] = si("SELECT k FROM "+n+" WHERE k BETWEEN ? AND ?", table.Between, 0, colK)
	s.rangeSI[1] = si("SELECT k, c FROM "+n+" WHERE k BETWEEN ? AND ?", table.Between, 0, colK, colC)
	s.scan = mk(table.Stmt{SQL: "SELECT * FROM " + n + " WHERE LENGTH(c) < 0", Kind: table.Select, Index: -1, Match: table.All,
		Cols: []int{colID, colK, colC, colPad}, Filter: true, FilterCol: colC, FilterLenBelow: 0})
	s.simpleRange = pk("SELECT c FROM "+n+" WHERE id BETWEEN ? AND ?", table.Between, 0, colC)
	s.sumRange = mk(table.Stmt{SQL: "SELECT SUM(k) FROM " + n + " WHERE id BETWEEN ? AND ?", Kind: table.Select, Index: -1,
		Match: table.Between, Agg: table.Sum, AggCol: colK})
	s.orderRange = mk(table.Stmt{SQL: "SELECT c FROM " + n + " WHERE id BETWEEN ? AND ? ORDER BY c", Kind: table.Select, Index: -1,
		Match: table.Between, Cols: []int{colC}, Agg: table.OrderBy, AggCol: colC})
	s.distinctRange = mk(table.Stmt{SQL: "SELECT DISTINCT c FROM " + n + " WHERE id BETWEEN ? AND ? ORDER BY c", Kind: table.Select,
		Index: -1, Match: table.Between, Cols: []int{colC}, Agg: table.Distinct, AggCol: colC})
	s.countRange = mk(table.Stmt{SQL: "SELECT count(c) FROM " + n + " WHERE id BETWEEN ? AND ?", Kind: table.Select, Index: -1,
		Match: table.Between, Agg: table.Count, AggCol: colC})
	s.updateIndex = mk(table.Stmt{SQL: "UPDATE " + n + " SET k=k+1 WHERE id=?", Kind: table.Update, Index: -1, Match: table.Eq,
		Set: []table.Assign{{Col: colK, Add: 1}}})
	s.updateNonIdx = mk(table.Stmt{SQL: "UPDATE " + n + " SET c=? WHERE id=?", Kind: table.Update, Index: -1, Match: table.Eq,
		Set: []table.Assign{{Col: colC}}})
	s.updateInlist = mk(table.Stmt{SQL: "UPDATE " + n + " SET c=? WHERE id IN (" + placeholders(100) + ")", Kind: table.Update,
		Index: -1, Match: table.In, InLen: 100, Set: []table.Assign{{Col: colC}}})
	s.deleteRow = mk(table.Stmt{SQL: "DELETE FROM " + n + " WHERE id=?", Kind: table.Delete, Index: -1, Match: table.Eq})
	s.insertRow = mk(table.Stmt{SQL: "INSERT INTO " + n + " (id, k, c, pad) VALUES (?, ?, ?, ?)", Kind: table.InsertRow, Index: -1})
	s.insertAuto = mk(table.Stmt{Kind: table.InsertRow, Index: -1, AutoID: true})
	return s
}

// all returns every statement, for validation and for the statement table of the docs.
func (s *stmts) all() []*table.Stmt {
	out := []*table.Stmt{s.pointSelect, s.inlist[10], s.inlist[100], s.inlist[1000], s.pointsPK[0], s.pointsPK[1],
		s.pointsSI[0], s.pointsSI[1], s.rangePK[0], s.rangePK[1], s.rangeSI[0], s.rangeSI[1], s.scan, s.simpleRange,
		s.sumRange, s.orderRange, s.distinctRange, s.countRange, s.updateIndex, s.updateNonIdx, s.updateInlist,
		s.deleteRow, s.insertRow, s.insertAuto}
	return out
}
