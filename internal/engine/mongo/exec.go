package mongo

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/rumbench/rumbench/internal/table"
)

// plan is a statement as this engine runs it, worked out once per session.
type plan struct {
	ts *tstate
	// refused says why the statement has no MongoDB form here (nil: it runs).
	refused error
	// nset: assignment arguments before the key's (Update); nrow: row arguments (InsertRow,
	// Upsert); nmatch: the key match's arguments.
	nset, nrow, nmatch int
	// full: the prefix and an Eq or In value make a whole primary key.
	full bool
	// sortAsc and sortDesc order the matched rows: by _id, by the index, or by AggCol then _id.
	sortAsc, sortDesc bson.Raw
	hint              string
}

// compile works out st's plan, or why it is refused.
func (s *session) compile(st *table.Stmt) (*plan, error) {
	if err := st.Validate(); err != nil {
		return nil, err
	}
	ts, err := s.e.state(st.Table)
	if err != nil {
		return nil, err
	}
	t := st.Table
	p := &plan{ts: ts, sortAsc: ts.idAsc, sortDesc: ts.idDesc}
	for _, a := range st.Set {
		if a.TakesArg() {
			p.nset++
		}
	}
	switch st.Kind {
	case table.InsertRow, table.Upsert:
		p.nrow = st.Args() - p.nset
		if st.Kind == table.InsertRow {
			p.nset, p.nrow = 0, st.Args()
		}
		return p, nil
	}
	switch st.Match {
	case table.Eq:
		p.nmatch = 1
	case table.In:
		p.nmatch = st.InLen
	case table.Between, table.From:
		p.nmatch = 2
	}
	p.full = st.Index < 0 && st.Prefix == t.Keys()-1 && (st.Match == table.Eq || st.Match == table.In)
	if st.Index >= 0 {
		p.sortAsc, p.sortDesc, p.hint = ts.ixAsc[st.Index], ts.ixDesc[st.Index], ts.ixName[st.Index]
	}
	if st.Kind == table.Select && st.Agg == table.OrderBy {
		i, b := docStart(nil)
		b = appendInt32(b, ts.field[st.AggCol], 1)
		if ts.field[st.AggCol] != "_id" {
			b = appendInt32(b, "_id", 1)
		}
		p.sortAsc = bson.Raw(docEnd(b, i))
	}
	switch {
	case st.Filter:
		p.refused = fmt.Errorf("mongo: %q (a full scan filtering every row by a column's byte length) has no MongoDB form that both MongoDB and FerretDB run: %w", st.SQL, table.ErrUnsupported)
	case st.Index < 0 && ts.encoded && st.Match == table.In && !p.full:
		p.refused = fmt.Errorf("mongo: %q: IN on a leading part of a composite primary key is not mapped: %w", st.SQL, table.ErrUnsupported)
	}
	return p, nil
}

// argParts are a statement's arguments cut into their parts (split).
type argParts struct {
	// prefix is the key prefix's values, in key order, constants included; match the match's
	// values; also the AlsoEq values.
	prefix, match, also []table.Value
	// count and offset are LIMIT's (-1 and 0 without Limit).
	count, offset int64
}

// split cuts a statement's arguments into the key prefix (in key order, constants included),
// the match's values, the AlsoEq values and the LIMIT count and offset (-1, 0 without Limit).
func (s *session) split(st *table.Stmt, p *plan, args []table.Value) argParts {
	var prefix, match, also []table.Value
	var count, offset int64
	i := p.nset
	nk := st.Prefix - len(st.Consts)
	if st.KeyOrder != nil {
		n := nk
		if st.Match == table.Eq {
			n++
		}
		s.keyVals = append(s.keyVals[:0], make([]table.Value, n)...)
		for k := 0; k < n; k++ {
			s.keyVals[st.KeyOrder[k]] = args[i+k]
		}
		i += n
		prefix = s.keyVals[:st.Prefix]
		if st.Match == table.Eq {
			match = s.keyVals[st.Prefix : st.Prefix+1]
		} else {
			match = args[i : i+p.nmatch]
			i += p.nmatch
		}
	} else {
		s.keyVals = append(append(s.keyVals[:0], args[i:i+nk]...), st.Consts...)
		prefix = s.keyVals
		i += nk
		match = args[i : i+p.nmatch]
		i += p.nmatch
	}
	also = args[i : i+len(st.AlsoEq)]
	i += len(st.AlsoEq)
	count = -1
	if st.Limit {
		count, offset = args[i].I, args[i+1].I
	}
	return argParts{prefix: prefix, match: match, also: also, count: count, offset: offset}
}

