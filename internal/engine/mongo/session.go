package mongo

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/rumbench/rumbench/internal/netblock"
	"github.com/rumbench/rumbench/internal/table"
)

// session is one worker's: a driver session when transactions are used, and the buffers its
// commands are built in.
type session struct {
	e    *eng
	sess *mongo.Session // nil in the per-statement mode
	// open: Begin was called (in both modes); inTxn: a server transaction is running.
	open, inTxn bool
	// heldP: the session counts in netblock.HoldPs until it closes.
	heldP bool

	// wire is the own connection of insert commands (wire=own).
	wire ownConn
	// last is the state of the table of the last operation, valid while the engine's dropped
	// count is lastDropped (see state).
	last        *tstate
	lastDropped int64

	// Buffers of one command: filter, projection, update or sort, document, key encoding, a
	// whole insert command.
	fbuf, pbuf, ubuf, dbuf, enc, cbuf []byte
	// offs are the offsets of the insert command's documents in cbuf; cmdStart is the offset of
	// the command's length, cmdDocsEnd the end of its documents array.
	offs       []int
	cmdStart   int32
	cmdDocsEnd int
	docs       []bson.Raw
	// pos[c] is column c's position in the row being read, -1 when not read.
	pos []int
	// keyVals are a statement's key values in key order; row a key or row being built; lo a
	// range's low key.
	keyVals, row, lo []table.Value
	// inVals are an IN list's distinct values in key order, inPKs a Get's distinct keys
	// (FerretDB's one find per key).
	inVals []table.Value
	inPKs  []int64
	plans  map[*table.Stmt]*plan
}

// octx returns the context of a command: bound to the server transaction when one runs.
func (s *session) octx(ctx context.Context) context.Context {
	if s.inTxn {
		return mongo.NewSessionContext(ctx, s.sess)
	}
	return ctx
}

// conflict reports a write conflict or a transaction the server aborted (retryable).
func conflict(err error) bool {
	var se mongo.ServerError
	return errors.As(err, &se) && (se.HasErrorCode(112) || se.HasErrorLabel("TransientTransactionError"))
}

// fail turns a driver error into the table model's: ErrDuplicate (the transaction stays for the
// caller to roll back), ErrConflict (the transaction is rolled back), or the error itself.
func (s *session) fail(ctx context.Context, err error) error {
	switch {
	case err == nil:
		return nil
	case mongo.IsDuplicateKeyError(err):
		return fmt.Errorf("mongo: %w: %v", table.ErrDuplicate, err)
	case conflict(err):
		s.abort(ctx)
		return fmt.Errorf("mongo: %w: %v", table.ErrConflict, err)
	case ctx.Err() == nil && !mongo.IsTimeout(err) && !errors.Is(err, context.DeadlineExceeded) &&
		(mongo.IsNetworkError(err) || table.Lost(err) || shuttingDown(err)):
		// The driver's pool and the own connection open new connections by themselves.
		s.abort(ctx)
		return fmt.Errorf("mongo: %w: %w", table.ErrConnection, err)
	}
	return fmt.Errorf("mongo: %w", err)
}

// shuttingDown reports a server's error for an operation it cut short by its shutdown
// (InterruptedAtShutdown 11600, ShutdownInProgress 91) or could not serve before its start
// (NotWritablePrimary 10107, NotPrimaryNoSecondaryOk 13435).
func shuttingDown(err error) bool {
	var se mongo.ServerError
	return errors.As(err, &se) && (se.HasErrorCode(11600) || se.HasErrorCode(91) || se.HasErrorCode(10107) || se.HasErrorCode(13435))
}

// abort ends the server transaction, if any, dropping its writes.
func (s *session) abort(ctx context.Context) {
	if s.inTxn {
		_ = s.sess.AbortTransaction(context.WithoutCancel(ctx))
		s.inTxn = false
	}
	s.open = false
}

// writeCtx returns the context a write runs with: ctx's values without its cancellation, so
// that a write once sent completes and is counted (a cancelled write in the per-statement mode
// could leave part of its rows written); ctx's error when it is already done.
func writeCtx(ctx context.Context) (context.Context, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return context.WithoutCancel(ctx), nil
}

