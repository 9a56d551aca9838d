package table

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"syscall"
	"time"
)

// ErrConnection is returned (wrapped: test with errors.Is) by an operation whose connection to
// its server broke while it was in flight, or that the server refused because it is shutting
// down or starting (PostgreSQL's class 08 and 57P0x, MySQL's 1053, 2006, 2013): its outcome is
// unknown, it may have committed. The session reconnects at its next call.
var ErrConnection = errors.New("connection to the server lost")

// ErrNotSent is returned (wrapped) by an operation that was never sent: its session could not
// reconnect to the server. Nothing of it ran.
var ErrNotSent = errors.New("not sent: no connection to the server")

// ErrorClass is what kind of failure an operation met (see ClassOf).
type ErrorClass uint8

// The error classes, in the order results list them.
const (
	// ClassConnection: the connection broke or could not be made (ErrConnection, ErrNotSent,
	// a network error).
	ClassConnection ErrorClass = iota
	// ClassTimeout: a deadline passed (context.DeadlineExceeded, a network timeout).
	ClassTimeout
	// ClassConflict: a deadlock, lock wait or serialization failure (ErrConflict).
	ClassConflict
	// ClassConstraint: a constraint refused the write (ErrDuplicate).
	ClassConstraint
	// ClassOther: anything else.
	ClassOther
	// NumErrorClasses is the number of classes.
	NumErrorClasses
)

var classNames = [NumErrorClasses]string{"connection", "timeout", "conflict", "constraint", "other"}

// String returns the class's name as results and flags spell it ("connection").
func (c ErrorClass) String() string {
	if c < NumErrorClasses {
		return classNames[c]
	}
	return "unknown"
}

// ErrorClassNames returns the classes' names in their order.
func ErrorClassNames() []string { return classNames[:] }

// ParseErrorClass returns the class named name, and false when there is none.
func ParseErrorClass(name string) (ErrorClass, bool) {
	for i, n := range classNames {
		if n == name {
			return ErrorClass(i), true
		}
	}
	return 0, false
}

// ClassOf classes a failed operation's error. Engines wrap their servers' own codes in
// ErrConnection, ErrConflict and ErrDuplicate; a network error the driver returns as it is
// (a reset, a refused connection, an end of stream) is a connection's too.
func ClassOf(err error) ErrorClass {
	var ne net.Error
	switch {
	case errors.Is(err, ErrConnection), errors.Is(err, ErrNotSent):
		return ClassConnection
	case errors.Is(err, ErrConflict):
		return ClassConflict
	case errors.Is(err, ErrDuplicate):
		return ClassConstraint
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return ClassTimeout
	case Lost(err):
		return ClassConnection
	}
	return ClassOther
}

// Lost says whether err is a broken or refused connection at the network's level: an end of
// stream, a reset, a refused or aborted connection, a closed socket, a broken pipe, a network
// operation's error, or database/sql's bad connection.
func Lost(err error) bool {
	var op *net.OpError
	switch {
	case err == nil:
		return false
	case errors.Is(err, ErrConnection), errors.Is(err, ErrNotSent),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE),
		errors.Is(err, driver.ErrBadConn), errors.As(err, &op):
		return true
	}
	return false
}

// UnknownOutcome says whether an operation that failed with err may have run: a connection
// lost in flight (not ErrNotSent, nor a connection refused: the operation never left).
func UnknownOutcome(err error) bool {
	return ClassOf(err) == ClassConnection && !errors.Is(err, ErrNotSent) && !errors.Is(err, syscall.ECONNREFUSED)
}

// Faulter is implemented by engines on a server rumbench started itself: it injects a fault
// into the server or into the client's connections to it (rumbench run --fault).
type Faulter interface {
	// Fault injects one fault and returns when it is over: "kill" (SIGKILL of the server's
	// processes, then a start on the same data), "restart" (a clean shutdown, then a start),
	// "stop" (SIGSTOP of the server's processes for d, then SIGCONT), "sever" (every client
	// connection cut, and new ones refused, for d). It returns the seconds the server took to
	// accept connections after its start (kill, restart; else 0).
	Fault(ctx context.Context, kind string, d time.Duration) (readySecs float64, err error)
}
