package sqlfam

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/table"
)

var (
	_ table.SQLSession = (*session)(nil)
	_ table.SQLSession = (*nativeSession)(nil)
)

// ReturnsRows says whether a statement's text returns rows: it starts with SELECT, WITH,
// VALUES, SHOW, TABLE, EXPLAIN, DESCRIBE or PRAGMA (after blanks, comments and parentheses),
// or holds the word RETURNING.
func ReturnsRows(text string) bool {
	t := text
	for {
		t = strings.TrimLeft(t, " \t\r\n(")
		switch {
		case strings.HasPrefix(t, "--"):
			if i := strings.IndexByte(t, '\n'); i >= 0 {
				t = t[i+1:]
				continue
			}
			return false
		case strings.HasPrefix(t, "/*"):
			if i := strings.Index(t, "*/"); i >= 0 {
				t = t[i+2:]
				continue
			}
			return false
		}
		break
	}
	end := strings.IndexFunc(t, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') })
	if end < 0 {
		end = len(t)
	}
	switch strings.ToUpper(t[:end]) {
	case "SELECT", "WITH", "VALUES", "SHOW", "TABLE", "EXPLAIN", "DESCRIBE", "DESC", "PRAGMA":
		return true
	}
	return containsWord(strings.ToUpper(text), "RETURNING")
}

func containsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		before := j == 0 || !wordChar(s[j-1])
		after := j+len(w) == len(s) || !wordChar(s[j+len(w)])
		if before && after {
			return true
		}
		i = j + 1
	}
}

func wordChar(c byte) bool {
	return c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
}

// rawStmt is a user statement as a database/sql session runs it.
type rawStmt struct {
	st   *sql.Stmt
	rows bool
	cols []string
	vals []any
	ptrs []any
}

// execSQL is ExecSQL (see sql_session.go) on database/sql. An error echoes at most
// input.EchoChars characters of the statement (a user's statement may be any length).
func (s *session) execSQL(ctx context.Context, text string, args []table.Value, out *table.Rows) (int64, error) {
	x := s.raws[text]
	if x == nil {
		if len(s.raws) >= table.MaxSQLStatements {
			return 0, fmt.Errorf("%s: more than %d distinct statements on one session", s.e.d.Name(), table.MaxSQLStatements)
		}
		q := Renumber(s.e.d, text)
		st, err := s.conn.PrepareContext(ctx, q)
		if err != nil {
			return 0, fmt.Errorf("%s: prepare %q: %w", s.e.d.Name(), input.Short(q), s.classify(err))
		}
		x = &rawStmt{st: st, rows: ReturnsRows(text)}
		if s.raws == nil {
			s.raws = map[string]*rawStmt{}
		}
		s.raws[text] = x
	}
	s.args = s.args[:0]
	for _, v := range args {
		if v.B == nil {
			s.args = append(s.args, v.I)
		} else {
			s.args = append(s.args, string(v.B))
		}
	}
	if !x.rows {
		res, err := x.st.ExecContext(ctx, s.args...)
		if err != nil {
			return 0, fmt.Errorf("%s: %s: %w", s.e.d.Name(), input.Short(text), s.classify(err))
		}
		return res.RowsAffected()
	}
	rs, err := x.st.QueryContext(ctx, s.args...)
	if err != nil {
		return 0, fmt.Errorf("%s: %s: %w", s.e.d.Name(), input.Short(text), s.classify(err))
	}
	defer rs.Close()
	if x.cols == nil {
		if x.cols, err = rs.Columns(); err != nil {
			return 0, err
		}
		x.vals = make([]any, len(x.cols))
		x.ptrs = make([]any, len(x.cols))
		for i := range x.vals {
			x.ptrs[i] = &x.vals[i]
		}
	}
	out.Reset(len(x.cols))
	for rs.Next() {
		if err := rs.Scan(x.ptrs...); err != nil {
			return 0, fmt.Errorf("%s: %s: %w", s.e.d.Name(), input.Short(text), err)
		}
		row := out.Append()
		for i, v := range x.vals {
			row[i].B = AppendText(out, v)
		}
	}
	if err := rs.Err(); err != nil {
		return 0, fmt.Errorf("%s: %s: %w", s.e.d.Name(), input.Short(text), s.classify(err))
	}
	return int64(out.N), nil
}

// SQLColumns implements table.SQLSession.
func (s *session) SQLColumns(text string) []string {
	if x := s.raws[text]; x != nil {
		return x.cols
	}
	return nil
}

// readOnlyer is implemented by dialects whose read-only transaction is not START TRANSACTION
// READ ONLY alone: begin and end are the statements that make the session's connection refuse
// writes and allow them again (SQLite's PRAGMA query_only; MySQL's session access mode around
// the transaction).
type readOnlyer interface {
	ReadOnly() (begin, end []string)
}

// readOnly returns the statements that start a read-only transaction of d and end it: START
// TRANSACTION READ ONLY and ROLLBACK (PostgreSQL), or the dialect's own.
func readOnly(d Dialect) (begin, end []string) {
	if r, ok := d.(readOnlyer); ok {
		return r.ReadOnly()
	}
	return []string{"START TRANSACTION READ ONLY"}, []string{"ROLLBACK"}
}

