package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// errPortInUse reports a launch that failed because another process took the port.
var errPortInUse = errors.New("port in use")

// toolEnv is the environment of every program started here: the caller's, without the
// client variables that would redirect a client library (PGHOST, MYSQL_PWD, ...).
func (s *Server) toolEnv(asService bool) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PG") || strings.HasPrefix(kv, "MYSQL") || strings.HasPrefix(kv, "MARIADB") {
			continue
		}
		if asService && s.acct != nil && strings.HasPrefix(kv, "HOME=") {
			continue
		}
		env = append(env, kv)
	}
	if asService && s.acct != nil {
		env = append(env, "HOME="+s.dir)
	}
	return append(env, s.toolExtra...)
}

// runTool runs a set-up program (initdb, mariadb-install-db) to completion in
// its own process group, killed with its group when ctx ends. Its stdout goes to out (or the
// server log when out is nil), its stderr to the server log and to the returned error.
func (s *Server) runTool(ctx context.Context, asService bool, out io.Writer, path string, args ...string) error {
	return s.runToolInput(ctx, asService, nil, out, path, args...)
}

// runToolInput is runTool with in as the program's standard input (statements that hold a
// password go there, not on the logged command line).
func (s *Server) runToolInput(ctx context.Context, asService bool, in io.Reader, out io.Writer, path string, args ...string) error {
	logFile, err := s.openLog()
	if err != nil {
		return err
	}
	defer logFile.Close()
	logLine(logFile, "$ "+shellLine(path, args))
	t0 := time.Now()
	var runErr error
	defer func() {
		msg := fmt.Sprintf("%s took %v", filepath.Base(path), time.Since(t0).Round(time.Millisecond))
		if runErr != nil {
			msg += fmt.Sprintf(" and failed (%v)", runErr)
		}
		logLine(logFile, msg)
	}()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = s.dir
	cmd.Env = s.toolEnv(asService)
	cmd.Stdin = in
	cmd.Stdout = logFile
	if out != nil {
		cmd.Stdout = out
	}
	cmd.Stderr = io.MultiWriter(logFile, &stderr)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if asService {
		cmd.SysProcAttr.Credential = s.credential()
	}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		runErr = err
		if ctx.Err() != nil && cmd.Process != nil {
			// Killed with its group: a child forked just before may still be dying.
			waitGroupGone(cmd.Process.Pid, 2*time.Second)
		}
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return fmt.Errorf("%w: %s", err, msg)
		}
		return err
	}
	return nil
}

