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
	"github.com/rumbench/rumbench/internal/live"
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
	// Live asks for the steps' live samples (the coordinator serves a metrics endpoint).
	Live bool `json:"live,omitempty"`
}

// message is one line a worker writes on its standard output: exactly one field is set. The
// records are the run directory's own (results.Target, Interval, Step).
type message struct {
	Opened   *results.Target   `json:"opened,omitempty"`
	Note     string            `json:"note,omitempty"`
	Begin    string            `json:"begin,omitempty"`
	Phase    string            `json:"phase,omitempty"`
	Interval *results.Interval `json:"interval,omitempty"`
	// Sample is a step's live sample (workerSpec.Live): one a tick.
	Sample *live.Sample  `json:"sample,omitempty"`
	Step   *results.Step `json:"step,omitempty"`
	Check  *string       `json:"check,omitempty"`
	Event  string        `json:"event,omitempty"`
	// Error ends a worker that failed; Usage marks an error in the user's input.
	Error string `json:"error,omitempty"`
	Usage bool   `json:"usage,omitempty"`
}

// runWorker runs target i in a fresh rumbench process placed in cgroup g before it opens the
// engine, and records what the worker streams back exactly as runEngine would in-process. A
// worker the kernel killed for memory fails its step with an OOMError.
func runWorker(ctx context.Context, cfg Config, i int, dir string, out *local, g *memcap.Group) error {
	p, err := startWorker(cfg.Targets[i].Label, g)
	if err != nil {
		return err
	}
	waited := false
	defer func() {
		if !waited {
			p.cmd.Process.Kill()
			p.cmd.Wait()
		}
	}()
	if err := p.assign(cfg, i, out); err != nil {
		return err
	}
	defer p.stopOn(ctx)()
	var st workerStream
	st.relay(p.stdout, out)
	werr := p.cmd.Wait()
	waited = true
	return p.outcome(ctx, &st, werr, out)
}

// workerProcess is a started engine worker: its command, the pipes the coordinator holds and
// the cgroup it runs in.
type workerProcess struct {
	label  string // the target's
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.Reader
	// tail keeps the end of the worker's standard error, for the message of a worker that died.
	tail *tailBuffer
	g    *memcap.Group
	// oomBefore is the cgroup's OOM kill count before the worker started (-1: unknown).
	oomBefore int64
}

// startWorker starts rumbench as an engine worker for the target labelled label, in a process
// group of its own that dies with the coordinator; nothing is left running when it fails.
func startWorker(label string, g *memcap.Group) (*workerProcess, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	p := &workerProcess{label: label, cmd: exec.Command(exe, WorkerCommand), tail: &tailBuffer{max: 4096}, g: g}
	p.cmd.Env = workerEnv(os.Environ())
	// Its own process group: a terminal's Ctrl-C reaches the coordinator, which stops the
	// worker; the worker dies with the coordinator.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if p.stdout, err = p.cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	p.cmd.Stderr = p.tail
	p.oomBefore = g.OOMKills()
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: cannot start the engine worker: %w", label, err)
	}
	return p, nil
}

// assign places the worker in its cgroup, then sends it its assignment: target i of the run
// cfg, in out's repetition, under the cgroup's cap.
func (p *workerProcess) assign(cfg Config, i int, out *local) error {
	g := p.g
	if err := g.Add(p.cmd.Process.Pid); err != nil {
		return fmt.Errorf("%s: %w", p.label, err)
	}
	spec := workerSpec{Args: cfg.Args, Target: i, Rep: max(out.rep, 1), RunID: out.runID(), Cgroup: g.Dir, CgroupVersion: g.Version, Limit: g.Limit,
		GoLimit: memcap.SharesOf(g.Limit).Go, Live: out.live()}
	if err := json.NewEncoder(p.stdin).Encode(spec); err != nil {
		return fmt.Errorf("%s: cannot reach the engine worker: %w", p.label, err)
	}
	p.stdin.Close()
	out.event("%s: engine worker pid %d in cgroup %s (cap %s)", p.label, p.cmd.Process.Pid, g.Dir, bytesText(uint64(g.Limit)))
	return nil
}

