// Package bench runs one workload on a list of engines in turn and records the results: for each
// engine it prepares a private data directory, opens the engine, runs every step through the
// runner with a system sampler on the same tick, checks the workload's invariants, closes the
// engine and removes its data. It never prints: progress goes to the callbacks in Config.
package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/rumbench/rumbench/internal/datalock"
	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/live"
	"github.com/rumbench/rumbench/internal/memcap"
	"github.com/rumbench/rumbench/internal/netblock"
	"github.com/rumbench/rumbench/internal/redact"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/syncacct"
	"github.com/rumbench/rumbench/internal/sysstat"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
)

// Version and GitSHA identify the build; the Makefile sets them with -ldflags -X.
var (
	Version = "dev"
	GitSHA  = ""
)

// Config is one run.
type Config struct {
	Workload workload.Workload
	// Targets are the engines (or engine × server configuration) to run, in order: Label, the
	// registered engine name in Engine.Name and the engine-specific key=value options
	// (--engine-opt, dsn, server_config) in Engine.Options.
	Targets []results.Target
	// CacheMB and Sync are the options every engine takes: the cache, MiB (1..MaxCacheMB),
	// and sync on commit.
	CacheMB int64
	Sync    bool
	// EngineCacheBytes is the cache of the engines a workload profile sizes for its regime, by
	// registered engine name (workload.CachePlanner), bytes; the others take CacheMB.
	EngineCacheBytes map[string]int64
	// DataDir holds one subdirectory per engine. A non-empty one is refused unless Fresh, which
	// empties it. KeepData keeps each engine's data after its steps.
	DataDir  string
	Fresh    bool
	KeepData bool
	// SyncAcct turns on sync and write accounting and the injected sync latency for every
	// engine (--syscalls, --fsync-latency).
	SyncAcct syncacct.Config
	// Out is the results directory; the run writes Out/<RunID> (Out/<RunID>-N if that exists).
	Out   string
	RunID string
	Label string
	// Command is the command line, for the manifest, passwords redacted.
	Command []string
	// Private marks a run whose files hold values derived from a DSN (Manifest.Private).
	Private bool
	// PSSEvery reads a managed server's PSS on ticks this far apart too (0: at each step's
	// start and end only).
	PSSEvery time.Duration
	// Settle says which write steps bring their engine's deferred work to disk before their
	// last sample (runner.SettleMode; --settle).
	Settle runner.SettleMode
	// Settings are the caller's settings that the fields of Config do not hold (the flags as
	// given: --server-config's list); the manifest records them with those derived from the
	// fields (settings), which win for a key of both.
	Settings map[string]any
	// Profile is the workload's profile (--profile), which rumbench prepare records with the data.
	Profile string
	// Prepare runs only the workload's load steps (workload.Reuser) and records in the database
	// what was loaded; the data is kept (rumbench prepare). Reuse skips the load steps and
	// runs the others on the data a Prepare run left, refused when that data does not match
	// this run; the data is kept (run --reuse). Both need an engine whose tables outlive the
	// run (table.Keeper): an embedded engine's data directory or a --dsn server.
	Prepare, Reuse bool
	// Repeat runs every target this many times (1..MaxRepeat), interleaved: all targets once,
	// then all again, so drift over the run hits every target alike. Each repetition loads its
	// own data; its records carry Rep = 1..Repeat.
	Repeat int

	// MemoryLimit caps every engine's memory, bytes (0: no cap): each target runs under a
	// memory cgroup of this size, an embedded engine in a worker process of its own (see
	// Worker), a managed server with its process tree in the cgroup.
	MemoryLimit int64
	// Cold evicts the engine's data files from the page cache before each step.
	Cold bool
	// ReadaheadKB sets the data device's readahead for the run, KiB (0: left as it is); the
	// previous value is restored at the end.
	ReadaheadKB int
	// Args are the command-line arguments (without the program name) a worker process builds
	// this same configuration from; never recorded (they may hold a password).
	Args []string

	// Sweep, when not nil, is the run's concurrency sweep (recorded in the manifest). With
	// LoadOnce, each target loads once and runs its other steps once per count, recorded as the
	// targets "<label>@<count>" (SweepLabel); without, the caller lists a target per count
	// (Target.Of and Target.Clients set), each loading its own data.
	Sweep *results.Sweep
	// Pace, when not nil, is the run's fixed rate (--rate, --arrivals, --latency-limit): every
	// step that is not a load runs its clients on it (runner.Pace), its Seed the run's. In a
	// sweep of rates (Sweep.Rates) its Rate is each point's in turn.
	Pace *runner.Pace
	// SLO, when not nil, is the latency goal (--slo) recorded in the manifest: the reports mark
	// each target's capacity by it.
	SLO *results.SLO
	// Faults are injected into every step that is not a load (--fault), each at its time from
	// the step's start; the engine must implement table.Faulter. Tolerate is the error classes
	// those steps go on through (--tolerate-errors; with faults, connection and timeout
	// errors too).
	Faults   []runner.Fault
	Tolerate runner.Tolerance

	// Shard, when not nil, is recorded in the manifest: this run is one shard of a split run.
	Shard *results.ShardInfo
	// Barrier, when not nil, is called before each measured step, once its sessions are open,
	// with a name that is the same in every shard for the same step (target, step and how
	// often the pair ran before); the step starts when it returns. An error fails the run.
	Barrier func(ctx context.Context, name string) error

	// OnStart receives the run directory once its run.json is written (status running): the
	// CLI records the run in the store then, so a killed run is found there. OnTick receives
	// each interval record, OnStep each step result, OnEvent a line about what the run is
	// doing. Any may be nil.
	OnStart func(dir string)
	OnTick  func(iv *results.Interval)
	OnStep  func(s results.Step)
	OnEvent func(format string, args ...any)
	// OnSample, when set, receives every live sample of every step (runner.Setup.OnSample),
	// those of an engine worker's steps too, streamed to this process: the metrics endpoint.
	// Its Rep is set as the step records' is.
	OnSample func(s *live.Sample)
}

