package sqlfam

import (
	"context"
	"errors"
	"fmt"

	"github.com/rumbench/rumbench/internal/netblock"
	"github.com/rumbench/rumbench/internal/table"
)

// Insert implements table.Session (see session.Insert).
func (s *nativeSession) Insert(ctx context.Context, t *table.Table, rows *table.Rows) error {
	if err := s.enter(ctx); err != nil {
		return err
	}
	err := s.insert(ctx, t, rows)
	s.leave()
	if err != nil {
		return err
	}
	if y, ok := s.e.d.(autoIDSyncer); ok && t.Columns[0].AutoIncrement {
		conn, err := s.e.db.Conn(ctx)
		if err != nil {
			return err
		}
		defer conn.Close()
		if err := y.SyncAutoID(ctx, conn, t); err != nil {
			return fmt.Errorf("%s: generated keys of %s: %w", s.e.d.Name(), t.Name, err)
		}
	}
	return nil
}

func (s *nativeSession) insert(ctx context.Context, t *table.Table, rows *table.Rows) error {
	per := s.e.d.MaxParams() / len(t.Columns)
	if rows.N <= per {
		return s.insertChunk(ctx, t, rows, 0, rows.N)
	}
	if err := s.run(ctx, "BEGIN"); err != nil {
		return err
	}
	for r := 0; r < rows.N; r += per {
		if err := s.insertChunk(ctx, t, rows, r, min(per, rows.N-r)); err != nil {
			s.run(context.WithoutCancel(ctx), "ROLLBACK")
			return err
		}
	}
	return s.run(ctx, "COMMIT")
}

func (s *nativeSession) insertChunk(ctx context.Context, t *table.Table, rows *table.Rows, from, n int) error {
	k := stmtKey{kind: kindInsert, table: t.Name, n: n}
	var st Stmt
	var text string
	if s.textInsert {
		if text = s.texts[k]; text == "" {
			text = InsertSQL(s.e.d, t, n)
			s.texts[k] = text
		}
	} else {
		var err error
		if st, err = s.stmt(ctx, k, func() string { return InsertSQL(s.e.d, t, n) }); err != nil {
			return err
		}
	}
	s.args = s.args[:0]
	for r := from; r < from+n; r++ {
		for c, v := range rows.Row(r) {
			s.args = append(s.args, s.argOf(t.Columns[c], v))
		}
	}
	var err error
	if st != nil {
		_, err = st.Query(ctx, s.args, nil, nil)
	} else {
		_, err = s.conn.Query(ctx, text, s.args, nil, nil)
	}
	if err != nil {
		return fmt.Errorf("%s: insert into %s: %w", s.e.d.Name(), t.Name, s.wrap(ctx, err))
	}
	return nil
}

// DeleteOldest implements table.Session.
func (s *nativeSession) DeleteOldest(ctx context.Context, t *table.Table, fromPK int64, n int) (int, error) {
	if err := s.enter(ctx); err != nil {
		return 0, err
	}
	defer s.leave()
	st, err := s.stmt(ctx, stmtKey{kind: kindDelete, table: t.Name}, func() string { return s.e.d.DeleteOldest(t) })
	if err != nil {
		return 0, err
	}
	s.args = append(s.args[:0], Arg{Kind: ArgInt, I: fromPK}, Arg{Kind: ArgInt, I: int64(n)})
	res, err := st.Query(ctx, s.args, nil, nil)
	if err != nil {
		return 0, fmt.Errorf("%s: delete from %s: %w", s.e.d.Name(), t.Name, s.wrap(ctx, err))
	}
	return int(res.Rows), nil
}

// Get implements table.Session.
func (s *nativeSession) Get(ctx context.Context, t *table.Table, pks []int64, cols []int, out *table.Rows) error {
	if err := s.enter(ctx); err != nil {
		return err
	}
	defer s.leave()
	st, err := s.stmt(ctx, getKey(t, len(pks), cols), func() string { return getSQL(s.e.d, t, len(pks), cols) })
	if err != nil {
		return err
	}
	s.args = s.args[:0]
	for _, pk := range pks {
		s.args = append(s.args, Arg{Kind: ArgInt, I: pk})
	}
	if _, err := st.Query(ctx, s.args, s.colKinds(t, cols), out); err != nil {
		return fmt.Errorf("%s: query %s: %w", s.e.d.Name(), t.Name, s.wrap(ctx, err))
	}
	return nil
}

// Scan implements table.Session.
func (s *nativeSession) Scan(ctx context.Context, t *table.Table, index int, start []table.Value, inclusive bool, limit int, out *table.Rows) error {
	if err := s.enter(ctx); err != nil {
		return err
	}
	defer s.leave()
	ix := t.Indexes[index]
	st, err := s.stmt(ctx, scanKey(t, index, len(start), inclusive, limit),
		func() string { return scanSQL(s.e.d, t, ix, len(start), inclusive, limit) })
	if err != nil {
		return err
	}
	s.args = s.args[:0]
	for i, v := range start {
		s.args = append(s.args, s.argOf(t.Columns[ix.Columns[i]], v))
	}
	if _, err := st.Query(ctx, s.args, s.colKinds(t, ix.Columns), out); err != nil {
		return fmt.Errorf("%s: query %s: %w", s.e.d.Name(), t.Name, s.wrap(ctx, err))
	}
	return nil
}

