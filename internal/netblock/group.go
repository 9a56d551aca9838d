package netblock

import (
	"context"
	"iter"
	"net"
	"os"
	"runtime"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A Group runs several tasks, each a loop of steps that read and write raw connections, on
// the goroutine that calls Step, one thread: a task that would wait for bytes to read gives
// the thread to another task whose bytes have come, and the thread sleeps in the kernel, in one
// poll of every waiting task's socket, only when no task can go on. This is how pgbench runs
// several clients on one thread (-j): a client's round trip costs a send, a receive and a
// share of a poll, and the thread sleeps only when every task waits, not once per round trip.
//
// The tasks are coroutines (iter.Pull): switching between them is a jump on the same thread,
// not the Go scheduler's work. Only connections dialled with DialRaw under a context that
// carries the group (WithGroup) join it; a task should wait only in their reads (any other
// blocking call stops every task of the group while it waits), and must not lock its thread
// (runtime.LockOSThread) across a read: the runtime stops the process at the task switch.
//
// A Group is used by one goroutine: Add, Step and Close are not safe for concurrent use.
type Group struct {
	tasks  []*task
	cur    *task // the task running, nil between them
	ready  int   // where Step looks for the next runnable task
	live   int   // tasks that have not ended
	conns  int   // connections dialled into the group
	ep     int   // the epoll instance of the tasks' sockets, -1 before the first wait
	evs    []unix.EpollEvent
	seq    int64 // waits begun, for task.since
	rounds int64 // guesses considered
	credit int   // guesses right minus wrong lately, within [-4, 4]
}

type task struct {
	next  func() (taskEvent, bool)
	stop  func()
	yield func(taskEvent) bool
	fd    int   // the socket it waits to read; -1: runnable
	reg   int   // the socket it registered with the group's epoll instance, -1: none
	idx   int32 // its index in Group.tasks
	since int64 // when its wait began (Group.seq)
	got   bool  // its receive found bytes since it was last resumed
	ended bool
}

// taskEvent is what a task hands the group when it gives the thread back: a wait for its
// socket, or the end of a step.
type taskEvent struct {
	wait bool
	done bool
	err  error
}

type groupKey struct{}

// WithGroup returns a context under which DialRaw's connections join g.
func WithGroup(ctx context.Context, g *Group) context.Context {
	return context.WithValue(ctx, groupKey{}, g)
}

// GroupOf returns the group ctx carries (WithGroup), nil when none.
func GroupOf(ctx context.Context) *Group {
	g, _ := ctx.Value(groupKey{}).(*Group)
	return g
}

// NewGroup returns an empty group.
func NewGroup() *Group { return &Group{ep: -1} }

// Conns returns the number of connections dialled into the group.
func (g *Group) Conns() int { return g.conns }

// Add adds a task that calls step until it returns done or an error. The step runs on the
// goroutine of Step.
func (g *Group) Add(step func() (done bool, err error)) {
	t := &task{fd: -1, reg: -1, idx: int32(len(g.tasks))}
	t.next, t.stop = iter.Pull(func(yield func(taskEvent) bool) {
		t.yield = yield
		for {
			// The task gives the thread back only to wait, at an error and at its end: a
			// switch per step would cost a switch per transaction for nothing.
			done, err := step()
			if done {
				yield(taskEvent{done: true})
				return
			}
			if err != nil && !yield(taskEvent{err: err}) {
				return
			}
		}
	})
	g.tasks = append(g.tasks, t)
	g.live++
}

// Step runs the tasks until every one has ended (all is true), or one returns an error (then
// every task is where it was, the one that failed before its next step: Step may be called
// again, which goes on, or Close).
func (g *Group) Step() (all bool, err error) {
	guess := true // whether a guess may replace the next poll
	for g.live > 0 {
		t := g.runnable()
		if t == nil && guess {
			t = g.guess()
		}
		if t == nil {
			g.poll()
			guess = true
			continue
		}
		guessed := t.fd >= 0
		t.fd, t.got = -1, false
		g.cur = t
		ev, ok := t.next()
		g.cur = nil
		if guessed {
			g.guessed(t.got)
			guess = t.got // after a wrong guess, poll
		}
		switch {
		case !ok:
			t.ended = true
			g.live--
		case ev.wait:
			// t waits for its socket: its fd is set.
		case ev.err != nil: // t goes on at the next Step
			return false, ev.err
		default: // the task's end
			t.ended = true
			g.live--
		}
	}
	return true, nil
}

// guess returns the task that has waited longest, when recent guesses were mostly right, that
// it may try its receive before any poll: its reply has often come while the others ran (then
// the receive replaces a poll), and if not, the receive fails (EAGAIN) and it waits again. As
// pgbench, which tries a connection's receive before it polls. nil: poll.
func (g *Group) guess() *task {
	g.rounds++
	if g.credit < 0 && g.rounds%16 != 0 { // mostly wrong lately: guess once in 16 rounds
		return nil
	}
	var best *task
	for _, t := range g.tasks {
		if !t.ended && t.fd >= 0 && (best == nil || t.since < best.since) {
			best = t
		}
	}
	return best
}

// guessed counts a guess right (its receive found bytes) or wrong.
func (g *Group) guessed(right bool) {
	if right {
		g.credit = min(g.credit+1, 4)
	} else {
		g.credit = max(g.credit-1, -4)
	}
}

// runnable returns the next task, after the last one run, that does not wait; nil when every
// live task waits.
func (g *Group) runnable() *task {
	n := len(g.tasks)
	for i := 0; i < n; i++ {
		k := (g.ready + i) % n
		if t := g.tasks[k]; !t.ended && t.fd < 0 {
			g.ready = (k + 1) % n
			return t
		}
	}
	return nil
}

// poll sleeps in the kernel until a waiting task's socket has bytes to read (or is shut down),
// at most RawWait, and makes those tasks runnable. The sockets stay registered with one epoll
// instance (level-triggered), so that a poll costs one system call whatever the number of
// tasks, with nothing to set up per socket. The goroutine keeps its P while it waits, as a raw
// read does, and yields to the scheduler after a timeout or a signal.
func (g *Group) poll() {
	n, _, e := syscall.RawSyscall6(syscall.SYS_EPOLL_PWAIT, uintptr(g.ep), uintptr(unsafe.Pointer(&g.evs[0])), uintptr(len(g.evs)),
		uintptr(RawWait/time.Millisecond), 0, 0)
	if e != 0 || n == 0 {
		// A timeout or a signal (the runtime's preemption request): let a stop of the world
		// waiting for this goroutine go ahead, then poll again.
		runtime.Gosched()
		return
	}
	for _, ev := range g.evs[:n] {
		// A socket a task no longer waits for (it reconnected) may still be registered.
		if t := g.tasks[ev.Pad]; !t.ended && t.fd == int(ev.Fd) {
			t.fd = -1
		}
	}
}

// wait gives the thread back until fd has bytes to read; false when the group is closing. The
// first wait on a socket registers it with the group's epoll instance.
func (g *Group) wait(fd int) (bool, error) {
	t := g.cur
	if t.reg != fd {
		if g.ep < 0 {
			ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
			if err != nil {
				return false, os.NewSyscallError("epoll_create1", err)
			}
			g.ep = ep
			g.evs = make([]unix.EpollEvent, len(g.tasks))
		}
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd), Pad: t.idx}
		err := unix.EpollCtl(g.ep, unix.EPOLL_CTL_ADD, fd, &ev)
		if err == unix.EEXIST {
			err = unix.EpollCtl(g.ep, unix.EPOLL_CTL_MOD, fd, &ev)
		}
		if err != nil {
			return false, os.NewSyscallError("epoll_ctl", err)
		}
		t.reg = fd
	}
	t.fd = fd
	g.seq++
	t.since = g.seq
	return t.yield(taskEvent{wait: true}), nil
}

