package mongo

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"

	"github.com/rumbench/rumbench/internal/netblock"
	"github.com/rumbench/rumbench/internal/table"
)

// The own wire path (option wire=own): a session sends its insert commands itself, as OP_MSG
// messages of the MongoDB wire protocol on a TCP connection of its own, built and read in
// buffers it reuses. The connection has no handshake and no authentication, so it serves only a
// server that needs neither (the managed FerretDB, or a --dsn of one host without credentials,
// TLS or compressors). Every other command still goes through the driver.

// wireModes are the values of option wire.
var wireModes = []string{"own", "driver"}

// OP_MSG: the message's opcode, its flag bits, and the kinds of its sections.
const (
	opMsg           = 2013
	flagChecksum    = 1 << 0 // a CRC-32C follows the sections
	flagMoreToCome  = 1 << 1
	flagsRequired   = 0xffff // bits a reader must know (the spec's "required" bits 0-15)
	sectionBody     = 0
	sectionSequence = 1
	msgHeaderLen    = 16
	// maxReply bounds the length a reply may announce (MongoDB's maxMessageSizeBytes).
	maxReply = 48_000_000
)

// wireAddr returns the network ("tcp" or "unix") and address of the server of the MongoDB URI
// dsn for wire=own, or an error of one line saying why the URI cannot take the own path: it
// must name exactly one host (no mongodb+srv) and have no credentials, no TLS and no
// compressors, because the own connection makes no handshake.
func wireAddr(dsn string) (network, addr string, err error) {
	const valid = "valid: wire=own with a dsn of exactly one host and no credentials, TLS or compressors (mongodb://host:port/), or wire=driver"
	if strings.HasPrefix(dsn, connstring.SchemeMongoDBSRV+"://") {
		return "", "", fmt.Errorf("engine mongo option wire=own: the dsn is a mongodb+srv URI (its hosts come from DNS); %s", valid)
	}
	cs, err := connstring.ParseAndValidate(dsn)
	if err != nil {
		return "", "", fmt.Errorf("engine mongo option wire=own: the dsn does not parse (%v); %s", err, valid)
	}
	var bad []string
	if len(cs.Hosts) != 1 {
		bad = append(bad, fmt.Sprintf("%d hosts", len(cs.Hosts)))
	}
	if cs.Username != "" || cs.PasswordSet || cs.AuthMechanism != "" {
		bad = append(bad, "credentials")
	}
	if cs.SSL {
		bad = append(bad, "TLS")
	}
	if len(cs.Compressors) > 0 {
		bad = append(bad, "compressors")
	}
	if len(bad) > 0 {
		return "", "", fmt.Errorf("engine mongo option wire=own: the dsn has %s, which the own connection (no handshake) cannot serve; %s", strings.Join(bad, ", "), valid)
	}
	h := cs.Hosts[0]
	if strings.HasSuffix(h, ".sock") {
		return "unix", h, nil
	}
	if _, _, err := net.SplitHostPort(h); err != nil {
		h = net.JoinHostPort(h, "27017")
	}
	return "tcp", h, nil
}

// ownConn is a session's own connection for insert commands and the buffers of its messages.
// It is used by the session's goroutine only, but for cancelled, which the watched context
// runs.
type ownConn struct {
	nc         net.Conn // nil until the first insert, and after a failure
	msg, reply []byte   // the last message sent and the last reply read
	docsAt     int      // the offset of msg's first document
	reqID      int32    // the last message's requestID

	// Cancellation (as the SQL engines' sessions do it, after a grace): watched is the context
	// cancelled is registered on (once per context, stop ends it); inflight is the requestID of
	// the message in flight (0: none), so that a cancellation interrupts only that one, and
	// only when its reply has not come within wireGrace; interrupted is set when it did, and the
	// next insert then opens a new connection. mu guards nc and watched against cancelled: the
	// session takes it only to replace or close nc and to change watched.
	mu          sync.Mutex
	watched     context.Context
	stop        func() bool
	inflight    atomic.Int32
	interrupted atomic.Bool
}

