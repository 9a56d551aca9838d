package sqlfam

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"

	"github.com/rumbench/rumbench/internal/table"
)

// Engine is the table model over a database/sql pool and a Dialect.
type Engine struct {
	db   *sql.DB
	d    Dialect
	info table.Info

	mu     sync.Mutex
	tables []string
	// native opens the sessions' connections when set (SetConnector); nil: the pool's.
	native Connector
	// detach: the sessions' workload statements run without their context's cancellation
	// (DetachStatements).
	detach bool
}

var _ table.Engine = (*Engine)(nil)

// New returns the table model over db. info describes the engine; its Family is set to "sql".
// The engine owns db and closes it.
func New(db *sql.DB, d Dialect, info table.Info) *Engine {
	info.Family = "sql"
	info.Stores = true
	return &Engine{db: db, d: d, info: info}
}

// Info implements table.Engine.
func (e *Engine) Info() table.Info { return e.info }

// DetachStatements makes the database/sql sessions run the workload's statements (Insert,
// DeleteOldest, Get, Scan, Exec and the transactions' BEGIN, COMMIT, ROLLBACK) with their
// context's values but not its cancellation. With a cancellable context database/sql starts a
// goroutine per query (and go-sqlite3 one per statement) to watch it: for an embedded engine
// whose statements take microseconds that was a thread wake-up and about one context switch per
// statement, a cost of the client that moved with the Go scheduler. A step's end and Ctrl-C are
// then seen between statements; Count and the user's SQL (ExecSQL, QueryReadOnly), which may
// run long, stay cancellable. Call it before sessions are opened.
func (e *Engine) DetachStatements() { e.detach = true }

// SetInfo replaces the engine's description (engines add the server version and settings once
// connected). Call it before sessions are opened.
func (e *Engine) SetInfo(info table.Info) {
	info.Family, info.Stores = "sql", true
	e.info = info
}

// DB returns the pool, for dialect-specific setup and tests.
func (e *Engine) DB() *sql.DB { return e.db }

// CreateTable implements table.Engine.
func (e *Engine) CreateTable(ctx context.Context, t *table.Table, withIndexes bool) error {
	if err := t.Validate(); err != nil {
		return err
	}
	if len(t.DDL) > 0 {
		return e.createFromDDL(ctx, t, withIndexes)
	}
	if _, err := e.db.ExecContext(ctx, createTableSQL(e.d, t)); err != nil {
		return fmt.Errorf("%s: create table %s: %w", e.d.Name(), t.Name, err)
	}
	e.mu.Lock()
	e.tables = append(e.tables, t.Name)
	e.mu.Unlock()
	if withIndexes {
		return e.CreateIndexes(ctx, t)
	}
	return nil
}

// createFromDDL creates t, its indexes included, with its own statements (table.Table.DDL).
func (e *Engine) createFromDDL(ctx context.Context, t *table.Table, withIndexes bool) error {
	if !withIndexes && len(t.Indexes) > 0 {
		return fmt.Errorf("%s: table %s has its own DDL, which creates its indexes with it", e.d.Name(), t.Name)
	}
	for _, q := range t.DDL {
		if _, err := e.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: create table %s: %q: %w", e.d.Name(), t.Name, q, err)
		}
	}
	e.mu.Lock()
	e.tables = append(e.tables, t.Name)
	e.mu.Unlock()
	return nil
}

// CreateIndexes implements table.Engine with the dialect's index DDL.
func (e *Engine) CreateIndexes(ctx context.Context, t *table.Table) error {
	for _, q := range e.d.IndexDDL(t) {
		if _, err := e.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: create indexes of %s: %q: %w", e.d.Name(), t.Name, q, err)
		}
	}
	return nil
}

// NewSession implements table.Engine: the session holds one connection of the pool, or of the
// engine's Connector.
func (e *Engine) NewSession(ctx context.Context) (table.Session, error) {
	if e.native != nil {
		return e.newNativeSession(ctx, e.native)
	}
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: connect: %w", e.d.Name(), err)
	}
	return &session{e: e, conn: conn, stmts: map[stmtKey]*sql.Stmt{}}, nil
}

