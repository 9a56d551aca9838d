package postgres

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/rumbench/rumbench/internal/engine/sqlfam"
	"github.com/rumbench/rumbench/internal/netblock"
	"github.com/rumbench/rumbench/internal/table"
)

// Type OIDs the connection encodes and decodes in binary.
const (
	oidBytea       = 17
	oidInt8        = 20
	oidInt2        = 21
	oidInt4        = 23
	oidText        = 25
	oidBpchar      = 1042
	oidVarchar     = 1043
	oidTimestamp   = 1114
	oidTimestampTZ = 1184
)

// pgEpoch is 2000-01-01 00:00:00 UTC in unix seconds: PostgreSQL's binary timestamps count
// microseconds from it.
const pgEpoch = 946684800

// connector opens pgconn connections, over blocking sockets when blocking is set.
type connector struct {
	cfg    *pgconn.Config
	choice sqlfam.ClientChoice
}

func newConnector(dsn string, choice sqlfam.ClientChoice) (*connector, error) {
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	cfg.DialFunc = choice.Dial()
	return &connector{cfg: cfg, choice: choice}, nil
}

// LocksThread implements sqlfam.Connector.
func (c *connector) LocksThread() bool { return c.choice.IO != "netpoll" }

// HoldsP implements sqlfam.Connector.
func (c *connector) HoldsP() bool { return c.choice.IO == "raw" }

// Connect implements sqlfam.Connector.
func (c *connector) Connect(ctx context.Context) (sqlfam.Conn, error) {
	pc, err := pgconn.ConnectConfig(ctx, c.cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: connect: %w", connectError(err))
	}
	return &conn{pc: pc}, nil
}

// conn is a session's connection: statements are prepared with the extended protocol and run
// with binary arguments and results where the type allows, from reused buffers.
type conn struct {
	pc   *pgconn.PgConn
	n    int    // statements prepared
	wbuf []byte // the messages of a statement, reused
}

// stmt is a prepared statement with its argument and result formats.
type stmt struct {
	c       *conn
	sd      *pgconn.StatementDescription
	formats []int16                   // per argument: 1 binary, 0 text
	results []int16                   // per result column
	fields  []pgconn.FieldDescription // the result columns, in the formats of results
}

// binaryOID says whether values of type oid are sent and read in binary.
func binaryOID(oid uint32) bool {
	switch oid {
	case oidBytea, oidInt8, oidInt2, oidInt4, oidText, oidBpchar, oidVarchar, oidTimestamp, oidTimestampTZ:
		return true
	}
	return false
}

func formatOf(oid uint32) int16 {
	if binaryOID(oid) {
		return 1
	}
	return 0
}

// Prepare implements sqlfam.Conn.
func (c *conn) Prepare(ctx context.Context, text string) (sqlfam.Stmt, error) {
	c.n++
	nc := c.nb()
	nc.Alone(true)
	defer nc.Alone(false)
	sd, err := c.pc.Prepare(context.Background(), "rb"+strconv.Itoa(c.n), text, nil)
	if err != nil {
		return nil, err
	}
	s := &stmt{c: c, sd: sd}
	for _, oid := range sd.ParamOIDs {
		s.formats = append(s.formats, formatOf(oid))
	}
	for _, f := range sd.Fields {
		f.Format = formatOf(f.DataTypeOID)
		s.results = append(s.results, f.Format)
		s.fields = append(s.fields, f)
	}
	return s, nil
}

// Query implements sqlfam.Stmt. The statement runs as libpq runs a prepared statement, a Bind,
// an Execute and a Sync in one write, and its reply is read to the ReadyForQuery, both on the
// session's connection directly: the messages are encoded into a buffer the connection keeps
// (pgconn's own buffer shrinks back to 1 KiB after each large message, so a 100-row insert grew
// it again at every statement), and no lock, context watch, write timer or command tag string is
// set up per statement. pgconn keeps the connection (start-up, Prepare, the simple protocol).
func (s *stmt) Query(_ context.Context, args []sqlfam.Arg, cols []sqlfam.ColKind, out *table.Rows) (sqlfam.Result, error) {
	c := s.c
	if len(args) != len(s.sd.ParamOIDs) {
		return sqlfam.Result{}, fmt.Errorf("%d arguments for %d parameters", len(args), len(s.sd.ParamOIDs))
	}
	c.wbuf = s.appendBind(c.wbuf[:0], args)
	c.wbuf = append(c.wbuf, 'E', 0, 0, 0, 9, 0, 0, 0, 0, 0) // Execute: the unnamed portal, all rows
	c.wbuf = append(c.wbuf, 'S', 0, 0, 0, 4)                // Sync
	if _, err := c.pc.Conn().Write(c.wbuf); err != nil {
		return sqlfam.Result{}, err
	}
	return s.reply(cols, out)
}