// keyWith returns prefix followed by v, in s.row.
func (s *session) keyWith(prefix []table.Value, v table.Value) []table.Value {
	s.row = append(append(s.row[:0], prefix...), v)
	return s.row
}

// appendFilter appends the statement's filter document.
func (s *session) appendFilter(dst []byte, st *table.Stmt, p *plan, prefix, match, also []table.Value) []byte {
	ts := p.ts
	i, dst := docStart(dst)
	cols := st.KeyCols()
	switch {
	case st.Index >= 0 || (!ts.encoded && st.Prefix == 0):
		// Fields: the prefix by equality, then the match on the next field.
		for k, v := range prefix {
			dst = appendValue(dst, ts.field[cols[k]], &ts.t.Columns[cols[k]], v)
		}
		if st.Match != table.All {
			c := cols[st.Prefix]
			f, col := ts.field[c], &ts.t.Columns[c]
			switch st.Match {
			case table.Eq:
				dst = appendValue(dst, f, col, match[0])
			case table.In:
				var r, a int32
				r, dst = subStart(dst, f, false)
				a, dst = subStart(dst, "$in", true)
				for k, v := range match {
					dst = appendValue(dst, arrayKey(k), col, v)
				}
				dst = docEnd(docEnd(dst, a), r)
			case table.Between, table.From:
				var r int32
				r, dst = subStart(dst, f, false)
				dst = appendValue(dst, "$gte", col, match[0])
				if st.Match == table.Between {
					dst = appendValue(dst, "$lte", col, match[1])
				}
				dst = docEnd(dst, r)
			}
		}
	default:
		// An encoded _id: whole keys by equality, ranges between encodings.
		switch st.Match {
		case table.Eq:
			if p.full {
				dst = s.appendID(dst, "_id", ts, s.keyWith(prefix, match[0]), "")
				break
			}
			dst = s.appendIDRange(dst, ts, s.keyWith(prefix, match[0]), nil)
		case table.In:
			var r, a int32
			r, dst = subStart(dst, "_id", false)
			a, dst = subStart(dst, "$in", true)
			for k, v := range match {
				dst = s.appendID(dst, arrayKey(k), ts, s.keyWith(prefix, v), "")
			}
			dst = docEnd(docEnd(dst, a), r)
		case table.Between:
			s.lo = append(append(s.lo[:0], prefix...), match[0])
			dst = s.appendIDRange(dst, ts, s.lo, s.keyWith(prefix, match[1]))
		case table.All:
			if len(prefix) > 0 {
				dst = s.appendIDRange(dst, ts, prefix, nil)
			}
		case table.From:
			var r int32
			r, dst = subStart(dst, "_id", false)
			dst = s.appendID(dst, "$gte", ts, match[:1], "")
			dst = docEnd(dst, r)
		}
	}
	for k, c := range st.AlsoEq {
		dst = appendValue(dst, ts.field[c], &ts.t.Columns[c], also[k])
	}
	return docEnd(dst, i)
}

// appendIDRange appends _id: {$gte: lo, $lt: hi + "g"} for keys that start with the key
// values lo and (hi, or lo when hi is nil): "g" sorts after every hexadecimal digit, so the
// bound is above every longer key with that start.
func (s *session) appendIDRange(dst []byte, ts *tstate, lo, hi []table.Value) []byte {
	if hi == nil {
		hi = lo
	}
	var r int32
	r, dst = subStart(dst, "_id", false)
	dst = s.appendIDPart(dst, "$gte", ts, lo, "")
	dst = s.appendIDPart(dst, "$lt", ts, hi, "g")
	return docEnd(dst, r)
}