// own runs fn as one transaction when transactions are used and none is open (an Insert
// batch, a DeleteOldest); otherwise fn runs as it is (within the open transaction, or
// statement by statement).
func (s *session) own(ctx context.Context, fn func(ctx context.Context) error) error {
	ctx, err := writeCtx(ctx)
	if err != nil {
		return err
	}
	if s.sess == nil || s.open {
		return fn(ctx)
	}
	if err := s.Begin(ctx); err != nil {
		return err
	}
	if err := fn(ctx); err != nil {
		s.abort(ctx)
		return err
	}
	return s.Commit(ctx)
}

// Begin implements table.Session. In the per-statement mode it only marks the group.
func (s *session) Begin(ctx context.Context) error {
	if s.open {
		return errors.New("mongo: a transaction is already open")
	}
	s.open = true
	if s.sess != nil {
		if err := s.sess.StartTransaction(); err != nil {
			s.open = false
			return fmt.Errorf("mongo: start transaction: %w", err)
		}
		s.inTxn = true
	}
	return nil
}

// Commit implements table.Session.
func (s *session) Commit(ctx context.Context) error {
	s.pin()
	defer s.unpin()
	if !s.open {
		return errors.New("mongo: commit without a transaction")
	}
	s.open = false
	if !s.inTxn {
		return nil
	}
	s.inTxn = false
	wctx, err := writeCtx(ctx)
	if err != nil {
		_ = s.sess.AbortTransaction(context.WithoutCancel(ctx))
		return err
	}
	if err := s.sess.CommitTransaction(wctx); err != nil {
		if conflict(err) {
			_ = s.sess.AbortTransaction(context.WithoutCancel(ctx))
			return fmt.Errorf("mongo: %w: %v", table.ErrConflict, err)
		}
		return fmt.Errorf("mongo: commit: %w", err)
	}
	return nil
}

// Rollback implements table.Session. In the per-statement mode the statements have committed:
// there is nothing to drop.
func (s *session) Rollback(ctx context.Context) error {
	s.abort(ctx)
	return nil
}

// Close implements table.Session.
func (s *session) Close() error {
	s.wire.close()
	if s.sess != nil {
		s.abort(context.Background())
		s.sess.EndSession(context.Background())
	}
	if s.heldP {
		netblock.HoldPs(-1)
		s.heldP = false
	}
	return nil
}

// pin keeps the goroutine on its OS thread for an operation when the connections block the
// thread (io raw or blocking); unpin ends it.
func (s *session) pin() {
	if s.e.lock {
		runtime.LockOSThread()
	}
}

func (s *session) unpin() {
	if s.e.lock {
		runtime.UnlockOSThread()
	}
}

// appendID appends the _id element (under key) of the primary key pk, followed by suffix for
// an encoded key (a range bound).
func (s *session) appendID(dst []byte, key string, ts *tstate, pk []table.Value, suffix string) []byte {
	if !ts.encoded {
		return appendValue(dst, key, &ts.t.Columns[0], pk[0])
	}
	s.enc = s.enc[:0]
	for i, v := range pk {
		s.enc = table.AppendValue(s.enc, ts.t.Columns[i].Type, v)
	}
	return appendHexID(dst, key, s.enc, suffix)
}

// appendDoc appends row as a document: _id first, then every column but a native _id.
func (s *session) appendDoc(dst []byte, ts *tstate, row []table.Value) []byte {
	i, dst := docStart(dst)
	dst = s.appendID(dst, "_id", ts, row[:ts.t.Keys()], "")
	for c := range ts.t.Columns {
		if c == 0 && !ts.encoded {
			continue
		}
		dst = appendValue(dst, ts.field[c], &ts.t.Columns[c], row[c])
	}
	return docEnd(dst, i)
}

// setPos prepares readDoc for rows of the columns cols.
func (s *session) setPos(ts *tstate, cols []int) {
	n := len(ts.t.Columns)
	if cap(s.pos) < n {
		s.pos = make([]int, n)
	}
	s.pos = s.pos[:n]
	for i := range s.pos {
		s.pos[i] = -1
	}
	for j, c := range cols {
		s.pos[c] = j
	}
}

