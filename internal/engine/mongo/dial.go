package mongo

import (
	"context"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rumbench/rumbench/internal/netblock"
)

// ioModes are the values of option io: how the driver's connections read and write their
// sockets.
var ioModes = []string{"raw", "blocking", "netpoll"}

// dialer is the driver's dialer of an io mode (netblock.DialFor, whose connections a fault can
// sever): for io=raw and io=blocking the connections are netblock's blocking sockets (raw: read
// and written with raw system calls, see netblock.DialRaw), with the deadlines the driver sets
// kept by a timer (deadlineConn); for io=netpoll Go's.
type dialer struct{ io string }

// DialContext implements options.ContextDialer.
func (d dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := netblock.DialFor(d.io)(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	if bc, ok := c.(*netblock.Conn); ok {
		return &deadlineConn{Conn: bc}, nil
	}
	return c, nil
}

// deadlineConn is a netblock connection that keeps future deadlines too: when a deadline
// passes, a read or write in flight, and every later one, fails with a timeout error
// (os.ErrDeadlineExceeded) and the connection is unusable, as the driver treats a connection
// after a timeout (it closes it, or tries to read the rest of the reply, which then fails). A
// zero deadline, which the driver sets before every read and write of an operation without a
// time limit, costs no timer.
type deadlineConn struct {
	*netblock.Conn
	mu      sync.Mutex
	timer   *time.Timer // nil until the first future deadline
	closed  bool        // under mu: a timer that fires late must not touch the closed socket
	expired atomic.Bool
}

// SetDeadline sets the deadline of reads and writes: zero for none, a past time interrupts the
// connection now.
func (c *deadlineConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.IsZero() {
		if c.timer != nil {
			c.timer.Stop()
		}
		return nil
	}
	d := time.Until(t)
	if d <= 0 {
		c.expireLocked()
		return nil
	}
	if c.timer == nil {
		c.timer = time.AfterFunc(d, c.expire)
	} else {
		c.timer.Reset(d)
	}
	return nil
}

// SetReadDeadline is SetDeadline: one deadline serves both directions, the driver setting each
// before its read or write.
func (c *deadlineConn) SetReadDeadline(t time.Time) error { return c.SetDeadline(t) }

// SetWriteDeadline is SetDeadline.
func (c *deadlineConn) SetWriteDeadline(t time.Time) error { return c.SetDeadline(t) }

// expire runs when the deadline's timer fires.
func (c *deadlineConn) expire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expireLocked()
}

func (c *deadlineConn) expireLocked() {
	if c.closed {
		return
	}
	c.expired.Store(true)
	c.Interrupt()
}

// Read implements net.Conn.
func (c *deadlineConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	return n, c.timeout("read", err)
}

// Write implements net.Conn.
func (c *deadlineConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	return n, c.timeout("write", err)
}

// timeout returns a timeout error in place of err when the deadline has passed.
func (c *deadlineConn) timeout(op string, err error) error {
	if err == nil || !c.expired.Load() {
		return err
	}
	return &net.OpError{Op: op, Net: c.RemoteAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: os.ErrDeadlineExceeded}
}

// Close stops the deadline's timer and closes the connection.
func (c *deadlineConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timer != nil {
		c.timer.Stop()
	}
	c.closed = true
	return c.Conn.Close()
}
