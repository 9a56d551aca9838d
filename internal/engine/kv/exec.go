package kv

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/rumbench/rumbench/internal/table"
)

var errTxnOpen = errors.New("kv: a transaction is already open")

// Exec implements table.Session: the logical form of st, computed in the adapter (aggregates
// included), as MyRocks computes SQL above RocksDB.
func (s *session) Exec(ctx context.Context, st *table.Stmt, args []table.Value, out *table.Rows) (int64, error) {
	t := st.Table
	ts, err := s.e.state(t)
	if err != nil {
		return 0, err
	}
	if !s.valid[st] {
		if err := st.Validate(); err != nil {
			return 0, err
		}
		if s.valid == nil {
			s.valid = map[*table.Stmt]bool{}
		}
		s.valid[st] = true
	}
	if len(args) != st.Args() {
		return 0, fmt.Errorf("kv: statement on %s takes %d arguments, got %d", t.Name, st.Args(), len(args))
	}
	if st.KeyOrder != nil {
		args = s.keyInOrder(st, args)
	}
	if st.Match == table.In {
		// SQL's IN is a set: each row matches once however often its key is listed.
		first := setArgs(st) + st.Prefix - len(st.Consts)
		s.inKeys = uniqueSorted(s.inKeys[:0], args[first:first+st.InLen], t.Columns[st.KeyCol()].Type == table.Bytes)
		s.inArgs = append(append(append(s.inArgs[:0], args[:first]...), s.inKeys...), args[first+st.InLen:]...)
		args = s.inArgs
	}
	switch st.Kind {
	case table.Select:
		n, err := s.selectRows(st, ts, args, out)
		if st.ForUpdate && !s.txn.open {
			s.endTxn() // the statement is its own transaction
		}
		return n, err
	case table.InsertRow:
		n, err := s.insertRow(t, ts, st, args, out)
		return n, s.finish(ctx, err)
	case table.Upsert:
		n, err := s.upsertRow(t, ts, st, args)
		return n, s.finish(ctx, err)
	}
	nset := setArgs(st) // assigned values come first in args
	var n int64
	prefix, rest := s.keyArgs(st, args[nset:])
	rest, s.also = rest[:len(rest)-len(st.AlsoEq)], rest[len(rest)-len(st.AlsoEq):]
	for _, last := range rest {
		pk := s.withPrefix(prefix, last)
		var hit bool
		if st.Kind == table.Update {
			hit, err = s.updateRow(t, ts, st, pk, args[:nset])
		} else {
			hit, err = s.deleteRow(t, ts, st, pk)
		}
		if err != nil {
			break
		}
		if hit {
			n++
		}
	}
	return n, s.finish(ctx, err)
}

// loadRow locks and reads the row whose primary key columns hold pk into s.row; found is false
// when it does not exist. String key columns must stay valid while s.row is used.
func (s *session) loadRow(t *table.Table, ts *tableState, pk []table.Value) (found bool, err error) {
	key := s.c.pkKey(t, ts.id, pk)
	if err := s.lock(key); err != nil {
		return false, err
	}
	val, found, err := s.readRow(key)
	if err != nil || !found {
		return false, err
	}
	row := s.rowBuf(len(t.Columns))
	copy(row, pk)
	return true, s.c.decodeValue(t, val, row)
}

