package runner

import (
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rumbench/rumbench/internal/hist"
	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/table"
)

// faultWatch is one fault's watch on one worker, from the fault's injection: the worker's first
// failure after it, the end of its first success of an operation started after that failure,
// and the end of its first success after the fault was over (over, set when it is: a stop's
// SIGCONT). Unix ns, 0 until seen. The worker writes it, the fault's figures read it.
type faultWatch struct {
	failAt, okAfterFail atomic.Int64
	over, okAfterOver   atomic.Int64
}

func (w *faultWatch) failed(now time.Time) { w.failAt.CompareAndSwap(0, now.UnixNano()) }

func (w *faultWatch) succeeded(start, now time.Time) {
	if f := w.failAt.Load(); f != 0 && start.UnixNano() >= f && w.okAfterFail.Load() == 0 {
		w.okAfterFail.Store(now.UnixNano())
	}
	if o := w.over.Load(); o != 0 && now.UnixNano() >= o && w.okAfterOver.Load() == 0 {
		w.okAfterOver.Store(now.UnixNano())
	}
}

// RecoveredShare is the share of its rate before a fault that a step's per-interval rate must
// reach again for the step to have recovered from it (recover_secs).
const RecoveredShare = 0.9

// BaselineWindow is how long before a fault the per-interval rates whose median is the rate
// before it are taken from.
const BaselineWindow = 30 * time.Second

// faultRec is one fault of a step as it runs: its injection (by the injector's goroutine) and
// its recovery (by the observer's, at each tick).
type faultRec struct {
	f Fault
	// Set by the injector, read after it is done (or under faults.mu: injected, at, watches).
	injected  bool
	at        time.Time
	watches   []*faultWatch
	errs0     int64 // failed operations of the step when it was injected
	unknown0  int64
	readySecs float64
	err       error
	// The observer's.
	based     bool
	baseline  float64
	histBase  hist.Snapshot
	recovered time.Time
	p99Ns     int64
}

// faults is a step's fault schedule as it runs.
type faults struct {
	// sched is the schedule in time order (set before the workers start, then read only);
	// recs the faults injected and the outages detected, in their order (under mu).
	sched []*faultRec
	mu    sync.Mutex
	recs  []*faultRec
	done  sync.WaitGroup
	// rates are the last intervals' end times and rates, for the baselines (the observer's).
	rates []timedRate
	// detecting: the workers' lost connections record outages (detect).
	detecting bool
}

type timedRate struct {
	t    time.Time
	rate float64
}

// initFaults readies the step's faults before its workers start: its schedule, and for a step
// that goes on through lost connections (Tolerate) the watch for the outages its workers meet
// outside the faults injected (see detect).
func (r *stepRun) initFaults() {
	fs := &faults{detecting: r.st.Tolerate.Has(table.ClassConnection)}
	if r.tgt.Faulter != nil {
		for _, f := range r.st.Faults {
			fs.sched = append(fs.sched, &faultRec{f: f})
		}
		sort.SliceStable(fs.sched, func(i, j int) bool { return fs.sched[i].f.At < fs.sched[j].f.At })
	}
	if fs.detecting || len(fs.sched) > 0 {
		r.c.faults = fs
	}
}

// startFaults starts the injector's goroutine: each fault of the step at its time, in order,
// until the drivers are done (a fault not yet due then is not injected).
func (r *stepRun) startFaults(driversDone <-chan struct{}) {
	fs := r.c.faults
	if fs == nil || len(fs.sched) == 0 {
		return
	}
	fs.done.Add(1)
	go func() {
		defer fs.done.Done()
		for _, rec := range fs.sched {
			t := time.NewTimer(time.Until(r.start.Add(rec.f.At)))
			select {
			case <-t.C:
			case <-driversDone:
				t.Stop()
				return
			case <-r.ctx.Done():
				t.Stop()
				return
			}
			r.inject(fs, rec)
		}
	}()
}

// inject arms a watch on every worker, then injects rec's fault and waits for its end.
func (r *stepRun) inject(fs *faults, rec *faultRec) {
	fs.mu.Lock()
	r.arm(fs, rec, time.Now())
	fs.mu.Unlock()
	// The run's context, not the step's: a fault under way is completed (a stopped server
	// continued, a killed one started again) when the step ends during it; an interrupted run
	// stops the server anyway.
	if ft, ok := r.tgt.Faulter.(table.FaultTarget); ok {
		rec.readySecs, rec.err = ft.FaultNode(r.ctx, rec.f.Kind, rec.f.Node, rec.f.For)
	} else {
		rec.readySecs, rec.err = r.tgt.Faulter.Fault(r.ctx, rec.f.Kind, rec.f.For)
	}
	over := time.Now().UnixNano()
	for _, w := range rec.watches {
		w.over.Store(over)
	}
}