// queryReadOnly runs text through exec between the dialect's read-only statements, which plain
// sends; the end statements run whatever happened (their context not cancelled).
func queryReadOnly(ctx context.Context, d Dialect, plain func(context.Context, string) error, exec func() (int64, error)) (int64, error) {
	begin, end := readOnly(d)
	var n int64
	var err error
	for _, q := range begin {
		if err = plain(ctx, q); err != nil {
			break
		}
	}
	if err == nil {
		n, err = exec()
	}
	for _, q := range end {
		if e := plain(context.WithoutCancel(ctx), q); e != nil && err == nil {
			err = e
		}
	}
	return n, err
}

// queryReadOnly is QueryReadOnly (see sql_session.go) on database/sql.
func (s *session) queryReadOnly(ctx context.Context, text string, out *table.Rows) (int64, error) {
	return queryReadOnly(ctx, s.e.d, s.plain, func() (int64, error) { return s.execSQL(ctx, text, nil, out) })
}

// QueryReadOnly implements table.SQLSession on the driver's own connection.
func (s *nativeSession) QueryReadOnly(ctx context.Context, text string, out *table.Rows) (int64, error) {
	return queryReadOnly(ctx, s.e.d, s.plainStmt, func() (int64, error) { return s.ExecSQL(ctx, text, nil, out) })
}

// AppendText returns the text of a driver's result value, copied into out's arena (nil for
// NULL): numbers in decimal, booleans as t/f (as PostgreSQL writes them), times as
// "2006-01-02 15:04:05.999999".
func AppendText(out *table.Rows, v any) []byte {
	var tmp [64]byte
	var b []byte
	switch v := v.(type) {
	case nil:
		return nil
	case []byte:
		return out.CopyBytes(v)
	case string:
		b = out.Alloc(len(v))
		copy(b, v)
		return b
	case int64:
		b = strconv.AppendInt(tmp[:0], v, 10)
	case uint64:
		b = strconv.AppendUint(tmp[:0], v, 10)
	case float64:
		b = strconv.AppendFloat(tmp[:0], v, 'g', -1, 64)
	case float32:
		b = strconv.AppendFloat(tmp[:0], float64(v), 'g', -1, 32)
	case bool:
		b = append(tmp[:0], "f"...)
		if v {
			b = append(tmp[:0], "t"...)
		}
	case time.Time:
		b = v.AppendFormat(tmp[:0], "2006-01-02 15:04:05.999999")
	default:
		b = fmt.Append(tmp[:0], v)
	}
	return out.CopyBytes(b)
}

// RawConn is a Conn that runs user statements (table.SQLSession): their arguments and
// results are not typed in advance.
type RawConn interface {
	// PrepareRaw prepares text (in the dialect's placeholders) on the server.
	PrepareRaw(ctx context.Context, text string) (RawStmt, error)
}

// RawStmt is a user statement prepared on a RawConn.
type RawStmt interface {
	// QueryRaw runs the statement with args (ArgInt and ArgText only; an ArgText with nil B
	// is NULL). When the statement returns rows (rows is the caller's guess from the text; a
	// connection that knows better may ignore it) it resets out to their columns and appends
	// them, every cell as text in B (nil for NULL), and Result.Rows counts them; else
	// Result.Rows is the rows changed.
	QueryRaw(ctx context.Context, args []Arg, rows bool, out *table.Rows) (Result, error)
	// Columns returns the names of the result columns as of the last QueryRaw (or Prepare),
	// nil when the statement returns no rows.
	Columns() []string
}

// nativeRaw is a user statement as a native session runs it.
type nativeRaw struct {
	st   RawStmt
	rows bool
}

// ExecSQL implements table.SQLSession on the driver's own connection; an error echoes the
// statement cut as the other ExecSQL's does.
func (s *nativeSession) ExecSQL(ctx context.Context, text string, args []table.Value, out *table.Rows) (int64, error) {
	if err := s.enter(ctx); err != nil {
		return 0, err
	}
	defer s.leave()
	x := s.raws[text]
	if x == nil {
		rc, ok := s.conn.(RawConn)
		if !ok {
			return 0, fmt.Errorf("%s: this client runs no user statements: use the engine option client=sql", s.e.d.Name())
		}
		if len(s.raws) >= table.MaxSQLStatements {
			return 0, fmt.Errorf("%s: more than %d distinct statements on one session", s.e.d.Name(), table.MaxSQLStatements)
		}
		q := Renumber(s.e.d, text)
		st, err := rc.PrepareRaw(ctx, q)
		if err != nil {
			return 0, fmt.Errorf("%s: prepare %q: %w", s.e.d.Name(), input.Short(q), s.wrap(ctx, err))
		}
		x = &nativeRaw{st: st, rows: ReturnsRows(text)}
		if s.raws == nil {
			s.raws = map[string]*nativeRaw{}
		}
		s.raws[text] = x
	}
	s.args = s.args[:0]
	for _, v := range args {
		if v.B == nil {
			s.args = append(s.args, Arg{Kind: ArgInt, I: v.I})
		} else {
			s.args = append(s.args, Arg{Kind: ArgText, B: v.B})
		}
	}
	res, err := x.st.QueryRaw(ctx, s.args, x.rows, out)
	if err != nil {
		return 0, fmt.Errorf("%s: %s: %w", s.e.d.Name(), input.Short(text), s.wrap(ctx, err))
	}
	return res.Rows, nil
}

// SQLColumns implements table.SQLSession.
func (s *nativeSession) SQLColumns(text string) []string {
	if x := s.raws[text]; x != nil {
		return x.st.Columns()
	}
	return nil
}
