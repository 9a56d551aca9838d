package sqlfam

import (
	"context"
	"fmt"
	"maps"
	"net"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/netblock"
	"github.com/rumbench/rumbench/internal/table"
)

// ArgKind says how a bound argument is sent.
type ArgKind uint8

const (
	// ArgInt is an integer (Arg.I).
	ArgInt ArgKind = iota
	// ArgText is a character string (Arg.B; nil is NULL).
	ArgText
	// ArgBytes is a binary string (Arg.B; nil is NULL).
	ArgBytes
	// ArgTime is a timestamp: Arg.I in unix seconds, UTC, within years 1..9999.
	ArgTime
)

// Arg is one bound argument.
type Arg struct {
	Kind ArgKind
	I    int64
	B    []byte
}

// ColKind says how a result column is read into a table.Value.
type ColKind uint8

const (
	// ColInt is an integer column, read into Value.I (NULL reads as 0; a decimal result such as
	// SUM's on MySQL is read as its integer part).
	ColInt ColKind = iota
	// ColBytes is a string column, copied into the output's arena (NULL reads as nil).
	ColBytes
	// ColTime is a timestamp column, read into Value.I as unix seconds.
	ColTime
)

// Result is what a statement did: for a write the rows it changed and the key it generated
// (MySQL's auto-increment; 0 when none), for a query the rows it returned.
type Result struct {
	Rows   int64
	LastID int64
}

// Conn is one connection of a driver's own API, used by one session (not safe for concurrent
// use but for Interrupt). Statements run with cols nil are writes; with cols, queries whose rows
// (len(cols) columns each) are appended to out.
type Conn interface {
	// Prepare prepares text (in the dialect's placeholders) on the server; the statement lives
	// until the connection closes.
	Prepare(ctx context.Context, text string) (Stmt, error)
	// Query sends text without preparing it, the arguments written into it as literals (no
	// arguments: the text as it is, e.g. BEGIN).
	Query(ctx context.Context, text string, args []Arg, cols []ColKind, out *table.Rows) (Result, error)
	// Interrupt makes a statement in flight fail at once; it may be called from another
	// goroutine. The connection is unusable afterwards.
	Interrupt()
	// Close closes the connection.
	Close() error
}

// Stmt is a prepared statement of a Conn.
type Stmt interface {
	// Query runs the statement with args (see Conn).
	Query(ctx context.Context, args []Arg, cols []ColKind, out *table.Rows) (Result, error)
}

// Connector opens the connections of an engine's sessions.
type Connector interface {
	// Connect opens a connection.
	Connect(ctx context.Context) (Conn, error)
	// LocksThread says whether a session keeps its goroutine on its OS thread while it runs a
	// statement (the blocking-socket connections: the thread waits in the kernel).
	LocksThread() bool
	// HoldsP says whether a session's thread keeps its P while it waits in the kernel (raw
	// system calls): the engine then raises GOMAXPROCS by one per open session.
	HoldsP() bool
}

// TextInserter is a Connector whose sessions may send the multi-row INSERT unprepared
// (Conn.Query, its arguments written into its text) instead of preparing it.
type TextInserter interface {
	// TextInserts says whether they do.
	TextInserts() bool
}

// SetConnector makes the engine's sessions use c's connections instead of the database/sql
// pool's (which stays for the schema, the maintenance and the server's counters). Call it before
// sessions are opened.
func (e *Engine) SetConnector(c Connector) { e.native = c }

// ThreadBound implements table.ThreadBound: the sessions of a connector that locks their thread
// (blocking sockets) do; those of database/sql's pool do not.
func (e *Engine) ThreadBound() bool { return e.native != nil && e.native.LocksThread() }

// nativeSession is a session over a Conn: every statement is prepared once per session (but the
// workload's unprepared ones) and run with the session's reused buffers.
type nativeSession struct {
	e      *Engine
	via    Connector // what the session (re)connects through: e.native, or a check's
	conn   Conn
	lock   bool
	holdsP bool
	stmts  map[stmtKey]Stmt
	execs  map[*table.Stmt]*nativeExec
	raws   map[string]*nativeRaw // user statements (ExecSQL) by text
	args   []Arg
	cols   []ColKind
	agg    table.Rows

	// textInsert: the multi-row INSERT goes through Conn.Query, its text (by table and rows)
	// in texts (see TextInserter).
	textInsert bool
	texts      map[stmtKey]string

	// Cancellation. w is the watch of the context the session watches (one AfterFunc per
	// context, not per statement). inflight is the watch of the statement in flight (nil between
	// statements); a cancellation claims it by swapping in claimed, so that it interrupts only a
	// statement of its own context, never one that began after it (under the next context). A
	// claimed statement sets interrupted, and the next statement opens a new connection (a
	// worker's session outlives the contexts it is used with). swap orders an interruption
	// against reconnect's close and replacement of conn.
	w           *watch
	stop        func() bool
	inflight    atomic.Pointer[watch]
	interrupted bool
	swap        sync.Mutex
}

