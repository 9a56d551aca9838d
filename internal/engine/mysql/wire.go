package mysql

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net"
	"strconv"
	"time"
	"unsafe"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/rumbench/rumbench/internal/engine/sqlfam"
	"github.com/rumbench/rumbench/internal/table"
)

// Protocol constants of the MySQL client/server protocol that wire uses.
const (
	comQuery       = 0x03
	comStmtPrepare = 0x16
	comStmtExecute = 0x17

	// maxPayload is the largest payload of one packet; a payload of this length continues in
	// the next packet.
	maxPayload = 1<<24 - 1

	capCompress     = 1 << 5
	capSSL          = 1 << 11
	capDeprecateEOF = 1 << 24

	statusMoreResults = 1 << 3
	flagUnsigned      = 1 << 5
)

// Column types (the protocol's MYSQL_TYPE_* codes) that wire decodes by themselves; the other
// types' values are length-encoded strings.
const (
	typeTiny      = 0x01
	typeShort     = 0x02
	typeLong      = 0x03
	typeFloat     = 0x04
	typeDouble    = 0x05
	typeNull      = 0x06
	typeTimestamp = 0x07
	typeLongLong  = 0x08
	typeInt24     = 0x09
	typeDate      = 0x0a
	typeTime      = 0x0b
	typeDateTime  = 0x0c
	typeYear      = 0x0d
	typeNewDate   = 0x0e
	typeBlob      = 0xfc
	typeString    = 0xfe
)

// wire speaks the statement commands of the MySQL client/server protocol itself, on a
// connection the driver opened and authenticated: COM_STMT_PREPARE, COM_STMT_EXECUTE with
// binary rows, and COM_QUERY with text rows. It writes and reads the driver's socket between
// the driver's own commands; every reply is read whole, so neither leaves bytes for the other.
// Its buffers are reused: a statement costs no allocation (but for an error), no boxed argument
// and no rows object. The arguments are sent as go-sql-driver/mysql sends them (integers as
// LONGLONG, strings and timestamps as strings), so the server runs and logs the same statements.
//
// After an I/O or protocol error the socket is shut down and every later command fails.
type wire struct {
	nc           net.Conn
	deprecateEOF bool // CLIENT_DEPRECATE_EOF was agreed: no EOF packet after column definitions

	out  []byte // the command being written, its packet header first
	in   []byte // bytes read; in[r:w] are not consumed yet
	r, w int
	big  []byte   // a payload of several packets
	cols []column // the columns of COM_QUERY's result
	err  error    // the error that broke the connection
}

// column is what wire keeps of a result's column definition.
type column struct {
	typ      byte
	unsigned bool
}

// wireStmt is a statement prepared by wire.
type wireStmt struct {
	w      *wire
	id     uint32
	params int
	// cols are its result's columns, as last described by the server: MariaDB leaves them out
	// of an execution's reply when they did not change (MARIADB_CLIENT_CACHE_METADATA, which
	// the driver asks for).
	cols []column
}

func newWire(nc net.Conn, deprecateEOF bool) *wire {
	return &wire{nc: nc, deprecateEOF: deprecateEOF, in: make([]byte, 16<<10), out: make([]byte, 0, 4<<10)}
}

// fail ends the connection's use for err, the first such error, and returns the error. The
// socket is shut down, not closed: the driver, which owns it, closes it with the connection.
func (w *wire) fail(err error) error {
	if w.err == nil {
		w.err = err
		interrupt(w.nc)
	}
	return w.err
}

// command starts a command packet of kind cmd in w.out.
func (w *wire) command(cmd byte) {
	w.out = append(w.out[:0], 0, 0, 0, 0, cmd)
}