// appendBind appends the Bind message of the unnamed portal: the arguments in the statement's
// formats, the results in s.results.
func (s *stmt) appendBind(b []byte, args []sqlfam.Arg) []byte {
	b = append(b, 'B', 0, 0, 0, 0, 0) // its length is set at the end; the unnamed portal
	b = append(b, s.sd.Name...)
	b = append(b, 0)
	b = binary.BigEndian.AppendUint16(b, uint16(len(s.formats)))
	for _, f := range s.formats {
		b = binary.BigEndian.AppendUint16(b, uint16(f))
	}
	b = binary.BigEndian.AppendUint16(b, uint16(len(args)))
	for i, a := range args {
		if (a.Kind == sqlfam.ArgText || a.Kind == sqlfam.ArgBytes) && a.B == nil {
			b = binary.BigEndian.AppendUint32(b, 0xFFFFFFFF) // NULL
			continue
		}
		at := len(b)
		b = append(b, 0, 0, 0, 0)
		b = appendArg(b, s.sd.ParamOIDs[i], a)
		binary.BigEndian.PutUint32(b[at:], uint32(len(b)-at-4))
	}
	b = binary.BigEndian.AppendUint16(b, uint16(len(s.results)))
	for _, f := range s.results {
		b = binary.BigEndian.AppendUint16(b, uint16(f))
	}
	binary.BigEndian.PutUint32(b[1:], uint32(len(b)-1))
	return b
}

