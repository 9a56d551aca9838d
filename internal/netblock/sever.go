package netblock

import (
	"context"
	"net"
	"sync"
	"syscall"
	"time"
)

// cuts is the process's client connections as DialFor's dialers made them while tracking is
// on, for Sever.
var cuts struct {
	mu    sync.Mutex
	track bool
	until time.Time // dials before it are refused
	conns []net.Conn
}

// Track makes the dialers of DialFor remember the connections they make from now on (on) or
// forget them (off), for Sever. A run that may sever its clients' connections turns it on: the
// list grows by one per connection made, reconnections included, until the next Sever.
func Track(on bool) {
	cuts.mu.Lock()
	cuts.track = on
	if !on {
		cuts.conns = nil
	}
	cuts.mu.Unlock()
}

// Sever cuts every connection tracked (a shutdown of both directions: a read in flight ends
// with the end of its stream, as when the peer resets it) and makes the dialers of DialFor
// refuse connections (ECONNREFUSED) for d. It returns how many connections it cut.
func Sever(d time.Duration) int {
	cuts.mu.Lock()
	defer cuts.mu.Unlock()
	cuts.until = time.Now().Add(d)
	n := len(cuts.conns)
	for _, c := range cuts.conns {
		switch c := c.(type) {
		case *Conn:
			c.Interrupt()
		case *net.TCPConn:
			c.CloseRead()
			c.CloseWrite()
		default:
			c.Close()
		}
	}
	cuts.conns = nil
	return n
}

// gated wraps dial: refused while severed, its connections tracked while tracking is on.
func gated(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		cuts.mu.Lock()
		refused := time.Now().Before(cuts.until)
		cuts.mu.Unlock()
		if refused {
			return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
		}
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		cuts.mu.Lock()
		if cuts.track {
			cuts.conns = append(cuts.conns, c)
		}
		cuts.mu.Unlock()
		return c, nil
	}
}