// appendProjection appends the projection of cols: their fields, and _id excluded unless read.
func (s *session) appendProjection(dst []byte, ts *tstate, cols []int) []byte {
	i, dst := docStart(dst)
	id := false
	for _, c := range cols {
		if ts.field[c] == "_id" {
			id = true
		}
		dst = appendInt32(dst, ts.field[c], 1)
	}
	if !id {
		dst = appendInt32(dst, "_id", 0)
	}
	return docEnd(dst, i)
}

// readDoc appends one row of the columns set by setPos (cols) from the document raw to out.
func (s *session) readDoc(ts *tstate, raw []byte, cols []int, out *table.Rows) error {
	row := out.Append()
	if len(raw) < 5 {
		return errors.New("mongo: short document")
	}
	for rest := raw[4 : len(raw)-1]; len(rest) > 0; {
		el, r, ok := bsoncore.ReadElement(rest)
		if !ok {
			return errors.New("mongo: malformed document")
		}
		rest = r
		c, ok := ts.byField[string(el.KeyBytes())]
		if !ok || s.pos[c] < 0 {
			continue
		}
		v, err := decodeValue(el.Value(), ts.t.Columns[c].Type, out)
		if err != nil {
			return err
		}
		row[s.pos[c]] = v
	}
	for j, c := range cols {
		if p := s.pos[c]; p != j {
			row[j] = row[p] // a column read twice
		}
	}
	return nil
}

// readAll reads every document of cur into out; it returns how many.
func (s *session) readAll(ctx context.Context, ts *tstate, cur *mongo.Cursor, cols []int, out *table.Rows) (int64, error) {
	defer cur.Close(context.WithoutCancel(ctx))
	var n int64
	for cur.Next(ctx) {
		if err := s.readDoc(ts, cur.Current, cols, out); err != nil {
			return n, err
		}
		n++
	}
	return n, cur.Err()
}

// Insert implements table.Session: one insert command of the rows (ordered), in one
// transaction when transactions are used. With wire=own, outside a transaction and where
// insertCmd would serve, the command goes as one OP_MSG on the session's own connection
// (insertOwn). Otherwise the command is built whole in a buffer the session reuses, the
// documents array appended from the rows, and run with RunCommand (see insertCmd); where
// InsertMany would send more than that command (see eng.insertLean), or the rows exceed the
// server's limits of one command, the same documents go through InsertMany.
func (s *session) Insert(ctx context.Context, t *table.Table, rows *table.Rows) error {
	if rows.N == 0 {
		return nil
	}
	s.pin()
	defer s.unpin()
	ts, err := s.state(t)
	if err != nil {
		return err
	}
	if t.Columns[0].AutoIncrement {
		var top int64
		for r := 0; r < rows.N; r++ {
			top = max(top, rows.Row(r)[0].I)
		}
		ts.observe(top)
	}
	// The own wire path serves what insertCmd serves outside a transaction (no driver session).
	if s.e.wireOwn && s.e.insertLean && s.sess == nil && rows.N <= s.e.maxBatch {
		if sent, err := s.insertOwn(ctx, ts, rows); sent {
			return err
		}
	}
	// {insert: <collection>, documents: [<rows>] (the tail is added by insertCmd).
	i, b := docStart(s.cbuf[:0])
	b = bsoncore.AppendStringElement(b, "insert", t.Name)
	var arr int32
	arr, b = subStart(b, "documents", true)
	s.offs = s.offs[:0]
	for r := 0; r < rows.N; r++ {
		b = bsoncore.AppendHeader(b, bsoncore.TypeEmbeddedDocument, arrayKey(r))
		s.offs = append(s.offs, len(b))
		b = s.appendDoc(b, ts, rows.Row(r))
	}
	s.offs = append(s.offs, len(b))
	b = docEnd(b, arr)
	s.cbuf, s.cmdStart, s.cmdDocsEnd = b, i, len(b)
	lean := rows.N <= s.e.maxBatch && len(b)+len(s.e.insertWC)+32 <= s.e.maxCmd
	return s.own(ctx, func(ctx context.Context) error {
		if lean && (s.inTxn || s.e.insertLean) {
			return s.insertCmd(ctx, rows.N)
		}
		s.docs = s.docs[:0]
		for r := 0; r < rows.N; r++ {
			// Each document ends where the next array element's header starts.
			end := s.offs[r+1]
			if r+1 < rows.N {
				end -= 2 + len(arrayKey(r+1))
			}
			s.docs = append(s.docs, bson.Raw(s.cbuf[s.offs[r]:end]))
		}
		_, err := ts.coll.InsertMany(s.octx(ctx), s.docs)
		return s.fail(ctx, err)
	})
}

