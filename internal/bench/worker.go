package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/memcap"
	"github.com/rumbench/rumbench/internal/results"
)

// WorkerCommand is the hidden subcommand that makes rumbench an engine worker: the process
// that runs one embedded engine's steps under a memory cap (see Worker).
const WorkerCommand = "engine-worker"

// workerStopGrace is how long an interrupted worker has to record its step and close its
// engine before it is killed.
const workerStopGrace = 30 * time.Second

// workerSpec is what the coordinator sends a worker on its standard input, once the worker is
// in its cgroup.
type workerSpec struct {
	Args          []string `json:"args"`
	Target        int      `json:"target"`
	Rep           int      `json:"rep"`
	RunID         string   `json:"run_id"`
	Cgroup        string   `json:"cgroup"`
	CgroupVersion int      `json:"cgroup_version"`
	Limit         int64    `json:"limit_bytes"`
	GoLimit       int64    `json:"go_limit_bytes"`
}

// message is one line a worker writes on its standard output: exactly one field is set. The
// records are the run directory's own (results.Target, Interval, Step).
type message struct {
	Opened   *results.Target   `json:"opened,omitempty"`
	Note     string            `json:"note,omitempty"`
	Begin    string            `json:"begin,omitempty"`
	Phase    string            `json:"phase,omitempty"`
	Interval *results.Interval `json:"interval,omitempty"`
	Step     *results.Step     `json:"step,omitempty"`
	Check    *string           `json:"check,omitempty"`
	Event    string            `json:"event,omitempty"`
	// Error ends a worker that failed; Usage marks an error in the user's input.
	Error string `json:"error,omitempty"`
	Usage bool   `json:"usage,omitempty"`
}

// runWorker runs target i in a fresh rumbench process placed in cgroup g before it opens the
// engine, and records what the worker streams back exactly as runEngine would in-process. A
// worker the kernel killed for memory fails its step with an OOMError.
func runWorker(ctx context.Context, cfg Config, i int, dir string, out *local, g *memcap.Group) error {
	label := cfg.Targets[i].Label
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, WorkerCommand)
	cmd.Env = workerEnv(os.Environ())
	// Its own process group: a terminal's Ctrl-C reaches the coordinator, which stops the
	// worker; the worker dies with the coordinator.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	tail := &tailBuffer{max: 4096}
	cmd.Stderr = tail
	oomBefore := g.OOMKills()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: cannot start the engine worker: %w", label, err)
	}
	waited := false
	defer func() {
		if !waited {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	if err := g.Add(cmd.Process.Pid); err != nil {
		return fmt.Errorf("%s: %w", label, err)
	}
	spec := workerSpec{Args: cfg.Args, Target: i, Rep: max(out.rep, 1), RunID: out.runID(), Cgroup: g.Dir, CgroupVersion: g.Version, Limit: g.Limit,
		GoLimit: memcap.SharesOf(g.Limit).Go}
	if err := json.NewEncoder(stdin).Encode(spec); err != nil {
		return fmt.Errorf("%s: cannot reach the engine worker: %w", label, err)
	}
	stdin.Close()
	out.event("%s: engine worker pid %d in cgroup %s (cap %s)", label, cmd.Process.Pid, g.Dir, bytesText(uint64(g.Limit)))

	// Cancellation: ask the worker to stop (it records the interrupted step), then kill it.
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-ctx.Done():
			cmd.Process.Signal(syscall.SIGINT)
			select {
			case <-time.After(workerStopGrace):
				cmd.Process.Kill()
			case <-stopped:
			}
		case <-stopped:
		}
	}()

	var (
		current  string    // the step running, "" between steps
		phase    string    // what the worker does between steps, "" while it opens the engine
		began    time.Time // when it began
		opened   *results.Target
		sinkErr  error
		finalErr *message
	)
	dec := json.NewDecoder(bufio.NewReaderSize(stdout, 1<<20))
	for {
		var msg message
		if err := dec.Decode(&msg); err != nil {
			break // EOF: the worker ended (or died)
		}
		switch {
		case msg.Opened != nil:
			opened = msg.Opened
			if err := out.opened(*msg.Opened); err != nil && sinkErr == nil {
				sinkErr = err
			}
		case msg.Note != "":
			out.note(msg.Note)
		case msg.Begin != "":
			current, began = msg.Begin, time.Now()
		case msg.Phase != "":
			phase = msg.Phase
		case msg.Interval != nil:
			out.interval(msg.Interval)
		case msg.Step != nil:
			current = ""
			if err := out.step(*msg.Step); err != nil && sinkErr == nil {
				sinkErr = err
			}
		case msg.Check != nil:
			if err := out.checked(*msg.Check); err != nil && sinkErr == nil {
				sinkErr = err
			}
		case msg.Event != "":
			out.event("%s", msg.Event)
		case msg.Error != "":
			m := msg
			finalErr = &m
		}
	}
	werr := cmd.Wait()
	waited = true
	switch {
	case finalErr != nil && finalErr.Usage:
		return UsageError{errors.New(finalErr.Error)}
	case finalErr != nil:
		return errors.New(finalErr.Error)
	case sinkErr != nil:
		return sinkErr
	case werr == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	}
	// The worker died without a word: the cap's OOM killer, or another signal or crash.
	where := current
	if where == "" {
		where = phase
	}
	var failure error
	if n := g.OOMKills(); n > oomBefore && oomBefore >= 0 {
		failure = &OOMError{Target: label, Step: where, Limit: g.Limit}
	} else {
		failure = fmt.Errorf("%s: %s: the engine worker (pid %d) died: %v%s", label, orOpening(where), cmd.Process.Pid, werr, tail.text())
	}
	if current != "" {
		// Nothing it measured survives but its intervals: the step is recorded failed, with
		// the time it ran.
		s := results.Step{Target: label, Step: current, Status: results.StatusFailed, Error: failure.Error(),
			Start: began.UTC(), End: time.Now().UTC(), Degraded: []string{"the engine's process died: no figures"}}
		if opened != nil {
			s.Engine = opened.Engine.Name
		}
		if err := out.step(s); err != nil {
			return err
		}
	}
	return failure
}