// WriteError is a failure to write the run directory (a full --out): what it says could not be
// written is missing from the directory.
type WriteError struct{ Err error }

func (e WriteError) Error() string { return e.Err.Error() }
func (e WriteError) Unwrap() error { return e.Err }

// UsageError is an error in the user's input: the CLI exits with code 2 for it.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// Outcome is what a run produced.
type Outcome struct {
	Dir      string
	Steps    []results.Step
	Manifest *results.Manifest
	// Interrupted is true when the run was cancelled (Ctrl-C).
	Interrupted bool
}

// Run runs the workload on every engine. On an engine error it stops, writes what was measured
// and returns the error with the outcome; on cancellation it does the same and returns a nil
// error with Interrupted set. A run that fails before it starts (bad input, a run directory
// that cannot be created or whose run.json cannot be written: a WriteError) returns a nil
// outcome.
func Run(ctx context.Context, cfg Config) (*Outcome, error) {
	specs, err := validate(cfg)
	if err != nil {
		return nil, err
	}
	lock, err := lockData(cfg)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	if lock.Stale != "" {
		event(cfg, "warning: data dir %s was locked by a run that is gone (%s); taking it over", cfg.DataDir, lock.Stale)
	}
	if err := prepareDirs(cfg); err != nil {
		return nil, err
	}
	w, err := results.Create(cfg.Out, cfg.RunID, cfg.Private)
	if err != nil {
		return nil, WriteError{fmt.Errorf("%w (results dir %s: %s)", err, cfg.Out, SpaceLeft(cfg.Out))}
	}
	m := newManifest(cfg, w.RunID(), lock.Stale)
	if err := w.Manifest(m); err != nil {
		// Nothing is measured yet: the run does not start, and leaves no directory without a
		// run.json behind.
		err = WriteError{fmt.Errorf("could not write run.json: %w (results dir %s: %s)", err, cfg.Out, SpaceLeft(cfg.Out))}
		w.Remove()
		return nil, err
	}
	out := &Outcome{Dir: w.Dir(), Manifest: m}
	if cfg.OnStart != nil {
		cfg.OnStart(w.Dir())
	}
	mem, undo, err := setupMemory(cfg, m)
	if err != nil {
		w.Close()
		return out, err
	}
	defer undo()
	runErr := runTargets(ctx, cfg, specs, w, m, mem)
	return out, finishRun(ctx, cfg, w, out, runErr)
}

// lockData takes the data directory's lock: the directory is this run's until it ends, taken
// before anything in it is touched. A run whose every target is a --dsn server keeps no data in
// it: it neither creates nor locks it (the lock returned is then empty). A lock another run holds
// is a UsageError.
func lockData(cfg Config) (*datalock.Lock, error) {
	if !localData(cfg) {
		return &datalock.Lock{}, nil
	}
	lock, err := datalock.Acquire(cfg.DataDir, cfg.RunID)
	if errors.Is(err, datalock.ErrHeld) {
		return nil, UsageError{err}
	}
	return lock, err
}

