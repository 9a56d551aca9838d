package table

import (
	"strings"
	"testing"
)

func validTable() *Table {
	return &Table{
		Name: "t",
		Columns: []Column{
			{Name: "id", Type: Int64, NotNull: true},
			{Name: "a", Type: Int64},
			{Name: "ts", Type: Timestamp},
			{Name: "data", Type: Bytes, MaxLen: 100},
		},
		Indexes: []Index{{Name: "a", Columns: []int{1}}, {Name: "a_ts", Columns: []int{1, 2}}},
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*Table)
		errHas string // "" means valid
	}{
		{"valid", func(*Table) {}, ""},
		{"no indexes", func(t *Table) { t.Indexes = nil }, ""},
		{"no name", func(t *Table) { t.Name = "" }, "no name"},
		{"no columns", func(t *Table) { t.Columns = nil }, "column 0"},
		{"bytes pk", func(t *Table) { t.Columns[0].Type, t.Columns[0].MaxLen = Bytes, 64 }, ""},
		{"bytes pk without a length", func(t *Table) { t.Columns[0].Type = Bytes }, "needs a MaxLen"},
		{"auto-increment bytes pk", func(t *Table) { t.Columns[0].Type, t.Columns[0].MaxLen, t.Columns[0].AutoIncrement = Bytes, 64, true }, "cannot be auto-increment"},
		{"timestamp pk", func(t *Table) { t.Columns[0].Type = Timestamp }, "column 0"},
		{"unnamed index", func(t *Table) { t.Indexes[0].Name = "" }, "name and columns"},
		{"index without columns", func(t *Table) { t.Indexes[1].Columns = nil }, "name and columns"},
		{"index on pk", func(t *Table) { t.Indexes[0].Columns = []int{0} }, "not a non-key column"},
		{"index column out of range", func(t *Table) { t.Indexes[1].Columns = []int{1, 4} }, "not a non-key column"},
		{"negative index column", func(t *Table) { t.Indexes[1].Columns = []int{-1} }, "not a non-key column"},
		{"bytes index column", func(t *Table) { t.Indexes[1].Columns = []int{1, 3} }, ""},
		{"unbounded bytes index column", func(t *Table) { t.Indexes[1].Columns = []int{1, 3}; t.Columns[3].MaxLen = 0 }, "needs the column's MaxLen"},
		{"composite key", func(t *Table) { t.KeyLen = 2; t.Indexes[1].Columns = []int{1, 0, 2} }, ""},
		{"composite key with a timestamp", func(t *Table) { t.KeyLen = 3 }, "column 2 must be"},
		{"auto-increment in a composite key", func(t *Table) { t.KeyLen = 2; t.Columns[0].AutoIncrement = true }, "only key column"},
		{"key longer than the table", func(t *Table) { t.KeyLen = 5 }, "KeyLen"},
		{"SQL in the table name", func(t *Table) { t.Name = "t1 (x int); CREATE TABLE pwned (y int); CREATE TABLE t" }, "character ' ' at 2"},
		{"SQL in a column name", func(t *Table) { t.Columns[1].Name = "a int, b" }, "column name"},
		{"operator in a column name", func(t *Table) { t.Columns[1].Name = "$where" }, "character '$' at 0"},
		{"dotted column name", func(t *Table) { t.Columns[1].Name = "a.b" }, "character '.' at 1"},
		{"quote in an index name", func(t *Table) { t.Indexes[0].Name = `a"` }, "index name"},
		{"SQL in an index's SQL name", func(t *Table) { t.Indexes[0].SQLName = "x ON t (a); DROP TABLE t; --" }, "index name"},
		{"reserved table name", func(t *Table) { t.Name = "Select" }, "reserved word"},
		{"leading digit", func(t *Table) { t.Name = "1t" }, "at 0"},
		{"name too long", func(t *Table) { t.Name = strings.Repeat("t", 64) }, "64 characters, more than 63"},
		{"index SQL name too long", func(t *Table) { t.Name = strings.Repeat("t", 62) }, "longer than 63"},
		{"duplicate column", func(t *Table) { t.Columns[2].Name = "A" }, "appears twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := validTable()
			tc.change(tb)
			err := tb.Validate()
			switch {
			case tc.errHas == "" && err != nil:
				t.Fatalf("Validate() = %v, want nil", err)
			case tc.errHas != "" && err == nil:
				t.Fatalf("Validate() = nil, want an error with %q", tc.errHas)
			case tc.errHas != "" && !strings.Contains(err.Error(), tc.errHas):
				t.Fatalf("Validate() = %v, want an error with %q", err, tc.errHas)
			}
		})
	}
}

func TestCheckIdent(t *testing.T) {
	for _, ok := range []string{"usertable", "field0", "_x", "sbtest1", "linktable", "id1_type", "YCSB_KEY", strings.Repeat("a", 63)} {
		if err := CheckIdent(ok); err != nil {
			t.Errorf("CheckIdent(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", "a b", "a;b", "a'b", "a\"b", "a`b", "a-b", "a/b", "a\x00", "é", "table", "ORDER", "key", strings.Repeat("a", 64)} {
		if err := CheckIdent(bad); err == nil {
			t.Errorf("CheckIdent(%q) = nil, want an error", bad)
		}
	}
	long := strings.Repeat("x", 5000)
	if err := CheckIdent(long); err == nil || len(err.Error()) > 300 {
		t.Errorf("CheckIdent of 5000 bytes = %v, want a short error", err)
	}
}

func TestIndexByName(t *testing.T) {
	tb := validTable()
	if got := tb.IndexByName("a_ts"); got != 1 {
		t.Errorf("IndexByName(a_ts) = %d, want 1", got)
	}
	if got := tb.IndexByName("nope"); got != -1 {
		t.Errorf("IndexByName(nope) = %d, want -1", got)
	}
}

func TestTypeString(t *testing.T) {
	for ty, want := range map[Type]string{Int64: "int64", Timestamp: "timestamp", Bytes: "bytes", 9: "type(9)"} {
		if got := ty.String(); got != want {
			t.Errorf("Type(%d).String() = %q, want %q", ty, got, want)
		}
	}
}