// send writes the command in w.out (sequence 0, split into packets of maxPayload).
func (w *wire) send() error {
	if w.err != nil {
		return w.err
	}
	w.r, w.w = 0, 0
	b := w.out
	if n := len(b) - 4; n < maxPayload {
		b[0], b[1], b[2], b[3] = byte(n), byte(n>>8), byte(n>>16), 0
	} else {
		b = splitPackets(b[4:])
	}
	if _, err := w.nc.Write(b); err != nil {
		return w.fail(err)
	}
	return nil
}

// splitPackets returns payload as packets numbered from 0 (a payload of maxPayload or more).
func splitPackets(payload []byte) []byte {
	var b []byte
	for seq := byte(0); ; seq++ {
		n := min(len(payload), maxPayload)
		b = append(b, byte(n), byte(n>>8), byte(n>>16), seq)
		b = append(b, payload[:n]...)
		payload = payload[n:]
		if n < maxPayload {
			return b
		}
	}
}

// fill makes n unread bytes available at w.in[w.r:], reading the socket as needed.
func (w *wire) fill(n int) error {
	if w.w-w.r >= n {
		return nil
	}
	if w.r > 0 {
		w.w = copy(w.in, w.in[w.r:w.w])
		w.r = 0
	}
	if n > len(w.in) {
		in := make([]byte, max(n, 2*len(w.in)))
		copy(in, w.in[:w.w])
		w.in = in
	}
	for w.w < n {
		k, err := w.nc.Read(w.in[w.w:])
		w.w += k
		if err != nil && w.w < n {
			return w.fail(err)
		}
	}
	return nil
}

// packet returns the next packet's payload (the payloads of a long one joined), valid until the
// next call.
func (w *wire) packet() ([]byte, error) {
	if w.err != nil {
		return nil, w.err
	}
	w.big = w.big[:0]
	for {
		if err := w.fill(4); err != nil {
			return nil, err
		}
		n := int(w.in[w.r]) | int(w.in[w.r+1])<<8 | int(w.in[w.r+2])<<16
		if err := w.fill(4 + n); err != nil {
			return nil, err
		}
		p := w.in[w.r+4 : w.r+4+n]
		w.r += 4 + n
		if n < maxPayload && len(w.big) == 0 {
			return p, nil
		}
		w.big = append(w.big, p...)
		if n < maxPayload {
			return w.big, nil
		}
	}
}

// done ends a reply: nothing may follow its last packet.
func (w *wire) done() error {
	if w.r != w.w {
		return w.fail(fmt.Errorf("mysql: %d bytes after the end of a reply", w.w-w.r))
	}
	return nil
}

// errPacket returns the server's error in an ERR packet, as the driver's MySQLError.
func errPacket(p []byte) error {
	if len(p) < 3 {
		return errors.New("mysql: a short ERR packet")
	}
	e := &gomysql.MySQLError{Number: binary.LittleEndian.Uint16(p[1:])}
	p = p[3:]
	if len(p) >= 6 && p[0] == '#' {
		copy(e.SQLState[:], p[1:6])
		p = p[6:]
	}
	e.Message = string(p)
	return e
}

var errShort = errors.New("mysql: a packet shorter than its content")

// lenenc reads a length-encoded integer at p[i:]; null is true for the NULL marker (0xfb).
func lenenc(p []byte, i int) (v uint64, next int, null bool, err error) {
	if i >= len(p) {
		return 0, i, false, errShort
	}
	switch c := p[i]; {
	case c < 0xfb:
		return uint64(c), i + 1, false, nil
	case c == 0xfb:
		return 0, i + 1, true, nil
	case c == 0xfc && i+3 <= len(p):
		return uint64(binary.LittleEndian.Uint16(p[i+1:])), i + 3, false, nil
	case c == 0xfd && i+4 <= len(p):
		return uint64(p[i+1]) | uint64(p[i+2])<<8 | uint64(p[i+3])<<16, i + 4, false, nil
	case c == 0xfe && i+9 <= len(p):
		return binary.LittleEndian.Uint64(p[i+1:]), i + 9, false, nil
	}
	return 0, i, false, errShort
}

