package enginetest

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/rumbench/rumbench/internal/table"
)

// Cases for engines that store data: results are checked against the model.

func testCreateTable(t *testing.T, h *harness) {
	with, without, noIndexes := newTable("with_ix"), newTable("without_ix"), newTable("no_ix")
	noIndexes.Indexes = nil
	h.createTable(with, true)
	h.createTable(without, false)
	h.createTable(noIndexes, true)
	for _, tb := range []*table.Table{with, without, noIndexes} {
		if err := h.e.CreateTable(h.ctx, tb, true); err == nil {
			t.Errorf("creating table %s a second time succeeded, want an error", tb.Name)
		}
	}
	if err := h.e.CreateIndexes(h.ctx, noIndexes); err != nil {
		t.Errorf("CreateIndexes on a table without indexes: %v", err)
	}

	bytesIndex := newTable("bad") // an index on a bytes column needs the column's MaxLen
	bytesIndex.Columns[3].MaxLen = 0
	bytesIndex.Indexes = append(bytesIndex.Indexes, table.Index{Name: "idata", Columns: []int{1, 3}})
	bytesPK := newTable("bad")
	bytesPK.Columns[0].Type = table.Bytes
	tsPK := newTable("bad")
	tsPK.Columns[0].Type = table.Timestamp
	for what, tb := range map[string]*table.Table{"bytes index column": bytesIndex, "bytes pk": bytesPK, "timestamp pk": tsPK} {
		if err := h.e.CreateTable(h.ctx, tb, true); err == nil {
			t.Errorf("CreateTable with a %s succeeded, want the Validate error", what)
		}
	}
	// A rejected table leaves nothing behind: the name can be used.
	bad := newTable("bad")
	h.createTable(bad, true)

	s := h.session()
	for _, tb := range []*table.Table{with, without, noIndexes, bad} {
		h.checkCounts(s, tb, model{}, tb != without)
	}
	m := model{}
	h.insert(s, with, m, rowFor, span(1, 5)...)
	h.checkCounts(s, with, m, true)
	h.checkCounts(s, bad, model{}, true) // tables are separate
}

func testInsertCount(t *testing.T, h *harness) {
	tb := newTable("ins")
	h.createTable(tb, true)
	s := h.session()
	m := model{}
	next := int64(-50) // negative keys too
	for _, n := range []int{1, 10, 250, 1000, 3, 2000} {
		h.insert(s, tb, m, rowFor, span(next, n)...)
		next += int64(n)
		h.checkCounts(s, tb, m, true)
	}
	checkAllRows(h, s, tb, m)
}

// wideTable has 7 columns, so one SQL statement holds at most 32766/7 = 4680 rows.
func wideTable(name string) *table.Table {
	return &table.Table{
		Name: name,
		Columns: []table.Column{
			{Name: "id", Type: table.Int64, NotNull: true},
			{Name: "a", Type: table.Int64, NotNull: true},
			{Name: "b", Type: table.Int64, NotNull: true},
			{Name: "c", Type: table.Int64, NotNull: true},
			{Name: "ts", Type: table.Timestamp},
			{Name: "d1", Type: table.Bytes, MaxLen: 100},
			{Name: "d2", Type: table.Bytes},
		},
		Indexes: []table.Index{
			{Name: "ia", Columns: []int{1}},
			{Name: "ibc", Columns: []int{2, 3, 4}},
		},
	}
}

func wideRow(pk int64) []table.Value {
	base := rowFor(pk)
	return []table.Value{{I: pk}, {I: pk % 17}, {I: pk % 5}, {I: -pk}, base[2], base[3], {B: fmt.Appendf(nil, "w%d", pk)}}
}