// Count implements table.Session.
func (s *nativeSession) Count(ctx context.Context, t *table.Table, index int) (int64, error) {
	if err := s.enter(ctx); err != nil {
		return 0, err
	}
	defer s.leave()
	var ix *table.Index
	if index >= 0 {
		ix = &t.Indexes[index]
	}
	st, err := s.stmt(ctx, stmtKey{kind: kindCount, table: t.Name, n: index + 1}, func() string { return countSQL(s.e.d, t, ix) })
	if err != nil {
		return 0, err
	}
	s.agg.Reset(1)
	if _, err := st.Query(ctx, nil, []ColKind{ColInt}, &s.agg); err != nil || s.agg.N != 1 {
		return 0, fmt.Errorf("%s: count %s: %w", s.e.d.Name(), t.Name, s.wrap(ctx, err))
	}
	return s.agg.Vals[0].I, nil
}

// execFor returns the session's form of st, preparing it on first use.
func (s *nativeSession) execFor(ctx context.Context, st *table.Stmt) (*nativeExec, error) {
	if x := s.execs[st]; x != nil {
		return x, nil
	}
	text, err := stmtText(s.e.d, st)
	if err != nil {
		return nil, err
	}
	x := &nativeExec{text: text, cols: argColumns(st)}
	switch {
	case st.Kind == table.Select && (st.Agg == table.Count || st.Agg == table.Sum):
		x.res = []ColKind{ColInt}
	case st.Kind == table.Select:
		x.res = make([]ColKind, len(st.Cols))
		for i, c := range st.Cols {
			x.res[i] = colKind(s.e.d, st.Table.Columns[c])
		}
	case st.ReturnID:
		if _, ok := s.e.d.(returner); ok {
			x.res = []ColKind{ColInt}
		}
	}
	if !st.Unprepared {
		if x.st, err = s.prepare(ctx, text); err != nil {
			return nil, err
		}
	}
	s.execs[st] = x
	return x, nil
}

// Exec implements table.Session.
func (s *nativeSession) Exec(ctx context.Context, st *table.Stmt, args []table.Value, out *table.Rows) (int64, error) {
	if err := s.enter(ctx); err != nil {
		return 0, err
	}
	defer s.leave()
	x, err := s.execFor(ctx, st)
	if err != nil {
		return 0, err
	}
	if len(args) != len(x.cols) {
		return 0, fmt.Errorf("%s: %q takes %d arguments, got %d", s.e.d.Name(), x.text, len(x.cols), len(args))
	}
	t := st.Table
	s.args = s.args[:0]
	for i, v := range args {
		if x.cols[i] == limitArg {
			s.args = append(s.args, Arg{Kind: ArgInt, I: v.I})
			continue
		}
		s.args = append(s.args, s.argOf(t.Columns[x.cols[i]], v))
	}
	dst := out
	if x.res == nil {
		dst = nil
	} else if st.Kind != table.Select {
		// INSERT ... RETURNING: the generated key is the one cell of the row appended.
		before := out.N
		res, err := s.query(ctx, x, dst)
		if err != nil {
			return 0, err
		}
		if out.N == before || res.Rows != 1 {
			return 0, fmt.Errorf("%s: %s: no generated key returned", s.e.d.Name(), x.text)
		}
		return 1, nil
	}
	res, err := s.query(ctx, x, dst)
	if err != nil {
		return 0, err
	}
	if st.ReturnID && x.res == nil {
		out.Append()[0].I = res.LastID
	}
	return res.Rows, nil
}

func (s *nativeSession) query(ctx context.Context, x *nativeExec, out *table.Rows) (Result, error) {
	var res Result
	var err error
	if x.st != nil {
		res, err = x.st.Query(ctx, s.args, x.res, out)
	} else {
		res, err = s.conn.Query(ctx, x.text, s.args, x.res, out)
	}
	if err != nil {
		return res, fmt.Errorf("%s: %s: %w", s.e.d.Name(), x.text, s.wrap(ctx, err))
	}
	return res, nil
}

// Begin implements table.Session (see session.Begin).
func (s *nativeSession) Begin(ctx context.Context) error {
	q := "BEGIN"
	if b, ok := s.e.d.(beginner); ok {
		q = b.BeginStatement()
	}
	return s.plainStmt(ctx, q)
}

// Commit implements table.Session. A transaction dies with its connection: after a lost or
// interrupted one, Commit fails rather than commit nothing on a new connection.
func (s *nativeSession) Commit(ctx context.Context) error {
	if s.interrupted {
		return fmt.Errorf("%s: COMMIT: %w", s.e.d.Name(), engineError{table.ErrConnection, errors.New("the transaction's connection was lost")})
	}
	return s.plainStmt(ctx, "COMMIT")
}

// Rollback implements table.Session; after a lost or interrupted connection there is nothing
// to roll back.
func (s *nativeSession) Rollback(ctx context.Context) error {
	if s.interrupted {
		return nil
	}
	return s.plainStmt(context.WithoutCancel(ctx), "ROLLBACK")
}

func (s *nativeSession) plainStmt(ctx context.Context, q string) error {
	if err := s.enter(ctx); err != nil {
		return err
	}
	defer s.leave()
	return s.run(ctx, q)
}

// run sends q, a statement without arguments or results, as it is.
func (s *nativeSession) run(ctx context.Context, q string) error {
	if _, err := s.conn.Query(ctx, q, nil, nil, nil); err != nil {
		return fmt.Errorf("%s: %s: %w", s.e.d.Name(), q, s.wrap(ctx, err))
	}
	return nil
}

// Close implements table.Session.
func (s *nativeSession) Close() error {
	if s.stop != nil {
		s.stop()
	}
	if s.holdsP {
		netblock.HoldPs(-1)
	}
	err := s.conn.Close()
	if s.interrupted {
		return nil // the connection was cut on purpose: its goodbye cannot be sent
	}
	return err
}