// lenencBytes reads a length-encoded string at p[i:] (nil for NULL).
func lenencBytes(p []byte, i int) ([]byte, int, error) {
	n, i, null, err := lenenc(p, i)
	if err != nil || null {
		return nil, i, err
	}
	if uint64(len(p)-i) < n {
		return nil, i, errShort
	}
	return p[i : i+int(n)], i + int(n), nil
}

func appendLenenc(b []byte, n uint64) []byte {
	switch {
	case n < 0xfb:
		return append(b, byte(n))
	case n < 1<<16:
		return append(b, 0xfc, byte(n), byte(n>>8))
	case n < 1<<24:
		return append(b, 0xfd, byte(n), byte(n>>8), byte(n>>16))
	}
	return binary.LittleEndian.AppendUint64(append(b, 0xfe), n)
}

// skip reads and drops n packets.
func (w *wire) skip(n int) error {
	for range n {
		if _, err := w.packet(); err != nil {
			return err
		}
	}
	return nil
}

// prepare runs COM_STMT_PREPARE.
func (w *wire) prepare(text string) (*wireStmt, error) {
	w.command(comStmtPrepare)
	w.out = append(w.out, text...)
	if err := w.send(); err != nil {
		return nil, err
	}
	p, err := w.packet()
	if err != nil {
		return nil, err
	}
	if len(p) > 0 && p[0] == 0xff {
		return nil, errPacket(p)
	}
	if len(p) < 12 || p[0] != 0 {
		return nil, w.fail(errors.New("mysql: a malformed COM_STMT_PREPARE reply"))
	}
	st := &wireStmt{w: w, id: binary.LittleEndian.Uint32(p[1:])}
	ncols, params := int(binary.LittleEndian.Uint16(p[5:])), int(binary.LittleEndian.Uint16(p[7:]))
	st.params = params
	if params > 0 && !w.deprecateEOF {
		params++
	}
	if err := w.skip(params); err != nil {
		return nil, err
	}
	if ncols > 0 {
		if err := w.columns(ncols, &st.cols); err != nil {
			return nil, err
		}
	}
	return st, w.done()
}

// Query implements sqlfam.Stmt: COM_STMT_EXECUTE, the arguments bound as the driver binds them
// (see conn.values and the driver's writeExecutePacket) but binary ones, bound as blobs, the
// rows read in the binary protocol.
func (s *wireStmt) Query(_ context.Context, args []sqlfam.Arg, cols []sqlfam.ColKind, out *table.Rows) (sqlfam.Result, error) {
	w := s.w
	if len(args) != s.params {
		return sqlfam.Result{}, fmt.Errorf("mysql: %d arguments for a statement of %d parameters", len(args), s.params)
	}
	w.command(comStmtExecute)
	w.out = binary.LittleEndian.AppendUint32(w.out, s.id)
	w.out = append(w.out, 0, 1, 0, 0, 0) // no cursor, one iteration
	if len(args) > 0 {
		nulls := len(w.out)
		for range (len(args) + 7) / 8 {
			w.out = append(w.out, 0)
		}
		w.out = append(w.out, 1) // the types follow
		for i, a := range args {
			switch {
			case a.Kind == sqlfam.ArgInt:
				w.out = append(w.out, typeLongLong, 0)
			case a.Kind != sqlfam.ArgTime && a.B == nil:
				w.out[nulls+i/8] |= 1 << (i % 8)
				w.out = append(w.out, typeNull, 0)
			case a.Kind == sqlfam.ArgBytes:
				// Binary: the server stores the bytes as they are in a column of any character
				// set (a string would be read in the connection's and refused when not valid
				// there), as Connector/J binds setBytes.
				w.out = append(w.out, typeBlob, 0)
			default:
				w.out = append(w.out, typeString, 0)
			}
		}
		for _, a := range args {
			switch {
			case a.Kind == sqlfam.ArgInt:
				w.out = binary.LittleEndian.AppendUint64(w.out, uint64(a.I))
			case a.Kind == sqlfam.ArgTime:
				at := len(w.out)
				b, ok := appendDateTime(append(w.out, 0), a.I)
				if !ok {
					return sqlfam.Result{}, fmt.Errorf("mysql: the timestamp %d is outside years 1..9999", a.I)
				}
				b[at] = byte(len(b) - at - 1) // at most 19 bytes
				w.out = b
			case a.B != nil:
				w.out = appendLenenc(w.out, uint64(len(a.B)))
				w.out = append(w.out, a.B...)
			}
		}
	}
	if err := w.send(); err != nil {
		return sqlfam.Result{}, err
	}
	return w.result(s, cols, out)
}