// wireGrace is how long an insert in flight when its context ends may still wait for its reply
// before its connection is interrupted. A write once sent then completes and is counted, as the
// driver's path does (writeCtx: an interrupted ordered insert leaves the batch's first rows
// written, uncounted, and the workload would insert their keys again), unless the server does
// not answer: a stopped or stuck server, a run interrupted with Ctrl-C.
const wireGrace = time.Second

// watch registers cancellation of ctx, in place of the context watched before (it allocates:
// once per context, which the runner keeps for a whole step).
func (w *ownConn) watch(ctx context.Context) {
	if w.stop != nil {
		w.stop()
	}
	w.mu.Lock()
	w.watched = ctx
	w.mu.Unlock()
	w.stop = context.AfterFunc(ctx, func() { w.cancelled(ctx) })
}

// cancelled runs when ctx, a context the session watched, ends: when a message is in flight
// with ctx, it is interrupted after wireGrace unless its reply came by then.
func (w *ownConn) cancelled(ctx context.Context) {
	w.mu.Lock()
	id := w.inflight.Load()
	busy := w.watched == ctx && id != 0
	w.mu.Unlock()
	if busy {
		time.AfterFunc(wireGrace, func() { w.interrupt(ctx, id) })
	}
}

// interrupt makes the read or write of message id, when it is still in flight with ctx, fail
// at once.
func (w *ownConn) interrupt(ctx context.Context, id int32) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.watched != ctx || w.inflight.Load() != id || w.nc == nil {
		return
	}
	w.interrupted.Store(true)
	if bc, ok := w.nc.(*netblock.Conn); ok {
		bc.Interrupt()
		return
	}
	w.nc.SetDeadline(time.Unix(1, 0))
}

// setConn replaces the connection (nc nil: none), closing the one before.
func (w *ownConn) setConn(nc net.Conn) {
	w.mu.Lock()
	old := w.nc
	w.nc = nc
	w.mu.Unlock()
	if old != nil {
		old.Close()
	}
	w.interrupted.Store(false)
}

// close ends the watch and closes the connection.
func (w *ownConn) close() {
	if w.stop != nil {
		w.stop()
		w.stop = nil
	}
	w.setConn(nil)
	w.mu.Lock()
	w.watched = nil
	w.mu.Unlock()
}

// insertOwn sends rows as one insert command on the session's own connection: an OP_MSG whose
// body is {insert: <collection>, ordered: true, writeConcern: <the client's>, $db: <database>}
// and whose document sequence "documents" holds the rows as documents, and checks the reply
// as insertCmd does. It returns sent false, having sent nothing, when the message would exceed
// the server's limit of one command (the caller then takes the driver's way). A cancelled ctx
// interrupts a message in flight whose reply has not come within wireGrace: the error is then
// ctx's, and the batch may or may not have been written. In steady state it allocates nothing.
func (s *session) insertOwn(ctx context.Context, ts *tstate, rows *table.Rows) (sent bool, err error) {
	w := &s.wire
	b := append(w.msg[:0], make([]byte, msgHeaderLen+4)...) // header and flagBits 0
	b = append(b, sectionBody)
	i, b := docStart(b)
	b = bsoncore.AppendStringElement(b, "insert", ts.t.Name)
	b = bsoncore.AppendBooleanElement(b, "ordered", true)
	if s.e.insertWC != nil {
		b = bsoncore.AppendDocumentElement(b, "writeConcern", s.e.insertWC)
	}
	b = bsoncore.AppendStringElement(b, "$db", s.e.cfg.database)
	b = docEnd(b, i)
	b = append(b, sectionSequence)
	seq := len(b)
	b = append(b, 0, 0, 0, 0)
	b = append(b, "documents\x00"...)
	w.docsAt = len(b)
	for r := 0; r < rows.N; r++ {
		b = s.appendDoc(b, ts, rows.Row(r))
	}
	w.msg = b
	if len(b) > s.e.maxCmd {
		return false, nil
	}
	binary.LittleEndian.PutUint32(b[seq:], uint32(len(b)-seq))
	if w.reqID++; w.reqID <= 0 {
		w.reqID = 1 // 0 is inflight's none
	}
	binary.LittleEndian.PutUint32(b[0:], uint32(len(b)))
	binary.LittleEndian.PutUint32(b[4:], uint32(w.reqID))
	binary.LittleEndian.PutUint32(b[12:], opMsg)
	body, err := s.roundTrip(ctx)
	if err != nil {
		return true, fmt.Errorf("mongo: insert into %s: %w", ts.t.Name, err)
	}
	return true, s.insertResult(ctx, ts.t.Name, body, rows.N)
}

