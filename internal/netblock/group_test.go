package netblock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
)

// TestGroup runs three tasks on one goroutine, each a loop of round trips on its own raw
// connection to an echo server: every reply is the task's own, every step is counted once.
func TestGroup(t *testing.T) {
	addr := echo(t)
	g := NewGroup()
	ctx := WithGroup(context.Background(), g)
	const tasks, trips = 3, 200
	var conns []net.Conn
	for i := 0; i < tasks; i++ {
		c, err := DialRaw(ctx, "tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns = append(conns, c)
	}
	if other, err := Dial(ctx, "tcp", addr); err != nil { // not raw: not in the group
		t.Fatal(err)
	} else {
		other.Close()
	}
	if g.Conns() != tasks {
		t.Fatalf("%d connections in the group, want %d", g.Conns(), tasks)
	}
	done := make([]int, tasks)
	for i, c := range conns {
		buf := make([]byte, 64)
		g.Add(func() (bool, error) {
			msg := fmt.Appendf(nil, "task %d trip %d", i, done[i])
			if _, err := c.Write(msg); err != nil {
				return false, err
			}
			if _, err := io.ReadFull(c, buf[:len(msg)]); err != nil {
				return false, err
			}
			if string(buf[:len(msg)]) != string(msg) {
				return false, fmt.Errorf("task %d read %q, want %q", i, buf[:len(msg)], msg)
			}
			done[i]++
			return done[i] == trips, nil
		})
	}
	if all, err := g.Step(); err != nil || !all {
		t.Fatalf("Step: %v, %v; want every task ended", all, err)
	}
	for i, n := range done {
		if n != trips {
			t.Errorf("task %d: %d round trips, want %d", i, n, trips)
		}
	}
	// Outside a task, a read of a group's connection blocks as a raw read does.
	if _, err := conns[0].Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(conns[0], make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
}

// TestGroupCloseAndError: a step's error comes out of Step; Close ends a task that waits for
// bytes that never come (its read fails).
func TestGroupCloseAndError(t *testing.T) {
	addr := echo(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0") // accepts, never answers
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	g := NewGroup()
	ctx := WithGroup(context.Background(), g)
	silent, err := DialRaw(ctx, "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	talk, err := DialRaw(ctx, "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer talk.Close()
	var readErr error
	g.Add(func() (bool, error) {
		_, readErr = silent.Read(make([]byte, 1))
		return true, nil
	})
	boom := errors.New("boom")
	g.Add(func() (bool, error) {
		if _, err := talk.Write([]byte("y")); err != nil {
			return false, err
		}
		if _, err := talk.Read(make([]byte, 1)); err != nil {
			return false, err
		}
		return false, boom
	})
	if _, err := g.Step(); err != boom {
		t.Fatalf("Step: %v, want %v", err, boom)
	}
	g.Close()
	if !errors.Is(readErr, net.ErrClosed) {
		t.Errorf("the waiting task's read after Close: %v, want net.ErrClosed", readErr)
	}
}

// TestGroupAlone: a read of a connection made Alone blocks the thread in its task instead of
// giving the turn to another task.
func TestGroupAlone(t *testing.T) {
	addr := echo(t)
	for _, alone := range []bool{true, false} {
		g := NewGroup()
		ctx := WithGroup(context.Background(), g)
		var order []string
		for _, name := range []string{"a", "b"} {
			c, err := DialRaw(ctx, "tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			nc := c.(*Conn)
			g.Add(func() (bool, error) {
				order = append(order, name+" starts")
				if _, err := c.Write([]byte("z")); err != nil {
					return false, err
				}
				nc.Alone(alone)
				defer nc.Alone(false)
				if _, err := c.Read(make([]byte, 1)); err != nil {
					return false, err
				}
				order = append(order, name+" read")
				return true, nil
			})
		}
		for {
			all, err := g.Step()
			if err != nil {
				t.Fatal(err)
			}
			if all {
				break
			}
		}
		// Not alone, a gives b its turn while it waits (the replies may come in either order).
		got, want := strings.Join(order, ","), "a starts,b starts,"
		if alone {
			want = "a starts,a read,b starts,b read"
		}
		if !strings.HasPrefix(got, want) || len(order) != 4 {
			t.Errorf("alone %v: %s, want %s...", alone, got, want)
		}
	}
}