// launch starts the server on s.port and waits until it accepts connections (a Galera node:
// and is Synced; its relaunch after a crash first recovers its position). It returns
// errPortInUse when the port was taken, ctx.Err() when ctx ends first (the server is left
// for the caller to kill) and a *StartError when the server exits.
func (s *Server) launch(ctx context.Context) error {
	args, err := s.serverArgs()
	if err != nil {
		return err
	}
	if !s.launched {
		args = append(args, s.cfg.FirstArgs...)
	} else if args, err = s.galeraRecover(ctx, args); err != nil {
		return err
	}
	off := s.logSize()
	s.launchOff = off
	logFile, err := s.openLog()
	if err != nil {
		return err
	}
	logLine(logFile, "$ "+shellLine(s.bins.server, args))
	cmd := exec.Command(s.bins.server, args...)
	cmd.Dir = s.dir
	cmd.Env = append(append(s.toolEnv(true), s.cfg.Env...), s.ferretEnv()...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid:    true,
		Pdeathsig:  s.deathSignal(),
		Credential: s.credential(),
	}
	err = cmd.Start()
	logFile.Close()
	if err != nil {
		return fmt.Errorf("server: cannot run %s: %w", s.bins.server, err)
	}
	s.pid = cmd.Process.Pid
	if err := s.joinCgroup(s.pid); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return err
	}
	done := make(chan struct{})
	s.waitDone = done
	go func() {
		s.waitErr = cmd.Wait()
		close(done)
	}()

	t0 := time.Now()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if s.ready() {
			if err := s.joinCgroupTree(); err != nil {
				return err
			}
			if err := s.galeraWaitSynced(ctx, off); err != nil {
				return err
			}
			s.launched = true
			s.logf("%s (pid %d) accepts connections on 127.0.0.1:%d after %v",
				s.kind, s.pid, s.port, time.Since(t0).Round(time.Millisecond))
			return nil
		}
		select {
		case <-done:
			if strings.Contains(s.logSince(off), "ddress already in use") {
				return errPortInUse
			}
			return s.startError("start", fmt.Sprintf("the server exited during start (%v)", s.waitErr),
				s.configHint(), off, s.waitErr)
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// exited reports whether the server process has ended: its waiter has said so, or the process
// is already reaped (no such pid) and its waiter about to say so, which exited then waits for.
// Without the second case a server that died a moment before would look alive: Stop would
// signal its pid (another process's by then, perhaps) and take the death for its own, and so
// would a fault's signal.
func (s *Server) exited() bool {
	if s.waitDone == nil {
		return true
	}
	select {
	case <-s.waitDone:
		return true
	default:
	}
	if err := syscall.Kill(s.pid, 0); !errors.Is(err, syscall.ESRCH) {
		return false // running, or a zombie its waiter has yet to reap
	}
	<-s.waitDone
	return true
}

// Stop shuts the server down cleanly (PostgreSQL: SIGINT, a fast shutdown that ends the
// sessions and writes a checkpoint; MariaDB: SIGTERM) and waits for it. If it has not exited
// after StopTimeout, or when ctx ends first, the instance is killed (PostgreSQL: SIGQUIT,
// its immediate shutdown, then SIGKILL for anything left). In every case Stop returns only
// when no process of the instance is left and the main process is reaped (no zombie). The
// server log and the data directory are kept. Stop is idempotent (later calls return the
// first result) and a nil Server is already stopped. It returns an error if the server had
// died before Stop, exited with a failure status or had to be killed.
func (s *Server) Stop(ctx context.Context) error {
	if s == nil {
		return nil
	}
	s.stopMu.Lock()
	defer s.stopMu.Unlock()
	if !s.stopped {
		s.stopped = true
		s.stopErr = s.stop(ctx)
	}
	return s.stopErr
}

// stop stops the server, then FerretDB's PostgreSQL backend (once the helper has closed its
// connections).
func (s *Server) stop(ctx context.Context) error {
	err := s.stopMain(ctx)
	return errors.Join(err, s.stopBackend(ctx, false))
}

func (s *Server) stopMain(ctx context.Context) error {
	if s.waitDone == nil {
		return nil
	}
	if s.exited() {
		rerr := s.reap()
		return errors.Join(fmt.Errorf("server: %s (pid %d) had exited before Stop (%v); last lines of %s:\n%s",
			s.kind, s.pid, s.waitErr, s.logPath, indent(s.LogTail(tailLines))), rerr)
	}
	sig, name := syscall.SIGTERM, "SIGTERM"
	if s.kind == Postgres {
		sig, name = syscall.SIGINT, "SIGINT (fast shutdown)"
	}
	s.logf("stopping %s (pid %d) with %s", s.kind, s.pid, name)
	_ = syscall.Kill(s.pid, sig)
	timer := time.NewTimer(StopTimeout)
	defer timer.Stop()
	var err error
	select {
	case <-s.waitDone:
		if s.waitErr != nil {
			err = fmt.Errorf("server: %s (pid %d) shut down with %v; last lines of %s:\n%s",
				s.kind, s.pid, s.waitErr, s.logPath, indent(s.LogTail(tailLines)))
		}
	case <-timer.C:
		err = fmt.Errorf("server: %s (pid %d) did not shut down within %v and was killed", s.kind, s.pid, StopTimeout)
		return errors.Join(err, s.killMain(quitWait))
	case <-ctx.Done():
		// An interrupted run: no clean shutdown to wait for, and the server may not answer at
		// all (stopped, hung): give PostgreSQL's immediate shutdown a moment, then kill.
		err = fmt.Errorf("server: %s (pid %d) killed: stop interrupted (%w)", s.kind, s.pid, ctx.Err())
		return errors.Join(err, s.killMain(interruptedQuitWait))
	}
	return errors.Join(err, s.reap())
}

// quitWait is how long kill waits for PostgreSQL's immediate shutdown (SIGQUIT) before it
// kills the processes; interruptedQuitWait the same when a run was interrupted (Ctrl-C ends a
// run within seconds, whatever the server does).
const (
	quitWait            = 5 * time.Second
	interruptedQuitWait = time.Second
)

// kill ends the server without a clean shutdown (a failed start, a shutdown that took too
// long). PostgreSQL first gets SIGQUIT, its immediate shutdown: the postmaster kills and
// reaps its children itself, so none is orphaned. Then every process of the instance that
// is left gets SIGKILL, and kill returns when the main process is reaped and none is left.
// FerretDB's PostgreSQL backend is killed after the helper.
func (s *Server) kill(wait time.Duration) error {
	err := s.killMain(wait)
	return errors.Join(err, s.stopBackend(context.Background(), true))
}

func (s *Server) killMain(wait time.Duration) error {
	if s.waitDone == nil {
		return nil
	}
	if s.kind == Postgres && !s.exited() {
		_ = syscall.Kill(s.pid, syscall.SIGQUIT)
		t := time.NewTimer(wait)
		select {
		case <-s.waitDone:
		case <-t.C:
		}
		t.Stop()
	}
	s.killAll(s.instanceProcs())
	<-s.waitDone
	return s.reap()
}

// killAll sends SIGKILL to pids and to the server's process group.
func (s *Server) killAll(pids []int) {
	if s.pid > 0 {
		_ = syscall.Kill(-s.pid, syscall.SIGKILL)
	}
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// reap waits until no process of the instance is alive, killing what it finds (backends
// orphaned by a postmaster that died).
func (s *Server) reap() error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		live := s.instanceProcs()
		if len(live) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("server: processes %v of the %s instance survived SIGKILL", live, s.kind)
		}
		s.killAll(live)
		time.Sleep(10 * time.Millisecond)
	}
}