func testInsertLargeBatch(t *testing.T, h *harness) {
	const rows = 6000
	tb := wideTable("wide")
	if per := 32766 / len(tb.Columns); rows <= per {
		t.Fatalf("%d rows fit one statement of %d rows: the batch does not test the multi-statement path", rows, per)
	}
	h.createTable(tb, true)
	s := h.session()
	m := model{}
	h.insert(s, tb, m, wideRow, span(1, 10)...)
	h.insert(s, tb, m, wideRow, span(11, rows)...)
	h.checkCounts(s, tb, m, true)
	checkAllRows(h, s, tb, m)
	for ix := range tb.Indexes {
		checkScan(h, s, tb, m, ix, []table.Value{{I: math.MinInt64}}, true, rows+100)
	}
	// Column lists longer than 8 (with repeats), in two orders.
	pks := []int64{1, 4680, 4681, 4690, 4691, 6010, 6011}
	checkGet(h, s, tb, m, pks, []int{0, 1, 2, 3, 4, 5, 6, 0, 5})
	checkGet(h, s, tb, m, pks, []int{5, 0, 6, 5, 4, 3, 2, 1, 0})
}

func testCreateIndexesAfterLoad(t *testing.T, h *harness) {
	tb := newTable("later")
	h.createTable(tb, false)
	s := h.session()
	m := model{}
	// More rows than one CreateIndexes chunk of the KV family (1000).
	h.insert(s, tb, m, rowFor, span(1, 1200)...)
	h.insert(s, tb, m, rowFor, span(1201, 1301)...)
	h.checkCounts(s, tb, m, false)
	if err := h.e.CreateIndexes(h.ctx, tb); err != nil {
		t.Fatalf("CreateIndexes: %v", err)
	}
	h.checkCounts(s, tb, m, true)
	for ix := range tb.Indexes {
		checkScan(h, s, tb, m, ix, []table.Value{{I: math.MinInt64}}, true, 3000)
	}
	// Later inserts and deletes maintain the new indexes.
	h.insert(s, tb, m, rowFor, span(2502, 300)...)
	h.checkCounts(s, tb, m, true)
	deleteOldest(h, s, tb, m, 0, 100)
	h.checkCounts(s, tb, m, true)
	for ix := range tb.Indexes {
		checkScan(h, s, tb, m, ix, []table.Value{{I: -1}}, false, 3000)
	}
}

// checkAllRows reads every row of m back with all columns, 100 keys per Get.
func checkAllRows(h *harness, s table.Session, tb *table.Table, m model) {
	h.t.Helper()
	pks := make([]int64, 0, len(m))
	for pk := range m {
		pks = append(pks, pk)
	}
	slices.Sort(pks)
	all := make([]int, len(tb.Columns))
	for i := range all {
		all[i] = i
	}
	for i := 0; i < len(pks); i += 100 {
		checkGet(h, s, tb, m, pks[i:min(i+100, len(pks))], all)
	}
}

