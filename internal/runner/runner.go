package runner

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/hist"
	"github.com/rumbench/rumbench/internal/live"
	"github.com/rumbench/rumbench/internal/memcap"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/syncacct"
	"github.com/rumbench/rumbench/internal/sysstat"
	"github.com/rumbench/rumbench/internal/table"
)

// Setup is what a step runs against and where its figures go.
type Setup struct {
	// Label names the target in results (the engine name, or engine plus configuration).
	Label  string
	Engine table.Engine
	// Sampler takes the system samples; nil disables system figures.
	Sampler *sysstat.Sampler
	// Rows returns the table rows the workload holds now (inserted − deleted).
	Rows func() int64
	// OnTick receives every interval record as soon as it is taken (results writer, progress
	// display). It must not block for long.
	OnTick func(iv *results.Interval)
	// OnSample, when set, receives the step's live sample at its start and at every tick (see
	// live.Sample), built on the observer's thread from what the tick merged; nil builds none.
	// It must not block for long; the sample is the receiver's.
	OnSample func(s *live.Sample)
	// Tick is the sampling interval; 0 means 1 s.
	Tick time.Duration
	// PSSEvery, when > 0, also reads a managed server's PSS on the ticks this far apart (it is
	// read at every step's start and end anyway; reading it makes the kernel walk the server's
	// page tables).
	PSSEvery time.Duration
	// SyncLatency is the latency injected into the engine's sync calls (recorded in the step's
	// syscalls figures).
	SyncLatency time.Duration
	// Memory is the memory cgroup that caps the engine (--memory-limit), read on every tick;
	// nil without a cap.
	Memory *memcap.Group
	// Settle says which write steps settle after their operations (see SettleMode).
	Settle SettleMode
	// SettleDir is a directory on the file system that settling syncs (the engine's data
	// directory); empty syncs none (a server given with --dsn keeps its data elsewhere).
	SettleDir string
	// Faulter injects the steps' Faults (nil: the target takes none).
	Faulter table.Faulter
}

// ErrTimeLimit is the cause of a step stopped by its MaxDuration.
var ErrTimeLimit = errors.New("step duration limit reached")

// Run runs one step and returns its figures. The result is always filled with what was measured,
// also when Run returns an error (an operation failed) or ctx was cancelled (status
// "interrupted", nil error).
func Run(ctx context.Context, tgt Setup, st Step) (results.Step, error) {
	stepCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	bgCtx, stopBg := context.WithCancel(stepCtx)
	defer stopBg()
	if limit := timeLimit(st); limit > 0 {
		t := time.AfterFunc(limit, func() { stop(ErrTimeLimit) })
		defer t.Stop()
	}

	// The observer (this goroutine: the ticks, the samples, the results writer and the
	// progress line they call) runs on a thread of its own, whose CPU clock then measures it
	// apart from the workers.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r := &stepRun{ctx: ctx, stepCtx: stepCtx, stop: stop, bgCtx: bgCtx, tgt: tgt, st: st, c: newCollector(tgt, st)}
	r.c.interrupted = ctx
	r.c.threadStart = sysstat.ThreadCPUNs()
	r.start = time.Now()
	r.c.begin(r.start)
	from, to := windowBounds(st, r.start)
	if st.Duration > 0 {
		t := time.AfterFunc(st.Warmup+st.Duration, func() { r.ended.Store(true) })
		defer t.Stop()
	}
	r.initFaults()
	r.startWorkers(from, to)
	driversDone := make(chan struct{})
	go func() { r.drivers.Wait(); close(driversDone) }()
	r.startFaults(driversDone)
	r.observe(tickOf(tgt), driversDone)
	r.waitFaults()
	stopBg()
	r.background.Wait()
	r.settleWrites()
	return r.finish(r.c.tick(time.Now(), true))
}

// stepRun is one step while it runs: its contexts, its workers and the first error that failed
// it. The observer's goroutine (Run's) owns it; the workers share only ended, the wait groups
// and fail.
type stepRun struct {
	// ctx is the run's context: its end is an interruption.
	ctx context.Context
	// stepCtx ends with the step: an operation's failure or the time limit, the cause said.
	stepCtx context.Context
	stop    context.CancelCauseFunc
	// bgCtx is the background workers' context, which also ends when the drivers are done.
	bgCtx context.Context
	tgt   Setup
	st    Step
	c     *collector
	start time.Time
	// ended tells the workers' loops that the window of a timed step is over.
	ended               atomic.Bool
	drivers, background sync.WaitGroup
	errOnce             sync.Once
	// opErr is the first failure (an operation's, a panic, settling): set once through fail.
	opErr error
}