// Settle implements table.Settler through the dialect's Settler.
func (e *Engine) Settle(ctx context.Context) (table.Settled, error) {
	if s, ok := e.d.(Settler); ok {
		r, err := s.Settle(ctx, e.db)
		if err != nil {
			return r, fmt.Errorf("%s: %w", e.d.Name(), err)
		}
		return r, nil
	}
	return table.Settled{DebtBytes: -1}, nil
}

// Cleanup implements table.Engine.
func (e *Engine) Cleanup(ctx context.Context) (string, error) {
	e.mu.Lock()
	tables := append([]string(nil), e.tables...)
	e.mu.Unlock()
	return e.d.Cleanup(ctx, e.db, tables)
}

// Size implements table.Engine.
func (e *Engine) Size(ctx context.Context) (int64, bool, error) { return e.d.Size(ctx, e.db) }

// Close implements table.Engine.
func (e *Engine) Close() error { return e.db.Close() }

type stmtKind uint8

const (
	kindInsert stmtKind = iota
	kindDelete
	kindGet
	kindScan
	kindCount
)

// stmtKey names a prepared statement: its kind, table, row or key count, and shape.
type stmtKey struct {
	kind  stmtKind
	table string
	n     int    // rows (insert), keys (get), limit (scan), index+1 (count)
	shape uint64 // column list (get, see colsShape); index, prefix length, inclusive (scan)
	cols  string // column list (get) when it does not fit shape
}

// colsShape packs a column list, in order, one byte (position+1) per column. ok is false when the
// list does not fit (more than 8 columns, or a position above 254).
func colsShape(cols []int) (shape uint64, ok bool) {
	if len(cols) > 8 {
		return 0, false
	}
	for _, c := range cols {
		if c < 0 || c > 254 {
			return 0, false
		}
		shape = shape<<8 | uint64(c+1)
	}
	return shape, true
}

type session struct {
	e     *Engine
	conn  *sql.Conn
	stmts map[stmtKey]*sql.Stmt
	execs map[*table.Stmt]*execStmt
	raws  map[string]*rawStmt // user statements (ExecSQL) by text
	// broken: the connection was lost; the next call takes a new one (ready).
	broken bool
	args   []any
	dest   []any
	raw    []sql.RawBytes
	ints   []int64
	times  []time.Time
	// ctxFrom is the caller's context stmtCtx last saw, ctxDetached the same without its
	// cancellation.
	ctxFrom, ctxDetached context.Context
}

// stmtCtx is the context a workload statement runs with: ctx, or with DetachStatements ctx
// without its cancellation, derived once per caller's context (a step's), not per statement.
func (s *session) stmtCtx(ctx context.Context) context.Context {
	if !s.e.detach {
		return ctx
	}
	if ctx != s.ctxFrom {
		s.ctxFrom, s.ctxDetached = ctx, context.WithoutCancel(ctx)
	}
	return s.ctxDetached
}

// arg converts a cell to a bind parameter: bytes, int64, or for Timestamp columns of a dialect
// with a native time type a time.Time in UTC.
func (s *session) arg(c table.Column, v table.Value) any {
	switch {
	case c.Type == table.Bytes:
		return v.B
	case c.Type == table.Timestamp && s.e.d.NativeTime():
		// SQL time types hold years 1..9999: clamp, so range bounds beyond them still order right.
		return time.Unix(min(max(v.I, minSQLTime), maxSQLTime), 0).UTC()
	}
	return v.I
}

// minSQLTime and maxSQLTime are 0001-01-01 00:00:00 and 9999-12-31 23:59:59 UTC in unix seconds.
const (
	minSQLTime = -62135596800
	maxSQLTime = 253402300799
)