// roundTrip sends w.msg on the own connection, opened first when there is none, and returns
// the body of the reply (valid until the next round trip). A failed write or read closes the
// connection; when ctx ended, the error is ctx's.
func (s *session) roundTrip(ctx context.Context) ([]byte, error) {
	w := &s.wire
	if ctx != w.watched {
		w.watch(ctx)
	}
	if w.interrupted.Load() {
		w.setConn(nil)
	}
	w.inflight.Store(w.reqID)
	defer w.inflight.Store(0)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if w.nc == nil {
		nc, err := s.e.wireDial(ctx, s.e.wireNet, s.e.wireAddr)
		if err != nil {
			if ctx.Err() == nil {
				return nil, fmt.Errorf("%w: %w", table.ErrNotSent, err)
			}
			return nil, ctx.Err()
		}
		w.setConn(nc)
		if err := ctx.Err(); err != nil { // cancelled during the dial: nothing sent yet
			return nil, err
		}
	}
	body, err := w.exchange()
	if err != nil {
		w.setConn(nil)
		return nil, wrapCtx(ctx, err)
	}
	return body, nil
}

// wrapCtx returns ctx's error in place of err when ctx ended (err is then the interruption's).
func wrapCtx(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	return err
}

// exchange writes w.msg and reads the reply to it, an OP_MSG, into w.reply; it returns the
// reply's body section.
func (w *ownConn) exchange() ([]byte, error) {
	if _, err := w.nc.Write(w.msg); err != nil {
		return nil, err
	}
	if cap(w.reply) < 4096 {
		w.reply = make([]byte, 4096)
	}
	b := w.reply[:cap(w.reply)]
	n := 0
	for n < msgHeaderLen {
		m, err := w.nc.Read(b[n:])
		n += m
		if err != nil && n < msgHeaderLen {
			return nil, eofError(err)
		}
	}
	size := int(int32(binary.LittleEndian.Uint32(b)))
	if size < msgHeaderLen+5 || size > maxReply || n > size {
		return nil, fmt.Errorf("a reply of %d bytes announced %d", n, size)
	}
	if size > len(b) {
		nb := make([]byte, size)
		copy(nb, b[:n])
		b = nb
	}
	w.reply = b
	for n < size {
		m, err := w.nc.Read(b[n:size])
		n += m
		if err != nil && n < size {
			return nil, eofError(err)
		}
	}
	return replyBody(b[:size], w.reqID)
}

// docID returns the _id of document i of the last message, as extended JSON, or "?".
func (w *ownConn) docID(i int) string {
	rest := w.msg[w.docsAt:]
	for ; i >= 0; i-- {
		doc, r, ok := bsoncore.ReadDocument(rest)
		if !ok {
			break
		}
		if i == 0 {
			if v, err := doc.LookupErr("_id"); err == nil {
				return v.String()
			}
			break
		}
		rest = r
	}
	return "?"
}

