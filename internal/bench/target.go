package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/live"
	"github.com/rumbench/rumbench/internal/memcap"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/server"
	"github.com/rumbench/rumbench/internal/sysstat"
)

// sink is where what an engine's run produces goes: the run directory and the callbacks
// (in-process), or the coordinator's pipe (in a worker process).
type sink interface {
	// opened records the target once its engine is open.
	opened(t results.Target) error
	// note adds a caveat to the run's manifest.
	note(s string)
	// begin says a step is about to run (a worker killed during it is then blamed on it).
	begin(step string)
	// phase says what the engine does between steps ("cleanup before l.x", "invariant check",
	// "close"): a worker killed then is blamed on it.
	phase(what string)
	interval(iv *results.Interval)
	// live says whether live samples are wanted (Config.OnSample); sample passes one on.
	live() bool
	sample(s *live.Sample)
	// step records a step's result; the error is a failure to record it.
	step(s results.Step) error
	// checked records the invariant check's outcome.
	checked(check string) error
	event(format string, args ...any)
	// runID is the run's id.
	runID() string
}

// local is the in-process sink: the run directory, the manifest and the Config's callbacks.
type local struct {
	cfg Config
	w   *results.Writer
	m   *results.Manifest
	ti  int // the target's index in m.Targets, -1 before it is opened
	// rep is the repetition being run (Step.Rep), 0 in a run without repeats.
	rep int
}

// opened records the target in the manifest; a later repetition of it is recorded once.
func (l *local) opened(t results.Target) error {
	for i := range l.m.Targets {
		if l.m.Targets[i].Label == t.Label {
			l.ti = i
			return nil
		}
	}
	l.m.Targets = append(l.m.Targets, t)
	l.ti = len(l.m.Targets) - 1
	return l.w.Manifest(l.m)
}

func (l *local) note(s string) { l.m.Notes = append(l.m.Notes, s) }

func (l *local) begin(string) {}

func (l *local) phase(string) {}

func (l *local) interval(iv *results.Interval) {
	iv.Rep = l.rep
	if err := l.w.Interval(iv); err != nil {
		event(l.cfg, "%s: writing intervals: %v", iv.Target, err)
	}
	if l.cfg.OnTick != nil {
		l.cfg.OnTick(iv)
	}
}

func (l *local) live() bool { return l.cfg.OnSample != nil }

func (l *local) sample(s *live.Sample) {
	s.Rep = l.rep
	l.cfg.OnSample(s)
}

func (l *local) step(s results.Step) error {
	s.Rep = l.rep
	var err error
	if werr := l.w.Step(s); werr != nil {
		err = WriteError{fmt.Errorf("could not write steps.json: %w (results dir %s: %s)", werr, l.cfg.Out, SpaceLeft(l.cfg.Out))}
	}
	if l.cfg.OnStep != nil {
		l.cfg.OnStep(s)
	}
	return err
}

func (l *local) checked(check string) error {
	if l.ti >= 0 {
		if l.rep > 1 && l.m.Targets[l.ti].Check != check {
			check = l.m.Targets[l.ti].Check + fmt.Sprintf("; repetition %d: %s", l.rep, check)
		}
		l.m.Targets[l.ti].Check = check
		event(l.cfg, "%s: invariants %s", l.m.Targets[l.ti].Label, check)
	}
	return l.w.Manifest(l.m)
}

func (l *local) event(format string, args ...any) { event(l.cfg, format, args...) }

func (l *local) runID() string { return l.m.RunID }

// OOMError is a step the kernel killed because its engine exceeded the memory cap.
type OOMError struct {
	Target, Step string
	// Limit is the cap, bytes.
	Limit int64
}

func (e *OOMError) Error() string {
	step := e.Step
	if step == "" {
		step = "opening"
	}
	return fmt.Sprintf("%s: %s: out of memory under the cap of %s (--memory-limit): the kernel killed the engine", e.Target, step, bytesText(uint64(e.Limit)))
}