func (s *session) stmt(ctx context.Context, k stmtKey, build func() string) (*sql.Stmt, error) {
	if st := s.stmts[k]; st != nil {
		return st, nil
	}
	q := build()
	st, err := s.conn.PrepareContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("%s: prepare %q: %w", s.e.d.Name(), q, err)
	}
	s.stmts[k] = st
	return st, nil
}

// insertAll is Insert (see sql_session.go). Rows that do not fit one statement's parameter limit go in
// several statements inside one explicit transaction.
func (s *session) insertAll(ctx context.Context, t *table.Table, rows *table.Rows) error {
	if err := s.insert(ctx, t, rows); err != nil {
		return err
	}
	if y, ok := s.e.d.(autoIDSyncer); ok && t.Columns[0].AutoIncrement {
		if err := y.SyncAutoID(ctx, s.conn, t); err != nil {
			return fmt.Errorf("%s: generated keys of %s: %w", s.e.d.Name(), t.Name, err)
		}
	}
	return nil
}

func (s *session) insert(ctx context.Context, t *table.Table, rows *table.Rows) error {
	cols := len(t.Columns)
	per := s.e.d.MaxParams() / cols
	if rows.N <= per {
		return s.insertChunk(ctx, t, rows, 0, rows.N)
	}
	if _, err := s.conn.ExecContext(ctx, "BEGIN"); err != nil {
		return err
	}
	for r := 0; r < rows.N; r += per {
		if err := s.insertChunk(ctx, t, rows, r, min(per, rows.N-r)); err != nil {
			s.conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
			return err
		}
	}
	_, err := s.conn.ExecContext(ctx, "COMMIT")
	return err
}

func (s *session) insertChunk(ctx context.Context, t *table.Table, rows *table.Rows, from, n int) error {
	st, err := s.stmt(ctx, stmtKey{kind: kindInsert, table: t.Name, n: n}, func() string { return InsertSQL(s.e.d, t, n) })
	if err != nil {
		return err
	}
	s.args = s.args[:0]
	for r := from; r < from+n; r++ {
		for c, v := range rows.Row(r) {
			s.args = append(s.args, s.arg(t.Columns[c], v))
		}
	}
	if _, err := st.ExecContext(ctx, s.args...); err != nil {
		return fmt.Errorf("%s: insert into %s: %w", s.e.d.Name(), t.Name, s.classify(err))
	}
	return nil
}

// deleteOldest is DeleteOldest (see sql_session.go).
func (s *session) deleteOldest(ctx context.Context, t *table.Table, fromPK int64, n int) (int, error) {
	st, err := s.stmt(ctx, stmtKey{kind: kindDelete, table: t.Name}, func() string { return s.e.d.DeleteOldest(t) })
	if err != nil {
		return 0, err
	}
	res, err := st.ExecContext(ctx, fromPK, int64(n))
	if err != nil {
		return 0, fmt.Errorf("%s: delete from %s: %w", s.e.d.Name(), t.Name, err)
	}
	got, err := res.RowsAffected()
	return int(got), err
}

// getKey is the statement key of a Get of n keys returning cols. The column list counts in
// order: the same columns in another order are another statement.
func getKey(t *table.Table, n int, cols []int) stmtKey {
	key := stmtKey{kind: kindGet, table: t.Name, n: n}
	var ok bool
	if key.shape, ok = colsShape(cols); !ok {
		key.cols = fmt.Sprint(cols)
	}
	return key
}

// scanKey is the statement key of a Scan of index index from nstart leading values.
func scanKey(t *table.Table, index, nstart int, inclusive bool, limit int) stmtKey {
	shape := uint64(index)<<16 | uint64(nstart)<<1
	if inclusive {
		shape |= 1
	}
	return stmtKey{kind: kindScan, table: t.Name, n: limit, shape: shape}
}