// Alone makes the connection's reads, while on, block the thread as a raw read does, even in a
// task of its group. It is for a driver whose own goroutine may read the connection in the
// meantime, which must not take the task's turn: pgconn starts a background reader when a write
// of its own takes long, so the PostgreSQL engine sets it around pgconn's calls (a prepare, a
// statement of the simple protocol, the close). It does nothing to a connection outside a
// group, nor to a nil one.
func (c *Conn) Alone(on bool) {
	if c != nil {
		c.alone.Store(on)
	}
}

// forget drops fd's registration with the group's epoll instance, before the socket closes: a
// new socket may get its number (a task's reconnection), which wait must register anew.
func (g *Group) forget(fd int) {
	if g.ep < 0 {
		return
	}
	for _, t := range g.tasks {
		if t.reg == fd {
			t.reg = -1
			unix.EpollCtl(g.ep, unix.EPOLL_CTL_DEL, fd, nil)
		}
	}
}

// Close ends the tasks still running (a read they wait in returns an error).
func (g *Group) Close() {
	for _, t := range g.tasks {
		t.stop()
	}
	g.tasks = nil
	g.live = 0
	if g.ep >= 0 {
		unix.Close(g.ep)
		g.ep = -1
	}
}

// groupRead is a raw read of a connection of g. In a task, the read first gives the thread back
// until the group's poll finds bytes to read (a reply is seldom there as soon as its request has
// gone, and a receive that finds none is a system call for nothing), then receives them without
// blocking. Outside a task (a connection's start-up or close) it blocks as a raw read does.
func (c *Conn) groupRead(p []byte) (int, error) {
	for {
		if c.g.cur == nil || c.alone.Load() {
			return c.rawRead(p)
		}
		if ok, err := c.g.wait(c.fd); err != nil {
			return 0, err
		} else if !ok {
			return 0, net.ErrClosed
		}
		for {
			n, _, e := syscall.RawSyscall6(syscall.SYS_RECVFROM, uintptr(c.fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)),
				unix.MSG_DONTWAIT, 0, 0)
			if e == 0 {
				c.g.cur.got = true
				return int(n), nil
			}
			if e == syscall.EAGAIN {
				break // the poll saw bytes another read took, or none: wait again
			}
			if e != syscall.EINTR {
				return 0, e
			}
		}
	}
}