// tickOf is the target's sampling interval: its Tick, or 1 s.
func tickOf(tgt Setup) time.Duration {
	if tgt.Tick <= 0 {
		return time.Second
	}
	return tgt.Tick
}

// timeLimit is how long step st may run before it is stopped (0: no limit): its MaxDuration,
// or for a timed step the SafetyNet of its planned length.
func timeLimit(st Step) time.Duration {
	if st.MaxDuration == 0 && st.Duration > 0 {
		return SafetyNet(st.Warmup + st.Duration)
	}
	return st.MaxDuration
}

// windowBounds returns the measured window of a step started at start (see Meter): from the warm-up's
// end to the timed step's end; a zero bound is open.
func windowBounds(st Step, start time.Time) (from, to time.Time) {
	if st.Warmup > 0 {
		from = start.Add(st.Warmup)
	}
	if st.Duration > 0 {
		to = start.Add(st.Warmup + st.Duration)
	}
	return from, to
}

// fail records err as the step's failure, if it is the first, and stops the step.
func (r *stepRun) fail(err error) {
	r.errOnce.Do(func() { r.opErr = err; r.stop(err) })
}

// startWorkers gives each of the step's workers a meter of the window [from, to), registered
// with the collector, and starts its goroutine.
func (r *stepRun) startWorkers(from, to time.Time) {
	// Workers of a thread-bound engine stay on their threads when several of them compete for
	// threads. A lone worker is left alone: pinned, it cost more client CPU (PostgreSQL
	// update-index, one thread: 8.10 µs per statement pinned, 7.62 not; four threads: 14.84
	// pinned, 15.29 not; medians of 8 alternating runs; docs/client-cost.md).
	tb, ok := r.tgt.Engine.(table.ThreadBound)
	pin := ok && tb.ThreadBound() && len(r.st.Workers) > 1
	shares := paceShares(r.st)
	for i, w := range r.st.Workers {
		m := NewMeter(len(r.st.Kinds), w.Rate > 0 || shares > 0)
		m.from, m.to = from, to
		var p *gen.Pacer
		switch {
		case w.Rate > 0:
			m.sched.rate = w.Rate
			p = gen.NewPacer(r.start, w.Rate)
		case shares > 0 && paces(w):
			m.sched.units = int64(max(w.PaceUnits, 1))
			m.sched.rate = r.st.Pace.Rate / float64(shares) / float64(m.sched.units)
			p = gen.NewSchedule(r.start, m.sched.rate, r.st.Pace.Arrivals, r.st.Pace.Seed^gen.Mix(uint64(i+1)<<32^nameHash(r.st.Name)))
			if shares < runtime.GOMAXPROCS(0) {
				// A processor is left for everything else: the paced workers may keep theirs
				// while they sleep (one client at 2000/s on PostgreSQL: 37-38 µs of client CPU
				// per transaction against 54-59 without; docs/rates.md).
				p.Hold()
			}
		}
		if fs := r.c.faults; fs != nil && fs.detecting {
			m.detect = func(now time.Time) { r.detect(fs, m, now) }
		}
		r.c.meters = append(r.c.meters, m)
		ctx, wg := r.stepCtx, &r.drivers
		if w.Role == Background {
			ctx, wg = r.bgCtx, &r.background
		}
		wg.Add(1)
		go r.runWorker(ctx, wg, w, m, p, pin)
	}
}

// paces says whether the step's Pace paces worker w: a driver without a rate of its own that
// does not follow another.
func paces(w Worker) bool { return w.Role == Driver && w.Rate == 0 && !w.Unpaced }

// paceShares is how many workers share step st's Pace rate (0: none, or no Pace).
func paceShares(st Step) int {
	if st.Pace == nil || st.Pace.Rate <= 0 {
		return 0
	}
	n := 0
	for _, w := range st.Workers {
		if paces(w) {
			n++
		}
	}
	return n
}

// nameHash is the FNV-1a hash of a step's name: each step's schedules differ.
func nameHash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