// stopOn stops the worker when ctx ends: it asks the worker to stop (it records the interrupted
// step), then kills it after workerStopGrace. The function returned ends the watch.
func (p *workerProcess) stopOn(ctx context.Context) (done func()) {
	stopped := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			p.cmd.Process.Signal(syscall.SIGINT)
			select {
			case <-time.After(workerStopGrace):
				p.cmd.Process.Kill()
			case <-stopped:
			}
		case <-stopped:
		}
	}()
	return func() { close(stopped) }
}

// workerStream is what the coordinator learnt from a worker's messages.
type workerStream struct {
	current  string    // the step running, "" between steps
	phase    string    // what the worker does between steps, "" while it opens the engine
	began    time.Time // when it began
	opened   *results.Target
	sinkErr  error    // the first failure to record what the worker sent
	finalErr *message // the worker's error message, if it sent one
}

// relay records each message the worker writes on r through out until the worker ends (or
// dies), and keeps what the outcome needs.
func (st *workerStream) relay(r io.Reader, out *local) {
	dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<20))
	for {
		var msg message
		if err := dec.Decode(&msg); err != nil {
			return // EOF: the worker ended (or died)
		}
		st.record(msg, out)
	}
}

// record records one message of the worker through out.
func (st *workerStream) record(msg message, out *local) {
	switch {
	case msg.Opened != nil:
		st.opened = msg.Opened
		st.recorded(out.opened(*msg.Opened))
	case msg.Note != "":
		out.note(msg.Note)
	case msg.Begin != "":
		st.current, st.began = msg.Begin, time.Now()
	case msg.Phase != "":
		st.phase = msg.Phase
	case msg.Interval != nil:
		out.interval(msg.Interval)
	case msg.Sample != nil:
		if out.live() {
			out.sample(msg.Sample)
		}
	case msg.Step != nil:
		st.current = ""
		st.recorded(out.step(*msg.Step))
	case msg.Check != nil:
		st.recorded(out.checked(*msg.Check))
	case msg.Event != "":
		out.event("%s", msg.Event)
	case msg.Error != "":
		st.finalErr = &msg
	}
}

// recorded keeps err as the stream's failure to record, if it is the first.
func (st *workerStream) recorded(err error) {
	if err != nil && st.sinkErr == nil {
		st.sinkErr = err
	}
}

// outcome is the worker's result, once it ended with werr (cmd.Wait's): the error it sent, a
// failure to record what it sent, the interruption, or for a worker that died without a word an
// OOMError (its cgroup's OOM kill count rose) or the death, its step recorded failed.
func (p *workerProcess) outcome(ctx context.Context, st *workerStream, werr error, out *local) error {
	switch {
	case st.finalErr != nil && st.finalErr.Usage:
		return UsageError{errors.New(st.finalErr.Error)}
	case st.finalErr != nil:
		return errors.New(st.finalErr.Error)
	case st.sinkErr != nil:
		return st.sinkErr
	case werr == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	}
	// The worker died without a word: the cap's OOM killer, or another signal or crash.
	where := st.current
	if where == "" {
		where = st.phase
	}
	var failure error
	if n := p.g.OOMKills(); n > p.oomBefore && p.oomBefore >= 0 {
		failure = &OOMError{Target: p.label, Step: where, Limit: p.g.Limit}
	} else {
		failure = fmt.Errorf("%s: %s: the engine worker (pid %d) died: %v%s", p.label, orOpening(where), p.cmd.Process.Pid, werr, p.tail.text())
	}
	if st.current != "" {
		// Nothing it measured survives but its intervals: the step is recorded failed, with
		// the time it ran.
		s := results.Step{Target: p.label, Step: st.current, Status: results.StatusFailed, Error: failure.Error(),
			Start: st.began.UTC(), End: time.Now().UTC(), Degraded: []string{"the engine's process died: no figures"}}
		if st.opened != nil {
			s.Engine = st.opened.Engine.Name
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
	r := &remote{enc: json.NewEncoder(out), id: spec.RunID, wantSamples: spec.Live}
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
	// wantSamples says whether the coordinator asked for live samples.
	wantSamples bool
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
func (r *remote) live() bool                    { return r.wantSamples }
func (r *remote) sample(s *live.Sample)         { r.send(message{Sample: s}) }
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