// query runs COM_QUERY of text, its rows read in the text protocol.
func (w *wire) query(text string, cols []sqlfam.ColKind, out *table.Rows) (sqlfam.Result, error) {
	w.command(comQuery)
	w.out = append(w.out, text...)
	if err := w.send(); err != nil {
		return sqlfam.Result{}, err
	}
	return w.result(nil, cols, out)
}

// result reads a command's reply: an OK packet (a write), an ERR packet, or a result set whose
// rows (binary, of statement st; text when st is nil) are appended to out as cols say (nil: a
// write, whose rows are dropped). The results after the first of a multi-result reply are read
// and dropped.
func (w *wire) result(st *wireStmt, cols []sqlfam.ColKind, out *table.Rows) (sqlfam.Result, error) {
	var res sqlfam.Result
	var err error
	for first := true; ; first = false {
		p, perr := w.packet()
		if perr != nil {
			return res, perr
		}
		if len(p) == 0 {
			return res, w.fail(errors.New("mysql: an empty reply packet"))
		}
		var status uint16
		switch p[0] {
		case 0x00:
			aff, id, st, perr := okPacket(p)
			if perr != nil {
				return res, w.fail(perr)
			}
			status = st
			if first {
				res = sqlfam.Result{Rows: int64(aff), LastID: int64(id)}
				if cols != nil {
					err = fmt.Errorf("a result of 0 columns, %d expected", len(cols))
				}
			}
		case 0xff:
			// An error ends the reply (also one after the first result of several).
			if err := w.done(); err != nil {
				return res, err
			}
			return res, errPacket(p)
		case 0xfb:
			return res, w.fail(errors.New("mysql: the server asked for a local file"))
		default:
			var n int64
			var rerr error
			if !first {
				cols = nil
			}
			var got int
			n, got, status, rerr = w.rows(p, st, cols, out)
			if rerr != nil {
				return res, rerr
			}
			if first {
				res.Rows = n
				if cols != nil && got != len(cols) {
					err = fmt.Errorf("a result of %d columns, %d expected", got, len(cols))
				}
			}
		}
		if status&statusMoreResults == 0 {
			if derr := w.done(); derr != nil {
				return res, derr
			}
			return res, err
		}
	}
}

// okPacket reads an OK packet (or the OK packet that ends a result set, header 0xfe).
func okPacket(p []byte) (affected, lastID uint64, status uint16, err error) {
	affected, i, _, err := lenenc(p, 1)
	if err != nil {
		return
	}
	if lastID, i, _, err = lenenc(p, i); err != nil {
		return
	}
	if i+2 > len(p) {
		return 0, 0, 0, errShort
	}
	return affected, lastID, binary.LittleEndian.Uint16(p[i:]), nil
}