// runWorker is worker w's goroutine: its loop (work) on meter m until ctx ends, pinned to its
// thread when pin is set; a panic or an error fails the step.
func (r *stepRun) runWorker(ctx context.Context, wg *sync.WaitGroup, w Worker, m *Meter, p *gen.Pacer, pin bool) {
	defer wg.Done()
	if w.Finish != nil {
		defer w.Finish()
	}
	if pin || p != nil {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	if p != nil {
		// A paced worker sleeps until each intended start: the kernel's default timer slack
		// (50 µs) would wake it up to that late, lateness charged to the engine.
		unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
		defer unix.Prctl(unix.PR_SET_TIMERSLACK, 0, 0, 0, 0) // the thread's default again
	}
	defer func() {
		// No panic of an engine or a workload ends the process: it fails the step.
		if p := recover(); p != nil {
			r.fail(fmt.Errorf("%s: panic: %v", w.Name, p))
		}
	}()
	// Label the worker's CPU profile samples with its target and step.
	pprof.SetGoroutineLabels(pprof.WithLabels(ctx, pprof.Labels("target", r.tgt.Label, "step", r.st.Name)))
	var limit time.Duration
	if r.st.Pace != nil && m.sched.units > 0 {
		limit = r.st.Pace.LatencyLimit
	}
	if err := work(ctx, w, m, p, limit, &r.ended, r.st.Tolerate); err != nil {
		r.fail(fmt.Errorf("%s: %w", w.Name, err))
	}
}

// observe is the observer's loop until the drivers are done (driversDone): a tick every tick,
// a sample of the rate every sliceSample, and the warm-up's end on a sample of its own.
func (r *stepRun) observe(tick time.Duration, driversDone <-chan struct{}) {
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	// The warm-up ends on a sample of its own, and the ticks after it are counted from there,
	// so that the measured window's figures start where its operations do.
	var warmupEnd <-chan time.Time
	if r.st.Warmup > 0 {
		t := time.NewTimer(r.st.Warmup)
		defer t.Stop()
		warmupEnd = t.C
	}
	sampler := time.NewTicker(sliceSample)
	defer sampler.Stop()
	for {
		select {
		case now := <-sampler.C:
			r.c.sampleRate(now)
		case <-ticker.C:
			r.c.tick(time.Now(), false)
		case now := <-warmupEnd:
			if now.Sub(r.c.prev.t) > tick/100 { // else the tick just taken is the warm-up's end
				r.c.tick(now, false)
			}
			r.c.startWindow()
			ticker.Reset(tick)
		case <-driversDone:
			return
		}
	}
}

// settleWrites settles a write step that ended by itself (not failed, not interrupted): the
// engine's deferred work for what it wrote goes into the step's figures, its time into
// SettleSecs.
func (r *stepRun) settleWrites() {
	c := r.c
	if r.opErr != nil || r.ctx.Err() != nil || !c.wantsSettle(time.Since(r.start)) {
		return
	}
	c.tick(time.Now(), false) // the last interval of the operations
	c.settleFrom = c.prev.t
	c.opsEnd = newSnapshot(len(r.st.Kinds))
	c.opsEnd.copyFrom(c.prev)
	// On a goroutine of its own: the engine's work (a checkpoint runs in the calling thread)
	// must not count as the observer's, whose thread this is.
	var did string
	var debt int64
	var err error
	done := make(chan struct{})
	go func() { defer close(done); did, debt, err = settle(r.ctx, r.tgt) }()
	<-done
	c.settled, c.debt = did, debt
	if err != nil && r.ctx.Err() == nil {
		r.fail(err)
	}
}

// finish sets the status of the step's result res from what ended the step and returns it with
// the step's failure, if any.
func (r *stepRun) finish(res results.Step) (results.Step, error) {
	switch cause := context.Cause(r.stepCtx); {
	case r.opErr != nil:
		res.Status, res.Error = results.StatusFailed, r.opErr.Error()
		return res, r.opErr
	case errors.Is(cause, ErrTimeLimit):
		res.Status = results.StatusTimeLimit
	case r.ctx.Err() != nil:
		res.Status = results.StatusInterrupted
	case len(res.Degraded) > 0:
		res.Status = results.StatusDegraded
	default:
		res.Status = results.StatusOK
	}
	return res, nil
}

// work is a worker's loop: pace (p, nil for a closed loop), call Op, stop on done, an error it
// does not tolerate (an error of a class in tolerate is counted, and a lost connection waits a
// backoff), cancellation or the end of a timed step's window (ended). A paced call already
// later than limit (> 0) when its turn comes is skipped. An error that comes from the cancellation of ctx
// is a clean stop.
func work(ctx context.Context, w Worker, m *Meter, p *gen.Pacer, limit time.Duration, ended *atomic.Bool, tolerate Tolerance) error {
	lost, rng := 0, gen.NewRand(uint64(time.Now().UnixNano()))
	if p != nil {
		// The arrivals of the window not taken when the worker stopped: those due by the
		// window's end (a timed step), or by the worker's own end (a step of counts, where a
		// worker behind its schedule finishes late).
		defer func() {
			end := m.to
			if end.IsZero() {
				end = time.Now()
			}
			p.Before(m.from)
			m.sched.unstarted.Add(p.Before(end))
			m.sched.due.Store(0) // nothing more is due: its lag is over
		}()
	}
	for ctx.Err() == nil && !ended.Load() {
		if p != nil {
			at, now, err := p.Next(ctx)
			if err != nil || m.Ended(at) {
				return nil
			}
			m.sched.due.Store(p.Peek().UnixNano())
			if m.InWindow(at) {
				m.sched.arrived.Add(1)
			}
			late, in := now.Sub(at), m.InWindow(now)
			if limit > 0 && late > limit {
				if in {
					m.sched.skipped.Add(1)
				}
				continue
			}
			if in {
				m.sched.started.Add(1)
				m.sched.lateNs.Add(int64(late))
			}
			m.intendedStart = at
		}
		done, err := w.Op(ctx, m)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			c := table.ClassOf(err)
			if !tolerate.Has(c) {
				return err
			}
			m.Failed(err, time.Now())
			if c == table.ClassConnection {
				lost++
				if !backoff(ctx, lost, &rng) {
					return nil
				}
			}
			continue
		}
		lost = 0
		if done {
			return nil
		}
	}
	return nil
}

