package mysql

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
	"unsafe"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/rumbench/rumbench/internal/engine/sqlfam"
	"github.com/rumbench/rumbench/internal/netblock"
	"github.com/rumbench/rumbench/internal/table"
)

// connector opens go-sql-driver/mysql connections directly (without database/sql's pool), over
// blocking sockets when blocking is set.
type connector struct {
	cfg        *gomysql.Config
	choice     sqlfam.ClientChoice
	textInsert bool
	ownWire    bool // wire=own: statements through wire on the connections that allow it
}

// TextInserts implements sqlfam.TextInserter: the insert=text option.
func (c *connector) TextInserts() bool { return c.textInsert }

func newConnector(dsn string, choice sqlfam.ClientChoice) (*connector, error) {
	cfg, err := gomysql.ParseDSN(withParams(dsn))
	if err != nil {
		return nil, err
	}
	// The driver logs the errors it returns; an interrupted statement's are expected.
	cfg.Logger = quiet{}
	return &connector{cfg: cfg, choice: choice}, nil
}

// LocksThread implements sqlfam.Connector.
func (c *connector) LocksThread() bool { return c.choice.IO != "netpoll" }

// HoldsP implements sqlfam.Connector.
func (c *connector) HoldsP() bool { return c.choice.IO == "raw" }

// Connect implements sqlfam.Connector.
func (c *connector) Connect(ctx context.Context) (sqlfam.Conn, error) {
	cfg := c.cfg.Clone()
	mc := &conn{}
	var hs *handshake
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		nc, err := c.choice.Dial()(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		mc.nc = nc
		if !c.ownWire {
			return nc, nil
		}
		hs = &handshake{Conn: nc}
		return hs, nil
	}
	dc, err := gomysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	if mc.dc, err = dc.Connect(ctx); err != nil {
		return nil, fmt.Errorf("mysql: connect: %w", err)
	}
	var ok bool
	if mc.q, ok = mc.dc.(queryer); !ok {
		mc.dc.Close()
		return nil, errors.New("mysql: the driver's connection cannot run statements directly")
	}
	if hs != nil {
		// The driver's commands and wire's take turns on the socket: wire reads and writes it
		// directly, without the handshake watcher. A compressed or encrypted connection stays
		// with the driver.
		if caps, seen := hs.agreed(); seen && caps&(capSSL|capCompress) == 0 {
			mc.w = newWire(mc.nc, caps&capDeprecateEOF != 0)
		}
	}
	return mc, nil
}

// queryer is the driver connection's direct statement API (driver.Execer and driver.Queryer):
// with InterpolateParams the arguments are written into the text.
type queryer interface {
	Exec(query string, args []driver.Value) (driver.Result, error)
	Query(query string, args []driver.Value) (driver.Rows, error)
	Prepare(query string) (driver.Stmt, error)
}

// conn is a session's driver connection. Statements go through wire on it when w is set, else
// through the driver's own statement API (not database/sql's): arguments and destinations in
// reused slices, no context watch (the session interrupts the socket instead).
type conn struct {
	dc   driver.Conn
	q    queryer
	nc   net.Conn
	w    *wire // nil: statements through the driver
	vals []driver.Value
	dest []driver.Value
	text textQuery
}

func (c *conn) values(args []sqlfam.Arg, prepared bool) []driver.Value {
	c.vals = c.vals[:0]
	for _, a := range args {
		switch {
		case (a.Kind == sqlfam.ArgText || a.Kind == sqlfam.ArgBytes) && a.B == nil:
			c.vals = append(c.vals, nil)
		case a.Kind == sqlfam.ArgText && !prepared:
			// Interpolated as a string literal; a []byte would be written as a binary one.
			c.vals = append(c.vals, string(a.B))
		case a.Kind == sqlfam.ArgText || a.Kind == sqlfam.ArgBytes:
			c.vals = append(c.vals, a.B)
		case a.Kind == sqlfam.ArgTime:
			c.vals = append(c.vals, time.Unix(a.I, 0).UTC())
		default:
			c.vals = append(c.vals, a.I)
		}
	}
	return c.vals
}

// Prepare implements sqlfam.Conn.
func (c *conn) Prepare(_ context.Context, text string) (sqlfam.Stmt, error) {
	if c.w != nil {
		st, err := c.w.prepare(text)
		if err != nil {
			return nil, err
		}
		return st, nil
	}
	st, err := c.q.Prepare(text)
	if err != nil {
		return nil, err
	}
	return &stmt{c: c, st: st}, nil
}

type stmt struct {
	c  *conn
	st driver.Stmt
}