func orOpening(step string) string {
	if step == "" {
		return "opening"
	}
	return step
}

// mallocSettings are the C allocator's settings of an engine worker (glibc's environment
// variables, and the tunable that sets the same). glibc keeps what a cgo engine frees for reuse,
// which the cap counts as the engine's memory (docs/io-bound.md measured it):
//   - each thread that allocates gets an arena of its own, up to eight per core, and a block
//     cache whose blocks are freed and allocated again from every thread kept up to twice its
//     size in free memory across them: two arenas;
//   - a freed block of more than 128 KiB raises the size from which blocks are mapped of their
//     own to its size, so RocksDB's memtable blocks (an eighth of a memtable) came from the
//     arenas afterwards and stayed there when freed (about 100 MiB under a 256 MiB cap): the
//     threshold is fixed at glibc's initial 128 KiB, blocks above it mapped and unmapped.
var mallocSettings = []struct{ env, tunable, value string }{
	{"MALLOC_ARENA_MAX", "glibc.malloc.arena_max", "2"},
	{"MALLOC_MMAP_THRESHOLD_", "glibc.malloc.mmap_threshold", "131072"},
}

// workerEnv is an engine worker's environment: env, with each of mallocSettings added unless
// env already sets it.
func workerEnv(env []string) []string {
	out := env[:len(env):len(env)]
	for _, m := range mallocSettings {
		set := false
		for _, kv := range env {
			set = set || strings.HasPrefix(kv, m.env+"=") || (strings.HasPrefix(kv, "GLIBC_TUNABLES=") && strings.Contains(kv, m.tunable))
		}
		if !set {
			out = append(out, m.env+"="+m.value)
		}
	}
	return out
}

// Worker is the engine worker's side of runWorker: it reads its assignment from in, builds the
// run's configuration with build from the coordinator's arguments, checks it was placed in its
// cgroup, sets the Go memory limit below the cap, runs the target's steps and streams what it
// measures to out as JSON lines. It never writes the run directory.
func Worker(ctx context.Context, in io.Reader, out io.Writer, build func(args []string) (Config, error)) error {
	var spec workerSpec
	if err := json.NewDecoder(in).Decode(&spec); err != nil {
		return fmt.Errorf("engine worker: reading the assignment: %w (this command is started by rumbench run)", err)
	}
	r := &remote{enc: json.NewEncoder(out), id: spec.RunID}
	err := worker(ctx, spec, r, build)
	if err != nil {
		var ue UsageError
		r.send(message{Error: err.Error(), Usage: errors.As(err, &ue)})
	}
	return err
}

func worker(ctx context.Context, spec workerSpec, r *remote, build func([]string) (Config, error)) error {
	cfg, err := build(spec.Args)
	if err != nil {
		return err
	}
	if spec.Target < 0 || spec.Target >= len(cfg.Targets) {
		return fmt.Errorf("engine worker: no target %d", spec.Target)
	}
	g := memcap.Open(spec.Cgroup, spec.CgroupVersion, spec.Limit)
	if !g.Contains(os.Getpid()) {
		return fmt.Errorf("engine worker: not in cgroup %s", spec.Cgroup)
	}
	if spec.GoLimit > 0 {
		debug.SetMemoryLimit(spec.GoLimit)
	}
	t := cfg.Targets[spec.Target]
	es, ok := engine.Lookup(t.Engine.Name)
	if !ok {
		return fmt.Errorf("unknown engine %q", t.Engine.Name)
	}
	return runEngine(ctx, cfg, t, es, targetDir(cfg, t, spec.Rep), r, g)
}

// remote is the worker's sink: one JSON message per line on the coordinator's pipe.
type remote struct {
	mu  sync.Mutex
	enc *json.Encoder
	err error
	id  string // the run's id
}

func (r *remote) send(m message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = r.enc.Encode(m)
	}
	return r.err
}

func (r *remote) opened(t results.Target) error { return r.send(message{Opened: &t}) }
func (r *remote) note(s string)                 { r.send(message{Note: s}) }
func (r *remote) begin(step string)             { r.send(message{Begin: step}) }
func (r *remote) phase(what string)             { r.send(message{Phase: what}) }
func (r *remote) interval(iv *results.Interval) { r.send(message{Interval: iv}) }
func (r *remote) step(s results.Step) error     { return r.send(message{Step: &s}) }
func (r *remote) checked(check string) error    { return r.send(message{Check: &check}) }
func (r *remote) runID() string                 { return r.id }
func (r *remote) event(format string, args ...any) {
	r.send(message{Event: fmt.Sprintf(format, args...)})
}

// tailBuffer keeps the last max bytes written to it (a worker's standard error).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

// text is the tail as the end of an error message ("" when empty).
func (t *tailBuffer) text() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.b))
	if s == "" {
		return ""
	}
	return "\n" + s
}