// targetOnly says whether err fails its target only, the run going on with the next: the memory
// cap killed the engine (OOMError), or a managed server did not start (server.StartError).
func targetOnly(err error) bool {
	var oom *OOMError
	var start *server.StartError
	return errors.As(err, &oom) || errors.As(err, &start)
}

// runTarget runs target i in its data directory, under the memory cap when there is one, and
// removes the directory afterwards unless KeepData. An error that says the data disk is full
// gets the space left on it, read before the data is removed.
func runTarget(ctx context.Context, cfg Config, i, rep int, spec engine.Spec, w *results.Writer, m *results.Manifest, h *memcap.Hierarchy) (err error) {
	t := cfg.Targets[i]
	if external(t) {
		// A --dsn server: its data are on the server, no directory here; a memory cap applies
		// to processes rumbench starts, and it starts none for it.
		out := &local{cfg: cfg, w: w, m: m, ti: -1}
		if cfg.Repeat > 1 {
			out.rep = rep
		}
		return runEngine(ctx, cfg, t, spec, "", out, nil)
	}
	dir := targetDir(cfg, t, rep)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return dataDiskFull(cfg, err)
	}
	defer func() {
		err = dataDiskFull(cfg, err)
		kept := filepath.Join(w.Dir(), filepath.Base(dir)+".server.log")
		copied := keepServerLog(dir, kept, results.FileMode(cfg.Private))
		if !cfg.KeepData && !cfg.Prepare && !cfg.Reuse {
			os.RemoveAll(dir)
			if copied && err != nil {
				err = logMoved(err, dir, kept)
			}
		}
	}()
	out := &local{cfg: cfg, w: w, m: m, ti: -1}
	if cfg.Repeat > 1 {
		out.rep = rep
	}
	if h == nil {
		return runEngine(ctx, cfg, t, spec, dir, out, nil)
	}
	g, err := h.Create(cgroupName(t.Label), cfg.MemoryLimit)
	if err != nil {
		return err
	}
	defer func() {
		if err := g.Remove(); err != nil {
			event(cfg, "warning: %v", err)
		}
	}()
	if spec.Server {
		// The server's processes go in the cgroup as they start; this process (the client)
		// stays out.
		return runEngine(ctx, cfg, t, spec, dir, out, g)
	}
	return runWorker(ctx, cfg, i, dir, out, g)
}

// cgroupPrefix starts the name of every cgroup a run creates: rumbench-<pid>-.
const cgroupPrefix = "rumbench-"

// cgroupName is the cgroup of one target: rumbench-<pid>-<label>, so a cgroup left by a run
// that was killed is recognized (its pid is gone) and removed by the next run.
func cgroupName(label string) string {
	return fmt.Sprintf("%s%d-%s", cgroupPrefix, os.Getpid(), strings.NewReplacer(":", "_", "/", "_", " ", "_", ".", "_").Replace(label))
}

// sweepCgroups removes the cgroups under h's own cgroup that runs whose process is gone left
// behind (a coordinator killed with SIGKILL cannot remove its own).
func sweepCgroups(h memcap.Hierarchy, cfg Config) {
	entries, err := os.ReadDir(h.Own)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), cgroupPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid == os.Getpid() || syscall.Kill(pid, 0) == nil {
			continue
		}
		g := memcap.Open(filepath.Join(h.Own, e.Name()), h.Version, 0)
		if err := g.Remove(); err == nil {
			event(cfg, "removed cgroup %s left by a run that is gone", g.Dir)
		}
	}
}

// checkMemory refuses, before any work, a cap this host cannot apply: no memory controller, no
// permission to create a cgroup (not root, no delegation), a readahead without root.
func checkMemory(cfg Config) error {
	if cfg.MemoryLimit > 0 {
		h, err := memcap.Detect()
		if err != nil {
			return UsageError{fmt.Errorf("--memory-limit: %w", err)}
		}
		if err := h.Check(); err != nil {
			return UsageError{err}
		}
		if _, err := os.Executable(); err != nil {
			return UsageError{fmt.Errorf("--memory-limit: cannot find this program to start an engine worker: %w", err)}
		}
		if err := checkCaches(cfg); err != nil {
			return err
		}
	}
	if cfg.ReadaheadKB > 0 {
		path, err := readaheadPath(cfg.DataDir)
		if err != nil {
			return UsageError{fmt.Errorf("--readahead-kb: %w", err)}
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return UsageError{fmt.Errorf("--readahead-kb needs root: cannot write %s (%v)", path, err)}
		}
		f.Close()
	}
	return nil
}