// rows reads a result set from its first packet p (the column count): the column definitions
// and the rows (binary of statement st, text when st is nil), appended to out as cols say when
// cols has one kind per column (else dropped), to the packet that ends it. It returns the
// number of rows and of columns, and the server status.
func (w *wire) rows(p []byte, st *wireStmt, cols []sqlfam.ColKind, out *table.Rows) (int64, int, uint16, error) {
	n, i, _, err := lenenc(p, 0)
	if err != nil {
		return 0, 0, 0, w.fail(err)
	}
	defs := &w.cols
	if st != nil {
		defs = &st.cols
	}
	// MariaDB's cached metadata: a byte after the count says whether the definitions follow.
	if i < len(p) && p[i] == 0 {
		if st == nil || uint64(len(st.cols)) != n {
			return 0, 0, 0, w.fail(errors.New("mysql: a result without the column definitions of its statement"))
		}
	} else if err := w.columns(int(n), defs); err != nil {
		return 0, 0, 0, err
	}
	if !w.deprecateEOF {
		if err := w.skip(1); err != nil {
			return 0, 0, 0, err
		}
	}
	defc := *defs
	keep := cols != nil && len(cols) == len(defc)
	var rows int64
	for {
		p, err := w.packet()
		if err != nil {
			return rows, len(defc), 0, err
		}
		if len(p) > 0 && p[0] == 0xfe && len(p) < maxPayload {
			var status uint16
			if w.deprecateEOF {
				_, _, status, err = okPacket(p)
			} else if len(p) >= 5 {
				status = binary.LittleEndian.Uint16(p[3:])
			} else {
				err = errShort
			}
			if err != nil {
				return rows, len(defc), 0, w.fail(err)
			}
			return rows, len(defc), status, nil
		}
		if len(p) > 0 && p[0] == 0xff {
			// An error in place of a row ends the reply: a statement killed while it sent its
			// rows (a Galera node's brute-force abort of a conflicting transaction).
			if err := w.done(); err != nil {
				return rows, len(defc), 0, err
			}
			return rows, len(defc), 0, errPacket(p)
		}
		rows++
		if !keep {
			continue
		}
		if st != nil {
			err = binaryRow(p, defc, cols, out)
		} else {
			err = textRow(p, defc, cols, out)
		}
		if err != nil {
			return rows, len(defc), 0, w.fail(err)
		}
	}
}

// columns reads n column definitions into defs.
func (w *wire) columns(n int, defs *[]column) error {
	*defs = (*defs)[:0]
	for range n {
		d, err := w.packet()
		if err != nil {
			return err
		}
		c, err := columnDef(d)
		if err != nil {
			return w.fail(err)
		}
		*defs = append(*defs, c)
	}
	return nil
}

// columnDef reads the type and the unsigned flag of a column definition (Protocol::ColumnDefinition41).
func columnDef(p []byte) (column, error) {
	i := 0
	for range 6 { // catalog, schema, table, org_table, name, org_name
		var err error
		if _, i, err = lenencBytes(p, i); err != nil {
			return column{}, err
		}
	}
	// The fixed fields' length (0x0c), character set (2), column length (4), type, flags (2).
	if i+10 > len(p) {
		return column{}, errShort
	}
	return column{typ: p[i+7], unsigned: p[i+8]&flagUnsigned != 0}, nil
}

