package mysql

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	mm "github.com/ziutek/mymysql/mysql"
	"github.com/ziutek/mymysql/native"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/rumbench/rumbench/internal/engine/sqlfam"
	"github.com/rumbench/rumbench/internal/netblock"
	"github.com/rumbench/rumbench/internal/table"
)

// mmConn is a sqlfam.Conn over ziutek/mymysql's native engine, for the client-path benchmark:
// prepared statements bound once to the statement's own argument slots (so that a statement
// passes no interface values), text statements written by textQuery.
type mmConn struct {
	c   mm.Conn
	nc  net.Conn
	txt textQuery
	row mm.Row
}

// mmConnect opens a mymysql connection to the server of dsn (a go-sql-driver DSN), over dial.
func mmConnect(dsn string, dial func(ctx context.Context, network, addr string) (net.Conn, error)) (*mmConn, error) {
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return nil, err
	}
	mc := &mmConn{c: native.New("tcp", "", cfg.Addr, cfg.User, cfg.Passwd, cfg.DBName)}
	mc.c.SetDialer(func(proto, laddr, raddr string, timeout time.Duration) (net.Conn, error) {
		nc, err := dial(context.Background(), "tcp", raddr)
		mc.nc = nc
		return nc, err
	})
	if err := mc.c.Connect(); err != nil {
		return nil, fmt.Errorf("mymysql: connect: %w", err)
	}
	return mc, nil
}

// Prepare implements sqlfam.Conn.
func (c *mmConn) Prepare(_ context.Context, text string) (sqlfam.Stmt, error) {
	st, err := c.c.Prepare(text)
	if err != nil {
		return nil, err
	}
	n := st.NumParam()
	return &mmStmt{c: c, st: st, kinds: make([]sqlfam.ArgKind, n), ints: make([]int64, n), bufs: make([][]byte, n),
		ptrs: make([]*[]byte, n), times: make([]time.Time, n)}, nil
}

// mmStmt is a prepared statement whose parameters are bound (by address) to its slots: ints for
// integers, bufs (through ptrs, nil for NULL) for strings, times for timestamps (mymysql
// reads them through an interface value: a mysql.Raw DATETIME is not accepted). The binding is redone when the kinds change.
type mmStmt struct {
	c     *mmConn
	st    mm.Stmt
	bound bool
	kinds []sqlfam.ArgKind
	ints  []int64
	bufs  [][]byte
	ptrs  []*[]byte
	times []time.Time
	row   mm.Row
}

// Query implements sqlfam.Stmt.
func (s *mmStmt) Query(_ context.Context, args []sqlfam.Arg, cols []sqlfam.ColKind, out *table.Rows) (sqlfam.Result, error) {
	if len(args) != len(s.kinds) {
		return sqlfam.Result{}, fmt.Errorf("mymysql: %d arguments for %d parameters", len(args), len(s.kinds))
	}
	rebind := !s.bound
	for i, a := range args {
		if a.Kind != s.kinds[i] {
			s.kinds[i], rebind = a.Kind, true
		}
		switch a.Kind {
		case sqlfam.ArgInt:
			s.ints[i] = a.I
		case sqlfam.ArgTime:
			s.times[i] = time.Unix(a.I, 0).UTC()
		default:
			s.bufs[i] = a.B
			if a.B == nil {
				s.ptrs[i] = nil
			} else {
				s.ptrs[i] = &s.bufs[i]
			}
		}
	}
	if rebind {
		params := make([]any, len(args))
		for i, k := range s.kinds {
			switch k {
			case sqlfam.ArgInt:
				params[i] = &s.ints[i]
			case sqlfam.ArgTime:
				params[i] = &s.times[i]
			default:
				params[i] = &s.ptrs[i]
			}
		}
		s.st.Bind(params...)
		s.bound = true
	}
	res, err := s.st.Run()
	if err != nil {
		return sqlfam.Result{}, err
	}
	return s.c.read(res, &s.row, cols, out)
}

// Query implements sqlfam.Conn: COM_QUERY of the text textQuery writes.
func (c *mmConn) Query(_ context.Context, text string, args []sqlfam.Arg, cols []sqlfam.ColKind, out *table.Rows) (sqlfam.Result, error) {
	b, ok := c.txt.build(text, args)
	if !ok {
		return sqlfam.Result{}, errors.New("mymysql: the statement's arguments cannot be written into its text")
	}
	res, err := c.c.Start(string(b))
	if err != nil {
		return sqlfam.Result{}, err
	}
	return c.read(res, &c.row, cols, out)
}

// read reads res's rows into out (row is the reused row of the statement).
func (c *mmConn) read(res mm.Result, row *mm.Row, cols []sqlfam.ColKind, out *table.Rows) (sqlfam.Result, error) {
	if res.StatusOnly() {
		return sqlfam.Result{Rows: int64(res.AffectedRows()), LastID: int64(res.InsertId())}, nil
	}
	if len(res.Fields()) != len(cols) {
		res.End()
		return sqlfam.Result{}, fmt.Errorf("a result of %d columns, %d expected", len(res.Fields()), len(cols))
	}
	if len(*row) != len(cols) {
		*row = res.MakeRow()
	}
	var n int64
	for {
		err := res.ScanRow(*row)
		if err == io.EOF {
			return sqlfam.Result{Rows: n}, nil
		}
		if err != nil {
			return sqlfam.Result{}, err
		}
		n++
		dst := out.Append()
		for i, v := range *row {
			if err := mmCell(&dst[i], v, cols[i], out); err != nil {
				res.End()
				return sqlfam.Result{}, err
			}
		}
	}
}

// mmCell reads one mymysql value as the native session's cell does (mymysql also returns int32).
func mmCell(dst *table.Value, v any, k sqlfam.ColKind, out *table.Rows) error {
	if x, ok := v.(int32); ok {
		v = int64(x)
	}
	return cell(dst, v, k, out)
}

// Interrupt implements sqlfam.Conn.
func (c *mmConn) Interrupt() {
	if bc, ok := c.nc.(*netblock.Conn); ok {
		bc.Interrupt()
	}
}

// Close implements sqlfam.Conn.
func (c *mmConn) Close() error { return c.c.Close() }
