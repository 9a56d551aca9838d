package postgres

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/rumbench/rumbench/internal/engine/sqlfam"
	"github.com/rumbench/rumbench/internal/table"
)

var _ sqlfam.RawConn = (*conn)(nil)

// rawStmt is a user statement: arguments and results in text, as pgbench (libpq) sends and
// reads them.
type rawStmt struct {
	c    *conn
	sd   *pgconn.StatementDescription
	cols []string
}

// PrepareRaw implements sqlfam.RawConn.
func (c *conn) PrepareRaw(ctx context.Context, text string) (sqlfam.RawStmt, error) {
	c.n++
	nc := c.nb()
	nc.Alone(true)
	defer nc.Alone(false)
	sd, err := c.pc.Prepare(context.Background(), "rb"+strconv.Itoa(c.n), text, nil)
	if err != nil {
		return nil, err
	}
	s := &rawStmt{c: c, sd: sd}
	for _, f := range sd.Fields {
		s.cols = append(s.cols, f.Name)
	}
	return s, nil
}

// Columns implements sqlfam.RawStmt.
func (s *rawStmt) Columns() []string { return s.cols }

// QueryRaw implements sqlfam.RawStmt: a Bind (every argument and result in text), an Execute
// and a Sync in one write, as stmt.Query sends them.
func (s *rawStmt) QueryRaw(_ context.Context, args []sqlfam.Arg, _ bool, out *table.Rows) (sqlfam.Result, error) {
	c := s.c
	if len(args) != len(s.sd.ParamOIDs) {
		return sqlfam.Result{}, fmt.Errorf("%d arguments for %d parameters", len(args), len(s.sd.ParamOIDs))
	}
	b := append(c.wbuf[:0], 'B', 0, 0, 0, 0, 0) // length set below; the unnamed portal
	b = append(b, s.sd.Name...)
	b = append(b, 0, 0, 0) // the statement name's end; no format codes: every argument in text
	b = binary.BigEndian.AppendUint16(b, uint16(len(args)))
	for _, a := range args {
		if a.Kind == sqlfam.ArgText && a.B == nil {
			b = binary.BigEndian.AppendUint32(b, 0xFFFFFFFF)
			continue
		}
		at := len(b)
		b = append(b, 0, 0, 0, 0)
		if a.Kind == sqlfam.ArgInt {
			b = strconv.AppendInt(b, a.I, 10)
		} else {
			b = append(b, a.B...)
		}
		binary.BigEndian.PutUint32(b[at:], uint32(len(b)-at-4))
	}
	b = append(b, 0, 0) // no result format codes: every column in text
	binary.BigEndian.PutUint32(b[1:], uint32(len(b)-1))
	b = append(b, 'E', 0, 0, 0, 9, 0, 0, 0, 0, 0)
	b = append(b, 'S', 0, 0, 0, 4)
	c.wbuf = b
	if _, err := c.pc.Conn().Write(b); err != nil {
		return sqlfam.Result{}, err
	}
	if len(s.cols) > 0 {
		out.Reset(len(s.cols))
	}
	fe := c.pc.Frontend()
	var res sqlfam.Result
	var err error
	for {
		msg, rerr := fe.Receive()
		if rerr != nil {
			return sqlfam.Result{}, rerr
		}
		switch m := msg.(type) {
		case *pgproto3.DataRow:
			if err == nil && len(m.Values) == len(s.cols) {
				row := out.AppendRaw()
				for i, v := range m.Values {
					row[i] = table.Value{}
					if v != nil {
						row[i].B = out.CopyBytes(v)
					}
				}
			}
			res.Rows++
		case *pgproto3.CommandComplete:
			if len(s.cols) == 0 {
				res.Rows = tagRows(m.CommandTag)
			}
		case *pgproto3.ErrorResponse:
			if err == nil {
				err = pgconn.ErrorResponseToPgError(m)
			}
		case *pgproto3.ReadyForQuery:
			if err != nil {
				return sqlfam.Result{}, err
			}
			return res, nil
		}
	}
}