// binaryRow appends a row of the binary protocol to out.
func binaryRow(p []byte, defs []column, cols []sqlfam.ColKind, out *table.Rows) error {
	nb := (len(defs) + 9) / 8
	if len(p) < 1+nb {
		return errShort
	}
	nulls, i := p[1:1+nb], 1+nb
	row := out.Append()
	for c, col := range defs {
		if nulls[(c+2)/8]&(1<<((c+2)%8)) != 0 {
			continue
		}
		var x int64
		var b []byte
		isInt := true
		switch col.typ {
		case typeTiny:
			if i+1 > len(p) {
				return errShort
			}
			x, i = int64(int8(p[i])), i+1
			if col.unsigned {
				x = int64(uint8(x))
			}
		case typeShort, typeYear:
			if i+2 > len(p) {
				return errShort
			}
			x, i = int64(int16(binary.LittleEndian.Uint16(p[i:]))), i+2
			if col.unsigned {
				x = int64(uint16(x))
			}
		case typeLong, typeInt24:
			if i+4 > len(p) {
				return errShort
			}
			x, i = int64(int32(binary.LittleEndian.Uint32(p[i:]))), i+4
			if col.unsigned {
				x = int64(uint32(x))
			}
		case typeLongLong:
			if i+8 > len(p) {
				return errShort
			}
			x, i = int64(binary.LittleEndian.Uint64(p[i:])), i+8
		case typeFloat:
			if i+4 > len(p) {
				return errShort
			}
			x, i = int64(math.Float32frombits(binary.LittleEndian.Uint32(p[i:]))), i+4
		case typeDouble:
			if i+8 > len(p) {
				return errShort
			}
			x, i = int64(math.Float64frombits(binary.LittleEndian.Uint64(p[i:]))), i+8
		case typeNull:
		case typeDate, typeDateTime, typeTimestamp, typeNewDate, typeTime:
			if i+1 > len(p) || i+1+int(p[i]) > len(p) {
				return errShort
			}
			d := p[i+1 : i+1+int(p[i])]
			i += 1 + len(d)
			if col.typ == typeTime {
				x = binaryTime(d)
			} else {
				x = binaryDate(d)
			}
		default:
			var err error
			if b, i, err = lenencBytes(p, i); err != nil {
				return err
			}
			isInt = false
		}
		if err := put(&row[c], isInt, x, b, cols[c], out); err != nil {
			return err
		}
	}
	return nil
}

// textRow appends a row of the text protocol to out: integer and floating-point columns read as
// integers and date columns as unix seconds, as the driver reads them (parseTime, UTC).
func textRow(p []byte, defs []column, cols []sqlfam.ColKind, out *table.Rows) error {
	row := out.Append()
	i := 0
	for c, col := range defs {
		if i < len(p) && p[i] == 0xfb {
			i++
			continue
		}
		b, next, err := lenencBytes(p, i)
		if err != nil {
			return err
		}
		i = next
		var x int64
		isInt := true
		switch col.typ {
		case typeTiny, typeShort, typeInt24, typeYear, typeLong:
			x, err = sqlfam.ParseInt(b)
		case typeLongLong:
			if col.unsigned {
				var u uint64
				u, err = strconv.ParseUint(unsafe.String(unsafe.SliceData(b), len(b)), 10, 64)
				x = int64(u)
			} else {
				x, err = sqlfam.ParseInt(b)
			}
		case typeFloat, typeDouble:
			var f float64
			f, err = strconv.ParseFloat(unsafe.String(unsafe.SliceData(b), len(b)), 64)
			x = int64(f)
		case typeDate, typeDateTime, typeTimestamp, typeNewDate:
			x, err = textDate(b)
		default:
			isInt = false
		}
		if err != nil {
			return err
		}
		if err := put(&row[c], isInt, x, b, cols[c], out); err != nil {
			return err
		}
	}
	return nil
}

// put stores a value in dst as k says, as cell stores the driver's: an integer (or a date's
// unix seconds) as it is, bytes copied for ColBytes and read as an integer otherwise.
func put(dst *table.Value, isInt bool, x int64, b []byte, k sqlfam.ColKind, out *table.Rows) error {
	if isInt {
		dst.I = x
		return nil
	}
	if k == sqlfam.ColBytes {
		dst.B = out.CopyBytes(b)
		return nil
	}
	x, err := sqlfam.ParseInt(b)
	dst.I = x
	return err
}

// zeroDate is the unix time of the zero date (0000-00-00), which the driver reads as time.Time{}.
var zeroDate = time.Time{}.Unix()

// binaryDate reads a DATE, DATETIME or TIMESTAMP of the binary protocol as unix seconds (UTC).
func binaryDate(d []byte) int64 {
	if len(d) < 4 {
		return zeroDate
	}
	y, mo, day := int(binary.LittleEndian.Uint16(d)), int(d[2]), int(d[3])
	var h, mi, s int
	if len(d) >= 7 {
		h, mi, s = int(d[4]), int(d[5]), int(d[6])
	}
	if y == 0 && mo == 0 && day == 0 {
		return zeroDate
	}
	return time.Date(y, time.Month(mo), day, h, mi, s, 0, time.UTC).Unix()
}

