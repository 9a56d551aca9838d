// Package enginetest is the conformance suite: every engine registered in engine/all runs through
// the same table-model cases, each case on a fresh engine in its own data directory.
//
// The expected results come from a model of the table kept in the test (a map from primary key
// to row), so a case states what the table model promises, not what one engine happens to do.
package enginetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/engine"
	_ "github.com/rumbench/rumbench/internal/engine/all"
	"github.com/rumbench/rumbench/internal/table"
)

// testCase is one conformance case. Cases with stores set run only on engines whose
// Info().Stores is true; the others must pass on every engine, the null engine included.
type testCase struct {
	name   string
	stores bool
	run    func(t *testing.T, h *harness)
}

// cases is the suite, in the order it runs.
var cases = []testCase{
	{"Info", false, testInfo},
	{"RejectsUnknownOption", false, testRejectsUnknownOption},
	{"AcceptsEveryOperation", false, testAcceptsEveryOperation},
	{"CleanupAndSize", false, testCleanupAndSize},
	{"ConcurrentSessions", false, testConcurrentSessions},
	{"CreateTable", true, testCreateTable},
	{"OwnDDL", true, testOwnDDL},
	{"HostileNames", true, testHostileNames},
	{"InsertCount", true, testInsertCount},
	{"InsertLargeBatch", true, testInsertLargeBatch},
	{"CreateIndexesAfterLoad", true, testCreateIndexesAfterLoad},
	{"Get", true, testGet},
	{"Scan", true, testScan},
	{"DeleteOldest", true, testDeleteOldest},
	{"Statements", true, testStatements},
	{"CancelledStatement", true, testCancelledStatement},
	{"StringKeys", true, testStringKeys},
	{"CompositeKeys", true, testCompositeKeys},
	{"StoreReverse", true, testStoreReverse},
	{"LinkWrites", true, testLinkWrites},
	{"KeepTables", true, testKeepTables},
	{"Settle", true, testSettle},
	{"RawSQL", true, testRawSQL},
}

func TestConformance(t *testing.T) {
	names := engine.Names()
	if len(names) == 0 {
		t.Fatal("no engines registered")
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			if spec, _ := engine.Lookup(name); spec.Unavailable != "" {
				t.Skipf("engine %s: %s", name, spec.Unavailable)
			}
			t.Parallel()
			stores := probeStores(t, name)
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					if c.stores && !stores {
						t.Skipf("engine %s stores nothing", name)
					}
					c.run(t, openHarness(t, name))
				})
			}
		})
	}
}

// variants are engines run through the cases again with engine options of their own: client
// paths that the default options leave out.
var variants = []struct {
	name  string
	extra map[string]string
}{
	{"mysql", map[string]string{"insert": "text"}},
	{"mysql", map[string]string{"wire": "driver"}},
	{"postgres", map[string]string{"io": "netpoll"}},
	{"mongo", map[string]string{"io": "raw"}},
}

func TestConformanceVariants(t *testing.T) {
	for _, v := range variants {
		var opts []string
		for k, x := range v.extra {
			opts = append(opts, k+"="+x)
		}
		t.Run(v.name+","+strings.Join(opts, ","), func(t *testing.T) {
			spec, ok := engine.Lookup(v.name)
			if !ok {
				t.Skipf("engine %s is not registered", v.name)
			}
			if spec.Unavailable != "" {
				t.Skipf("engine %s: %s", v.name, spec.Unavailable)
			}
			t.Parallel()
			for _, c := range cases {
				if c.name == "RejectsUnknownOption" {
					continue
				}
				t.Run(c.name, func(t *testing.T) { c.run(t, openHarnessWith(t, v.name, v.extra)) })
			}
		})
	}
}

// options are the options every case opens its engine with.
func options(dir string) engine.Options {
	return engine.Options{Dir: dir, CacheBytes: 8 << 20, Sync: true}
}

// probeStores opens the engine once to read Info().Stores.
func probeStores(t *testing.T, name string) bool {
	t.Helper()
	h := openHarness(t, name)
	stores := h.e.Info().Stores
	if err := h.close(); err != nil {
		t.Fatal(err)
	}
	return stores
}

// harness is an open engine for one case and the sessions opened on it.
type harness struct {
	t        *testing.T
	name     string
	e        table.Engine
	ctx      context.Context
	sessions []table.Session
	closed   bool
	dir      string // the data directory
}

// openHarness opens the registered engine name in a fresh data directory; the engine and its
// sessions are closed when the test ends.
func openHarness(t *testing.T, name string) *harness {
	t.Helper()
	return openHarnessWith(t, name, nil)
}

// openHarnessWith is openHarness with the engine options extra.
func openHarnessWith(t *testing.T, name string, extra map[string]string) *harness {
	t.Helper()
	spec, ok := engine.Lookup(name)
	if !ok {
		t.Fatalf("engine %s is not registered", name)
	}
	ctx := t.Context()
	dir := serverDir(t)
	o := options(dir)
	o.Extra = extra
	e, err := spec.Open(ctx, o)
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	h := &harness{t: t, name: name, e: e, ctx: ctx, dir: dir}
	t.Cleanup(func() {
		if err := h.close(); err != nil {
			t.Errorf("close %s: %v", name, err)
		}
	})
	return h
}

// close closes the sessions, then the engine (the order table.Engine.Close requires).
func (h *harness) close() error {
	if h.closed {
		return nil
	}
	h.closed = true
	var errs []error
	for _, s := range h.sessions {
		errs = append(errs, s.Close())
	}
	errs = append(errs, h.e.Close())
	return errors.Join(errs...)
}

// stores reports whether the engine keeps data (read results can be checked).
func (h *harness) stores() bool { return h.e.Info().Stores }