// prepareDirs empties the data directory of every target's repetitions that keeps its data here
// when Fresh (see prepareDir).
func prepareDirs(cfg Config) error {
	for _, t := range cfg.Targets {
		for rep := 1; rep <= max(cfg.Repeat, 1) && !external(t); rep++ {
			if err := prepareDir(targetDir(cfg, t, rep), cfg.Fresh); err != nil {
				return err
			}
		}
	}
	return nil
}

// newManifest is the run's manifest as it starts (status running): the build, the command and
// configuration, the workload, the host; stale is the holder line of the data directory's lock
// taken over ("" when none was).
func newManifest(cfg Config, runID, stale string) *results.Manifest {
	m := &results.Manifest{
		SchemaVersion: results.SchemaVersion, RunID: runID, Label: cfg.Label,
		Version: Version, GitSHA: gitSHA(), GoVersion: runtime.Version(), Command: cfg.Command,
		Config: settings(cfg), Workload: cfg.Workload.Name(), WorkloadConfig: cfg.Workload.Config(), Groups: groups(cfg.Workload.Name()),
		Host: sysstat.HostInfo(cfg.DataDir), Start: time.Now().UTC(), Status: results.StatusRunning, Private: cfg.Private,
		Notes: []string{"storage and host CPU counters are system-wide: other activity on the device or host is counted too"},
	}
	if spec, ok := workload.Lookup(cfg.Workload.Name()); ok {
		m.Summary, m.Headline = workload.SummaryColumns(spec, cfg.Workload.Steps()), append([]string(nil), spec.Headline...)
	}
	m.PID, m.Hostname = os.Getpid(), hostname()
	m.Shard = cfg.Shard
	m.Sweep = cfg.Sweep
	m.SLO = cfg.SLO
	if stale != "" {
		m.Notes = append(m.Notes, "the data directory's lock was taken over from a run that is gone ("+stale+")")
	}
	if m.Host.DeviceError != "" {
		m.Notes = append(m.Notes, "storage figures absent: "+m.Host.DeviceError)
	}
	return m
}

// runTargets runs every target once per repetition, interleaved, and returns the run's error:
// the first failure that stopped it, else the first target's own failure (an engine the memory
// cap killed, a server that did not start), after which the others went on. It stops at the
// first other failure and when ctx ends.
func runTargets(ctx context.Context, cfg Config, specs []engine.Spec, w *results.Writer, m *results.Manifest, mem *memcap.Hierarchy) error {
	var targetErr error
	for rep := 1; rep <= max(cfg.Repeat, 1); rep++ {
		if cfg.Repeat > 1 {
			event(cfg, "repetition %d of %d", rep, cfg.Repeat)
		}
		rcfg := cfg
		if rep > 1 {
			// A --dsn server holds the previous repetition's tables: this run's own, dropped.
			rcfg.Fresh = true
		}
		for i, spec := range specs {
			tcfg := rcfg
			if t := cfg.Targets[i]; t.Clients > 0 && i > 0 && cfg.Targets[i-1].Of == t.Of {
				// A later count of a sweep that loads per count: on a --dsn server the tables of
				// the count before (fewer or as many: counts increase) are dropped first.
				tcfg.Fresh = true
			}
			err := runTarget(ctx, tcfg, i, rep, spec, w, m, mem)
			if targetOnly(err) && ctx.Err() == nil {
				// The cap killed this engine's step, or its server did not start (a release
				// that does not take a setting): say so and go on with the next target; the
				// run ends failed.
				event(cfg, "%s", input.Line(err.Error(), 0))
				m.Notes = append(m.Notes, input.Line(err.Error(), 0))
				if targetErr == nil {
					targetErr = err
				}
				continue
			}
			if err != nil {
				return err
			}
			if ctx.Err() != nil {
				return targetErr
			}
		}
	}
	return targetErr
}

// finishRun records how the run ended in its manifest (interrupted, failed with runErr, or ok),
// fills out's steps, writes run.json and closes the run directory. It returns the run's error:
// runErr, nil for an interrupted run, or a WriteError when the run directory could not be
// written.
func finishRun(ctx context.Context, cfg Config, w *results.Writer, out *Outcome, runErr error) error {
	m := out.Manifest
	m.End = time.Now().UTC()
	switch {
	case ctx.Err() != nil:
		// Interrupted in any phase (a server's start, a step, the invariant check): what
		// failed then failed because of the interrupt.
		m.Status, out.Interrupted, runErr = results.StatusInterrupted, true, nil
		if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
			m.Error = cause.Error() // why the run was stopped (another shard's failure)
		}
	case runErr != nil:
		m.Status, m.Error = results.StatusFailed, runErr.Error()
	default:
		m.Status = results.StatusOK
	}
	out.Steps = w.Steps()
	// The run directory's own writes: a full --out is said as such.
	if err := w.Manifest(m); err != nil && runErr == nil {
		runErr = WriteError{fmt.Errorf("could not write run.json: %w (results dir %s: %s)", err, cfg.Out, SpaceLeft(cfg.Out))}
	}
	if err := w.Close(); err != nil && runErr == nil {
		runErr = WriteError{fmt.Errorf("could not write the run's files: %w (results dir %s: %s)", err, cfg.Out, SpaceLeft(cfg.Out))}
	}
	return runErr
}