func (s *session) setIndexes(t *table.Table, ts *tableState, row []table.Value, del bool) error {
	if !ts.indexed {
		return nil
	}
	for i := range t.Indexes {
		k := s.c.indexKey(t, ts.indexIDs[i], i, row)
		var err error
		if del {
			err = s.batch.Delete(k)
		} else {
			err = s.batch.Set(k, nil)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (s *session) putRow(t *table.Table, ts *tableState, row []table.Value) error {
	key, val := s.c.pkKey(t, ts.id, row[:t.Keys()]), s.c.encodeRow(t, row)
	if err := s.batch.Set(key, val); err != nil {
		return err
	}
	s.remember(key, val, false)
	return nil
}

// updateRow applies st's assignments to row pk (vals are the assigned values in order).
func (s *session) updateRow(t *table.Table, ts *tableState, st *table.Stmt, pk []table.Value, vals []table.Value) (bool, error) {
	found, err := s.loadRow(t, ts, pk)
	if err != nil || !found || !s.alsoMatches(st, s.row) {
		return false, err
	}
	return true, s.applySet(t, ts, st, s.row, vals)
}

// applySet applies st's assignments to row, a row read by loadRow (vals are the assigned
// values in order), and writes it with its index entries.
func (s *session) applySet(t *table.Table, ts *tableState, st *table.Stmt, row []table.Value, vals []table.Value) error {
	indexed := false
	for _, a := range st.Set {
		for _, ix := range t.Indexes {
			for _, c := range ix.Columns {
				indexed = indexed || c == a.Col
			}
		}
	}
	if indexed {
		if err := s.setIndexes(t, ts, row, true); err != nil {
			return err
		}
	}
	v := 0
	for _, a := range st.Set {
		switch {
		case a.Const:
			row[a.Col] = a.Value
		case a.Add != 0:
			row[a.Col].I += a.Add
		case a.AddArg:
			row[a.Col].I += vals[v].I
			v++
		default:
			row[a.Col] = vals[v]
			v++
		}
	}
	if indexed {
		if err := s.setIndexes(t, ts, row, false); err != nil {
			return err
		}
	}
	return s.putRow(t, ts, row)
}

// upsertRow inserts the row of st's arguments, or applies st's assignments to the row with its
// key: 1 row affected for an insert, 2 for an update (as MySQL counts them).
func (s *session) upsertRow(t *table.Table, ts *tableState, st *table.Stmt, args []table.Value) (int64, error) {
	nrow := len(args) - setArgs(st)
	row := s.rowBuf(len(t.Columns))
	if st.InsertCols != nil {
		for i, c := range st.InsertCols {
			row[c] = args[i]
		}
	} else {
		copy(row, args[:nrow])
	}
	found, err := s.loadRow(t, ts, row[:t.Keys()])
	if err != nil {
		return 0, err
	}
	if found {
		return 2, s.applySet(t, ts, st, s.row, args[nrow:])
	}
	if err := s.setIndexes(t, ts, row, false); err != nil {
		return 0, err
	}
	if t.Columns[0].AutoIncrement {
		ts.seq.observe(row[0].I)
	}
	return 1, s.putRow(t, ts, row)
}

// deleteRow deletes row pk (its key columns' values) and its index entries.
func (s *session) deleteRow(t *table.Table, ts *tableState, st *table.Stmt, pk []table.Value) (bool, error) {
	found, err := s.loadRow(t, ts, pk)
	if err != nil || !found || !s.alsoMatches(st, s.row) {
		return false, err
	}
	if err := s.setIndexes(t, ts, s.row, true); err != nil {
		return false, err
	}
	key := s.c.pkKey(t, ts.id, pk)
	if err := s.batch.Delete(key); err != nil {
		return false, err
	}
	s.remember(key, nil, true)
	return true, nil
}

// insertRow inserts one row; a key that exists is an error, as in SQL. With ReturnID the
// generated key is appended to out.
func (s *session) insertRow(t *table.Table, ts *tableState, st *table.Stmt, args []table.Value, out *table.Rows) (int64, error) {
	row := s.rowBuf(len(t.Columns))
	switch {
	case st.InsertCols != nil:
		for i, c := range st.InsertCols {
			row[c] = args[i]
		}
	case st.AutoID:
		copy(row[1:], args)
	default:
		copy(row, args)
	}
	if st.AutoID {
		id, err := s.nextID(t, ts)
		if err != nil {
			return 0, err
		}
		row[0] = table.Value{I: id}
	} else if t.Columns[0].AutoIncrement {
		ts.seq.observe(row[0].I)
	}
	found, err := s.loadRow(t, ts, row[:t.Keys()])
	if err != nil {
		return 0, err
	}
	if found {
		return 0, fmt.Errorf("kv: key %s in %s: %w", keyString(t, row[:t.Keys()]), t.Name, table.ErrDuplicate)
	}
	// loadRow decoded nothing into s.row when the key is absent, so row still holds the values.
	if err := s.setIndexes(t, ts, row, false); err != nil {
		return 0, err
	}
	if st.ReturnID {
		out.Append()[0].I = row[0].I
	}
	return 1, s.putRow(t, ts, row)
}

// selectState holds a session's reusable Select buffers.
type selectState struct {
	acc   int64
	order rowOrder
	// skip and left are the rows a Limit statement still skips and may still return (< 0: no
	// limit).
	skip, left int64
	lo, hi     []byte        // key bounds of a scan
	pks        []table.Value // primary keys an index walk found, to fetch (Keys() values each)
	arena      []byte        // the string key columns of pks
}

// selectRows runs a Select: it visits the matched rows in key order and emits their columns or
// their aggregate.
func (s *session) selectRows(st *table.Stmt, ts *tableState, args []table.Value, out *table.Rows) (int64, error) {
	t := st.Table
	base := out.N
	s.sel.acc = 0
	var err error
	prefix, rest := s.keyArgs(st, args)
	s.sel.skip, s.sel.left = 0, -1
	if st.Limit {
		s.sel.left, s.sel.skip = max(rest[len(rest)-2].I, 0), max(rest[len(rest)-1].I, 0)
		rest = rest[:len(rest)-2]
	}
	rest, s.also = rest[:len(rest)-len(st.AlsoEq)], rest[len(rest)-len(st.AlsoEq):]
	switch {
	case st.Index >= 0:
		err = s.indexMatch(st, ts, prefix, rest, out)
	case st.Match == table.All && st.Prefix == 0:
		err = s.scanRows(st, ts, ts.bounds[0].lower, ts.bounds[0].upper, out)
	case st.Match == table.All:
		lo := append(s.key[:0], s.c.pkKey(t, ts.id, prefix)...)
		s.key = lo
		s.sel.hi = table.PrefixEnd(s.sel.hi[:0], lo)
		err = s.scanRows(st, ts, lo, s.sel.hi, out)
	case st.Match == table.From:
		lo := append(s.key[:0], s.c.pkKey(t, ts.id, s.withPrefix(prefix, rest[0]))...)
		s.key = lo
		s.sel.left = max(rest[1].I, 0)
		err = s.scanRows(st, ts, lo, ts.bounds[0].upper, out)
	case st.Match == table.Between:
		lo := append(s.key[:0], s.c.pkKey(t, ts.id, s.withPrefix(prefix, rest[0]))...)
		s.key = lo
		s.sel.hi = table.PrefixEnd(s.sel.hi[:0], s.c.pkKey(t, ts.id, s.withPrefix(prefix, rest[1])))
		err = s.scanRows(st, ts, lo, s.sel.hi, out)
	default:
		for _, a := range rest {
			if err = s.getRow(st, ts, s.withPrefix(prefix, a), out); err != nil {
				break
			}
		}
	}
	if err != nil {
		return 0, err
	}
	switch st.Agg {
	case table.Count, table.Sum:
		out.Append()[0].I = s.sel.acc
		return 1, nil
	case table.OrderBy, table.Distinct:
		s.sortRows(st, out, base)
	}
	return int64(out.N - base), nil
}

// emit adds one matched row (its columns in s.row) to the result.
func (s *session) emit(st *table.Stmt, row []table.Value, out *table.Rows) {
	switch st.Agg {
	case table.Count:
		if st.Table.Columns[st.AggCol].Type != table.Bytes || row[st.AggCol].B != nil {
			s.sel.acc++
		}
		return
	case table.Sum:
		s.sel.acc += row[st.AggCol].I
		return
	}
	dst := out.Append()
	for i, c := range st.Cols {
		dst[i].I = row[c].I
		if row[c].B != nil {
			dst[i].B = out.CopyBytes(row[c].B)
		}
	}
}

// setArgs returns the number of arguments st's assignments take.
func setArgs(st *table.Stmt) int {
	n := 0
	for _, a := range st.Set {
		if a.TakesArg() {
			n++
		}
	}
	return n
}

// alsoMatches says whether row holds the values of st's AlsoEq columns (s.also).
func (s *session) alsoMatches(st *table.Stmt, row []table.Value) bool {
	for i, c := range st.AlsoEq {
		if row[c].I != s.also[i].I {
			return false
		}
	}
	return true
}

// keyInOrder returns args with st's key arguments moved from their SQL order (KeyOrder) into
// the key's column order, in a buffer of the session.
func (s *session) keyInOrder(st *table.Stmt, args []table.Value) []table.Value {
	nset := setArgs(st)
	s.ordered = append(s.ordered[:0], args...)
	for i, p := range st.KeyOrder {
		s.ordered[nset+p] = args[nset+i]
	}
	return s.ordered
}

// keyArgs splits the key arguments of st (those after the assigned values) into the prefix
// columns' values, Consts included, and the rest.
func (s *session) keyArgs(st *table.Stmt, args []table.Value) (prefix, rest []table.Value) {
	n := st.Prefix - len(st.Consts)
	if len(st.Consts) == 0 {
		return args[:n], args[n:]
	}
	s.prefix = append(append(s.prefix[:0], args[:n]...), st.Consts...)
	return s.prefix, args[n:]
}

// withPrefix returns the key values prefix followed by last, in a buffer of the session.
func (s *session) withPrefix(prefix []table.Value, last table.Value) []table.Value {
	s.keyVals = append(append(s.keyVals[:0], prefix...), last)
	return s.keyVals
}

// getRow emits the row whose primary key columns hold pk, if it exists; a ForUpdate statement
// locks it first.
func (s *session) getRow(st *table.Stmt, ts *tableState, pk []table.Value, out *table.Rows) error {
	t := st.Table
	key := s.c.pkKey(t, ts.id, pk)
	if st.ForUpdate {
		if err := s.lock(key); err != nil {
			return err
		}
	}
	val, found, err := s.readRow(key)
	if err != nil || !found {
		return err
	}
	row := s.rowBuf(len(t.Columns))
	copy(row, pk)
	if err := s.c.decodeValue(t, val, row); err != nil {
		return err
	}
	if !s.alsoMatches(st, row) {
		return nil
	}
	s.emit(st, row, out)
	return nil
}

// scanRows emits the rows with keys in [lo, hi) that pass st's filter, in key order (descending
// for Desc), skipping s.sel.skip of them and emitting at most s.sel.left (< 0: all).
func (s *session) scanRows(st *table.Stmt, ts *tableState, lo, hi []byte, out *table.Rows) error {
	t := st.Table
	it, err := s.e.store.NewIter(lo, hi)
	if err != nil {
		return err
	}
	row := s.rowBuf(len(t.Columns))
	for ok := s.first(it, lo, hi, st.Desc); ok; ok = s.step(it, lo, st.Desc) {
		if err := s.c.decodeRow(t, it.Key()[4:], it.Value(), row); err != nil {
			it.Close()
			return err
		}
		if st.Filter && len(row[st.FilterCol].B) >= st.FilterLenBelow {
			continue
		}
		keep, more := s.take()
		if keep {
			s.emit(st, row, out)
		}
		if !more {
			break
		}
	}
	return it.Close()
}

// first positions it on the first key of [lo, hi) in the walk's order and says whether there is
// one; step moves on. A descending walk checks the lower bound itself.
func (s *session) first(it Iter, lo, hi []byte, desc bool) bool {
	if s.sel.left == 0 {
		return false
	}
	if !desc {
		return it.SeekGE(lo)
	}
	return it.SeekLT(hi) && bytes.Compare(it.Key(), lo) >= 0
}

func (s *session) step(it Iter, lo []byte, desc bool) bool {
	if !desc {
		return it.Next()
	}
	return it.Prev() && bytes.Compare(it.Key(), lo) >= 0
}

// take counts one matched row against the statement's offset and limit: keep says whether to
// emit it, more whether to go on.
func (s *session) take() (keep, more bool) {
	if s.sel.skip > 0 {
		s.sel.skip--
		return false, true
	}
	if s.sel.left > 0 {
		s.sel.left--
	}
	return true, s.sel.left != 0
}

// indexMatch emits the rows whose secondary-index key matches st's predicate (the prefix values,
// then rest), from the index alone when it covers st.Cols, else fetching each row by its primary
// key once the index walk is over (no iterator stays open during the lookups: bbolt would hold two
// read transactions, which a writer waiting to remap its file would deadlock).
func (s *session) indexMatch(st *table.Stmt, ts *tableState, prefix, rest []table.Value, out *table.Rows) error {
	t := st.Table
	if !ts.indexed {
		return fmt.Errorf("kv: table %s has no secondary indexes yet", t.Name)
	}
	ix := &t.Indexes[st.Index]
	rg := ts.bounds[st.Index+1]
	k := t.Keys()
	inKey := func(c int) bool { return c < k || slices.Contains(ix.Columns, c) }
	covered := st.Agg == table.NoAgg || st.Agg == table.Count || st.Agg == table.Sum
	for _, c := range st.Cols {
		covered = covered && inKey(c)
	}
	if st.Agg != table.NoAgg {
		covered = covered && inKey(st.AggCol)
	}
	it, err := s.e.store.NewIter(rg.lower, rg.upper)
	if err != nil {
		return err
	}
	// s.key is the encoded prefix; bound appends one more column's value to it.
	s.key = append(s.key[:0], rg.lower...)
	for i, v := range prefix {
		s.key = table.AppendValue(s.key, t.Columns[ix.Columns[i]].Type, v)
	}
	bound := func(dst []byte, v table.Value) []byte {
		return table.AppendValue(append(dst[:0], s.key...), t.Columns[ix.Columns[st.Prefix]].Type, v)
	}
	walk := func(lo, hi []byte) error {
		row := s.rowBuf(len(t.Columns))
		for ok := s.first(it, lo, hi, st.Desc); ok && bytes.Compare(it.Key(), hi) < 0; ok = s.step(it, lo, st.Desc) {
			if err := s.c.decodeIndex(t, ix, it.Key()[4:], row); err != nil {
				return err
			}
			keep, more := s.take()
			switch {
			case !keep:
			case covered:
				s.emit(st, row, out)
			default:
				for _, v := range row[:k] {
					if v.B != nil {
						off := len(s.sel.arena)
						s.sel.arena = append(s.sel.arena, v.B...)
						v.B = s.sel.arena[off:len(s.sel.arena):len(s.sel.arena)]
					}
					s.sel.pks = append(s.sel.pks, v)
				}
			}
			if !more {
				break
			}
		}
		return nil
	}
	s.sel.pks, s.sel.arena = s.sel.pks[:0], s.sel.arena[:0]
	switch st.Match {
	case table.All:
		s.sel.hi = table.PrefixEnd(s.sel.hi[:0], s.key)
		err = walk(s.key, s.sel.hi)
	case table.Between:
		s.sel.lo = bound(s.sel.lo, rest[0])
		s.val = bound(s.val, rest[1])
		s.sel.hi = table.PrefixEnd(s.sel.hi[:0], s.val)
		err = walk(s.sel.lo, s.sel.hi)
	default:
		for _, a := range rest {
			s.sel.lo = bound(s.sel.lo, a)
			s.sel.hi = table.PrefixEnd(s.sel.hi[:0], s.sel.lo)
			if err = walk(s.sel.lo, s.sel.hi); err != nil {
				break
			}
		}
	}
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	for i := 0; i+k <= len(s.sel.pks) && err == nil; i += k {
		err = s.getRow(st, ts, s.sel.pks[i:i+k], out)
	}
	return err
}

// uniqueSorted appends the distinct values of vals to dst, in ascending order: integers, or byte
// strings when strs is true.
func uniqueSorted(dst, vals []table.Value, strs bool) []table.Value {
	dst = append(dst, vals...)
	compare := compareInts
	if strs {
		compare = compareStrings
	}
	slices.SortFunc(dst, compare)
	n := 0
	for i := range dst {
		if i == 0 || compare(dst[i], dst[n-1]) != 0 {
			dst[n] = dst[i]
			n++
		}
	}
	return dst[:n]
}

func compareInts(a, b table.Value) int    { return cmp.Compare(a.I, b.I) }
func compareStrings(a, b table.Value) int { return bytes.Compare(a.B, b.B) }

// keyString renders primary key pk of t (its columns' values) for an error message.
func keyString(t *table.Table, pk []table.Value) string {
	parts := make([]string, len(pk))
	for i, v := range pk {
		if t.Columns[i].Type == table.Bytes {
			parts[i] = fmt.Sprintf("%q", v.B)
		} else {
			parts[i] = fmt.Sprint(v.I)
		}
	}
	return strings.Join(parts, ",")
}

// rowOrder sorts a block's rows [from, N) by one of their cells.
type rowOrder struct {
	r     *table.Rows
	from  int
	col   int
	bytes bool
	tmp   []table.Value
}

func (o *rowOrder) Len() int { return o.r.N - o.from }
func (o *rowOrder) Less(i, j int) bool {
	a, b := o.r.Row(o.from + i)[o.col], o.r.Row(o.from + j)[o.col]
	if o.bytes {
		return bytes.Compare(a.B, b.B) < 0
	}
	return a.I < b.I
}
func (o *rowOrder) Swap(i, j int) {
	a, b := o.r.Row(o.from+i), o.r.Row(o.from+j)
	o.tmp = append(o.tmp[:0], a...)
	copy(a, b)
	copy(b, o.tmp)
}

// sortRows orders the result rows from base on by st.AggCol (which must be one of st.Cols), and
// for Distinct keeps the first of each run of equal values.
func (s *session) sortRows(st *table.Stmt, out *table.Rows, base int) {
	pos := -1
	for i, c := range st.Cols {
		if c == st.AggCol {
			pos = i
		}
	}
	if pos < 0 {
		return
	}
	o := &s.sel.order
	*o = rowOrder{r: out, from: base, col: pos, bytes: st.Table.Columns[st.AggCol].Type == table.Bytes, tmp: o.tmp}
	sort.Stable(o)
	if st.Agg != table.Distinct {
		return
	}
	n := base
	for i := base; i < out.N; i++ {
		if i > base && !o.Less(n-1-base, i-base) {
			continue // equal to the last kept value
		}
		if n != i {
			copy(out.Row(n), out.Row(i))
		}
		n++
	}
	out.N = n
	out.Vals = out.Vals[:n*out.Cols]
}