// OutageKind is the kind of the faults a step records by itself: an outage its clients met
// (their connections lost) with no fault injected, as when the user stops a --dsn server.
const OutageKind = "outage"

// detect records an outage at worker m's lost connection (at now) unless the failure is the
// last fault's (injected or detected): m has not succeeded since that fault was over (its
// connection is the one the fault broke, or it has not reconnected yet). A fault of
// OutageKind, watched from then on as an injected one is, over from the start.
func (r *stepRun) detect(fs *faults, m *Meter, now time.Time) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if w := m.watch.Load(); w != nil && w.okAfterOver.Load() == 0 {
		return
	}
	rec := &faultRec{f: Fault{Kind: OutageKind, At: now.Sub(r.start)}}
	r.arm(fs, rec, now)
	for _, w := range rec.watches {
		w.over.Store(now.UnixNano())
	}
}

// arm records rec as injected (or met) at now, with a new watch on every worker (fs.mu held).
func (r *stepRun) arm(fs *faults, rec *faultRec, now time.Time) {
	rec.injected, rec.at = true, now
	for _, m := range r.c.meters {
		w := &faultWatch{}
		rec.watches = append(rec.watches, w)
		m.watch.Store(w)
		rec.errs0 += m.failedOps()
		rec.unknown0 += m.unknown.Load()
	}
	fs.recs = append(fs.recs, rec)
}

// failedOps is the worker's failed operations of every class.
func (m *Meter) failedOps() int64 {
	var n int64
	for i := range m.errs {
		n += m.errs[i].Load()
	}
	return n
}