// Validate checks what Run would refuse before it starts (each setting within its bounds,
// engine names and options, non-empty data directories), so a caller can report bad input
// before announcing the run. Every refusal is a UsageError of one line.
func Validate(cfg Config) error {
	_, err := validate(cfg)
	return err
}

func validate(cfg Config) ([]engine.Spec, error) {
	if err := checkSettings(cfg); err != nil {
		return nil, err
	}
	if !localData(cfg) {
		// nothing of this run goes in the data directory: another run's lock on it is no matter
	} else if err := datalock.Check(cfg.DataDir); err != nil {
		return nil, UsageError{err}
	}
	if cfg.Prepare {
		if err := prepareSteps(cfg); err != nil {
			return nil, err
		}
	}
	switch {
	case cfg.Prepare && cfg.Reuse:
		return nil, UsageError{errors.New("prepare and --reuse exclude each other")}
	case (cfg.Prepare || cfg.Reuse) && cfg.Repeat > 1:
		return nil, UsageError{errors.New("--repeat loads each repetition afresh: it does not go with prepare or --reuse")}
	case cfg.Reuse && cfg.Fresh:
		return nil, UsageError{errors.New("--fresh drops or empties the data that --reuse would use: give one of them")}
	case cfg.Reuse && len(RunSteps(cfg)) == 0:
		r, _ := cfg.Workload.(workload.Reuser)
		return nil, UsageError{fmt.Errorf("--reuse skips the load steps (%s): no other step is selected", strings.Join(r.LoadSteps(), ", "))}
	}
	if err := validateSweep(cfg); err != nil {
		return nil, err
	}
	specs := make([]engine.Spec, len(cfg.Targets))
	seen := map[string]bool{}
	for i, t := range cfg.Targets {
		s, ok := engine.Lookup(t.Engine.Name)
		if !ok {
			return nil, UsageError{fmt.Errorf("unknown engine %q (valid: %s)", t.Engine.Name, strings.Join(engine.Names(), ", "))}
		}
		if s.Unavailable != "" {
			return nil, UsageError{fmt.Errorf("engine %s: %s", s.Name, s.Unavailable)}
		}
		if seen[t.Label] {
			return nil, UsageError{fmt.Errorf("target %s is listed twice", t.Label)}
		}
		seen[t.Label] = true
		specs[i] = s
		if err := s.CheckOptions(t.Engine.Options); err != nil {
			return nil, UsageError{err}
		}
		if ec, ok := cfg.Workload.(workload.EngineChecker); ok {
			if err := ec.CheckEngine(s, t.Engine.Options); err != nil {
				return nil, UsageError{err}
			}
		}
		for rep := 1; rep <= max(cfg.Repeat, 1) && !cfg.Reuse && !external(t); rep++ {
			if err := checkDir(targetDir(cfg, t, rep), cfg.Fresh); err != nil {
				return nil, err
			}
		}
		if cfg.Reuse && !s.Server {
			if entries, err := os.ReadDir(targetDir(cfg, t, 1)); err != nil || len(entries) == 0 {
				return nil, UsageError{fmt.Errorf("--reuse: data dir %s holds no prepared data: run rumbench prepare with the same --data-dir first", targetDir(cfg, t, 1))}
			}
		}
	}
	if err := checkMemory(cfg); err != nil {
		return nil, err
	}
	if err := checkDisk(cfg); err != nil {
		return nil, err
	}
	return specs, nil
}