// appendIDPart is appendID for the leading len(vals) key columns.
func (s *session) appendIDPart(dst []byte, key string, ts *tstate, vals []table.Value, suffix string) []byte {
	s.enc = s.enc[:0]
	for i, v := range vals {
		s.enc = table.AppendValue(s.enc, ts.t.Columns[i].Type, v)
	}
	return appendHexID(dst, key, s.enc, suffix)
}

// appendUpdate appends the update document of st's assignments ($set and $inc), vals being
// the assigned arguments in order.
func appendUpdate(dst []byte, ts *tstate, st *table.Stmt, vals []table.Value) []byte {
	i, dst := docStart(dst)
	for _, inc := range [2]bool{false, true} {
		var op int32 = -1
		v := 0
		for _, a := range st.Set {
			isInc := a.Add != 0 || a.AddArg
			var val table.Value
			switch {
			case a.Const:
				val = a.Value
			case a.Add != 0:
				val = table.Value{I: a.Add}
			default:
				val = vals[v]
				v++
			}
			if isInc != inc {
				continue
			}
			if op < 0 {
				name := "$set"
				if inc {
					name = "$inc"
				}
				op, dst = subStart(dst, name, false)
			}
			dst = appendValue(dst, ts.field[a.Col], &ts.t.Columns[a.Col], val)
		}
		if op >= 0 {
			dst = docEnd(dst, op)
		}
	}
	return docEnd(dst, i)
}

// Exec implements table.Session; see docs/mongo.md for each statement form's command.
func (s *session) Exec(ctx context.Context, st *table.Stmt, args []table.Value, out *table.Rows) (int64, error) {
	s.pin()
	defer s.unpin()
	p, err := s.planOf(st)
	if err != nil {
		return 0, err
	}
	if len(args) != st.Args() {
		return 0, fmt.Errorf("mongo: statement on %s takes %d arguments, got %d", st.Table.Name, st.Args(), len(args))
	}
	if st.Kind != table.Select {
		if ctx, err = writeCtx(ctx); err != nil {
			return 0, err
		}
	}
	switch st.Kind {
	case table.InsertRow:
		return s.insertRow(ctx, st, p, args, out)
	case table.Upsert:
		return s.upsert(ctx, st, p, args)
	}
	a := s.split(st, p, args)
	if s.e.findEach && st.Kind == table.Select && st.Agg == table.NoAgg && p.full && st.Match == table.In && len(a.match) > 1 {
		return s.selectEach(ctx, st, p, a.prefix, a.match, a.also, out)
	}
	s.fbuf = s.appendFilter(s.fbuf[:0], st, p, a.prefix, a.match, a.also)
	filter := bson.Raw(s.fbuf)
	many := st.Match == table.In && len(a.match) > 1
	switch {
	case st.Kind == table.Update:
		return s.update(ctx, st, p, filter, args[:p.nset], many)
	case st.Kind == table.Delete:
		return s.delete(ctx, p.ts, filter, many)
	case st.Agg == table.Count:
		return s.count(ctx, st, p, filter, out)
	case st.Agg == table.Sum || st.Agg == table.Distinct:
		return s.aggregate(ctx, st, p, filter, out)
	}
	return s.find(ctx, st, p, filter, &a, out)
}

// planOf returns st's plan, worked out on its first run in the session, or why st does not run.
func (s *session) planOf(st *table.Stmt) (*plan, error) {
	p := s.plans[st]
	if p == nil {
		var err error
		if p, err = s.compile(st); err != nil {
			return nil, err
		}
		s.plans[st] = p
	}
	if p.refused != nil {
		return nil, p.refused
	}
	return p, nil
}

// update runs an Update of the rows filter matches (updateMany when many, else updateOne) with
// the assignments' values vals, and returns the rows matched.
func (s *session) update(ctx context.Context, st *table.Stmt, p *plan, filter bson.Raw, vals []table.Value, many bool) (int64, error) {
	ts := p.ts
	s.ubuf = appendUpdate(s.ubuf[:0], ts, st, vals)
	octx := s.octx(ctx)
	var res *mongo.UpdateResult
	var err error
	if many {
		res, err = ts.coll.UpdateMany(octx, filter, bson.Raw(s.ubuf))
	} else {
		res, err = ts.coll.UpdateOne(octx, filter, bson.Raw(s.ubuf))
	}
	if err != nil {
		return 0, s.fail(ctx, err)
	}
	return res.MatchedCount, nil
}