// binaryTime reads a TIME of the binary protocol as seconds.
func binaryTime(d []byte) int64 {
	if len(d) < 8 {
		return 0
	}
	x := int64(binary.LittleEndian.Uint32(d[1:]))*86400 + int64(d[5])*3600 + int64(d[6])*60 + int64(d[7])
	if d[0] == 1 {
		x = -x
	}
	return x
}

// textDate reads "YYYY-MM-DD[ HH:MM:SS[.fraction]]" as unix seconds (UTC).
func textDate(b []byte) (int64, error) {
	if len(b) != 10 && len(b) < 19 {
		return 0, fmt.Errorf("mysql: %q is not a date", b)
	}
	var f [6]int
	for k, at := range []int{0, 5, 8, 11, 14, 17} {
		if k >= 3 && len(b) == 10 {
			break
		}
		w := 2
		if k == 0 {
			w = 4
		}
		for _, c := range b[at : at+w] {
			if c < '0' || c > '9' {
				return 0, fmt.Errorf("mysql: %q is not a date", b)
			}
			f[k] = f[k]*10 + int(c-'0')
		}
	}
	if f[0] == 0 && f[1] == 0 && f[2] == 0 {
		return zeroDate, nil
	}
	return time.Date(f[0], time.Month(f[1]), f[2], f[3], f[4], f[5], 0, time.UTC).Unix(), nil
}

// handshake watches a connection's handshake as the driver makes it, for the capabilities both
// sides agreed: the server's in its greeting (the first packet read), the client's in its
// response (the first packet written). Once both are seen it passes bytes through untouched.
type handshake struct {
	net.Conn
	greeting []byte // the server's first packet, as far as read
	response []byte // the client's first packet's header and capabilities, as far as written
	server   uint32
	client   uint32
	seen     bool
}

func (h *handshake) Read(p []byte) (int, error) {
	n, err := h.Conn.Read(p)
	if !h.seen && h.server == 0 {
		h.greeting = append(h.greeting, p[:n]...)
		h.server = greetingCaps(h.greeting)
	}
	return n, err
}

func (h *handshake) Write(p []byte) (int, error) {
	if !h.seen && len(h.response) < 8 {
		h.response = append(h.response, p[:min(len(p), 8-len(h.response))]...)
		if len(h.response) == 8 {
			h.client = binary.LittleEndian.Uint32(h.response[4:])
			h.seen, h.greeting, h.response = true, nil, nil
		}
	}
	return h.Conn.Write(p)
}

// greetingCaps returns the server's capability flags from its greeting packet
// (Protocol::HandshakeV10) once it is whole, 0 before.
func greetingCaps(b []byte) uint32 {
	if len(b) < 4 {
		return 0
	}
	n := int(b[0]) | int(b[1])<<8 | int(b[2])<<16
	if len(b) < 4+n {
		return 0
	}
	p := b[4 : 4+n]
	i := 1 // protocol version
	for i < len(p) && p[i] != 0 {
		i++ // server version
	}
	i += 1 + 4 + 8 + 1 // its end, the connection id, the first scramble, a filler
	if i+2 > len(p) {
		return 1 // a greeting without capabilities: nothing agreed (non-zero: seen)
	}
	caps := uint32(binary.LittleEndian.Uint16(p[i:]))
	if i+7 <= len(p) {
		caps |= uint32(binary.LittleEndian.Uint16(p[i+5:])) << 16 // after the character set and status
	}
	return caps
}

// agreed returns the capabilities both sides set, and whether the handshake was seen.
func (h *handshake) agreed() (uint32, bool) { return h.server & h.client, h.seen }
