package enginetest

import (
	"testing"

	"github.com/rumbench/rumbench/internal/table"
)

// testSettle checks table.Settler, which every storing engine implements: after inserts, Settle
// brings the engine's deferred work to disk without error, the rows stay as written, a second
// Settle with nothing new written succeeds too, and the debt is -1 or a byte count.
func testSettle(t *testing.T, h *harness) {
	st, ok := h.e.(table.Settler)
	if !ok {
		t.Fatalf("engine %s does not implement table.Settler", h.e.Info().Name)
	}
	tb := newTable("settled")
	h.createTable(tb, true)
	s := h.session()
	m := model{}
	h.insert(s, tb, m, rowFor, span(1, 500)...)
	for i := range 2 {
		r, err := st.Settle(h.ctx)
		if err != nil {
			t.Fatalf("Settle %d: %v", i+1, err)
		}
		if r.DebtBytes < -1 {
			t.Errorf("Settle %d: debt %d bytes, want -1 or a byte count", i+1, r.DebtBytes)
		}
		t.Logf("Settle %d: %q, debt %d", i+1, r.Did, r.DebtBytes)
		h.checkCounts(s, tb, m, true)
	}
	checkAllRows(h, s, tb, m)
}