// delete runs a Delete of the rows filter matches (deleteMany when many, else deleteOne) and
// returns the rows deleted.
func (s *session) delete(ctx context.Context, ts *tstate, filter bson.Raw, many bool) (int64, error) {
	octx := s.octx(ctx)
	var res *mongo.DeleteResult
	var err error
	if many {
		res, err = ts.coll.DeleteMany(octx, filter)
	} else {
		res, err = ts.coll.DeleteOne(octx, filter)
	}
	if err != nil {
		return 0, s.fail(ctx, err)
	}
	return res.DeletedCount, nil
}

// count runs a COUNT(AggCol) of the rows filter (in s.fbuf) matches as a count command and
// appends its one row to out.
func (s *session) count(ctx context.Context, st *table.Stmt, p *plan, filter bson.Raw, out *table.Rows) (int64, error) {
	ts := p.ts
	if !ts.t.Columns[st.AggCol].NotNull {
		// COUNT(col) skips NULLs: {$and: [filter, {col: {$ne: null}}]}.
		i, b := docStart(s.pbuf[:0])
		var a, c, f int32
		a, b = subStart(b, "$and", true)
		b = bsoncore.AppendDocumentElement(b, "0", s.fbuf)
		c, b = subStart(b, "1", false)
		f, b = subStart(b, ts.field[st.AggCol], false)
		b = bsoncore.AppendNullElement(b, "$ne")
		s.pbuf = docEnd(docEnd(docEnd(docEnd(b, f), c), a), i)
		filter = bson.Raw(s.pbuf)
	}
	opts := options.Count()
	if p.hint != "" {
		opts.SetHint(p.hint)
	}
	n, err := ts.coll.CountDocuments(s.octx(ctx), filter, opts)
	if err != nil {
		return 0, s.fail(ctx, err)
	}
	out.Append()[0] = table.Value{I: n}
	return 1, nil
}

// find runs a Select of rows (NoAgg, OrderBy) as a find of the rows filter matches: projected
// on the statement's columns, sorted and limited as it says (a: its arguments' parts).
func (s *session) find(ctx context.Context, st *table.Stmt, p *plan, filter bson.Raw, a *argParts, out *table.Rows) (int64, error) {
	ts := p.ts
	opts := options.Find()
	if len(st.Cols) > 0 {
		s.pbuf = s.appendProjection(s.pbuf[:0], ts, st.Cols)
		opts.SetProjection(bson.Raw(s.pbuf))
	}
	if p.hint != "" {
		opts.SetHint(p.hint)
	}
	needSort := st.Match != table.Eq || !p.full
	if st.Desc {
		opts.SetSort(p.sortDesc)
	} else if needSort || st.Agg == table.OrderBy {
		opts.SetSort(p.sortAsc)
	}
	switch {
	case st.Match == table.From:
		if a.match[1].I <= 0 {
			return 0, nil
		}
		opts.SetLimit(a.match[1].I)
	case st.Limit:
		if a.count <= 0 {
			return 0, nil
		}
		opts.SetLimit(a.count)
		if a.offset > 0 {
			opts.SetSkip(a.offset)
		}
	case p.full && st.Match == table.Eq:
		opts.SetLimit(1)
	}
	cur, err := ts.coll.Find(s.octx(ctx), filter, opts)
	if err != nil {
		return 0, s.fail(ctx, err)
	}
	s.setPos(ts, st.Cols)
	n, err := s.readAll(ctx, ts, cur, st.Cols, out)
	return n, s.fail(ctx, err)
}