// checkDisk refuses, before any work, data the data directory's file system cannot hold: the
// workload's estimate of its data on each target that keeps it there (workload.DiskPlanner; not a
// --dsn server's, nor data --reuse finds loaded), the largest of them since each target's data
// is removed before the next loads, or their sum (every repetition's) when --keep-data or
// prepare keeps them, against the space free there (sysstat.Space). A file system whose space
// cannot be read is not refused.
func checkDisk(cfg Config) error {
	dp, ok := cfg.Workload.(workload.DiskPlanner)
	if !ok || cfg.Reuse || !localData(cfg) {
		return nil
	}
	var total, largest float64
	var on, how string
	n := 0
	for _, t := range cfg.Targets {
		if external(t) {
			continue
		}
		b, h, ok := dp.DiskBytes(t.Engine.Name)
		if !ok {
			continue
		}
		n += max(cfg.Repeat, 1)
		total += b * float64(max(cfg.Repeat, 1))
		if b > largest {
			largest, on, how = b, t.Label, h
		}
	}
	need := largest
	if cfg.KeepData || cfg.Prepare {
		need = total
	}
	if need <= 0 {
		return nil
	}
	free, _, err := sysstat.Space(cfg.DataDir)
	if err != nil || need <= float64(free) {
		return nil
	}
	fs, _ := sysstat.FilesystemForDir(cfg.DataDir)
	dev := fs.Source
	if dev == "" {
		dev = "device unknown"
	}
	what := fmt.Sprintf("the data needs about %s on %s (%s)", bytesText(uint64(need)), on, how)
	if need != largest {
		what = fmt.Sprintf("the data of its %d targets, kept (--keep-data, prepare), needs about %s; on %s about %s (%s)", n, bytesText(uint64(need)), on, bytesText(uint64(largest)), how)
	}
	return UsageError{fmt.Errorf("data dir %s: %s; its file system (%s) has %s free: give --data-dir on one with room, or a smaller scale",
		input.Short(cfg.DataDir), what, dev, bytesText(free))}
}

// external says whether target t is a server given with --dsn, whose data live on the server:
// it has no data directory here.
func external(t results.Target) bool { return t.Engine.Options["dsn"] != "" }

// localData says whether any target keeps data in the data directory (an embedded engine, or
// a server rumbench starts).
func localData(cfg Config) bool {
	for _, t := range cfg.Targets {
		if !external(t) {
			return true
		}
	}
	return false
}

// targetDir is a target's data directory: its label, with characters unsafe in a file name
// replaced. Repetitions share it (each removes its data at its end), except with KeepData,
// which keeps each repetition's data in a directory of its own (label.rN for N >= 2).
func targetDir(cfg Config, t results.Target, rep int) string {
	name := strings.NewReplacer(":", "_", "/", "_", " ", "_").Replace(t.Label)
	if cfg.KeepData && rep > 1 {
		name += fmt.Sprintf(".r%d", rep)
	}
	return filepath.Join(cfg.DataDir, name)
}

