package enginetest

import (
	"testing"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/table"
)

// testKeepTables: a table created and loaded by one engine instance is found again, with or
// without its indexes, by a new instance on the same data (an embedded engine reopened on its
// directory; a server engine through its catalog), and DropTable removes it and only it.
func testKeepTables(t *testing.T, h *harness) {
	spec, _ := engine.Lookup(h.name)
	if _, ok := h.e.(table.Keeper); !ok {
		t.Fatalf("engine %s stores data but does not implement table.Keeper (prepare, run --reuse)", h.name)
	}
	indexed, bare, other := newTable("kept"), newTable("kept_bare"), newTable("never")
	h.createTable(indexed, true)
	h.createTable(bare, false)
	s := h.session()
	m := model{}
	h.insert(s, indexed, m, rowFor, span(1, 50)...)
	h.insert(s, bare, model{}, rowFor, span(1, 20)...)
	k := h.e.(table.Keeper)
	if !spec.Server {
		// A new instance on the same directory.
		dir := h.dir
		if err := h.close(); err != nil {
			t.Fatal(err)
		}
		e, err := spec.Open(h.ctx, options(dir))
		if err != nil {
			t.Fatalf("reopen %s: %v", h.name, err)
		}
		h = &harness{t: t, name: h.name, e: e, ctx: h.ctx, dir: dir}
		t.Cleanup(func() {
			if err := h.close(); err != nil {
				t.Errorf("close %s: %v", h.name, err)
			}
		})
		k = e.(table.Keeper)
	}
	for _, c := range []struct {
		t               *table.Table
		exists, indexed bool
	}{{indexed, true, true}, {bare, true, false}, {other, false, false}} {
		ex, ix, err := k.AttachTable(h.ctx, c.t)
		if err != nil || ex != c.exists || ix != c.indexed {
			t.Errorf("AttachTable(%s) = %v, %v, %v; want %v, %v", c.t.Name, ex, ix, err, c.exists, c.indexed)
		}
	}
	s = h.session()
	h.checkCounts(s, indexed, m, true)
	if err := k.DropTable(h.ctx, indexed); err != nil {
		t.Fatal(err)
	}
	if err := k.DropTable(h.ctx, other); err != nil {
		t.Errorf("DropTable of a table that does not exist: %v", err)
	}
	if ex, _, err := k.AttachTable(h.ctx, indexed); err != nil || ex {
		t.Errorf("after DropTable: AttachTable(%s) = %v, %v", indexed.Name, ex, err)
	}
	if n := h.count(s, bare, -1); n != 20 {
		t.Errorf("DropTable(%s) changed %s: %d rows, want 20", indexed.Name, bare.Name, n)
	}
	// Dropped, the table can be created and loaded again.
	h.createTable(indexed, true)
	m2 := model{}
	h.insert(s, indexed, m2, rowFor, span(100, 5)...)
	h.checkCounts(s, indexed, m2, true)
}
