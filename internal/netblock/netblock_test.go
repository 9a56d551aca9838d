package netblock

import (
	"context"
	"errors"
	"io"
	"net"
	"runtime"
	"testing"
	"time"
)

// echo listens on 127.0.0.1 and echoes every connection's bytes back.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	return ln.Addr().String()
}

func TestRoundTripAndInterrupt(t *testing.T) {
	addr := echo(t)
	for _, dial := range []struct {
		name string
		f    func(context.Context, string, string) (net.Conn, error)
	}{{"blocking", Dial}, {"raw", DialRaw}} {
		t.Run(dial.name, func(t *testing.T) {
			c, err := dial.f(context.Background(), "tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			msg := make([]byte, 100_000) // more than one segment, and more than one read
			for i := range msg {
				msg[i] = byte(i)
			}
			go c.Write(msg)
			got := make([]byte, len(msg))
			if _, err := io.ReadFull(c, got); err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if got[i] != msg[i] {
					t.Fatalf("byte %d: %d, want %d", i, got[i], msg[i])
				}
			}
			// A read that waits for bytes that never come returns once the connection is
			// interrupted (a deadline in the past, as drivers cancel).
			done := make(chan error, 1)
			go func() { _, err := c.Read(got[:1]); done <- err }()
			time.Sleep(50 * time.Millisecond)
			c.SetReadDeadline(time.Now())
			select {
			case err := <-done:
				if err == nil {
					t.Fatal("read returned no error after the interruption")
				}
			case <-time.After(5 * time.Second):
				t.Fatal("read still blocked 5 s after the interruption")
			}
			// A future deadline is ignored: it does not interrupt.
			c2, err := dial.f(context.Background(), "tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			c2.SetDeadline(time.Now().Add(time.Hour))
			if _, err := c2.Write([]byte("x")); err != nil {
				t.Fatal(err)
			}
			if _, err := c2.Read(got[:1]); err != nil || got[0] != 'x' {
				t.Fatalf("read %q, %v", got[:1], err)
			}
			c2.Close()
			if _, err := c2.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
				t.Fatalf("write after close: %v, want net.ErrClosed", err)
			}
		})
	}
}

// TestClosedLeavesTheNumberAlone checks that a closed connection's Read, Write and Interrupt do
// not touch its descriptor's number, which the next socket opened takes.
func TestClosedLeavesTheNumberAlone(t *testing.T) {
	addr := echo(t)
	a, err := DialRaw(context.Background(), "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	b, err := DialRaw(context.Background(), "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if a.(*Conn).fd != b.(*Conn).fd {
		t.Logf("the second socket took descriptor %d, not the first's %d", b.(*Conn).fd, a.(*Conn).fd)
	}
	a.(*Conn).Interrupt()
	a.SetDeadline(time.Unix(1, 0))
	if _, err := a.Write([]byte("stray")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("write after close: %v, want net.ErrClosed", err)
	}
	if _, err := a.Read(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read after close: %v, want net.ErrClosed", err)
	}
	got := make([]byte, 2)
	if _, err := b.Write([]byte("ok")); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(b, got); err != nil || string(got) != "ok" {
		t.Fatalf("the other socket read %q, %v, want \"ok\"", got, err)
	}
}

func TestDialRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	if c, err := Dial(context.Background(), "tcp", addr); err == nil {
		c.Close()
		t.Fatal("dial of a closed port succeeded")
	}
}

// TestRawReadDoesNotHoldTheWorld blocks a raw read on bytes that come only after a garbage
// collection has finished: the collection's stops of the world must not wait for the read
// longer than RawWait (a raw read that waited in the kernel unseen would deadlock here).
func TestRawReadDoesNotHoldTheWorld(t *testing.T) {
	addr := echo(t)
	c, err := DialRaw(context.Background(), "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	gcDone := make(chan time.Duration, 1)
	readDone := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		_, err := c.Read(make([]byte, 1))
		readDone <- err
	}()
	time.Sleep(20 * time.Millisecond) // the read is waiting
	go func() {
		start := time.Now()
		runtime.GC()
		gcDone <- time.Since(start)
	}()
	select {
	case d := <-gcDone:
		if d > time.Second {
			t.Errorf("GC took %v beside a raw read", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("GC still waiting for the raw read after 10 s")
	}
	if _, err := c.Write([]byte("x")); err != nil { // now the read gets its byte
		t.Fatal(err)
	}
	if err := <-readDone; err != nil {
		t.Fatal(err)
	}
}

// BenchmarkRoundTrip is one small write and the read of its echo, per I/O mode: the system calls
// a client makes per statement.
func BenchmarkRoundTrip(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	var d net.Dialer
	for _, m := range []struct {
		name string
		dial func(context.Context, string, string) (net.Conn, error)
	}{{"netpoll", d.DialContext}, {"blocking", Dial}, {"raw", DialRaw}} {
		b.Run(m.name, func(b *testing.B) {
			c, err := m.dial(context.Background(), "tcp", ln.Addr().String())
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			msg, buf := make([]byte, 64), make([]byte, 64)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Write(msg); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(c, buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
