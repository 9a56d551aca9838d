package mysql

import (
	"context"
	"database/sql/driver"
	"io"
	"slices"

	"github.com/rumbench/rumbench/internal/engine/sqlfam"
	"github.com/rumbench/rumbench/internal/table"
)

var _ sqlfam.RawConn = (*conn)(nil)

// rawStmt is a user statement, prepared and run by the driver (the binary protocol); its
// results are written as text.
type rawStmt struct {
	c    *conn
	st   driver.Stmt
	cols []string
}

// PrepareRaw implements sqlfam.RawConn.
func (c *conn) PrepareRaw(_ context.Context, text string) (sqlfam.RawStmt, error) {
	st, err := c.q.Prepare(text)
	if err != nil {
		return nil, err
	}
	return &rawStmt{c: c, st: st}, nil
}

// Columns implements sqlfam.RawStmt.
func (s *rawStmt) Columns() []string { return s.cols }

// QueryRaw implements sqlfam.RawStmt.
func (s *rawStmt) QueryRaw(_ context.Context, args []sqlfam.Arg, rows bool, out *table.Rows) (sqlfam.Result, error) {
	vals := s.c.values(args, true)
	if !rows {
		r, err := s.st.Exec(vals) //nolint:staticcheck // the driver's direct API
		return result(r, err)
	}
	rs, err := s.st.Query(vals) //nolint:staticcheck
	if err != nil {
		return sqlfam.Result{}, err
	}
	if names := rs.Columns(); !slices.Equal(names, s.cols) {
		s.cols = slices.Clone(names)
	}
	n := len(s.cols)
	if cap(s.c.dest) < n {
		s.c.dest = make([]driver.Value, n)
	}
	dest := s.c.dest[:n]
	out.Reset(n)
	var count int64
	for {
		if err = rs.Next(dest); err != nil {
			break
		}
		count++
		row := out.Append()
		for i, v := range dest {
			row[i].B = sqlfam.AppendText(out, v)
		}
	}
	cerr := rs.Close()
	if err == io.EOF {
		err = cerr
	}
	return sqlfam.Result{Rows: count}, err
}