// selectEach runs a select of whole primary keys IN a list on FerretDB, which pushes an
// equality on _id down to its backend (an index lookup over PostgreSQL) but not an $in (one find
// of them all reads the whole collection): one find per distinct key, in key order (the order of
// the IN column's values, the prefix being fixed), so the rows come in key order as the $in
// find sorted them.
func (s *session) selectEach(ctx context.Context, st *table.Stmt, p *plan, prefix, match, also []table.Value, out *table.Rows) (int64, error) {
	ts := p.ts
	c := st.KeyCols()[st.Prefix]
	col := &ts.t.Columns[c]
	cmpVal := func(a, b table.Value) int {
		if col.Type == table.Bytes {
			return bytes.Compare(a.B, b.B)
		}
		return cmp.Compare(a.I, b.I)
	}
	s.inVals = append(s.inVals[:0], match...)
	slices.SortFunc(s.inVals, cmpVal)
	s.inVals = slices.CompactFunc(s.inVals, func(a, b table.Value) bool { return cmpVal(a, b) == 0 })
	opts := options.Find().SetLimit(1)
	if len(st.Cols) > 0 {
		s.pbuf = s.appendProjection(s.pbuf[:0], ts, st.Cols)
		opts.SetProjection(bson.Raw(s.pbuf))
	}
	var n int64
	for _, v := range s.inVals {
		i, f := docStart(s.fbuf[:0])
		if ts.encoded {
			f = s.appendID(f, "_id", ts, s.keyWith(prefix, v), "")
		} else {
			f = appendValue(f, ts.field[c], col, v)
		}
		for k, a := range st.AlsoEq {
			f = appendValue(f, ts.field[a], &ts.t.Columns[a], also[k])
		}
		s.fbuf = docEnd(f, i)
		cur, err := ts.coll.Find(s.octx(ctx), bson.Raw(s.fbuf), opts)
		if err != nil {
			return n, s.fail(ctx, err)
		}
		s.setPos(ts, st.Cols)
		m, err := s.readAll(ctx, ts, cur, st.Cols, out)
		n += m
		if err != nil {
			return n, s.fail(ctx, err)
		}
	}
	return n, nil
}

// aggregate runs SUM (a $group of the matched rows) or DISTINCT (a $group by the column,
// sorted) as an aggregation pipeline.
func (s *session) aggregate(ctx context.Context, st *table.Stmt, p *plan, filter bson.Raw, out *table.Rows) (int64, error) {
	ts := p.ts
	f := "$" + ts.field[st.AggCol]
	var pipe bson.A
	if st.Agg == table.Sum {
		pipe = bson.A{bson.D{{Key: "$match", Value: filter}},
			bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}, {Key: "s", Value: bson.D{{Key: "$sum", Value: f}}}}}}}
	} else {
		pipe = bson.A{bson.D{{Key: "$match", Value: filter}},
			bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: f}}}},
			bson.D{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}}}
	}
	opts := options.Aggregate()
	if p.hint != "" {
		opts.SetHint(p.hint)
	}
	cur, err := ts.coll.Aggregate(s.octx(ctx), pipe, opts)
	if err != nil {
		return 0, s.fail(ctx, err)
	}
	defer cur.Close(context.WithoutCancel(ctx))
	var n int64
	for cur.Next(ctx) {
		key := "s"
		if st.Agg == table.Distinct {
			key = "_id"
		}
		v, err := cur.Current.LookupErr(key)
		if err != nil {
			return n, fmt.Errorf("mongo: aggregate result: %w", err)
		}
		typ := ts.t.Columns[st.AggCol].Type
		if st.Agg == table.Sum {
			typ = table.Int64
		}
		val, err := decodeValue(rawValue(v), typ, out)
		if err != nil {
			return n, err
		}
		out.Append()[0] = val
		n++
	}
	if err := cur.Err(); err != nil {
		return n, s.fail(ctx, err)
	}
	if st.Agg == table.Sum && n == 0 {
		out.Append()[0] = table.Value{} // SUM over no rows: 0, as the other engines return
		n = 1
	}
	return n, nil
}

// rowArgs fills s.row with the row an InsertRow or Upsert gives (every column; the key left
// zero when AutoID).
func (s *session) rowArgs(st *table.Stmt, p *plan, args []table.Value) []table.Value {
	n := len(st.Table.Columns)
	s.row = append(s.row[:0], make([]table.Value, n)...)
	switch {
	case st.InsertCols != nil:
		for i, c := range st.InsertCols {
			s.row[c] = args[i]
		}
	case st.AutoID:
		copy(s.row[1:], args[:n-1])
	default:
		copy(s.row, args[:n])
	}
	return s.row
}

