package server

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/rumbench/rumbench/internal/netblock"
)

// ErrStopped is returned by a fault injected into a server that Stop has already stopped.
var ErrStopped = errors.New("server stopped")

// Crash kills every process of the instance at once (SIGKILL: no shutdown, no checkpoint),
// then starts the server again on the same data directory and port, and returns how long it
// took from its start to accept connections: its crash recovery. A Galera node (GaleraNode)
// rejoins its cluster, without bootstrapping it again, and the time runs until it is Synced.
// The process tree's CPU figures go on from where they were. FerretDB's PostgreSQL backend
// crashes and starts again too, after the helper's end and before its start (the time returned
// is both starts').
func (s *Server) Crash(ctx context.Context) (time.Duration, error) {
	return s.relaunch(ctx, func() error {
		s.logf("fault: killing %s (pid %d) with SIGKILL", s.kind, s.pid)
		s.killAll(s.instanceProcs())
		<-s.waitDone
		return s.reap()
	}, (*Server).Crash)
}

// Restart shuts the server down cleanly (as Stop does), starts it again on the same data
// directory and port, and returns how long it took from its start to accept connections (a
// Galera node: to be Synced again). FerretDB's PostgreSQL backend restarts too, as Crash says.
func (s *Server) Restart(ctx context.Context) (time.Duration, error) {
	return s.relaunch(ctx, func() error {
		s.logf("fault: restarting %s (pid %d)", s.kind, s.pid)
		return s.stopMain(ctx)
	}, (*Server).Restart)
}

// relaunch ends the server with end (its backend, if any, with backend: ended and started
// again), then launches it again and waits until it accepts connections.
func (s *Server) relaunch(ctx context.Context, end func() error, backend func(*Server, context.Context) (time.Duration, error)) (time.Duration, error) {
	s.stopMu.Lock()
	defer s.stopMu.Unlock()
	if s.stopped {
		return 0, ErrStopped
	}
	s.walker.stats(s.pid, false) // the tree's CPU up to now, which the next life goes on from
	s.walker.rebase()
	if err := end(); err != nil && !s.exited() {
		return 0, err
	}
	var took time.Duration
	if s.backend != nil {
		var err error
		if took, err = backend(s.backend, ctx); err != nil {
			return 0, err
		}
	}
	t0 := time.Now()
	if err := s.launch(ctx); err != nil {
		return 0, fmt.Errorf("server: %s did not start again after the fault: %w", s.kind, err)
	}
	return took + time.Since(t0), nil
}

// Pause stops every process of the instance (SIGSTOP): it keeps its connections and answers
// nothing until Resume.
func (s *Server) Pause() error { return s.signalAll(syscall.SIGSTOP) }

// Resume continues the processes Pause stopped (SIGCONT).
func (s *Server) Resume() error { return s.signalAll(syscall.SIGCONT) }

func (s *Server) signalAll(sig syscall.Signal) error {
	s.stopMu.Lock()
	defer s.stopMu.Unlock()
	if s.stopped && sig == syscall.SIGSTOP {
		return ErrStopped
	}
	if s.exited() {
		return fmt.Errorf("server: %s (pid %d): %w", s.kind, s.pid, ErrNotRunning)
	}
	_ = syscall.Kill(-s.pid, sig)
	for _, pid := range s.instanceProcs() {
		_ = syscall.Kill(pid, sig)
	}
	return nil
}

// Inject injects one fault of table.Faulter's kinds into srv (sever: into the client's
// connections to it, made by netblock's dialers) and returns when it is over, with the seconds
// the server took to accept connections after a kill or a restart (a Galera node: until it is
// Synced again; a stopped one's cluster is waited for by GaleraSettled). A stopped server is
// always continued, also when ctx ends first. srv may be nil for a sever (a server the user runs).
func Inject(ctx context.Context, srv *Server, kind string, d time.Duration) (float64, error) {
	if kind == "sever" {
		netblock.Sever(d)
		return 0, sleep(ctx, d)
	}
	if srv == nil {
		return 0, fmt.Errorf("fault %s: only a server rumbench started can be %s", kind, map[string]string{"kill": "killed", "restart": "restarted", "stop": "stopped"}[kind])
	}
	switch kind {
	case "kill":
		t, err := srv.Crash(ctx)
		return t.Seconds(), err
	case "restart":
		t, err := srv.Restart(ctx)
		return t.Seconds(), err
	case "stop":
		if err := srv.Pause(); err != nil {
			return 0, err
		}
		serr := sleep(ctx, d)
		return 0, errors.Join(srv.Resume(), serr)
	}
	return 0, fmt.Errorf("fault %q: no such kind (valid: kill, restart, stop, sever)", kind)
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