// insertCmd completes the insert command Insert built in s.cbuf, as InsertMany sends it (its
// documents array in the command instead of a document sequence of the message): ordered:
// true and, outside a transaction, the client's write concern; the driver adds the session's
// fields (lsid; within a transaction txnNumber, autocommit, startTransaction and the
// transaction's read concern), $clusterTime and $db to every command alike. The reply is
// checked as InsertMany's: an error for ok: 0, a WriteException for writeErrors or a
// writeConcernError (RunCommand converts both), and n must be the number of documents.
func (s *session) insertCmd(ctx context.Context, n int) error {
	b := bsoncore.AppendBooleanElement(s.cbuf[:s.cmdDocsEnd], "ordered", true)
	if !s.inTxn && s.e.insertWC != nil {
		b = bsoncore.AppendDocumentElement(b, "writeConcern", s.e.insertWC)
	}
	s.cbuf = docEnd(b, s.cmdStart)
	res := s.e.db.RunCommand(s.octx(ctx), bson.Raw(s.cbuf))
	if err := res.Err(); err != nil {
		return s.fail(ctx, err)
	}
	reply, err := res.Raw()
	if err != nil {
		return s.fail(ctx, err)
	}
	v, err := bsoncore.Document(reply).LookupErr("n")
	got, ok := v.AsInt64OK()
	if err != nil || !ok || got != int64(n) {
		return fmt.Errorf("mongo: insert of %d documents: the server's reply %s does not count them (n)", n, reply)
	}
	return nil
}

// Get implements table.Session: a find by _id (one key) or _id $in (several).
func (s *session) Get(ctx context.Context, t *table.Table, pks []int64, cols []int, out *table.Rows) error {
	if len(pks) == 0 {
		return nil
	}
	s.pin()
	defer s.unpin()
	ts, err := s.state(t)
	if err != nil {
		return err
	}
	if t.Keys() != 1 || t.Columns[0].Type == table.Bytes {
		return fmt.Errorf("mongo: Get on %s: a single integer primary key is required", t.Name)
	}
	if len(pks) > 1 && s.e.findEach {
		return s.getEach(ctx, ts, pks, cols, out)
	}
	var one [1]table.Value
	i, f := docStart(s.fbuf[:0])
	if len(pks) == 1 {
		one[0].I = pks[0]
		f = s.appendID(f, "_id", ts, one[:], "")
	} else {
		var in, arr int32
		in, f = subStart(f, "_id", false)
		arr, f = subStart(f, "$in", true)
		for k, pk := range pks {
			one[0].I = pk
			f = s.appendID(f, arrayKey(k), ts, one[:], "")
		}
		f = docEnd(docEnd(f, arr), in)
	}
	s.fbuf = docEnd(f, i)
	s.pbuf = s.appendProjection(s.pbuf[:0], ts, cols)
	s.setPos(ts, cols)
	opts := options.Find().SetProjection(bson.Raw(s.pbuf))
	if len(pks) == 1 {
		opts.SetLimit(1)
	}
	cur, err := ts.coll.Find(s.octx(ctx), bson.Raw(s.fbuf), opts)
	if err != nil {
		return s.fail(ctx, err)
	}
	_, err = s.readAll(ctx, ts, cur, cols, out)
	return s.fail(ctx, err)
}