// eofError names an end of the connection in the middle of a reply.
func eofError(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// replyBody checks msg, a whole reply, as the OP_MSG answer to request reqID and returns its
// body section (kind 0).
func replyBody(msg []byte, reqID int32) ([]byte, error) {
	if to, op := int32(binary.LittleEndian.Uint32(msg[8:])), binary.LittleEndian.Uint32(msg[12:]); to != reqID || op != opMsg {
		return nil, fmt.Errorf("a reply with opcode %d to request %d, want an OP_MSG (%d) to request %d", op, to, opMsg, reqID)
	}
	flags := binary.LittleEndian.Uint32(msg[msgHeaderLen:])
	if flags&flagsRequired&^flagChecksum != 0 {
		return nil, fmt.Errorf("a reply with flag bits %#x (moreToCome or unknown required bits)", flags)
	}
	rest := msg[msgHeaderLen+4:]
	if flags&flagChecksum != 0 {
		if len(rest) < 4 {
			return nil, errors.New("a reply too short for its checksum")
		}
		rest = rest[:len(rest)-4]
	}
	var body []byte
	for len(rest) > 0 {
		kind := rest[0]
		rest = rest[1:]
		if len(rest) < 4 {
			return nil, errors.New("a reply section is cut short")
		}
		l := int(int32(binary.LittleEndian.Uint32(rest)))
		if l < 4 || l > len(rest) {
			return nil, fmt.Errorf("a reply section of %d bytes in %d", l, len(rest))
		}
		switch kind {
		case sectionBody:
			body = rest[:l]
		case sectionSequence:
		default:
			return nil, fmt.Errorf("a reply section of kind %d", kind)
		}
		rest = rest[l:]
	}
	if body == nil || len(body) < 5 {
		return nil, errors.New("a reply without a body")
	}
	return body, nil
}

// duplicateCode reports the server error codes of a duplicate key (as the driver's
// IsDuplicateKeyError).
func duplicateCode(code int64) bool { return code == 11000 || code == 11001 || code == 12582 }

// insertResult checks the reply body of an insert command of n documents into coll as the
// driver's InsertMany does: ok must be 1 (else the server's error, with its code), no
// writeErrors (the first is reported; a duplicate key is table.ErrDuplicate, a write conflict
// table.ErrConflict), no writeConcernError, and n must count every document.
func (s *session) insertResult(ctx context.Context, coll string, body []byte, n int) error {
	var ok float64
	var got int64 = -1
	var code int64
	var errmsg, wErrs, wcErr bsoncore.Value
	for rest := body[4 : len(body)-1]; len(rest) > 0; {
		el, r, valid := bsoncore.ReadElement(rest)
		if !valid {
			return fmt.Errorf("mongo: insert into %s: a malformed reply", coll)
		}
		rest = r
		v := el.Value()
		switch string(el.KeyBytes()) {
		case "ok":
			ok, _ = v.AsFloat64OK()
		case "n":
			got, _ = v.AsInt64OK()
		case "code":
			code, _ = v.AsInt64OK()
		case "errmsg":
			errmsg = v
		case "writeErrors":
			wErrs = v
		case "writeConcernError":
			wcErr = v
		}
	}
	if ok != 1 {
		return s.serverError(ctx, coll, "", code, errmsg)
	}
	if arr, isArr := wErrs.ArrayOK(); isArr {
		if first, err := arr.IndexErr(0); err == nil {
			doc, _ := first.DocumentOK()
			idx, _ := doc.Lookup("index").AsInt64OK()
			code, _ := doc.Lookup("code").AsInt64OK()
			return s.serverError(ctx, coll, fmt.Sprintf("write error at document %d of %d (_id %s): ", idx, n, s.wire.docID(int(idx))), code, doc.Lookup("errmsg"))
		}
	}
	if doc, isDoc := wcErr.DocumentOK(); isDoc {
		code, _ := doc.Lookup("code").AsInt64OK()
		return s.serverError(ctx, coll, "write concern error: ", code, doc.Lookup("errmsg"))
	}
	if got != int64(n) {
		return fmt.Errorf("mongo: insert of %d documents: the server's reply %s does not count them (n)", n, bson.Raw(body))
	}
	return nil
}

// serverError is the error of a failed insert into coll: the server's code and message after
// what (the failure's kind), as table.ErrDuplicate for a duplicate key and table.ErrConflict
// (the group ended, as fail does) for a write conflict.
func (s *session) serverError(ctx context.Context, coll, what string, code int64, errmsg bsoncore.Value) error {
	msg, _ := errmsg.StringValueOK()
	if msg == "" {
		msg = "no error message"
	}
	err := fmt.Errorf("insert into %s: %s%s (code %d)", coll, what, msg, code)
	switch {
	case duplicateCode(code):
		return fmt.Errorf("mongo: %w: %v", table.ErrDuplicate, err)
	case code == 112:
		s.abort(ctx)
		return fmt.Errorf("mongo: %w: %v", table.ErrConflict, err)
	}
	return fmt.Errorf("mongo: %v", err)
}
