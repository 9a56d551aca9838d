package sqlfam

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/rumbench/rumbench/internal/table"
)

// The database/sql session's table.Session and table.SQLSession methods: each reconnects first
// when the session's connection was lost (ready) and returns a lost connection as
// table.ErrConnection (fix), the session then reconnecting at its next call. A transaction dies
// with its connection: Commit on a lost connection fails, Rollback does nothing.

// Insert implements table.Session (see insertAll).
func (s *session) Insert(ctx context.Context, t *table.Table, rows *table.Rows) error {
	if err := s.ready(ctx); err != nil {
		return err
	}
	return s.fix(ctx, s.insertAll(s.stmtCtx(ctx), t, rows))
}

// DeleteOldest implements table.Session.
func (s *session) DeleteOldest(ctx context.Context, t *table.Table, fromPK int64, n int) (int, error) {
	if err := s.ready(ctx); err != nil {
		return 0, err
	}
	got, err := s.deleteOldest(s.stmtCtx(ctx), t, fromPK, n)
	return got, s.fix(ctx, err)
}

// Get implements table.Session.
func (s *session) Get(ctx context.Context, t *table.Table, pks []int64, cols []int, out *table.Rows) error {
	if err := s.ready(ctx); err != nil {
		return err
	}
	return s.fix(ctx, s.get(s.stmtCtx(ctx), t, pks, cols, out))
}

// Scan implements table.Session.
func (s *session) Scan(ctx context.Context, t *table.Table, index int, start []table.Value, inclusive bool, limit int, out *table.Rows) error {
	if err := s.ready(ctx); err != nil {
		return err
	}
	return s.fix(ctx, s.scan(s.stmtCtx(ctx), t, index, start, inclusive, limit, out))
}

// Count implements table.Session.
func (s *session) Count(ctx context.Context, t *table.Table, index int) (int64, error) {
	if err := s.ready(ctx); err != nil {
		return 0, err
	}
	n, err := s.count(ctx, t, index)
	return n, s.fix(ctx, err)
}

// Exec implements table.Session: it runs the statement's SQL text with bound arguments.
func (s *session) Exec(ctx context.Context, st *table.Stmt, args []table.Value, out *table.Rows) (int64, error) {
	if err := s.ready(ctx); err != nil {
		return 0, err
	}
	n, err := s.exec(s.stmtCtx(ctx), st, args, out)
	return n, s.fix(ctx, err)
}

// Begin implements table.Session with the statement BEGIN, as sysbench sends it (or the
// dialect's own).
func (s *session) Begin(ctx context.Context) error {
	if err := s.ready(ctx); err != nil {
		return err
	}
	return s.fix(ctx, s.begin(s.stmtCtx(ctx)))
}

// Commit implements table.Session.
func (s *session) Commit(ctx context.Context) error {
	if s.broken {
		return fmt.Errorf("%s: COMMIT: %w", s.e.d.Name(), engineError{table.ErrConnection, errors.New("the transaction's connection was lost")})
	}
	return s.fix(ctx, s.commit(s.stmtCtx(ctx)))
}

// Rollback implements table.Session.
func (s *session) Rollback(ctx context.Context) error {
	if s.broken {
		return nil // the transaction ended with its connection
	}
	return s.fix(ctx, s.rollback(s.stmtCtx(ctx)))
}

// ExecSQL implements table.SQLSession on database/sql (see execSQL).
func (s *session) ExecSQL(ctx context.Context, text string, args []table.Value, out *table.Rows) (int64, error) {
	if err := s.ready(ctx); err != nil {
		return 0, err
	}
	n, err := s.execSQL(ctx, text, args, out)
	return n, s.fix(ctx, err)
}

// QueryReadOnly implements table.SQLSession on database/sql.
func (s *session) QueryReadOnly(ctx context.Context, text string, out *table.Rows) (int64, error) {
	if err := s.ready(ctx); err != nil {
		return 0, err
	}
	n, err := s.queryReadOnly(ctx, text, out)
	return n, s.fix(ctx, err)
}

// fix returns err as the caller sees it: a lost connection (table.Lost, the dialect's codes,
// database/sql's done connection) as table.ErrConnection, marking the session for ready.
func (s *session) fix(ctx context.Context, err error) error {
	if err == nil || ctx.Err() != nil || errors.Is(err, table.ErrConnection) {
		return err
	}
	if table.Lost(err) || lostConn(s.e.d, err) || errors.Is(err, sql.ErrConnDone) {
		s.broken = true
		return engineError{table.ErrConnection, err}
	}
	return err
}

// ready replaces a lost connection with one from the pool; the statements are prepared anew.
func (s *session) ready(ctx context.Context) error {
	if !s.broken {
		return nil
	}
	s.closeStmts()
	s.conn.Close()
	conn, err := s.e.db.Conn(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%s: reconnect: %w", s.e.d.Name(), engineError{table.ErrNotSent, err})
	}
	s.conn, s.broken = conn, false
	return nil
}
