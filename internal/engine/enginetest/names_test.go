package enginetest

import (
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/table"
)

// testHostileNames gives CreateTable names that would change an SQL statement or a MongoDB
// command if an engine wrote them in as they are: each must be refused (table.Validate), and
// nothing they name may exist afterwards, so tables of those names can then be created.
func testHostileNames(t *testing.T, h *harness) {
	hostile := map[string]func(*table.Table){
		"statements in the table name": func(tb *table.Table) {
			tb.Name = "t1 (x int); CREATE TABLE pwned (y int); CREATE TABLE t2"
		},
		"a column definition in a column name": func(tb *table.Table) { tb.Columns[1].Name = "a int); CREATE TABLE pwned2 (y int" },
		"a comment in a column name":           func(tb *table.Table) { tb.Columns[3].Name = "data -- " },
		"a quoted table name":                  func(tb *table.Table) { tb.Name = `"pwned3"` },
		"a MongoDB operator as a field":        func(tb *table.Table) { tb.Columns[1].Name = "$where" },
		"a dotted collection":                  func(tb *table.Table) { tb.Name = "system.pwned4" },
		"statements in an index's SQL name": func(tb *table.Table) {
			tb.Indexes[0].SQLName = "ia ON hostile (a); CREATE TABLE pwned5 (y int); CREATE INDEX ib"
		},
		"a reserved word": func(tb *table.Table) { tb.Name = "select" },
		"a NUL byte":      func(tb *table.Table) { tb.Name = "pwned6\x00" },
	}
	for what, change := range hostile {
		tb := newTable("hostile")
		change(tb)
		err := h.e.CreateTable(h.ctx, tb, true)
		if err == nil || !strings.Contains(err.Error(), "name") {
			t.Errorf("CreateTable with %s: %v, want the name refused", what, err)
		}
	}
	// Nothing was created: every name the hostile ones carried is free.
	for _, name := range []string{"hostile", "t1", "t2", "pwned", "pwned2", "pwned3", "pwned5", "pwned6"} {
		h.createTable(newTable(name), true)
	}
	s := h.session()
	h.checkCounts(s, newTable("pwned"), model{}, true)
}
