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