// getEach is Get of several keys on FerretDB: one find per distinct key, in key order.
func (s *session) getEach(ctx context.Context, ts *tstate, pks []int64, cols []int, out *table.Rows) error {
	s.inPKs = append(s.inPKs[:0], pks...)
	slices.Sort(s.inPKs)
	s.inPKs = slices.Compact(s.inPKs)
	s.pbuf = s.appendProjection(s.pbuf[:0], ts, cols)
	opts := options.Find().SetProjection(bson.Raw(s.pbuf)).SetLimit(1)
	var one [1]table.Value
	for _, pk := range s.inPKs {
		one[0].I = pk
		i, f := docStart(s.fbuf[:0])
		s.fbuf = docEnd(s.appendID(f, "_id", ts, one[:], ""), i)
		cur, err := ts.coll.Find(s.octx(ctx), bson.Raw(s.fbuf), opts)
		if err != nil {
			return s.fail(ctx, err)
		}
		s.setPos(ts, cols)
		if _, err := s.readAll(ctx, ts, cur, cols, out); err != nil {
			return s.fail(ctx, err)
		}
	}
	return nil
}

// appendTupleFrom appends a filter matching the rows whose fields (fields of cols, in order)
// compare as a tuple >= vals (> vals when !inclusive): an $or of prefix equalities and one
// range each, which MongoDB's planner bounds on an index of those fields.
func (s *session) appendTupleFrom(dst []byte, ts *tstate, cols []int, vals []table.Value, inclusive bool) []byte {
	cmp := func(last bool) string {
		if last && inclusive {
			return "$gte"
		}
		return "$gt"
	}
	if len(vals) == 1 {
		var r int32
		r, dst = subStart(dst, ts.field[cols[0]], false)
		dst = appendValue(dst, cmp(true), &ts.t.Columns[cols[0]], vals[0])
		return docEnd(dst, r)
	}
	var or int32
	or, dst = subStart(dst, "$or", true)
	for k := range vals {
		var d, r int32
		d, dst = subStart(dst, arrayKey(k), false)
		for e := 0; e < k; e++ {
			dst = appendValue(dst, ts.field[cols[e]], &ts.t.Columns[cols[e]], vals[e])
		}
		r, dst = subStart(dst, ts.field[cols[k]], false)
		dst = appendValue(dst, cmp(k == len(vals)-1), &ts.t.Columns[cols[k]], vals[k])
		dst = docEnd(docEnd(dst, r), d)
	}
	return docEnd(dst, or)
}

// Scan implements table.Session: a find on the index's fields from start, sorted by the index
// (its columns, then _id), hinted to it, covering (the index's columns only).
func (s *session) Scan(ctx context.Context, t *table.Table, index int, start []table.Value, inclusive bool, limit int, out *table.Rows) error {
	s.pin()
	defer s.unpin()
	ts, err := s.state(t)
	if err != nil {
		return err
	}
	if index < 0 || index >= len(t.Indexes) {
		return fmt.Errorf("mongo: Scan on %s: no index %d", t.Name, index)
	}
	if limit <= 0 {
		return nil
	}
	cols := t.Indexes[index].Columns
	i, f := docStart(s.fbuf[:0])
	if len(start) > 0 {
		f = s.appendTupleFrom(f, ts, cols, start[:min(len(start), len(cols))], inclusive)
	}
	s.fbuf = docEnd(f, i)
	s.pbuf = s.appendProjection(s.pbuf[:0], ts, cols)
	s.setPos(ts, cols)
	opts := options.Find().SetProjection(bson.Raw(s.pbuf)).SetSort(ts.ixAsc[index]).
		SetLimit(int64(limit)).SetHint(ts.ixName[index])
	cur, err := ts.coll.Find(s.octx(ctx), bson.Raw(s.fbuf), opts)
	if err != nil {
		return s.fail(ctx, err)
	}
	_, err = s.readAll(ctx, ts, cur, cols, out)
	return s.fail(ctx, err)
}

// emptyDoc is {}.
var emptyDoc = bson.Raw{5, 0, 0, 0, 0}

// Count implements table.Session: countDocuments of the collection, hinted to the index when
// one is named (every document has one entry in every index).
func (s *session) Count(ctx context.Context, t *table.Table, index int) (int64, error) {
	s.pin()
	defer s.unpin()
	ts, err := s.state(t)
	if err != nil {
		return 0, err
	}
	opts := options.Count()
	if index >= 0 && index < len(ts.ixName) {
		opts.SetHint(ts.ixName[index])
	}
	n, err := ts.coll.CountDocuments(s.octx(ctx), emptyDoc, opts)
	return n, s.fail(ctx, err)
}