// watch is one context a session watches; its address identifies it (the field makes the type
// non-empty, so that distinct watches have distinct addresses).
type watch struct{ ctx context.Context }

// claimed marks a statement in flight that a cancellation interrupts.
var claimed = &watch{}

// nativeExec is a workload statement as a native session runs it.
type nativeExec struct {
	text string
	cols []int     // each argument's column (limitArg: a limit)
	res  []ColKind // result columns (nil: a write)
	st   Stmt      // nil: unprepared
}

// newNativeSession opens a native session whose connections come from via (e.native, or a check
// session's connector).
func (e *Engine) newNativeSession(ctx context.Context, via Connector) (table.Session, error) {
	c, err := via.Connect(ctx)
	if err != nil {
		return nil, err
	}
	// A session of a netblock.Group shares its thread with the group's other tasks: it does not
	// lock it (a task switch with a lock taken after the task began stops the process).
	lock := via.LocksThread() && netblock.GroupOf(ctx) == nil
	s := &nativeSession{e: e, via: via, conn: c, lock: lock, holdsP: via.HoldsP(), stmts: map[stmtKey]Stmt{},
		execs: map[*table.Stmt]*nativeExec{}}
	if ti, ok := via.(TextInserter); ok && ti.TextInserts() {
		s.textInsert, s.texts = true, map[stmtKey]string{}
	}
	if s.holdsP {
		netblock.HoldPs(1)
	}
	return s, nil
}

// NewCheckSession implements table.CheckSessioner: on a cluster (SetConnector with a *Cluster)
// the session connects to a writer only and runs the cluster's causal statements first
// (Cluster.SetCausal), so that its reads see every write acknowledged before them; elsewhere it
// is NewSession's.
func (e *Engine) NewCheckSession(ctx context.Context) (table.Session, error) {
	if c, ok := e.native.(*Cluster); ok {
		return e.newNativeSession(ctx, checkConnector{c})
	}
	return e.NewSession(ctx)
}

// enter starts a statement: it watches ctx (registered once per context) and locks the thread
// when the connection blocks it. Every enter that returns nil is followed by leave.
func (s *nativeSession) enter(ctx context.Context) error {
	if s.w == nil || ctx != s.w.ctx {
		if s.stop != nil {
			s.stop()
		}
		w := &watch{ctx: ctx}
		s.w, s.stop = w, context.AfterFunc(ctx, func() { s.cancelled(w) })
	}
	if s.interrupted {
		if err := s.reconnect(ctx); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("%s: reconnect: %w", s.e.d.Name(), engineError{table.ErrNotSent, err})
		}
	}
	s.inflight.Store(s.w)
	if err := ctx.Err(); err != nil {
		s.settle()
		return err
	}
	if s.lock {
		runtime.LockOSThread()
	}
	return nil
}

func (s *nativeSession) leave() {
	if s.lock {
		runtime.UnlockOSThread()
	}
	s.settle()
}

// settle ends the statement in flight; when a cancellation claimed it, the connection was (or
// is being) interrupted and the next statement reconnects.
func (s *nativeSession) settle() {
	if s.inflight.Swap(nil) == claimed {
		s.interrupted = true
	}
}

// cancelled runs when w's context ends: it interrupts a statement of that context in flight.
func (s *nativeSession) cancelled(w *watch) {
	s.swap.Lock()
	defer s.swap.Unlock()
	if s.inflight.CompareAndSwap(w, claimed) {
		s.conn.Interrupt()
	}
}

// reconnect replaces an interrupted connection with a new one; statements are prepared anew.
func (s *nativeSession) reconnect(ctx context.Context) error {
	s.swap.Lock()
	s.conn.Close()
	s.swap.Unlock()
	c, err := s.via.Connect(ctx)
	if err != nil {
		return err
	}
	s.swap.Lock()
	s.conn = c
	s.swap.Unlock()
	s.interrupted = false
	clear(s.stmts)
	clear(s.execs)
	clear(s.raws)
	return nil
}

// wrap returns a statement's error as the session's caller sees it: ctx's error when ctx ended
// (the error is then the interruption's); a lost connection (table.Lost, or the dialect's codes
// of a server shutting down or starting) as table.ErrConnection, the session then reconnecting
// at its next statement; a duplicate key or a conflict as the dialect classes them.
func (s *nativeSession) wrap(ctx context.Context, err error) error {
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case table.Lost(err) || lostConn(s.e.d, err):
		s.interrupted = true
		return engineError{table.ErrConnection, err}
	}
	return classify(s.e.d, err)
}