// runEngine opens one engine in dir, runs every step on it, checks the workload's invariants and
// always closes it; what it measures goes to out. mem, when not nil, is the memory cgroup that
// caps the engine: the runner reads it, and a managed server's processes are placed in it. A
// --dsn server has no directory here: dir is "" and nothing is created for it.
func runEngine(ctx context.Context, cfg Config, t results.Target, spec engine.Spec, dir string, out sink, mem *memcap.Group) (err error) {
	label := t.Label
	if external(t) {
		out.event("%s: opening on server %s (--dsn)", label, redact.Server(t.Engine.Options["dsn"]))
	} else {
		out.event("%s: opening in %s", label, dir)
	}
	var eng table.Engine
	defer func() {
		if eng != nil {
			out.phase("close")
		}
		if cerr := closeEngine(ctx, eng); cerr != nil && err == nil && ctx.Err() == nil {
			err = fmt.Errorf("%s: close: %w", label, cerr)
		}
	}()
	if t.Clients > 0 {
		// One count of a sweep that loads per count.
		if err := cfg.Workload.(workload.Concurrent).SetClients(t.Clients); err != nil {
			return UsageError{err}
		}
	}
	opts := engine.Options{Dir: dir, CacheBytes: cfg.cacheBytes(t.Engine.Name), Sync: cfg.Sync, Extra: t.Engine.Options, SyncAcct: cfg.SyncAcct}
	if mem != nil {
		// Under a cap the engine sizes its cache and buffers within its share of it.
		opts.MemoryBytes = memcap.SharesFor(mem.Limit, spec.Server).Engine
		if spec.Server {
			opts.Cgroup = mem.Dir
		}
	}
	eng, err = spec.Open(ctx, opts)
	if err != nil {
		return fmt.Errorf("%s: %w", label, err)
	}
	for _, n := range eng.Info().Notes {
		out.event("%s: %s", label, n)
		out.note(label + ": " + n)
	}
	sampler, serr := newSampler(cfg, dir)
	if serr != nil {
		return fmt.Errorf("%s: sampler: %w", label, serr)
	}
	defer sampler.Close()
	if external(t) {
		out.note(label + " runs on an external server (--dsn): server CPU, RSS and PSS are not measured, and the storage counters are those of this host's " + deviceName(sampler) + ", not the server's")
	}
	sampler.SetLogFiles(eng.Info().LogFiles)
	if err := out.opened(results.Target{Label: label, Engine: eng.Info(), DataDir: dir, Of: t.Of, Clients: t.Clients}); err != nil {
		return err
	}
	run, skip, err := openRun(ctx, cfg, t, eng)
	if err != nil {
		var ue UsageError
		if errors.As(err, &ue) {
			return err
		}
		return fmt.Errorf("%s: %w", label, err)
	}
	defer run.Close()
	if r, ok := eng.(syncacct.Reporter); ok && cfg.SyncAcct.Enabled {
		if cov := r.SyncCoverage(); !cov.Complete {
			out.note(label + ": sync accounting incomplete: " + cov.Note)
		}
	}
	setup := runner.Setup{Label: label, Engine: eng, Sampler: sampler, Rows: run.Rows, SyncLatency: cfg.SyncAcct.Latency,
		PSSEvery: cfg.PSSEvery, Memory: mem, OnTick: out.interval, Settle: cfg.Settle, SettleDir: dir}
	if f, ok := eng.(table.Faulter); ok && len(cfg.Faults) > 0 {
		setup.Faulter = f
		if slices.ContainsFunc(cfg.Faults, func(f runner.Fault) bool { return f.Kind == "sever" }) {
			netblock.Track(true)
			defer netblock.Track(false)
		}
	}
	if out.live() {
		setup.OnSample = out.sample
	}
	base := results.Target{Label: label, Engine: eng.Info(), DataDir: dir, Of: t.Of, Clients: t.Clients}
	if err := runSteps(ctx, cfg, base, run, skip, setup, dir, out); err != nil || ctx.Err() != nil {
		return err
	}
	out.phase("invariant check")
	check, err := run.Check(ctx)
	if err != nil {
		return fmt.Errorf("%s: invariant check failed: %w", label, err)
	}
	if cfg.Prepare {
		if err := writeMarker(ctx, cfg, out.runID(), t, eng); err != nil {
			return fmt.Errorf("%s: recording the preparation: %w", label, err)
		}
		out.event("%s: prepared: later runs use this data with --reuse", label)
	}
	// A sweep's check covers the data every count worked on: it is recorded on the target that
	// loaded it.
	if err := out.opened(base); err != nil {
		return err
	}
	return out.checked(check)
}

// closeEngine closes eng (nil: nothing opened); an interrupted run's (ctx done) without waiting
// for a clean shutdown.
func closeEngine(ctx context.Context, eng table.Engine) error {
	if eng == nil {
		return nil
	}
	if cc, ok := eng.(table.ContextCloser); ok && ctx.Err() != nil {
		return cc.CloseContext(ctx)
	}
	return eng.Close()
}

// runSteps runs the workload's steps on the target (base) but those skip names: a sweep's counts
// on data loaded once, or each step in turn.
func runSteps(ctx context.Context, cfg Config, base results.Target, run workload.Run, skip map[string]bool, setup runner.Setup, dir string, out sink) error {
	if sw := cfg.Sweep; sw != nil && sw.LoadOnce {
		return runSweep(ctx, cfg, base, run, skip, setup, dir, out)
	}
	for _, name := range cfg.Workload.Steps() {
		if skip[name] {
			continue
		}
		if err := runStep(ctx, cfg, base.Label, run, setup, name, dir, out); err != nil || ctx.Err() != nil {
			return err
		}
	}
	return nil
}

// newSampler samples the system for a target whose data directory is dir; for a --dsn server
// (dir ""), the device behind the data directory's nearest existing ancestor, and no
// directory size.
func newSampler(cfg Config, dir string) (*sysstat.Sampler, error) {
	if dir == "" {
		return sysstat.NewDeviceSampler(cfg.DataDir)
	}
	return sysstat.NewSampler(dir)
}

// deviceName names the device a sampler reads ("device vda"), or says it reads none.
func deviceName(s *sysstat.Sampler) string {
	if s.DiskError() != nil {
		return "device (none found)"
	}
	return "device " + s.Device().Name
}

// groups returns the step groups the workload registered (nil when it has none).
func groups(name string) []results.Group {
	spec, _ := workload.Lookup(name)
	return spec.Groups
}