// reply reads a statement's reply up to its ReadyForQuery: rows into out as cols say (cols nil:
// the count of rows the command reports). A server error is returned as a *pgconn.PgError once
// the connection is ready again.
func (s *stmt) reply(cols []sqlfam.ColKind, out *table.Rows) (sqlfam.Result, error) {
	fe := s.c.pc.Frontend()
	var res sqlfam.Result
	var err error
	for {
		msg, rerr := fe.Receive()
		if rerr != nil {
			return sqlfam.Result{}, rerr
		}
		switch m := msg.(type) {
		case *pgproto3.DataRow:
			if out != nil && err == nil {
				err = appendRow(m.Values, s.fields, cols, out)
			}
			if cols != nil {
				res.Rows++
			}
		case *pgproto3.CommandComplete:
			if cols == nil {
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
		// BindComplete, NoData, notices and parameter reports: nothing to do.
	}
}

// tagRows returns the row count that ends a command tag ("INSERT 0 100", "UPDATE 1"), 0 when
// it has none.
func tagRows(tag []byte) int64 {
	i := len(tag)
	for i > 0 && tag[i-1] >= '0' && tag[i-1] <= '9' {
		i--
	}
	if i == len(tag) || i == 0 || tag[i-1] != ' ' {
		return 0
	}
	var n int64
	for _, ch := range tag[i:] {
		n = n*10 + int64(ch-'0')
	}
	return n
}

// appendArg appends a in the format formatOf(oid) says for a parameter of type oid.
func appendArg(b []byte, oid uint32, a sqlfam.Arg) []byte {
	switch oid {
	case oidInt8:
		return binary.BigEndian.AppendUint64(b, uint64(a.I))
	case oidInt4:
		return binary.BigEndian.AppendUint32(b, uint32(int32(a.I)))
	case oidInt2:
		return binary.BigEndian.AppendUint16(b, uint16(int16(a.I)))
	case oidTimestamp, oidTimestampTZ:
		return binary.BigEndian.AppendUint64(b, uint64((a.I-pgEpoch)*1_000_000))
	}
	// Text and bytea in binary are their bytes; any other type in text.
	switch a.Kind {
	case sqlfam.ArgText, sqlfam.ArgBytes:
		return append(b, a.B...)
	case sqlfam.ArgTime:
		return time.Unix(a.I, 0).UTC().AppendFormat(b, "2006-01-02 15:04:05")
	}
	return strconv.AppendInt(b, a.I, 10)
}

// readResult reads the rows of rr into out as cols say, and closes rr.
func readResult(rr *pgconn.ResultReader, cols []sqlfam.ColKind, out *table.Rows) (sqlfam.Result, error) {
	var n int64
	var err error
	for rr.NextRow() {
		if out == nil {
			continue
		}
		if err == nil {
			err = appendRow(rr.Values(), rr.FieldDescriptions(), cols, out)
		}
		n++
	}
	tag, cerr := rr.Close()
	if cerr != nil {
		return sqlfam.Result{}, cerr
	}
	if err != nil {
		return sqlfam.Result{}, err
	}
	if cols == nil {
		return sqlfam.Result{Rows: tag.RowsAffected()}, nil
	}
	return sqlfam.Result{Rows: n}, nil
}

// appendRow appends one row: values in the fields' formats, read as cols say.
func appendRow(values [][]byte, fields []pgconn.FieldDescription, cols []sqlfam.ColKind, out *table.Rows) error {
	if len(values) != len(cols) || len(fields) != len(cols) {
		return fmt.Errorf("a row of %d columns, %d expected", len(values), len(cols))
	}
	row := out.Append()
	for i, v := range values {
		if v == nil {
			continue // NULL: 0 or nil
		}
		bin := fields[i].Format == 1
		oid := fields[i].DataTypeOID
		switch cols[i] {
		case sqlfam.ColBytes:
			if !bin && oid == oidBytea {
				b, err := hex.DecodeString(string(v[min(2, len(v)):])) // text bytea: \x followed by hex
				if err != nil {
					return err
				}
				v = b
			}
			row[i].B = out.CopyBytes(v)
		case sqlfam.ColTime:
			if bin {
				us := int64(binary.BigEndian.Uint64(v))
				row[i].I = floorDiv(us, 1_000_000) + pgEpoch
				continue
			}
			t, err := time.Parse("2006-01-02 15:04:05", string(v))
			if err != nil {
				return err
			}
			row[i].I = t.Unix()
		default:
			x, err := readInt(v, bin)
			if err != nil {
				return err
			}
			row[i].I = x
		}
	}
	return nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// readInt reads a binary integer of 2, 4 or 8 bytes, or a decimal text (its integer part).
func readInt(v []byte, bin bool) (int64, error) {
	if bin {
		switch len(v) {
		case 2:
			return int64(int16(binary.BigEndian.Uint16(v))), nil
		case 4:
			return int64(int32(binary.BigEndian.Uint32(v))), nil
		case 8:
			return int64(binary.BigEndian.Uint64(v)), nil
		}
		return 0, fmt.Errorf("a binary integer of %d bytes", len(v))
	}
	return sqlfam.ParseInt(v)
}

// Query implements sqlfam.Conn: the text with its arguments written in as quoted literals, sent
// with the simple protocol, as pgx's simple protocol mode sends them.
func (c *conn) Query(_ context.Context, text string, args []sqlfam.Arg, cols []sqlfam.ColKind, out *table.Rows) (sqlfam.Result, error) {
	if len(args) > 0 {
		var err error
		if text, err = interpolate(text, args); err != nil {
			return sqlfam.Result{}, err
		}
	}
	nc := c.nb()
	nc.Alone(true)
	defer nc.Alone(false)
	mrr := c.pc.Exec(context.Background(), text)
	var res sqlfam.Result
	var err error
	for mrr.NextResult() {
		r, rerr := readResult(mrr.ResultReader(), cols, out)
		if err == nil {
			err = rerr
		}
		res.Rows += r.Rows
	}
	if cerr := mrr.Close(); err == nil {
		err = cerr
	}
	return res, err
}

// interpolate replaces the $n placeholders of text with the arguments as quoted literals, each
// with a space on both sides (so that no value can join a comment or an operator before it).
func interpolate(text string, args []sqlfam.Arg) (string, error) {
	var b []byte
	quoted := false
	for i := 0; i < len(text); i++ {
		ch := text[i]
		if ch == '\'' {
			quoted = !quoted
		}
		if ch != '$' || quoted || i+1 >= len(text) || text[i+1] < '0' || text[i+1] > '9' {
			b = append(b, ch)
			continue
		}
		j := i + 1
		for j < len(text) && text[j] >= '0' && text[j] <= '9' {
			j++
		}
		n, _ := strconv.Atoi(text[i+1 : j])
		if n < 1 || n > len(args) {
			return "", fmt.Errorf("placeholder $%d with %d arguments", n, len(args))
		}
		b = appendLiteral(b, args[n-1])
		i = j - 1
	}
	return string(b), nil
}

func appendLiteral(b []byte, a sqlfam.Arg) []byte {
	b = append(b, ' ')
	switch {
	case (a.Kind == sqlfam.ArgText || a.Kind == sqlfam.ArgBytes) && a.B == nil:
		return append(b, "null "...)
	case a.Kind == sqlfam.ArgText:
		b = append(b, '\'')
		for _, ch := range a.B {
			if ch == '\'' {
				b = append(b, '\'')
			}
			b = append(b, ch)
		}
		b = append(b, '\'')
	case a.Kind == sqlfam.ArgBytes:
		b = append(b, `'\x`...)
		b = hex.AppendEncode(b, a.B)
		b = append(b, '\'')
	case a.Kind == sqlfam.ArgTime:
		b = append(b, '\'')
		b = time.Unix(a.I, 0).UTC().AppendFormat(b, "2006-01-02 15:04:05")
		b = append(b, '\'')
	default:
		b = append(b, '\'')
		b = strconv.AppendInt(b, a.I, 10)
		b = append(b, '\'')
	}
	return append(b, ' ')
}

// nb returns the connection's socket when it is a netblock.Conn, else nil. Around pgconn's own
// calls (a prepare, a statement of the simple protocol, the close) it is made Alone: pgconn's
// background reader, started when a write takes long, may read it from a goroutine of its own,
// which must not take a turn of a netblock.Group's tasks. Statements run by stmt.Query and
// rawStmt.QueryRaw write and read the socket directly and take their turns.
func (c *conn) nb() *netblock.Conn {
	nc, _ := c.pc.Conn().(*netblock.Conn)
	return nc
}

// Interrupt implements sqlfam.Conn.
func (c *conn) Interrupt() {
	nc := c.pc.Conn()
	if bc, ok := nc.(*netblock.Conn); ok {
		bc.Interrupt()
		return
	}
	nc.SetDeadline(time.Unix(1, 0))
}

// Close implements sqlfam.Conn.
func (c *conn) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	nc := c.nb()
	nc.Alone(true)
	defer nc.Alone(false)
	return c.pc.Close(ctx)
}