// argOf converts a cell of column c to an argument.
func (s *nativeSession) argOf(c table.Column, v table.Value) Arg {
	switch {
	case c.Type == table.Bytes && c.Text:
		return Arg{Kind: ArgText, B: v.B}
	case c.Type == table.Bytes:
		return Arg{Kind: ArgBytes, B: v.B}
	case c.Type == table.Timestamp && s.e.d.NativeTime():
		return Arg{Kind: ArgTime, I: min(max(v.I, minSQLTime), maxSQLTime)}
	}
	return Arg{Kind: ArgInt, I: v.I}
}

// colKinds sets s.cols to the result kinds of columns cols of t.
func (s *nativeSession) colKinds(t *table.Table, cols []int) []ColKind {
	s.cols = s.cols[:0]
	for _, c := range cols {
		s.cols = append(s.cols, colKind(s.e.d, t.Columns[c]))
	}
	return s.cols
}

func colKind(d Dialect, c table.Column) ColKind {
	switch {
	case c.Type == table.Bytes:
		return ColBytes
	case c.Type == table.Timestamp && d.NativeTime():
		return ColTime
	}
	return ColInt
}

func (s *nativeSession) stmt(ctx context.Context, k stmtKey, build func() string) (Stmt, error) {
	if st := s.stmts[k]; st != nil {
		return st, nil
	}
	st, err := s.prepare(ctx, build())
	if err != nil {
		return nil, err
	}
	s.stmts[k] = st
	return st, nil
}

func (s *nativeSession) prepare(ctx context.Context, q string) (Stmt, error) {
	st, err := s.conn.Prepare(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("%s: prepare %q: %w", s.e.d.Name(), q, s.wrap(ctx, err))
	}
	return st, nil
}

// ClientOptions are the engine options that choose a server engine's client path, with their
// meaning, for an engine's option table.
var ClientOptions = map[string]string{
	"client": "native (the driver's own connection API, prepared statements with reused buffers; default) or sql (database/sql)",
	"io":     "raw (each session reads and writes a blocking socket with raw system calls, unseen by the Go scheduler, its goroutine on its OS thread; GOMAXPROCS grows by one per session; default), blocking (the same through the scheduler's system calls) or netpoll (Go's network poller); native client only",
}

// ClientOptionKeys are the keys of ClientOptions, for an engine's Spec.ClientOptions.
func ClientOptionKeys() []string { return slices.Sorted(maps.Keys(ClientOptions)) }

// ClientChoice is the client path an engine's options chose.
type ClientChoice struct {
	// Native is true for the driver's own API, false for database/sql.
	Native bool
	// IO is "blocking", "raw" or "netpoll" (see ClientOptions).
	IO string
}

// Dial returns the dialer of the IO mode.
func (c ClientChoice) Dial() func(ctx context.Context, network, addr string) (net.Conn, error) {
	return netblock.DialFor(c.IO)
}

// ParseClientOptions reads the options of ClientOptions from extra (name is the engine's name,
// for errors) and records the effective values in info.
func ParseClientOptions(name string, extra map[string]string, info map[string]string) (ClientChoice, error) {
	client, err := engine.ChoiceOption(name, extra, "client", "native", "native", "sql")
	if err != nil {
		return ClientChoice{}, err
	}
	io, err := engine.ChoiceOption(name, extra, "io", "raw", "raw", "blocking", "netpoll")
	if err != nil {
		return ClientChoice{}, err
	}
	info["client"], info["io"] = client, io
	if client == "sql" {
		info["io"] = "netpoll"
	}
	return ClientChoice{Native: client == "native", IO: info["io"]}, nil
}

// SharedThreads implements engine.Spec.SharedThreads for the server engines: their sessions
// share a thread on the native client with raw I/O (the defaults), not on database/sql or with
// another io.
func SharedThreads(extra map[string]string) bool {
	c, err := ParseClientOptions("", extra, map[string]string{})
	return err == nil && c.Native && c.IO == "raw"
}

// ParseInt reads a decimal integer, or the integer part of a decimal number ("12.000": 12), from
// its text. It does not allocate but for an error.
func ParseInt(v []byte) (int64, error) {
	neg, x, i := false, int64(0), 0
	if len(v) > 0 && (v[0] == '-' || v[0] == '+') {
		neg, i = v[0] == '-', 1
	}
	if i == len(v) {
		return 0, fmt.Errorf("%q is not an integer", v)
	}
	for ; i < len(v) && v[i] != '.'; i++ {
		if v[i] < '0' || v[i] > '9' {
			return 0, fmt.Errorf("%q is not an integer", v)
		}
		x = x*10 + int64(v[i]-'0')
	}
	if neg {
		x = -x
	}
	return x, nil
}