// checkGet runs Get and compares the rows found, as a multiset (the table model does not fix the
// order of Get's results), with the model.
func checkGet(h *harness, s table.Session, tb *table.Table, m model, pks []int64, cols []int) {
	h.t.Helper()
	out := table.NewRows(len(cols), 1)
	sentinel := out.Append() // Get appends: what out holds stays
	sentinel[0].I = 12345
	if err := s.Get(h.ctx, tb, pks, cols, out); err != nil {
		h.t.Fatalf("Get(%s, %d keys, cols %v): %v", tb.Name, len(pks), cols, err)
	}
	if out.Row(0)[0].I != 12345 {
		h.t.Fatalf("Get overwrote the rows already in out")
	}
	got := formatRows(tb, cols, out, 1)
	var want []string
	for _, pk := range pks {
		if row, ok := m[pk]; ok {
			want = append(want, formatRow(tb, cols, project(row, cols)))
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if d := diffLines(got, want); d != "" {
		h.t.Fatalf("Get(%s, keys %v, cols %v): %s", tb.Name, pks, cols, d)
	}
}

func testGet(t *testing.T, h *harness) {
	tb := newTable("getrows")
	h.createTable(tb, true)
	s := h.session()
	m := model{}
	h.insert(s, tb, m, rowFor, span(1, 100)...)
	h.insert(s, tb, m, rowFor, span(101, 100)...)

	// NULL and empty bytes: the table model keeps them apart (a nil B is SQL NULL).
	for _, pk := range []int64{3, 7} {
		out := table.NewRows(1, 1)
		if err := s.Get(h.ctx, tb, []int64{pk}, []int{3}, out); err != nil {
			t.Fatal(err)
		}
		if out.N != 1 {
			t.Fatalf("Get(%d) found %d rows, want 1", pk, out.N)
		}
		want := m[pk][3].B
		if got := out.Row(0)[0].B; (got == nil) != (want == nil) || len(got) != 0 {
			t.Errorf("Get(%d).data = %#v, want %#v (NULL and empty must round-trip apart)", pk, got, want)
		}
	}

	for _, tc := range []struct {
		pks  []int64
		cols []int
	}{
		{[]int64{5}, []int{0, 1, 2, 3}},
		{[]int64{999}, []int{0, 1, 2, 3}},                      // missing
		{[]int64{5, 999, 3, 7, -1, 150, 0, 200}, []int{0, 3}},  // found and missing mixed
		{[]int64{150, 5, 999, 3, 7, -1, 42, 200}, []int{3, 0}}, // same shape, columns reversed
		{[]int64{17, 27, 37, 13, 23, 33, 43, 53}, []int{2, 1}}, // no pk in the result
		{[]int64{17, 27, 37, 13, 23, 33, 43, 53}, []int{1, 2}}, // same shape, other order
		{[]int64{8, 9}, []int{3}},                              // only bytes
		{[]int64{8, 9}, []int{2}},                              // only the timestamp
		{span(1, 200), []int{0, 1, 2, 3}},                      // many keys
		{[]int64{1, 300, 2, 400}, []int{1, 3, 0, 2}},           // every column, scrambled
	} {
		checkGet(h, s, tb, m, tc.pks, tc.cols)
	}

	// Results do not alias engine memory: they survive later operations.
	out := table.NewRows(2, 4)
	if err := s.Get(h.ctx, tb, []int64{11, 12}, []int{0, 3}, out); err != nil {
		t.Fatal(err)
	}
	before := formatRows(tb, []int{0, 3}, out, 0)
	h.insert(s, tb, m, rowFor, span(201, 50)...)
	checkAllRows(h, s, tb, m)
	slices.Sort(before)
	after := formatRows(tb, []int{0, 3}, out, 0)
	slices.Sort(after)
	if d := diffLines(after, before); d != "" {
		t.Errorf("Get results changed after later operations: %s", d)
	}
}

// compareValues compares the leading len(start) cells of an index entry with start.
func compareValues(entry, start []table.Value) int {
	for i := range start {
		if c := cmp.Compare(entry[i].I, start[i].I); c != 0 {
			return c
		}
	}
	return 0
}

// expectScan returns the rows Scan should return, rendered: index entries in (columns, pk) order
// from the first whose leading columns are >= start (> start when not inclusive), at most limit.
func expectScan(tb *table.Table, m model, index int, start []table.Value, inclusive bool, limit int) []string {
	cols := tb.Indexes[index].Columns
	keyed := append(slices.Clone(cols), 0) // entries carry the pk last
	entries := make([][]table.Value, 0, len(m))
	for _, row := range m {
		entries = append(entries, project(row, keyed))
	}
	slices.SortFunc(entries, func(a, b []table.Value) int {
		for i := range a {
			if c := cmp.Compare(a[i].I, b[i].I); c != 0 {
				return c
			}
		}
		return 0
	})
	var want []string
	for _, e := range entries {
		if len(want) == limit {
			break
		}
		if c := compareValues(e, start); c > 0 || (c == 0 && inclusive) {
			want = append(want, formatRow(tb, cols, e))
		}
	}
	return want
}

// checkScan runs one Scan and compares its output, in order, with the model.
func checkScan(h *harness, s table.Session, tb *table.Table, m model, index int, start []table.Value, inclusive bool, limit int) {
	h.t.Helper()
	cols := tb.Indexes[index].Columns
	out := table.NewRows(len(cols), 16)
	if err := s.Scan(h.ctx, tb, index, start, inclusive, limit, out); err != nil {
		h.t.Fatalf("Scan(%s, index %d, start %v, inclusive %v, limit %d): %v", tb.Name, index, start, inclusive, limit, err)
	}
	if d := diffLines(formatRows(tb, cols, out, 0), expectScan(tb, m, index, start, inclusive, limit)); d != "" {
		h.t.Fatalf("Scan(%s, index %d, start %v, inclusive %v, limit %d): %s", tb.Name, index, start, inclusive, limit, d)
	}
}

func testScan(t *testing.T, h *harness) {
	tb := newTable("scan")
	h.createTable(tb, true)
	s := h.session()
	m := model{}
	h.insert(s, tb, m, rowFor, span(0, 150)...)
	h.insert(s, tb, m, rowFor, span(150, 150)...)

	v := func(xs ...int64) []table.Value {
		vs := make([]table.Value, len(xs))
		for i, x := range xs {
			vs[i] = table.Value{I: x}
		}
		return vs
	}
	oneCol := [][]table.Value{
		v(math.MinInt64), v(-1 << 40), v(-4), v(-3), v(-2), v(0), v(4), v(9), v(10), v(math.MaxInt64),
	}
	twoCol := [][]table.Value{
		v(-3, baseTS), v(-3, baseTS-1), v(0, baseTS+5), v(4, baseTS+10), v(4, baseTS+11), v(9, baseTS+10),
		v(9, math.MaxInt64), v(5, math.MinInt64), v(math.MinInt64, math.MaxInt64), v(math.MaxInt64, math.MinInt64),
	}
	limits := []int{1, 7, 40, 1000}
	for index := range tb.Indexes {
		starts := oneCol
		if len(tb.Indexes[index].Columns) > 1 {
			starts = append(slices.Clone(oneCol), twoCol...)
		}
		for _, start := range starts {
			for _, inclusive := range []bool{true, false} {
				for _, limit := range limits {
					checkScan(h, s, tb, m, index, start, inclusive, limit)
				}
			}
		}
	}

	// Spot checks of what the model-based comparison implies.
	out := table.NewRows(2, 8)
	if err := s.Scan(h.ctx, tb, 1, v(10), true, 10, out); err != nil || out.N != 0 {
		t.Errorf("Scan from beyond the last key returned %d rows, %v; want 0", out.N, err)
	}
	if err := s.Scan(h.ctx, tb, 1, v(-1<<40), true, 10, out); err != nil || out.N != 10 || out.Row(0)[0].I != -3 {
		t.Errorf("Scan from a start below every key returned %d rows, %v; want 10 from the first entry (a = -3)", out.N, err)
	}
	n := out.N
	if err := s.Scan(h.ctx, tb, 1, v(0), false, 5, out); err != nil || out.N != n+5 || out.Row(n)[0].I != 1 {
		t.Errorf("an exclusive Scan after a full one: %d rows, %v; want 5 more, appended, from a = 1", out.N-n, err)
	}
}

// deleteOldest runs DeleteOldest, checks its count against the model and applies it to the model.
func deleteOldest(h *harness, s table.Session, tb *table.Table, m model, from int64, n int) {
	h.t.Helper()
	var pks []int64
	for pk := range m {
		if pk >= from {
			pks = append(pks, pk)
		}
	}
	slices.Sort(pks)
	pks = pks[:min(n, len(pks))]
	got, err := s.DeleteOldest(h.ctx, tb, from, n)
	if err != nil {
		h.t.Fatalf("DeleteOldest(%s, %d, %d): %v", tb.Name, from, n, err)
	}
	if got != len(pks) {
		h.t.Fatalf("DeleteOldest(%s, %d, %d) = %d, want %d", tb.Name, from, n, got, len(pks))
	}
	for _, pk := range pks {
		delete(m, pk)
	}
}

func testDeleteOldest(t *testing.T, h *harness) {
	tb, plain := newTable("del"), newTable("del_plain")
	h.createTable(tb, true)
	h.createTable(plain, false)
	s := h.session()
	m, mp := model{}, model{}
	h.insert(s, tb, m, rowFor, span(1, 300)...)
	h.insert(s, plain, mp, rowFor, span(1, 300)...)

	for _, d := range []struct {
		from int64
		n    int
	}{
		{1, 50},    // the 50 oldest
		{200, 20},  // from the middle: rows below 200 stay
		{0, 0},     // nothing
		{290, 100}, // fewer rows than asked
		{1000, 5},  // none at or above from
		{-5, 3},    // from below the first key
		{math.MinInt64, 1},
	} {
		deleteOldest(h, s, tb, m, d.from, d.n)
		deleteOldest(h, s, plain, mp, d.from, d.n)
		h.checkCounts(s, tb, m, true)
		h.checkCounts(s, plain, mp, false)
	}
	if len(m) != 300-50-20-11-3-1 {
		t.Fatalf("the model holds %d rows; the case's arithmetic is off", len(m))
	}
	// Deleted keys are gone, the rest untouched, and no index keeps an entry of a deleted row.
	for _, pks := range [][]int64{span(1, 60), span(190, 40), span(285, 20)} {
		checkGet(h, s, tb, m, pks, []int{0, 1, 2, 3})
	}
	checkAllRows(h, s, tb, m)
	checkAllRows(h, s, plain, mp)
	for ix := range tb.Indexes {
		checkScan(h, s, tb, m, ix, []table.Value{{I: math.MinInt64}}, true, 1000)
	}
}

// ownDDL are statements that create newTable("ownddl") on each SQL engine in a way its derived
// DDL would not (a partitioned InnoDB table, a fill factor, a declared rowid), by engine name.
var ownDDL = map[string][]string{
	"sqlite": {"CREATE TABLE ownddl (id INTEGER PRIMARY KEY, a INTEGER NOT NULL, ts INTEGER, data BLOB)",
		"CREATE INDEX ownddl_ia ON ownddl (a)", "CREATE INDEX ownddl_iats ON ownddl (a, ts)"},
	"postgres": {"CREATE TABLE ownddl (id bigint NOT NULL PRIMARY KEY, a bigint NOT NULL, ts timestamp without time zone, data bytea) WITH (fillfactor = 70)",
		"CREATE INDEX ownddl_ia ON ownddl (a)", "CREATE INDEX ownddl_iats ON ownddl (a, ts)"},
	"mysql":   {"CREATE TABLE ownddl (id bigint NOT NULL, a bigint NOT NULL, ts datetime, data varbinary(64), PRIMARY KEY (id), KEY ownddl_ia (a), KEY ownddl_iats (a, ts)) ENGINE=InnoDB PARTITION BY KEY(id) PARTITIONS 4"},
	"myrocks": {"CREATE TABLE ownddl (id bigint NOT NULL, a bigint NOT NULL, ts datetime, data varbinary(64), PRIMARY KEY (id), KEY ownddl_ia (a), KEY ownddl_iats (a, ts)) ENGINE=ROCKSDB"},
}

// testOwnDDL: a table with its own DDL (table.Table.DDL) is created by those statements on a SQL
// engine, and every operation of the table model works on it as on the derived table; other
// engines ignore the DDL. A statement the server refuses fails CreateTable on a SQL engine,
// which shows the DDL ran.
func testOwnDDL(t *testing.T, h *harness) {
	name := h.e.Info().Name
	tb := newTable("ownddl")
	tb.DDL = ownDDL[name]
	if tb.DDL == nil {
		tb.DDL = []string{"CREATE TABLE ownddl (no SQL engine reads this"}
	}
	h.createTable(tb, true)
	s := h.session()
	m := model{}
	h.insert(s, tb, m, rowFor, span(1, 300)...)
	h.checkCounts(s, tb, m, true)
	checkGet(h, s, tb, m, []int64{3, 7, 8, 999}, []int{0, 1, 2, 3})
	bad := newTable("ownbad")
	bad.DDL = []string{"CREATE TABLE ownbad (id bigint NOT NULL PRIMARY KEY,, a bigint)"} // a syntax error on every server
	err := h.e.CreateTable(h.ctx, bad, true)
	if _, sql := ownDDL[name]; sql && err == nil {
		t.Errorf("CreateTable with a statement the server refuses succeeded: its DDL did not run")
	} else if !sql && err != nil {
		t.Errorf("CreateTable on an engine without SQL failed on the DDL it ignores: %v", err)
	}
}