// keepServerLog copies a managed server's log (server.log in its data directory) into the run
// directory, if there is one, and says whether it did.
func keepServerLog(dir, to string, mode os.FileMode) bool {
	data, err := os.ReadFile(filepath.Join(dir, "server.log"))
	return err == nil && os.WriteFile(to, data, mode) == nil
}

// movedLog is a target's error whose message names its managed server's log in the data
// directory, which the run then removed: the message names the copy in the run directory.
type movedLog struct {
	err      error
	from, to []string // the log's paths as the message may write them, and the copy's
}

func (e *movedLog) Error() string {
	msg := e.err.Error()
	for i := range e.from {
		msg = strings.ReplaceAll(msg, e.from[i], e.to[i])
	}
	return msg
}

func (e *movedLog) Unwrap() error { return e.err }

// logMoved returns err with the server log of the data directory dir named as its copy kept.
func logMoved(err error, dir, kept string) error {
	var from, to []string
	if abs, aerr := filepath.Abs(dir); aerr == nil && abs != dir {
		// The absolute path first: the relative one is its end.
		from, to = append(from, filepath.Join(abs, "server.log")), append(to, kept)
	}
	from, to = append(from, filepath.Join(dir, "server.log")), append(to, kept)
	return &movedLog{err: err, from: from, to: to}
}

// preparingSaid is how long a step's cleanup runs before the progress says so.
const preparingSaid = 5 * time.Second

// runStep prepares, runs and records one step.
func runStep(ctx context.Context, cfg Config, eng string, run workload.Run, setup runner.Setup, name, dir string, out sink) error {
	t0 := time.Now()
	// A long cleanup (LinkBench's count check of the load) is said while it runs.
	done, said := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(said)
		select {
		case <-time.After(preparingSaid):
			out.event("%s: cleanup before %s: running (the workload's checks and cleanup; not measured)", eng, name)
		case <-done:
		}
	}()
	out.phase("cleanup before " + name)
	what, err := run.Prepare(ctx, name)
	close(done)
	<-said
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("%s: %s: %w", eng, name, err)
	}
	cleanupSecs := time.Since(t0).Seconds()
	if what != "" {
		out.event("%s: cleanup before %s: %s (%.1fs)", eng, name, what, cleanupSecs)
	}
	if cfg.Cold {
		if err := EvictDir(dir); err != nil {
			return fmt.Errorf("%s: %s: --cold: %w", eng, name, err)
		}
	}
	st, err := run.Step(ctx, name)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", eng, name, err)
	}
	st.Pace = paceOf(cfg, name)
	// A step that may meet faults (injected, or the user's: connection errors tolerated) has its
	// acknowledged writes checked.
	faulted := false
	if !isLoad(cfg, name) {
		st.Tolerate = cfg.Tolerate
		if len(cfg.Faults) > 0 && setup.Faulter != nil {
			st.Faults = cfg.Faults
			st.Tolerate = st.Tolerate.With(table.ClassConnection).With(table.ClassTimeout)
			if d := holdFaults(&st); d > 0 {
				out.event("%s: %s lasts %v, to hold its faults (the last at %v) and %v after it", eng, name, d, lastFault(st.Faults), FaultTail)
			}
		}
		faulted = st.Tolerate.Has(table.ClassConnection)
	}
	ack, _ := run.(workload.AckChecker)
	if faulted && ack != nil {
		if err := ack.BeforeFaults(ctx, name); err != nil {
			return fmt.Errorf("%s: %s: %w", eng, name, err)
		}
	}
	if cfg.Barrier != nil {
		if err := cfg.Barrier(ctx, eng+"/"+name); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("%s: %s: %w", eng, name, err)
		}
	}
	out.begin(name)
	res, runErr := runner.Run(ctx, setup, st)
	if what != "" {
		res.Cleanup, res.CleanupSecs = what, cleanupSecs
	}
	if faulted && ack != nil && runErr == nil && ctx.Err() == nil {
		a, err := ack.CheckAcknowledged(ctx, name)
		if err != nil {
			runErr = fmt.Errorf("acknowledged writes: %w", err)
		}
		res.AckCheck = &a
	}
	if err := out.step(res); err != nil && runErr == nil {
		runErr = err
	}
	if runErr != nil {
		return fmt.Errorf("%s: %s: %w", eng, name, runErr)
	}
	return nil
}

// paceOf is the fixed rate of step name: the run's, unless the step loads the data (a load runs
// flat out, as its reference does).
func paceOf(cfg Config, name string) *runner.Pace {
	if cfg.Pace == nil || isLoad(cfg, name) {
		return nil
	}
	p := *cfg.Pace
	return &p
}

