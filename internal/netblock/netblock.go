// Package netblock provides TCP connections that read and write their socket with blocking
// system calls instead of Go's network poller.
//
// A client that sends a statement and waits for its reply pays, with the poller, a read that
// fails with EAGAIN, the goroutine's park, an epoll_wait and often a futex wake-up of another
// thread before the reply is read. On a blocking socket the same round trip is one write and one
// read system call: the thread sleeps in the kernel until the reply arrives. The calling
// goroutine occupies its thread for as long (lock it with runtime.LockOSThread to keep it on the
// same thread between calls).
//
// The connections do not support deadlines in the future (they are ignored): a deadline at or
// before the present interrupts them instead (a shutdown of the socket, which wakes a blocked
// read or write), which is how database drivers cancel a statement in flight.
package netblock

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Dial connects to addr on network ("tcp", "tcp4", "tcp6"; "unix" too) with a net.Dialer
// (ctx bounds the connection), then returns the connection over a blocking socket. TCP_NODELAY is
// set, as Go sets it on its own TCP connections.
func Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	return dial(ctx, network, addr, false)
}

// DialFor returns the dialer of an I/O mode: "blocking" (Dial), "raw" (DialRaw), anything else
// Go's network poller (net.Dialer); its connections can be severed (Sever).
func DialFor(mode string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	switch mode {
	case "blocking":
		return gated(Dial)
	case "raw":
		return gated(DialRaw)
	}
	var d net.Dialer
	return gated(d.DialContext)
}

// DialRaw is Dial for a connection whose reads and writes are raw system calls:
// the Go runtime is not told that the thread blocks (no entersyscall and exitsyscall, so no
// scheduler work around them, and no wake-ups of its monitor thread), and the goroutine keeps its
// P (the right to run Go code) while it waits: give the process a P per such connection plus its
// own (GOMAXPROCS), or the goroutines wait for one another. A read is one read system call that
// waits at most RawWait (the socket's receive timeout, SO_RCVTIMEO), then yields to the
// scheduler and waits again; a write is a send that cannot block, and what does not fit the
// socket's buffer goes with ordinary system calls.
func DialRaw(ctx context.Context, network, addr string) (net.Conn, error) {
	return dial(ctx, network, addr, true)
}

func dial(ctx context.Context, network, addr string, raw bool) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	fc, ok := c.(interface{ File() (*os.File, error) })
	if !ok {
		return nil, errors.New("netblock: not a socket connection")
	}
	f, err := fc.File() // a duplicate of the socket
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("fcntl", err)
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, os.NewSyscallError("setnonblock", err)
	}
	if raw {
		tv := unix.NsecToTimeval(int64(RawWait))
		if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
			unix.Close(fd)
			return nil, os.NewSyscallError("setsockopt", err)
		}
	}
	bc := &Conn{fd: fd, raw: raw, local: c.LocalAddr(), remote: c.RemoteAddr()}
	if g := GroupOf(ctx); raw && g != nil {
		bc.g = g
		g.conns++
	}
	return bc, nil
}

// Conn is a connection over a blocking socket. Read and Write block the calling thread; Close
// and Interrupt may be called from another goroutine.
type Conn struct {
	fd            int
	raw           bool
	g             *Group      // the group whose tasks read it (DialRaw under WithGroup), nil when none
	alone         atomic.Bool // reads block the thread even in a group's task (Alone)
	local, remote net.Addr
	closed        atomic.Bool
	interrupting  atomic.Int32 // Interrupts that may still shut the descriptor down
}

var _ net.Conn = (*Conn)(nil)