// deathSignal is what the kernel sends the server if rumbench dies without stopping it:
// PostgreSQL's immediate shutdown (SIGQUIT, which also ends the backends), SIGKILL for the
// single-process MariaDB.
func (s *Server) deathSignal() syscall.Signal {
	if s.kind == Postgres {
		return syscall.SIGQUIT
	}
	return syscall.SIGKILL
}

// shellLine renders a command on one line for the log, quoting arguments a shell would split.
func shellLine(path string, args []string) string {
	parts := []string{path}
	for _, a := range args {
		a = strings.Join(strings.Fields(a), " ")
		if a == "" || strings.ContainsAny(a, " '\"\\$`*?;&|<>()") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

// joinCgroup writes pid into the configured cgroup (Config.Cgroup), if any.
func (s *Server) joinCgroup(pid int) error {
	if s.cfg.Cgroup == "" {
		return nil
	}
	err := os.WriteFile(filepath.Join(s.cfg.Cgroup, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0)
	if err != nil {
		return fmt.Errorf("server: placing pid %d in cgroup %s: %w", pid, s.cfg.Cgroup, err)
	}
	return nil
}

// joinCgroupTree places every process of the server's tree in the configured cgroup: a child
// forked before the server itself was placed would otherwise stay out.
func (s *Server) joinCgroupTree() error {
	if s.cfg.Cgroup == "" {
		return nil
	}
	w := newTreeWalker()
	if _, err := w.walk(s.pid, false); err != nil {
		return err
	}
	for _, pid := range w.queue {
		if err := s.joinCgroup(pid); err != nil && pid == s.pid {
			return err
		}
	}
	return nil
}

// waitGroupGone waits, up to timeout, until no process of process group pgid is left but
// zombies (a SIGKILLed process may run a little before it is gone).
func waitGroupGone(pgid int, timeout time.Duration) {
	for end := time.Now().Add(timeout); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if !groupAlive(pgid) {
			return
		}
	}
}

// groupAlive says whether a process of group pgid exists that is not a zombie (from
// /proc/PID/stat: state is the field after the command, pgrp the fifth).
func groupAlive(pgid int) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 || pid == os.Getpid() {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) >= 3 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			return true
		}
	}
	return false
}