// DeleteOldest implements table.Session, in one transaction when transactions are used. Keys
// are usually dense (the insert benchmark's), so it first deletes the key range [fromPK,
// fromPK+n-1] with one deleteMany: when that removed n rows they were the first n. Otherwise
// it finds the key of the row that is the (n-deleted)-th after the range (a find sorted by _id
// with skip) and deletes the range up to it.
func (s *session) DeleteOldest(ctx context.Context, t *table.Table, fromPK int64, n int) (int, error) {
	s.pin()
	defer s.unpin()
	ts, err := s.state(t)
	if err != nil {
		return 0, err
	}
	if t.Keys() != 1 || t.Columns[0].Type == table.Bytes {
		return 0, fmt.Errorf("mongo: DeleteOldest on %s: a single integer primary key is required", t.Name)
	}
	if n <= 0 {
		return 0, nil
	}
	var deleted int64
	err = s.own(ctx, func(ctx context.Context) error {
		lo, hi := table.Value{I: fromPK}, table.Value{I: fromPK + int64(n) - 1}
		if hi.I >= lo.I {
			d, err := s.deleteRange(ctx, ts, lo, &hi, bsoncore.Value{})
			if err != nil {
				return err
			}
			deleted = d
			if d == int64(n) {
				return nil
			}
			lo = table.Value{I: hi.I + 1}
			if lo.I < hi.I {
				return nil // the key space ends
			}
		}
		i, f := docStart(s.fbuf[:0])
		var r int32
		r, f = subStart(f, "_id", false)
		f = s.appendID(f, "$gte", ts, []table.Value{lo}, "")
		s.fbuf = docEnd(docEnd(f, r), i)
		opts := options.FindOne().SetSort(ts.idAsc).SetSkip(int64(n) - deleted - 1).SetProjection(sortDoc("_id", 1))
		raw, err := ts.coll.FindOne(s.octx(ctx), bson.Raw(s.fbuf), opts).Raw()
		var last bsoncore.Value
		switch {
		case errors.Is(err, mongo.ErrNoDocuments):
		case err != nil:
			return s.fail(ctx, err)
		default:
			v, lerr := raw.LookupErr("_id")
			if lerr != nil {
				return fmt.Errorf("mongo: DeleteOldest: %w", lerr)
			}
			last = rawValue(v)
		}
		d, err := s.deleteRange(ctx, ts, lo, nil, last)
		deleted += d
		return err
	})
	return int(deleted), err
}

// deleteRange deletes the rows whose key is >= lo and <= hi (a key) or <= last (an _id value);
// with neither, every row from lo on.
func (s *session) deleteRange(ctx context.Context, ts *tstate, lo table.Value, hi *table.Value, last bsoncore.Value) (int64, error) {
	i, f := docStart(s.fbuf[:0])
	var r int32
	r, f = subStart(f, "_id", false)
	f = s.appendID(f, "$gte", ts, []table.Value{lo}, "")
	switch {
	case hi != nil:
		f = s.appendID(f, "$lte", ts, []table.Value{*hi}, "")
	case last.Data != nil:
		f = bsoncore.AppendValueElement(f, "$lte", last)
	}
	s.fbuf = docEnd(docEnd(f, r), i)
	res, err := ts.coll.DeleteMany(s.octx(ctx), bson.Raw(s.fbuf))
	if err != nil {
		return 0, s.fail(ctx, err)
	}
	return res.DeletedCount, nil
}

// state returns e.state(t), without the engine's lock when t is the table of the session's
// last call and no table was dropped since.
func (s *session) state(t *table.Table) (*tstate, error) {
	d := s.e.dropped.Load()
	if s.last != nil && s.last.t == t && s.lastDropped == d {
		return s.last, nil
	}
	ts, err := s.e.state(t)
	if err != nil {
		return nil, err
	}
	s.last, s.lastDropped = ts, d
	return ts, nil
}

// observe records an explicit key of an auto-increment table, so generated keys stay above it.
func (ts *tstate) observe(k int64) {
	for {
		cur := ts.autoMax.Load()
		if k <= cur || ts.autoMax.CompareAndSwap(cur, k) {
			return
		}
	}
}