// Backoff bounds: a worker whose connection failed n times in a row waits a random time between
// half and all of min(backoffMax, backoffMin·2^(n-1)) before its next operation.
const (
	backoffMin = 5 * time.Millisecond
	backoffMax = time.Second
)

// backoff waits after the n-th connection failure in a row (see backoffMin) and says whether
// the worker goes on (false: ctx ended); rng is the worker's.
func backoff(ctx context.Context, n int, rng *gen.Rand) bool {
	d := backoffMax
	if n < 10 {
		d = min(backoffMax, backoffMin<<(n-1))
	}
	d = d/2 + time.Duration(rng.Intn(int64(d/2+1)))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// snapshot is the merged state of all meters, and the system, at one instant.
type snapshot struct {
	t     time.Time
	kinds []kindSnapshot
	sys   sysstat.Sample
	sysOK bool
	cpuNs int64 // this process's user+system CPU time (getrusage), ns
	// userNs is the user-mode part of cpuNs, ns.
	userNs int64
	// observerNs is the CPU time of the observer's thread since the step began, ns.
	observerNs int64
	// engine is the engine's own counters (table.CounterReporter), read at the step's start
	// and end only.
	engine  map[string]int64
	srv     table.ServerSample
	srvOK   bool
	commits int64
	retries int64
	// failed is the operations failed (Meter.Failed), every class.
	failed int64
	acct   syncacct.Sample
	acctOK bool
	mem    memcap.Sample
	memOK  bool
	// eps is a cluster's endpoints (table.EndpointReporter), read on every tick.
	eps []table.EndpointSample
}

// kindSnapshot is one kind's merged counters and histograms: ops and units (and the
// histograms) of the units of work that started in the measured window, allOps and allUnits
// of every operation that has ended (the warm-up's included), which the intervals count.
type kindSnapshot struct {
	ops, units       int64
	allOps, allUnits int64
	hist, intended   hist.Snapshot
}

// counts returns the kind's operations and units, of the measured window or all.
func (ks *kindSnapshot) counts(all bool) (ops, units int64) {
	if all {
		return ks.allOps, ks.allUnits
	}
	return ks.ops, ks.units
}

func newSnapshot(kinds int) *snapshot { return &snapshot{kinds: make([]kindSnapshot, kinds)} }

// copyFrom makes s a copy of o without sharing its kinds.
func (s *snapshot) copyFrom(o *snapshot) {
	kinds, eps := s.kinds, s.eps
	*s = *o
	s.kinds = kinds
	copy(s.kinds, o.kinds)
	s.eps = append(eps[:0], o.eps...)
}

func (s *snapshot) take(meters []*Meter, sampler *sysstat.Sampler, t time.Time, tmp *hist.Snapshot) {
	s.t = t
	s.commits, s.retries, s.failed = 0, 0, 0
	for _, m := range meters {
		s.commits += m.commits.Load()
		s.retries += m.retries.Load()
		s.failed += m.failedOps()
	}
	for k := range s.kinds {
		ks := &s.kinds[k]
		ks.ops, ks.units, ks.allOps, ks.allUnits = 0, 0, 0, 0
		ks.hist.Reset()
		ks.intended.Reset()
		for _, m := range meters {
			km := &m.kinds[k]
			ops, units := km.ops.Load(), km.units.Load()
			ks.ops += ops
			ks.units += units
			ks.allOps += ops + km.warmOps.Load()
			ks.allUnits += units + km.warmUnits.Load()
			km.hist.Snapshot(tmp)
			ks.hist.Add(tmp)
			if km.intended != nil {
				km.intended.Snapshot(tmp)
				ks.intended.Add(tmp)
			}
		}
	}
	s.sysOK = false
	if sampler != nil {
		s.sysOK = sampler.Sample(&s.sys) == nil
	}
}
