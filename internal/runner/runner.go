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
}

// ErrTimeLimit is the cause of a step stopped by its MaxDuration.
var ErrTimeLimit = errors.New("step duration limit reached")

// Run runs one step and returns its figures. The result is always filled with what was measured,
// also when Run returns an error (an operation failed) or ctx was cancelled (status
// "interrupted", nil error).
func Run(ctx context.Context, tgt Setup, st Step) (results.Step, error) {
	tick := tgt.Tick
	if tick <= 0 {
		tick = time.Second
	}
	stepCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	bgCtx, stopBg := context.WithCancel(stepCtx)
	defer stopBg()
	limit := st.MaxDuration
	if limit == 0 && st.Duration > 0 {
		limit = SafetyNet(st.Warmup + st.Duration)
	}
	if limit > 0 {
		t := time.AfterFunc(limit, func() { stop(ErrTimeLimit) })
		defer t.Stop()
	}

	// The observer (this goroutine: the ticks, the samples, the results writer and the
	// progress line they call) runs on a thread of its own, whose CPU clock then measures it
	// apart from the workers.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c := newCollector(tgt, st)
	c.interrupted = ctx
	c.threadStart = sysstat.ThreadCPUNs()
	start := time.Now()
	c.begin(start)
	// The measured window (see Meter): from the warm-up's end to the timed step's end.
	var from, to time.Time
	if st.Warmup > 0 {
		from = start.Add(st.Warmup)
	}
	// ended tells the workers' loops that the window of a timed step is over.
	var ended atomic.Bool
	if st.Duration > 0 {
		to = start.Add(st.Warmup + st.Duration)
		t := time.AfterFunc(st.Warmup+st.Duration, func() { ended.Store(true) })
		defer t.Stop()
	}

	meters := make([]*Meter, len(st.Workers))
	// Workers of a thread-bound engine stay on their threads when several of them compete for
	// threads. A lone worker is left alone: pinned, it cost more client CPU (PostgreSQL
	// update-index, one thread: 8.10 µs per statement pinned, 7.62 not; four threads: 14.84
	// pinned, 15.29 not; medians of 8 alternating runs; docs/client-cost.md).
	tb, ok := tgt.Engine.(table.ThreadBound)
	pin := ok && tb.ThreadBound() && len(st.Workers) > 1
	var drivers, background sync.WaitGroup
	var errOnce sync.Once
	var opErr error
	fail := func(err error) {
		errOnce.Do(func() { opErr = err; stop(err) })
	}
	for i, w := range st.Workers {
		meters[i] = NewMeter(len(st.Kinds), w.Rate > 0)
		meters[i].from, meters[i].to = from, to
		c.meters = append(c.meters, meters[i])
		wctx, wg := stepCtx, &drivers
		if w.Role == Background {
			wctx, wg = bgCtx, &background
		}
		wg.Add(1)
		go func(w Worker, m *Meter) {
			defer wg.Done()
			if w.Finish != nil {
				defer w.Finish()
			}
			if pin {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
			}
			defer func() {
				// No panic of an engine or a workload ends the process: it fails the step.
				if r := recover(); r != nil {
					fail(fmt.Errorf("%s: panic: %v", w.Name, r))
				}
			}()
			// Label the worker's CPU profile samples with its target and step.
			pprof.SetGoroutineLabels(pprof.WithLabels(wctx, pprof.Labels("target", tgt.Label, "step", st.Name)))
			if err := work(wctx, w, m, start, &ended); err != nil {
				fail(fmt.Errorf("%s: %w", w.Name, err))
			}
		}(w, meters[i])
	}
	driversDone := make(chan struct{})
	go func() { drivers.Wait(); close(driversDone) }()

	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	// The warm-up ends on a sample of its own, and the ticks after it are counted from there,
	// so that the measured window's figures start where its operations do.
	var warmupEnd <-chan time.Time
	if st.Warmup > 0 {
		t := time.NewTimer(st.Warmup)
		defer t.Stop()
		warmupEnd = t.C
	}
loop:
	for {
		select {
		case <-ticker.C:
			c.tick(time.Now(), false)
		case now := <-warmupEnd:
			if now.Sub(c.prev.t) > tick/100 { // else the tick just taken is the warm-up's end
				c.tick(now, false)
			}
			c.startWindow()
			ticker.Reset(tick)
		case <-driversDone:
			break loop
		}
	}
	stopBg()
	background.Wait()
	// A write step that ended by itself (not failed, not interrupted) settles: the engine's
	// deferred work for what it wrote goes into the step's figures, its time into SettleSecs.
	if active := time.Since(start); opErr == nil && ctx.Err() == nil && c.wantsSettle(active) {
		c.tick(time.Now(), false) // the last interval of the operations
		c.settleFrom = c.prev.t
		c.opsEnd = newSnapshot(len(st.Kinds))
		c.opsEnd.copyFrom(c.prev)
		// On a goroutine of its own: the engine's work (a checkpoint runs in the calling
		// thread) must not count as the observer's, whose thread this is.
		var did string
		var debt int64
		var err error
		done := make(chan struct{})
		go func() { defer close(done); did, debt, err = settle(ctx, tgt) }()
		<-done
		c.settled, c.debt = did, debt
		if err != nil && ctx.Err() == nil {
			fail(err)
		}
	}
	res := c.tick(time.Now(), true)

	switch cause := context.Cause(stepCtx); {
	case opErr != nil:
		res.Status, res.Error = results.StatusFailed, opErr.Error()
		return res, opErr
	case errors.Is(cause, ErrTimeLimit):
		res.Status = results.StatusTimeLimit
	case ctx.Err() != nil:
		res.Status = results.StatusInterrupted
	case len(res.Degraded) > 0:
		res.Status = results.StatusDegraded
	default:
		res.Status = results.StatusOK
	}
	return res, nil
}

// work is a worker's loop: pace, call Op, stop on done, error, cancellation or the end of a
// timed step's window (ended). An error that comes from the cancellation of ctx is a clean stop.
func work(ctx context.Context, w Worker, m *Meter, start time.Time, ended *atomic.Bool) error {
	var pacer *gen.Pacer
	if w.Rate > 0 {
		pacer = gen.NewPacer(start, w.Rate)
	}
	for ctx.Err() == nil && !ended.Load() {
		if pacer != nil {
			at, err := pacer.Next(ctx)
			if err != nil {
				return nil
			}
			if m.Ended(at) {
				return nil
			}
			m.intendedStart = at
		}
		done, err := w.Op(ctx, m)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if done {
			return nil
		}
	}
	return nil
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
	acct    syncacct.Sample
	acctOK  bool
	mem     memcap.Sample
	memOK   bool
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
	kinds := s.kinds
	*s = *o
	s.kinds = kinds
	copy(s.kinds, o.kinds)
}

func (s *snapshot) take(meters []*Meter, sampler *sysstat.Sampler, t time.Time, tmp *hist.Snapshot) {
	s.t = t
	s.commits, s.retries = 0, 0
	for _, m := range meters {
		s.commits += m.commits.Load()
		s.retries += m.retries.Load()
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