// Read reads up to len(p) bytes with one read system call (repeated when a signal interrupts
// it); it returns io.EOF when the peer has closed the connection.
func (c *Conn) Read(p []byte) (int, error) {
	if c.closed.Load() {
		// The descriptor's number may belong to another socket by now.
		return 0, c.opError("read", net.ErrClosed)
	}
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := c.read(p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, c.opError("read", err)
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// Write writes all of p, with as many write system calls as it takes.
func (c *Conn) Write(p []byte) (int, error) {
	if c.closed.Load() {
		return 0, c.opError("write", net.ErrClosed)
	}
	done := 0
	for done < len(p) {
		n, err := c.write(p[done:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return done, c.opError("write", err)
		}
		done += n
	}
	return done, nil
}

// RawWait is how long a raw connection waits for bytes to read with one raw system call (unseen
// by the Go scheduler) before it yields to the scheduler and waits again. It bounds how long a stop of
// the world (a GC phase) waits for a goroutine blocked in a raw call, and so rules out a deadlock
// where the bytes awaited depend on another goroutine of the process (a lock another session
// holds, a write in progress): that goroutine is stopped for at most RawWait.
const RawWait = 10 * time.Millisecond

func (c *Conn) read(p []byte) (int, error) {
	switch {
	case !c.raw:
		return unix.Read(c.fd, p)
	case c.g != nil:
		return c.groupRead(p)
	}
	return c.rawRead(p)
}

func (c *Conn) rawRead(p []byte) (int, error) {
	for {
		// One read that sleeps in the kernel until the reply comes, for at most RawWait (the
		// socket's receive timeout): no poll before it, so a round trip is two system calls.
		n, _, e := syscall.RawSyscall6(syscall.SYS_RECVFROM, uintptr(c.fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), 0, 0, 0)
		if e == 0 {
			return int(n), nil
		}
		if e != syscall.EAGAIN && e != syscall.EINTR {
			return 0, e
		}
		// RawWait has passed, or a signal came (the runtime's preemption request): yield, so
		// that a stop of the world waiting for this goroutine goes ahead, and wait again. An
		// ordinary blocking read here instead made the runtime's monitor thread take the P back
		// and poll every 20 µs for a while after each statement longer than RawWait.
		runtime.Gosched()
	}
}

func (c *Conn) write(p []byte) (int, error) {
	if c.raw {
		// A send that cannot block; what does not fit the socket's buffer goes the ordinary way.
		n, _, e := syscall.RawSyscall6(syscall.SYS_SENDTO, uintptr(c.fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)),
			unix.MSG_DONTWAIT|unix.MSG_NOSIGNAL, 0, 0)
		if e == 0 {
			return int(n), nil
		}
		if e != syscall.EAGAIN && e != syscall.EINTR {
			return 0, e
		}
	}
	return unix.Write(c.fd, p)
}

func (c *Conn) opError(op string, err error) error {
	if c.closed.Load() {
		err = net.ErrClosed
	}
	return &net.OpError{Op: op, Net: c.remote.Network(), Source: c.local, Addr: c.remote, Err: err}
}

// Interrupt makes a read or write in flight, and every later one, fail (a shutdown of both
// directions). The socket stays open until Close.
// After Close it does nothing: the descriptor's number may belong to another socket by then.
func (c *Conn) Interrupt() {
	c.interrupting.Add(1)
	if !c.closed.Load() {
		unix.Shutdown(c.fd, unix.SHUT_RDWR)
	}
	c.interrupting.Add(-1)
}

// Close interrupts the connection and closes the socket; it is safe to call more than once.
func (c *Conn) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	if c.g != nil {
		c.g.forget(c.fd)
	}
	unix.Shutdown(c.fd, unix.SHUT_RDWR)
	// An Interrupt that saw the socket open shuts it down before the number is released.
	for c.interrupting.Load() != 0 {
		runtime.Gosched()
	}
	return os.NewSyscallError("close", syscall.Close(c.fd))
}

// LocalAddr returns the local address.
func (c *Conn) LocalAddr() net.Addr { return c.local }

// RemoteAddr returns the peer's address.
func (c *Conn) RemoteAddr() net.Addr { return c.remote }

// SetDeadline interrupts the connection when t is not zero and not in the future; other
// deadlines are ignored.
func (c *Conn) SetDeadline(t time.Time) error {
	if !t.IsZero() && !t.After(time.Now()) {
		c.Interrupt()
	}
	return nil
}

// SetReadDeadline is SetDeadline.
func (c *Conn) SetReadDeadline(t time.Time) error { return c.SetDeadline(t) }

// SetWriteDeadline is SetDeadline.
func (c *Conn) SetWriteDeadline(t time.Time) error { return c.SetDeadline(t) }

// held counts the holders of a P (raw connections' sessions) across the process; procsBase is
// GOMAXPROCS before the first of them.
var (
	heldMu    sync.Mutex
	held      int
	procsBase int
)

// HoldPs adds d (1 when a session that reads a raw connection opens, -1 when it closes) to the
// process's sessions whose threads keep their P while they wait in the kernel, and sets
// GOMAXPROCS to its value before the first of them plus their number, so that the process's
// other goroutines keep the Ps they had. Every engine of the process counts in the same total.
func HoldPs(d int) {
	heldMu.Lock()
	defer heldMu.Unlock()
	if held == 0 {
		procsBase = runtime.GOMAXPROCS(0)
	}
	held += d
	runtime.GOMAXPROCS(procsBase + held)
}