// session opens a session closed with the engine.
func (h *harness) session() table.Session {
	h.t.Helper()
	s, err := h.e.NewSession(h.ctx)
	if err != nil {
		h.t.Fatalf("NewSession: %v", err)
	}
	h.sessions = append(h.sessions, s)
	return s
}

func (h *harness) createTable(tb *table.Table, withIndexes bool) {
	h.t.Helper()
	if err := h.e.CreateTable(h.ctx, tb, withIndexes); err != nil {
		h.t.Fatalf("CreateTable(%s, %v): %v", tb.Name, withIndexes, err)
	}
}

// newTable returns the small test table: an int64 primary key, an int64 column, a timestamp
// column, a nullable bytes column, and indexes (a) and (a, ts).
func newTable(name string) *table.Table {
	return &table.Table{
		Name: name,
		Columns: []table.Column{
			{Name: "id", Type: table.Int64, NotNull: true},
			{Name: "a", Type: table.Int64, NotNull: true},
			{Name: "ts", Type: table.Timestamp},
			{Name: "data", Type: table.Bytes, MaxLen: 64},
		},
		Indexes: []table.Index{
			{Name: "ia", Columns: []int{1}},
			{Name: "iats", Columns: []int{1, 2}},
		},
	}
}

// baseTS is the smallest timestamp the rows hold.
const baseTS = 1_700_000_000

// rowFor returns the row with primary key pk of a table made by newTable: a in [-3, 9] with
// repeats (negative values exercise the sign handling), ts in [baseTS, baseTS+10], and data that
// is NULL, empty, or holds 0x00 and 0xFF bytes.
func rowFor(pk int64) []table.Value {
	row := []table.Value{{I: pk}, {I: (pk*7%13+13)%13 - 3}, {I: baseTS + (pk*5%11+11)%11}, {}}
	switch m := (pk%10 + 10) % 10; m {
	case 3: // NULL
	case 7:
		row[3].B = []byte{}
	default:
		row[3].B = fmt.Appendf(nil, "d%d\x00\xff%s", pk, strings.Repeat("x", int(m)))
	}
	return row
}

// model is what a table should hold: primary key → row.
type model map[int64][]table.Value

// fill appends to rows the rows of the given keys, as produced by gen, and records them in m.
func (m model) fill(rows *table.Rows, gen func(int64) []table.Value, pks ...int64) {
	for _, pk := range pks {
		src := gen(pk)
		dst := rows.Append()
		copy(dst, src)
		m[pk] = src
	}
}

// span returns the keys from, from+1, ..., from+n-1.
func span(from int64, n int) []int64 {
	pks := make([]int64, n)
	for i := range pks {
		pks[i] = from + int64(i)
	}
	return pks
}

// insert inserts the rows of keys pks (built by gen) into tb in one call and records them in m.
func (h *harness) insert(s table.Session, tb *table.Table, m model, gen func(int64) []table.Value, pks ...int64) {
	h.t.Helper()
	rows := table.NewRows(len(tb.Columns), len(pks))
	m.fill(rows, gen, pks...)
	if err := s.Insert(h.ctx, tb, rows); err != nil {
		h.t.Fatalf("Insert %d rows into %s: %v", len(pks), tb.Name, err)
	}
}

// count returns Count(index).
func (h *harness) count(s table.Session, tb *table.Table, index int) int64 {
	h.t.Helper()
	n, err := s.Count(h.ctx, tb, index)
	if err != nil {
		h.t.Fatalf("Count(%s, %d): %v", tb.Name, index, err)
	}
	return n
}

// checkCounts checks that the table and each of its indexes hold one entry per row of m.
func (h *harness) checkCounts(s table.Session, tb *table.Table, m model, indexed bool) {
	h.t.Helper()
	if got := h.count(s, tb, -1); got != int64(len(m)) {
		h.t.Fatalf("Count(%s, -1) = %d, want %d rows", tb.Name, got, len(m))
	}
	if !indexed {
		return
	}
	for i, ix := range tb.Indexes {
		if got := h.count(s, tb, i); got != int64(len(m)) {
			h.t.Fatalf("Count(%s, %d) = %d entries in index %s, want %d (one per row)", tb.Name, i, got, ix.Name, len(m))
		}
	}
}

// formatRow renders the cells of a result row canonically: integers in decimal, bytes quoted,
// NULL as NULL (so nil and empty differ).
func formatRow(tb *table.Table, cols []int, row []table.Value) string {
	var b strings.Builder
	for i, c := range cols {
		if i > 0 {
			b.WriteString(" ")
		}
		switch {
		case tb.Columns[c].Type != table.Bytes:
			fmt.Fprint(&b, row[i].I)
		case row[i].B == nil:
			b.WriteString("NULL")
		default:
			fmt.Fprintf(&b, "%q", row[i].B)
		}
	}
	return b.String()
}

// formatRows renders rows [from, out.N) of out.
func formatRows(tb *table.Table, cols []int, out *table.Rows, from int) []string {
	var s []string
	for r := from; r < out.N; r++ {
		s = append(s, formatRow(tb, cols, out.Row(r)))
	}
	return s
}

// project returns the cells cols of a full row.
func project(row []table.Value, cols []int) []table.Value {
	p := make([]table.Value, len(cols))
	for i, c := range cols {
		p[i] = row[c]
	}
	return p
}

// diffLines describes the difference between two lists of rendered rows.
func diffLines(got, want []string) string {
	if slices.Equal(got, want) {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "got %d rows, want %d", len(got), len(want))
	for i := 0; i < max(len(got), len(want)); i++ {
		g, w := "-", "-"
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			fmt.Fprintf(&b, "\n  first difference at row %d: got [%s], want [%s]", i, g, w)
			break
		}
	}
	return b.String()
}