// faultTick follows the faults at the tick that closed interval iv (from snapshot a to b):
// marks the faults injected in it, takes a fault's baseline and base histogram at its first
// tick, and its recovery at the first interval after its outage whose rate is back to
// RecoveredShare of its baseline.
func (c *collector) faultTick(iv *results.Interval, a, b *snapshot) {
	fs := c.faults
	if fs == nil {
		return
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for _, rec := range fs.recs {
		if rec.at.After(b.t) {
			continue
		}
		if !rec.based {
			rec.based = true
			name := rec.f.Kind
			if rec.f.Node != "" {
				name += ":" + rec.f.Node
			}
			iv.Faults = append(iv.Faults, name)
			rec.baseline = medianBefore(fs.rates, rec.at)
			c.rateHist(a, &rec.histBase)
			continue // the interval of the injection holds time before it
		}
		if !rec.recovered.IsZero() || rec.baseline <= 0 {
			continue
		}
		end := outageEnd(rec)
		if end == 0 || b.t.UnixNano() < end || iv.Rate < RecoveredShare*rec.baseline {
			continue
		}
		rec.recovered = b.t
		var cur, h hist.Snapshot
		c.rateHist(b, &cur)
		h.Sub(&cur, &rec.histBase)
		rec.p99Ns = h.Quantile(0.99)
	}
	fs.rates = append(fs.rates, timedRate{b.t, iv.Rate})
	if drop := slices.IndexFunc(fs.rates, func(x timedRate) bool { return b.t.Sub(x.t) <= BaselineWindow+time.Second }); drop > 0 {
		fs.rates = slices.Delete(fs.rates, 0, drop)
	}
}

// rateHist sets h to the merged histogram of the rate kinds at snapshot s: from the intended
// starts for a paced step, of the service times otherwise.
func (c *collector) rateHist(s *snapshot, h *hist.Snapshot) {
	h.Reset()
	for _, k := range c.st.RateKinds {
		ks := &s.kinds[k]
		if ks.intended.Total > 0 {
			h.Add(&ks.intended)
		} else {
			h.Add(&ks.hist)
		}
	}
}

// medianBefore is the median of the rates of the intervals that ended in the BaselineWindow
// before t (0: none).
func medianBefore(rates []timedRate, t time.Time) float64 {
	var xs []float64
	for _, x := range rates {
		if !x.t.After(t) && t.Sub(x.t) <= BaselineWindow {
			xs = append(xs, x.rate)
		}
	}
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	if n := len(xs); n%2 == 0 {
		return (xs[n/2-1] + xs[n/2]) / 2
	}
	return xs[len(xs)/2]
}

// outageStart is when the outage of rec began, Unix ns: the first failure any worker met after
// the injection; for a stop (a stall, where operations wait rather than fail) without one, the
// injection. 0: no outage.
func outageStart(rec *faultRec) int64 {
	var first int64
	for _, w := range rec.watches {
		if f := w.failAt.Load(); f != 0 && (first == 0 || f < first) {
			first = f
		}
	}
	if first == 0 && rec.f.Kind == "stop" {
		return rec.at.UnixNano()
	}
	return first
}

// outageEnd is when the outage of rec ended, Unix ns: the first success, by any worker, of an
// operation started after that worker's failure; for an outage without failures (a stop), the
// first success after the fault was over. 0: not yet.
func outageEnd(rec *faultRec) int64 {
	failed := false
	for _, w := range rec.watches {
		failed = failed || w.failAt.Load() != 0
	}
	var end int64
	for _, w := range rec.watches {
		ok := w.okAfterOver.Load()
		if failed {
			ok = w.okAfterFail.Load()
		}
		if ok != 0 && (end == 0 || ok < end) {
			end = ok
		}
	}
	return end
}

// faultFigures fills the step's faults' figures at its end (stepEnd): see results.Fault.
func (c *collector) faultFigures(r *results.Step, stepEnd time.Time) {
	fs := c.faults
	if fs == nil {
		return
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for _, rec := range fs.sched {
		if !rec.injected {
			r.Remarks = append(r.Remarks, fmt.Sprintf("fault %s@%s not injected: the step ended first", rec.f.Kind, rec.f.At))
		}
	}
	for i, rec := range fs.recs {
		f := results.Fault{Kind: rec.f.Kind, Node: rec.f.Node, AtSecs: rec.at.Sub(c.start).Seconds(), ForSecs: rec.f.For.Seconds(),
			ServerReadySecs: rec.readySecs, BaselineRate: rec.baseline}
		if rec.err != nil {
			f.Error = rec.err.Error()
		}
		// The failures counted until the next fault's injection, or the step's end.
		errs, unknown := int64(0), int64(0)
		for _, m := range c.meters {
			errs += m.failedOps()
			unknown += m.unknown.Load()
		}
		if i+1 < len(fs.recs) {
			errs, unknown = fs.recs[i+1].errs0, fs.recs[i+1].unknown0
		}
		f.Failed, f.Unknown = errs-rec.errs0, unknown-rec.unknown0
		if start := outageStart(rec); start != 0 {
			end, open := outageEnd(rec), false
			if end == 0 {
				end, open = stepEnd.UnixNano(), true
			}
			f.UnavailSecs = max(0, float64(end-start)/1e9)
			f.Unrecovered = open
		}
		if !rec.recovered.IsZero() {
			s := rec.recovered.Sub(rec.at).Seconds()
			f.RecoverSecs = &s
			f.RecoveryP99Us = float64(rec.p99Ns) / 1e3
		} else if rec.baseline > 0 {
			f.Unrecovered = true
		}
		r.Faults = append(r.Faults, f)
	}
}

// errorFigures fills the step's failed operations by class, those of unknown outcome and the
// reconnections (every operation of the step, its warm-up's included).
func (c *collector) errorFigures(r *results.Step) {
	for _, m := range c.meters {
		for cl := range m.errs {
			if n := m.errs[cl].Load(); n > 0 {
				if r.Errors == nil {
					r.Errors = map[string]int64{}
				}
				name := table.ErrorClass(cl).String()
				r.Errors[name] += n
				if msg := m.firstErrs[cl].Load(); msg != nil && r.FirstErrors[name] == "" {
					if r.FirstErrors == nil {
						r.FirstErrors = map[string]string{}
					}
					r.FirstErrors[name] = input.Line(*msg, 300)
				}
			}
		}
		r.UnknownOutcome += m.unknown.Load()
		r.Reconnects += m.reconnects.Load()
	}
}

// waitFaults waits for the fault under way, if any, to end (a Galera node's rejoin may outlast
// the step). The interval that spans the wait is late by the wait, not by a starved sampler.
func (r *stepRun) waitFaults() {
	if r.c.faults != nil {
		t0 := time.Now()
		r.c.faults.done.Wait()
		r.c.waitedFaults = time.Since(t0).Seconds() > r.c.tickSecs()/2
	}
}
