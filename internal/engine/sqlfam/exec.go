package sqlfam

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/rumbench/rumbench/internal/table"
)

// autoIDSyncer is implemented by dialects whose generated keys come from a sequence that rows
// inserted with explicit keys do not advance (PostgreSQL's serial): SyncAutoID moves the
// sequence past the largest key of t; Session.Insert calls it after loading such a table.
type autoIDSyncer interface {
	SyncAutoID(ctx context.Context, conn *sql.Conn, t *table.Table) error
}

// returner is implemented by dialects whose driver reports a generated key only through
// INSERT ... RETURNING (PostgreSQL), not as the result's LastInsertId.
type returner interface {
	Returning()
}

// classifier is implemented by dialects that recognize their driver's errors: a duplicate key
// and a lock conflict (deadlock, lock wait timeout, serialization failure) are returned
// wrapped so that errors.Is finds table.ErrDuplicate and table.ErrConflict.
type classifier interface {
	Duplicate(err error) bool
	Conflict(err error) bool
}

// connLoser is implemented by dialects that recognize their servers' codes of a connection
// ended by the server (a shutdown, a crash, a start under way).
type connLoser interface {
	Lost(err error) bool
}

// lostConn says whether d recognizes err as a connection the server ended.
func lostConn(d Dialect, err error) bool {
	l, ok := d.(connLoser)
	return ok && l.Lost(err)
}

// engineError is a driver error that is also one of the table model's errors.
type engineError struct{ model, err error }

func (e engineError) Error() string        { return e.err.Error() }
func (e engineError) Is(target error) bool { return target == e.model }
func (e engineError) Unwrap() error        { return e.err }

// multiWriter is implemented by dialects of clusters whose nodes all take writes (Galera): there
// a duplicate key can be a conflict with a transaction another node committed first (its rows
// applied under a transaction that read before them), so the error is both table.ErrConflict
// (retried as one) and table.ErrDuplicate.
type multiWriter interface {
	MultiWriter() bool
}

// classify wraps err as table.ErrDuplicate or table.ErrConflict when the dialect says it is one.
func (s *session) classify(err error) error { return classify(s.e.d, err) }

// classify wraps err as table.ErrDuplicate or table.ErrConflict when d says it is one.
func classify(d Dialect, err error) error {
	c, ok := d.(classifier)
	switch {
	case err == nil || !ok:
		return err
	case c.Duplicate(err):
		if m, ok := d.(multiWriter); ok && m.MultiWriter() {
			return engineError{table.ErrConflict, engineError{table.ErrDuplicate, err}}
		}
		return engineError{table.ErrDuplicate, err}
	case c.Conflict(err):
		return engineError{table.ErrConflict, err}
	}
	return err
}

// unpreparer is implemented by dialects whose driver needs extra arguments to send a statement
// without preparing it (pgx: the simple protocol).
type unpreparer interface {
	UnpreparedArgs() []any
}

// execStmt is a workload statement as a session runs it: its text in the dialect's placeholders,
// the column of each argument, and the prepared statement (nil when unprepared).
type execStmt struct {
	text string
	cols []int
	st   *sql.Stmt
}

// argColumns returns, for each argument of st, the column it is compared with or assigned to
// (limitArg for a limit).
func argColumns(st *table.Stmt) []int {
	t := st.Table
	var cols []int
	if st.Kind == table.InsertRow || st.Kind == table.Upsert {
		if st.InsertCols != nil {
			cols = append(cols, st.InsertCols...)
		} else {
			for c := range t.Columns {
				if c > 0 || !st.AutoID {
					cols = append(cols, c)
				}
			}
		}
		for _, a := range st.Set {
			if a.TakesArg() {
				cols = append(cols, a.Col)
			}
		}
		return cols
	}
	for _, a := range st.Set {
		if a.TakesArg() {
			cols = append(cols, a.Col)
		}
	}
	if st.KeyOrder != nil {
		for _, p := range st.KeyOrder {
			cols = append(cols, st.KeyCols()[p])
		}
	} else {
		cols = append(cols, st.KeyCols()[:st.Prefix-len(st.Consts)]...)
	}
	limits := 0
	if st.Match == table.From {
		limits = 1
	}
	if st.Limit {
		limits += 2
	}
	for len(cols) < st.Args()-limits-len(st.AlsoEq) {
		cols = append(cols, st.KeyCol())
	}
	cols = append(cols, st.AlsoEq...)
	for range limits {
		cols = append(cols, limitArg)
	}
	return cols
}

// limitArg stands in argColumns for an argument that is no column's value: a limit or an offset.
const limitArg = -1

// execFor returns the session's form of st, preparing it on first use.
func (s *session) execFor(ctx context.Context, st *table.Stmt) (*execStmt, error) {
	if x := s.execs[st]; x != nil {
		return x, nil
	}
	text, err := stmtText(s.e.d, st)
	if err != nil {
		return nil, err
	}
	x := &execStmt{text: text, cols: argColumns(st)}
	if !st.Unprepared {
		p, err := s.conn.PrepareContext(ctx, text)
		if err != nil {
			return nil, fmt.Errorf("%s: prepare %q: %w", s.e.d.Name(), text, err)
		}
		x.st = p
	}
	if s.execs == nil {
		s.execs = map[*table.Stmt]*execStmt{}
	}
	s.execs[st] = x
	return x, nil
}