// insertRow runs an InsertRow: insertOne, with a generated key when AutoID (MongoDB has no
// auto-increment: the engine hands out the keys above the largest in the collection).
func (s *session) insertRow(ctx context.Context, st *table.Stmt, p *plan, args []table.Value, out *table.Rows) (int64, error) {
	ts := p.ts
	row := s.rowArgs(st, p, args)
	for attempt := 0; ; attempt++ {
		if st.AutoID {
			id, err := s.nextID(ctx, ts)
			if err != nil {
				return 0, err
			}
			row[0].I = id
		} else if ts.t.Columns[0].AutoIncrement {
			ts.observe(row[0].I)
		}
		s.dbuf = s.appendDoc(s.dbuf[:0], ts, row)
		_, err := ts.coll.InsertOne(s.octx(ctx), bson.Raw(s.dbuf))
		if err != nil && st.AutoID && !s.inTxn && attempt < 3 && mongo.IsDuplicateKeyError(err) {
			// Another client took the key: start again above the collection's largest.
			ts.autoMu.Lock()
			ts.autoInit = false
			ts.autoMu.Unlock()
			continue
		}
		if err != nil {
			return 0, s.fail(ctx, err)
		}
		break
	}
	if st.ReturnID {
		out.Append()[0] = table.Value{I: row[0].I}
	}
	return 1, nil
}

// nextID hands out the next key of an auto-increment table.
func (s *session) nextID(ctx context.Context, ts *tstate) (int64, error) {
	ts.autoMu.Lock()
	defer ts.autoMu.Unlock()
	if !ts.autoInit {
		opts := options.FindOne().SetSort(ts.idDesc).SetProjection(sortDoc(ts.field[0], 1))
		raw, err := ts.coll.FindOne(s.octx(ctx), emptyDoc, opts).Raw()
		switch {
		case errors.Is(err, mongo.ErrNoDocuments):
		case err != nil:
			return 0, s.fail(ctx, err)
		default:
			v, err := raw.LookupErr(ts.field[0])
			if err != nil {
				return 0, fmt.Errorf("mongo: largest key of %s: %w", ts.t.Name, err)
			}
			var tmp table.Rows
			val, err := decodeValue(rawValue(v), ts.t.Columns[0].Type, &tmp)
			if err != nil {
				return 0, err
			}
			ts.observe(val.I)
		}
		ts.autoInit = true
	}
	return ts.autoMax.Add(1), nil
}

// upsert runs an Upsert: updateOne of the row's key with the assignments, and insertOne of the
// row when no row matched (1 row affected for an insert, 2 for an update, as MySQL counts).
// A row inserted by another session between the two is updated instead.
func (s *session) upsert(ctx context.Context, st *table.Stmt, p *plan, args []table.Value) (int64, error) {
	ts := p.ts
	row := s.rowArgs(st, p, args)
	keys := ts.t.Keys()
	for attempt := 0; ; attempt++ {
		i, f := docStart(s.fbuf[:0])
		f = s.appendID(f, "_id", ts, row[:keys], "")
		s.fbuf = docEnd(f, i)
		s.ubuf = appendUpdate(s.ubuf[:0], ts, st, args[p.nrow:])
		res, err := ts.coll.UpdateOne(s.octx(ctx), bson.Raw(s.fbuf), bson.Raw(s.ubuf))
		if err != nil {
			return 0, s.fail(ctx, err)
		}
		if res.MatchedCount > 0 {
			return 2, nil
		}
		s.dbuf = s.appendDoc(s.dbuf[:0], ts, row)
		_, err = ts.coll.InsertOne(s.octx(ctx), bson.Raw(s.dbuf))
		if err != nil && mongo.IsDuplicateKeyError(err) && !s.inTxn && attempt < 3 {
			continue
		}
		if err != nil {
			return 0, s.fail(ctx, err)
		}
		return 1, nil
	}
}

// rawValue converts a driver value to a bsoncore one.
func rawValue(v bson.RawValue) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.Type(v.Type), Data: v.Value}
}