// setupMemory prepares the run's memory settings: the cgroup hierarchy when a cap is asked for
// (stale cgroups of dead runs removed), the device's readahead; it records them in the
// manifest. undo restores the readahead.
func setupMemory(cfg Config, m *results.Manifest) (h *memcap.Hierarchy, undo func(), err error) {
	undo = func() {}
	if cfg.MemoryLimit == 0 && !cfg.Cold && cfg.ReadaheadKB == 0 {
		return nil, undo, nil
	}
	mc := &results.MemoryConfig{LimitBytes: cfg.MemoryLimit, Cold: cfg.Cold, ReadaheadKB: cfg.ReadaheadKB}
	m.Memory = mc
	if cfg.MemoryLimit > 0 {
		hh, err := memcap.Detect()
		if err != nil {
			return nil, undo, UsageError{fmt.Errorf("--memory-limit: %w", err)}
		}
		sweepCgroups(hh, cfg)
		h = &hh
		mc.CgroupVersion = hh.Version
		shares := memcap.SharesOf(cfg.MemoryLimit)
		mc.GoLimitBytes, mc.EngineBytes = shares.Go, shares.Engine
	}
	if cfg.ReadaheadKB > 0 {
		path, err := readaheadPath(cfg.DataDir)
		if err != nil {
			return nil, undo, err
		}
		old, err := os.ReadFile(path)
		if err != nil {
			return nil, undo, err
		}
		if err := os.WriteFile(path, []byte(strconv.Itoa(cfg.ReadaheadKB)), 0); err != nil {
			return nil, undo, fmt.Errorf("--readahead-kb: %w", err)
		}
		prev := strings.TrimSpace(string(old))
		event(cfg, "readahead of %s set to %d KiB (was %s KiB) for the run", path, cfg.ReadaheadKB, prev)
		m.Notes = append(m.Notes, fmt.Sprintf("the data device's readahead was %d KiB during the run (%s KiB before and after)", cfg.ReadaheadKB, prev))
		undo = func() { os.WriteFile(path, []byte(prev), 0) }
	}
	return h, undo, nil
}

// readaheadPath is the read_ahead_kb file of the disk that holds dir.
func readaheadPath(dir string) (string, error) {
	d, err := sysstat.DeviceForDir(dir)
	if err != nil {
		return "", fmt.Errorf("no block device behind %s: %w", dir, err)
	}
	return filepath.Join("/sys/block", d.Name, "queue", "read_ahead_kb"), nil
}

// checkCaches refuses a cap that the engines' caches do not fit: each capped target's cache
// must be within the engine's share of the cap (memcap.SharesFor), which holds its cache and
// the buffers it sizes beside it: half the cap for an embedded engine, three quarters for a
// managed server.
func checkCaches(cfg Config) error {
	for _, t := range cfg.Targets {
		spec, _ := engine.Lookup(t.Engine.Name)
		share := memcap.SharesFor(cfg.MemoryLimit, spec.Server).Engine
		if c := cfg.cacheBytes(t.Engine.Name); !external(t) && c > share {
			part, rest := "half the cap", "the Go heap and the page cache"
			if spec.Server {
				part, rest = "three quarters of the cap", "the page cache"
			}
			return UsageError{fmt.Errorf("--cache-mb %d (engine %s) does not fit --memory-limit %s: an engine's cache and buffers take at most %s, %d MiB (the rest is %s)",
				c>>20, t.Engine.Name, bytesText(uint64(cfg.MemoryLimit)), part, share>>20, rest)}
		}
	}
	return nil
}