// isLoad says whether step name loads the workload's data.
func isLoad(cfg Config, name string) bool {
	r, ok := cfg.Workload.(workload.Reuser)
	return ok && slices.Contains(r.LoadSteps(), name)
}

// checkDir refuses a non-empty directory unless fresh.
func checkDir(dir string, fresh bool) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) || (err == nil && len(entries) == 0) || (err == nil && fresh) {
		return nil
	}
	if err != nil {
		return UsageError{fmt.Errorf("data dir %s: %w", dir, err)}
	}
	return UsageError{fmt.Errorf("data dir %s is not empty (use --fresh to empty it, or another --data-dir)", dir)}
}

// prepareDir empties dir when fresh; checkDir has refused a non-empty one otherwise.
func prepareDir(dir string, fresh bool) error {
	entries, err := os.ReadDir(dir)
	if err != nil || !fresh {
		return nil
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

func event(cfg Config, format string, args ...any) {
	if cfg.OnEvent != nil {
		cfg.OnEvent(format, args...)
	}
}

// noSpace says whether err is, or reports, a full file system: ENOSPC, or its text (pebble,
// a worker process and RocksDB report it as text, RocksDB capitalized), or SQLite's
// SQLITE_FULL ("database or disk is full").
func noSpace(err error) bool {
	if errors.Is(err, syscall.ENOSPC) {
		return true
	}
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "no space left on device") || strings.Contains(msg, "database or disk is full")
}

// dataDiskFull adds the data directory's file system and the space left on it to err when err
// says the data disk is full, and returns err as it is otherwise. Called when an engine fails,
// before its data is removed, so the space is the space it left.
func dataDiskFull(cfg Config, err error) error {
	if err == nil || !noSpace(err) || errors.As(err, new(WriteError)) { // WriteError: --out, not the data disk
		return err
	}
	return fmt.Errorf("%w (data dir %s: %s)", err, cfg.DataDir, SpaceLeft(cfg.DataDir))
}

// SpaceLeft describes the file system that holds dir (or its nearest existing ancestor): its
// device (as /proc/self/mountinfo names it) and the space free for an unprivileged user, e.g.
// "/dev/vda1, 0 B free of 3.0 MiB".
func SpaceLeft(dir string) string {
	free, total, err := sysstat.Space(dir)
	if err != nil {
		return "free space unknown: " + err.Error()
	}
	fs, _ := sysstat.FilesystemForDir(dir)
	dev := fs.Source
	if dev == "" {
		dev = "device unknown"
	}
	return fmt.Sprintf("%s, %s free of %s", dev, bytesText(free), bytesText(total))
}

// bytesText renders n bytes in B, KiB, MiB or GiB.
func bytesText(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// hostname returns the host's name, "" when it has none.
func hostname() string {
	h, _ := os.Hostname()
	return h
}

// gitSHA returns the VCS revision the binary was built from, or "unknown".
func gitSHA() string {
	if GitSHA != "" {
		return GitSHA
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	return "unknown"
}

// cacheBytes returns the cache of the engine registered as name, bytes: its own
// (EngineCacheBytes) or the run's (CacheMB).
func (cfg Config) cacheBytes(name string) int64 {
	if b, ok := cfg.EngineCacheBytes[name]; ok {
		return b
	}
	return cfg.CacheMB << 20
}

// FaultTail is how long a timed step runs on after its last fault, when the step is lengthened
// to hold its fault schedule: the clients' recovery is measured in it.
const FaultTail = 15 * time.Second

// lastFault is when the last fault of a schedule ends (its time, and its duration for a stop or
// a sever), from the step's start.
func lastFault(faults []runner.Fault) time.Duration {
	var last time.Duration
	for _, f := range faults {
		last = max(last, f.At+f.For)
	}
	return last
}

// holdFaults lengthens a timed step that would end before its last fault is over (a quick
// profile's 5 s step and --fault kill@20s) to that fault and FaultTail after it, and returns its
// new length, the warm-up included (0: unchanged: a step that holds its faults keeps the length
// it was given). A step bounded by a count of operations is left as it is: a fault it does not
// reach is remarked in its figures.
func holdFaults(st *runner.Step) time.Duration {
	last := lastFault(st.Faults)
	if st.Duration <= 0 || st.Warmup+st.Duration > last {
		return 0
	}
	need := last + FaultTail
	st.Duration = need - st.Warmup
	if st.MaxDuration > 0 {
		st.MaxDuration = runner.SafetyNet(need)
	}
	return need
}
