package table

import (
	"strings"
	"testing"
)

func stmtTable() *Table {
	return &Table{Name: "t", Columns: []Column{{Name: "id", Type: Int32}, {Name: "k", Type: Int32}, {Name: "c", Type: Bytes}},
		Indexes: []Index{{Name: "k", Columns: []int{1}}}}
}

// Args counts the placeholders in SQL order: assigned values, then the key predicate's.
func TestStmtArgs(t *testing.T) {
	tb := stmtTable()
	for _, c := range []struct {
		st   Stmt
		want int
	}{
		{Stmt{Kind: Select, Index: -1, Match: Eq}, 1},
		{Stmt{Kind: Select, Index: 0, Match: In, InLen: 100}, 100},
		{Stmt{Kind: Select, Index: -1, Match: Between}, 2},
		{Stmt{Kind: Select, Index: -1, Match: All}, 0},
		{Stmt{Kind: Select, Index: -1, Match: From}, 2},
		{Stmt{Kind: Update, Index: -1, Match: Eq, Set: []Assign{{Col: 1, Add: 1}}}, 1},
		{Stmt{Kind: Update, Index: -1, Match: In, InLen: 3, Set: []Assign{{Col: 2}}}, 4},
		{Stmt{Kind: InsertRow, Index: -1}, 3},
		{Stmt{Kind: InsertRow, Index: -1, AutoID: true}, 2},
	} {
		c.st.Table = tb
		if got := c.st.Args(); got != c.want {
			t.Errorf("%+v: Args() = %d, want %d", c.st, got, c.want)
		}
	}
	if k := (&Stmt{Table: tb, Index: 0}).KeyCol(); k != 1 {
		t.Errorf("KeyCol of index k = %d, want 1", k)
	}
}

func TestStmtValidate(t *testing.T) {
	tb := stmtTable()
	for _, c := range []struct {
		st   Stmt
		want string // "" = valid
	}{
		{Stmt{Kind: Select, Index: -1, Match: Between, Cols: []int{2}, Agg: OrderBy, AggCol: 2}, ""},
		{Stmt{Kind: Select, Index: -1, Match: Between, Cols: []int{0}, Agg: OrderBy, AggCol: 2}, "ORDER BY a column"},
		{Stmt{Kind: Select, Index: -1, Match: Between, Cols: []int{0, 2}, Agg: Distinct, AggCol: 2}, "DISTINCT returns its own column"},
		{Stmt{Kind: Select, Index: 1, Match: Eq}, "no index 1"},
		{Stmt{Kind: Select, Index: -1, Match: In}, "IN with no values"},
		{Stmt{Kind: Select, Index: -1, Match: Eq, Cols: []int{3}}, "no column 3"},
		{Stmt{Kind: Update, Index: -1, Match: Eq, Set: []Assign{{Col: 0}}}, "updating the primary key"},
		{Stmt{Kind: Update, Index: 0, Match: Eq, Set: []Assign{{Col: 2}}}, "by primary key"},
		{Stmt{Kind: Delete, Index: -1, Match: Between}, "by primary key"},
		{Stmt{Kind: Select, Index: -1, Match: All, Cols: []int{0}, Filter: true, FilterCol: 2}, ""},
		{Stmt{Kind: Select, Index: -1, Match: From, Cols: []int{0, 2}}, ""},
		{Stmt{Kind: Select, Index: 0, Match: From, Cols: []int{0}}, "primary-key Select"},
		{Stmt{Kind: Select, Index: -1, Match: From, Agg: Count, AggCol: 2}, "primary-key Select"},
		{Stmt{Kind: Update, Index: -1, Match: From, Set: []Assign{{Col: 2}}}, "primary-key Select"},
	} {
		c.st.Table = tb
		err := c.st.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v, want valid", c.st, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: %v, want an error with %q", c.st, err, c.want)
		}
	}
	if err := (&Stmt{}).Validate(); err == nil {
		t.Error("a statement without a table is valid")
	}
}