// stmtText validates st and returns its text in dialect d: its own, or the SQL with d's
// placeholders, or d's insert with a generated key.
func stmtText(d Dialect, st *table.Stmt) (string, error) {
	if err := st.Validate(); err != nil {
		return "", err
	}
	text := st.SQL
	if st.Kind == table.InsertRow && st.AutoID && text == "" {
		text = d.AutoIDInsert(st.Table)
		if _, ok := d.(returner); ok && st.ReturnID {
			text += " RETURNING " + st.Table.Columns[0].Name
		}
		return text, nil
	}
	if own, ok := st.Dialects[d.Name()]; ok {
		text = own
	}
	if text == "" {
		return "", fmt.Errorf("%s: statement on %s has no SQL text", d.Name(), st.Table.Name)
	}
	return Renumber(d, text), nil
}

// exec is Exec (see sql_session.go): it runs the statement's SQL text with bound arguments.
func (s *session) exec(ctx context.Context, st *table.Stmt, args []table.Value, out *table.Rows) (int64, error) {
	x, err := s.execFor(ctx, st)
	if err != nil {
		return 0, err
	}
	if len(args) != len(x.cols) {
		return 0, fmt.Errorf("%s: %q takes %d arguments, got %d", s.e.d.Name(), x.text, len(x.cols), len(args))
	}
	t := st.Table
	s.args = s.args[:0]
	if x.st == nil {
		if u, ok := s.e.d.(unpreparer); ok {
			s.args = append(s.args, u.UnpreparedArgs()...)
		}
	}
	for i, v := range args {
		if x.cols[i] == limitArg {
			s.args = append(s.args, v.I)
			continue
		}
		c := t.Columns[x.cols[i]]
		if x.st == nil && c.Text && v.B != nil {
			// Sent as text: a []byte would be quoted as a binary literal by the simple protocol.
			s.args = append(s.args, string(v.B))
			continue
		}
		s.args = append(s.args, s.arg(c, v))
	}
	if st.ReturnID {
		if _, ok := s.e.d.(returner); ok {
			return s.queryID(ctx, x, out)
		}
	}
	if st.Kind != table.Select {
		var res sql.Result
		if x.st != nil {
			res, err = x.st.ExecContext(ctx, s.args...)
		} else {
			res, err = s.conn.ExecContext(ctx, x.text, s.args...)
		}
		if err != nil {
			return 0, fmt.Errorf("%s: %s: %w", s.e.d.Name(), x.text, s.classify(err))
		}
		if st.ReturnID {
			id, err := res.LastInsertId()
			if err != nil {
				return 0, fmt.Errorf("%s: %s: generated key: %w", s.e.d.Name(), x.text, err)
			}
			out.Append()[0].I = id
		}
		return res.RowsAffected()
	}
	var rs *sql.Rows
	if x.st != nil {
		rs, err = x.st.QueryContext(ctx, s.args...)
	} else {
		rs, err = s.conn.QueryContext(ctx, x.text, s.args...)
	}
	if err != nil {
		return 0, fmt.Errorf("%s: %s: %w", s.e.d.Name(), x.text, s.classify(err))
	}
	if st.Agg == table.Count || st.Agg == table.Sum {
		return s.scanAggregate(rs, out)
	}
	before := out.N
	if err := s.scanRows(rs, t, st.Cols, out); err != nil {
		return 0, fmt.Errorf("%s: %s: %w", s.e.d.Name(), x.text, s.classify(err))
	}
	return int64(out.N - before), nil
}

// queryID runs an INSERT ... RETURNING and appends the generated key to out.
func (s *session) queryID(ctx context.Context, x *execStmt, out *table.Rows) (int64, error) {
	var row *sql.Row
	if x.st != nil {
		row = x.st.QueryRowContext(ctx, s.args...)
	} else {
		row = s.conn.QueryRowContext(ctx, x.text, s.args...)
	}
	var id int64
	if err := row.Scan(&id); err != nil {
		return 0, fmt.Errorf("%s: %s: %w", s.e.d.Name(), x.text, s.classify(err))
	}
	out.Append()[0].I = id
	return 1, nil
}

// scanAggregate reads a one-row, one-column integer result (NULL is 0: SUM over no rows).
func (s *session) scanAggregate(rs *sql.Rows, out *table.Rows) (int64, error) {
	defer rs.Close()
	var v sql.NullInt64
	if rs.Next() {
		if err := rs.Scan(&v); err != nil {
			return 0, err
		}
	}
	if err := rs.Err(); err != nil {
		return 0, err
	}
	out.Append()[0].I = v.Int64
	return 1, rs.Close()
}

// beginner is implemented by dialects that open a transaction with another statement than
// BEGIN (SQLite: BEGIN IMMEDIATE, so that a transaction that reads, then writes, waits for the
// write lock up front instead of failing to upgrade its read lock).
type beginner interface {
	BeginStatement() string
}

// begin is Begin (see sql_session.go) with the statement BEGIN, as sysbench sends it (or the
// dialect's own).
func (s *session) begin(ctx context.Context) error {
	if b, ok := s.e.d.(beginner); ok {
		return s.plain(ctx, b.BeginStatement())
	}
	return s.plain(ctx, "BEGIN")
}

// commit is Commit (see sql_session.go).
func (s *session) commit(ctx context.Context) error { return s.plain(ctx, "COMMIT") }

// rollback is Rollback (see sql_session.go).
func (s *session) rollback(ctx context.Context) error {
	return s.plain(context.WithoutCancel(ctx), "ROLLBACK")
}

func (s *session) plain(ctx context.Context, q string) error {
	if _, err := s.conn.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("%s: %s: %w", s.e.d.Name(), q, s.classify(err))
	}
	return nil
}