// get is Get (see sql_session.go).
func (s *session) get(ctx context.Context, t *table.Table, pks []int64, cols []int, out *table.Rows) error {
	st, err := s.stmt(ctx, getKey(t, len(pks), cols), func() string { return getSQL(s.e.d, t, len(pks), cols) })
	if err != nil {
		return err
	}
	s.args = s.args[:0]
	for _, pk := range pks {
		s.args = append(s.args, pk)
	}
	return s.query(ctx, st, t, cols, out)
}

// scan is Scan (see sql_session.go).
func (s *session) scan(ctx context.Context, t *table.Table, index int, start []table.Value, inclusive bool, limit int, out *table.Rows) error {
	ix := t.Indexes[index]
	st, err := s.stmt(ctx, scanKey(t, index, len(start), inclusive, limit),
		func() string { return scanSQL(s.e.d, t, ix, len(start), inclusive, limit) })
	if err != nil {
		return err
	}
	s.args = s.args[:0]
	for i, v := range start {
		s.args = append(s.args, s.arg(t.Columns[ix.Columns[i]], v))
	}
	return s.query(ctx, st, t, ix.Columns, out)
}

// query runs st with s.args and appends the result rows (columns cols of t) to out.
func (s *session) query(ctx context.Context, st *sql.Stmt, t *table.Table, cols []int, out *table.Rows) error {
	rs, err := st.QueryContext(ctx, s.args...)
	if err != nil {
		return fmt.Errorf("%s: query %s: %w", s.e.d.Name(), t.Name, err)
	}
	return s.scanRows(rs, t, cols, out)
}

// scanRows appends the rows of rs (columns cols of t) to out and closes rs.
func (s *session) scanRows(rs *sql.Rows, t *table.Table, cols []int, out *table.Rows) error {
	defer rs.Close()
	if cap(s.ints) < len(cols) {
		s.ints = make([]int64, len(cols))
		s.raw = make([]sql.RawBytes, len(cols))
		s.times = make([]time.Time, len(cols))
	}
	native := s.e.d.NativeTime()
	s.dest = s.dest[:0]
	for i, c := range cols {
		switch {
		case t.Columns[c].Type == table.Bytes:
			s.dest = append(s.dest, &s.raw[i])
		case t.Columns[c].Type == table.Timestamp && native:
			s.dest = append(s.dest, &s.times[i])
		default:
			s.dest = append(s.dest, &s.ints[i])
		}
	}
	for rs.Next() {
		if err := rs.Scan(s.dest...); err != nil {
			return err
		}
		row := out.Append()
		for i, c := range cols {
			switch {
			case t.Columns[c].Type == table.Bytes:
				if s.raw[i] != nil {
					row[i].B = out.CopyBytes(s.raw[i])
				}
			case t.Columns[c].Type == table.Timestamp && native:
				row[i].I = s.times[i].Unix()
			default:
				row[i].I = s.ints[i]
			}
		}
	}
	return rs.Err()
}

// count is Count (see sql_session.go).
func (s *session) count(ctx context.Context, t *table.Table, index int) (int64, error) {
	var ix *table.Index
	if index >= 0 {
		ix = &t.Indexes[index]
	}
	st, err := s.stmt(ctx, stmtKey{kind: kindCount, table: t.Name, n: index + 1}, func() string { return countSQL(s.e.d, t, ix) })
	if err != nil {
		return 0, err
	}
	var n int64
	err = st.QueryRowContext(ctx).Scan(&n)
	return n, err
}

// Close implements table.Session.
func (s *session) Close() error {
	s.closeStmts()
	err := s.conn.Close()
	if s.broken {
		return nil // the connection was lost: its goodbye cannot be sent
	}
	return err
}

// closeStmts closes the session's prepared statements and forgets them.
func (s *session) closeStmts() {
	for _, st := range s.stmts {
		st.Close()
	}
	for _, x := range s.execs {
		if x.st != nil {
			x.st.Close()
		}
	}
	for _, x := range s.raws {
		x.st.Close()
	}
	clear(s.stmts)
	clear(s.execs)
	clear(s.raws)
}