// Query implements sqlfam.Stmt: the binary protocol's COM_STMT_EXECUTE, by the driver.
func (s *stmt) Query(_ context.Context, args []sqlfam.Arg, cols []sqlfam.ColKind, out *table.Rows) (sqlfam.Result, error) {
	vals := s.c.values(args, true)
	if cols == nil {
		r, err := s.st.Exec(vals) //nolint:staticcheck // the driver's direct API, without database/sql's conversions
		return result(r, err)
	}
	rows, err := s.st.Query(vals) //nolint:staticcheck
	if err != nil {
		return sqlfam.Result{}, err
	}
	return s.c.read(rows, cols, out)
}

// Query implements sqlfam.Conn: COM_QUERY, the arguments written into the text by textQuery
// (the same text as the driver's interpolation, without its boxing of each argument and its
// copy of the text into a string), which wire (or the driver) sends as it is; the statements
// textQuery cannot handle are interpolated and sent by the driver.
func (c *conn) Query(_ context.Context, text string, args []sqlfam.Arg, cols []sqlfam.ColKind, out *table.Rows) (sqlfam.Result, error) {
	var vals []driver.Value
	if len(args) == 0 {
		// As it is.
	} else if b, ok := c.text.build(text, args); ok {
		// The driver copies the text into its packet buffer and keeps no reference to it.
		text = unsafe.String(unsafe.SliceData(b), len(b))
	} else {
		vals = c.values(args, false)
	}
	if c.w != nil && vals == nil {
		return c.w.query(text, cols, out)
	}
	if cols == nil {
		r, err := c.q.Exec(text, vals)
		return result(r, err)
	}
	rows, err := c.q.Query(text, vals)
	if err != nil {
		return sqlfam.Result{}, err
	}
	return c.read(rows, cols, out)
}

func result(r driver.Result, err error) (sqlfam.Result, error) {
	if err != nil {
		return sqlfam.Result{}, err
	}
	n, err := r.RowsAffected()
	if err != nil {
		return sqlfam.Result{}, err
	}
	id, _ := r.LastInsertId()
	return sqlfam.Result{Rows: n, LastID: id}, nil
}

// read appends the rows of rows to out as cols say, and closes rows.
func (c *conn) read(rows driver.Rows, cols []sqlfam.ColKind, out *table.Rows) (sqlfam.Result, error) {
	if len(rows.Columns()) != len(cols) {
		rows.Close()
		return sqlfam.Result{}, fmt.Errorf("a result of %d columns, %d expected", len(rows.Columns()), len(cols))
	}
	if cap(c.dest) < len(cols) {
		c.dest = make([]driver.Value, len(cols))
	}
	dest := c.dest[:len(cols)]
	var n int64
	var err error
	for {
		if err = rows.Next(dest); err != nil {
			break
		}
		n++
		row := out.Append()
		for i, v := range dest {
			if err = cell(&row[i], v, cols[i], out); err != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	cerr := rows.Close()
	if err == io.EOF {
		err = cerr
	}
	return sqlfam.Result{Rows: n}, err
}

// cell reads one driver value into dst as k says.
func cell(dst *table.Value, v driver.Value, k sqlfam.ColKind, out *table.Rows) error {
	switch v := v.(type) {
	case nil:
	case int64:
		dst.I = v
	case uint64:
		dst.I = int64(v)
	case float64:
		dst.I = int64(v)
	case float32:
		dst.I = int64(v)
	case time.Time:
		dst.I = v.Unix()
	case []byte:
		if k == sqlfam.ColBytes {
			dst.B = out.CopyBytes(v)
			return nil
		}
		x, err := sqlfam.ParseInt(v)
		if err != nil {
			return err
		}
		dst.I = x
	case string:
		dst.B = out.CopyBytes([]byte(v))
	default:
		return fmt.Errorf("a result value of type %T", v)
	}
	return nil
}

// Interrupt implements sqlfam.Conn.
func (c *conn) Interrupt() { interrupt(c.nc) }

// interrupt makes the reads and writes of nc, in flight and later, fail, without releasing its
// descriptor.
func interrupt(nc net.Conn) {
	if bc, ok := nc.(*netblock.Conn); ok {
		bc.Interrupt()
		return
	}
	if nc != nil {
		nc.SetDeadline(time.Unix(1, 0))
	}
}

// Close implements sqlfam.Conn.
func (c *conn) Close() error { return c.dc.Close() }

// quiet is a driver logger that drops what it is given.
type quiet struct{}

func (quiet) Print(...any) {}
