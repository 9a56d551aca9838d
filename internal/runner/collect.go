package runner

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rumbench/rumbench/internal/hist"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/sysstat"
	"github.com/rumbench/rumbench/internal/table"
)

// sizeTimeout bounds the engine's size query at the end of a step.
const sizeTimeout = 2 * time.Second

const (
	kib = 1024.0
	mib = 1024.0 * 1024
	gib = 1024.0 * 1024 * 1024
)

// collector turns the tick snapshots of one step into interval records and the step result.
type collector struct {
	tgt    Setup
	st     Step
	meters []*Meter
	start  time.Time

	first, base, prev, cur *snapshot
	based                  bool
	tmp                    hist.Snapshot
	rates                  []float64 // per-interval rates since base
	rateNames              []string  // names of the rate kinds
	// interrupted is the run's context: once it is done, calls to the server get short timeouts.
	interrupted context.Context
	lateTicks   int       // ticks taken more than half a tick late (a starved sampler)
	ticks       int       // ticks since base: the observer's work per tick is divided by them
	lastPSS     time.Time // when the server's PSS was last read
	// threadStart is the CPU time of the observer's thread (the step's tick loop, locked to
	// it) when the step began; -1 when the clock cannot be read.
	threadStart int64
	// settleFrom is when the step's operations ended and settling began, zero when the step
	// did not settle; settled says what settling did and debt is the engine's debt after it
	// (bytes, -1 unknown).
	settleFrom time.Time
	settled    string
	debt       int64
	// opsEnd is the snapshot at the end of the operations when the step settled (nil
	// otherwise): the syncs-per-commit figures end there.
	opsEnd *snapshot
	// series is the rate kinds' measured count over the measured window, for its noise.
	series rateSeries
	// lastEngine is the engine's counters as last read (Setup.OnSample's stall figures).
	lastEngine map[string]int64
	// lagMax is the largest schedule lag a tick of the measured window saw, s.
	lagMax float64
	// repl gathers a cluster's replication readings of the measured window.
	repl replStats
	// waitedFaults: the step's end waited for a fault under way; the next tick is late by it.
	waitedFaults bool
	// faults is the step's fault schedule as it runs (nil: none).
	faults *faults
	// srvMono keeps the server's counters going across its restarts (a fault's).
	srvMono monotone
}

// monotone makes a server's cumulative counters go on from their last reading when the server
// restarts and they start again from zero (a kill or a restart by --fault): a reading below the
// last adds the last to the counter's offset. What the server counted between its last reading
// and its end is lost (at most one tick's).
type monotone struct {
	last, off map[string]int64
}

// fix adjusts the counters of s in place.
func (m *monotone) fix(s *table.ServerSample) {
	if m.last == nil {
		m.last, m.off = map[string]int64{}, map[string]int64{}
	}
	s.LogBytes = m.one("\x00log", s.LogBytes)
	s.Fsyncs = m.one("\x00fsyncs", s.Fsyncs)
	for k, v := range s.Counters {
		s.Counters[k] = m.one(k, v)
	}
}

// one is counter name's value v adjusted; a negative v (not reported) is left alone.
func (m *monotone) one(name string, v int64) int64 {
	if v < 0 {
		return v
	}
	if last, ok := m.last[name]; ok && v < last {
		m.off[name] += last
	}
	m.last[name] = v
	return v + m.off[name]
}

func newCollector(tgt Setup, st Step) *collector {
	n := len(st.Kinds)
	c := &collector{tgt: tgt, st: st, first: newSnapshot(n), base: newSnapshot(n), prev: newSnapshot(n), cur: newSnapshot(n)}
	for _, k := range st.RateKinds {
		c.rateNames = append(c.rateNames, st.Kinds[k].Name)
	}
	return c
}

// begin takes the step's first snapshot.
func (c *collector) begin(now time.Time) {
	c.start = now
	c.first.take(nil, c.tgt.Sampler, now, &c.tmp)
	c.takeExtra(c.first, true)
	c.lastPSS = now
	c.prev.copyFrom(c.first)
	c.base.copyFrom(c.first)
	c.based = c.st.Warmup <= 0
	if c.based {
		c.series.add(now, 0, true)
	}
	c.publish(c.first, 0, false)
}

// sampleRate adds the rate kinds' measured count now to the series (the observer's 20 ms
// tick).
func (c *collector) sampleRate(now time.Time) {
	if !c.based {
		return
	}
	var n int64
	for _, m := range c.meters {
		for _, k := range c.st.RateKinds {
			km := &m.kinds[k]
			if c.st.Kinds[k].CountUnits {
				n += km.units.Load()
			} else {
				n += km.ops.Load()
			}
		}
	}
	c.series.add(now, n, false)
}

// takeExtra completes a snapshot with this process's and the observer's CPU time and the
// server's counters; a full one (a step's start and end, and --pss-every-secs) also with the
// server's PSS and the engine's own counters.
func (c *collector) takeExtra(s *snapshot, full bool) {
	takeRusage(s)
	if c.threadStart >= 0 {
		s.observerNs = sysstat.ThreadCPUNs() - c.threadStart
	}
	s.srvOK = false
	if r, ok := c.tgt.Engine.(table.ServerReporter); ok {
		// A server that does not answer must not stall the tick: give it a second (a moment
		// once the run is interrupted).
		ctx, cancel := context.WithTimeout(context.Background(), c.timeout(time.Second))
		var err error
		s.srv, err = r.ServerSample(ctx, full)
		cancel()
		s.srvOK = err == nil
		if s.srvOK {
			c.srvMono.fix(&s.srv)
		}
	}
	takeAcct(c.tgt.Engine, s)
	s.memOK = false
	if c.tgt.Memory != nil {
		var err error
		s.mem, err = c.tgt.Memory.Sample()
		s.memOK = err == nil
	}
	if r, ok := c.tgt.Engine.(table.EndpointReporter); ok {
		s.eps = r.EndpointSamples(s.eps[:0])
	}
	s.engine = nil
	if r, ok := c.tgt.Engine.(table.CounterReporter); ok && full {
		s.engine = r.EngineCounters()
	}
}

// takeRusage records this process's user+system CPU time from getrusage, kept beside the sample
// because its resolution (µs) beats /proc's 10 ms ticks on short steps.
func takeRusage(s *snapshot) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		s.cpuNs, s.userNs = ru.Utime.Nano()+ru.Stime.Nano(), ru.Utime.Nano()
	}
}

// tick takes a snapshot, emits its interval record and, when final, returns the step result.
func (c *collector) tick(now time.Time, final bool) results.Step {
	c.cur.take(c.meters, c.tgt.Sampler, now, &c.tmp)
	pss := final || (c.tgt.PSSEvery > 0 && now.Sub(c.lastPSS) >= c.tgt.PSSEvery)
	if pss {
		c.lastPSS = now
	}
	c.takeExtra(c.cur, pss)
	iv := c.interval(c.prev, c.cur)
	c.faultTick(&iv, c.prev, c.cur)
	if !final && !c.waitedFaults && iv.Secs-c.tickSecs() > max(c.tickSecs()/2, minLateSecs) {
		c.lateTicks++
	}
	c.waitedFaults = false
	if c.based {
		c.ticks++
		if iv.Secs >= 0.5*c.tickSecs() && !iv.Settle {
			c.rates = append(c.rates, iv.Rate)
		}
	}
	if c.tgt.OnTick != nil {
		c.tgt.OnTick(&iv)
	}
	c.publish(c.cur, iv.Rate, final)
	c.prev, c.cur = c.cur, c.prev
	if !final {
		return results.Step{}
	}
	return c.summarize(c.base, c.prev)
}

// startWindow makes the last snapshot the measured window's base: the warm-up has ended.
func (c *collector) startWindow() {
	c.base.copyFrom(c.prev)
	c.based = true
	c.sampleRate(c.base.t)
}

// timeout is d, or a quarter second when the run was interrupted: Ctrl-C must end a run within
// seconds whatever the server does.
func (c *collector) timeout(d time.Duration) time.Duration {
	if c.interrupted != nil && c.interrupted.Err() != nil {
		return min(d, 250*time.Millisecond)
	}
	return d
}

func (c *collector) tickSecs() float64 {
	if c.tgt.Tick > 0 {
		return c.tgt.Tick.Seconds()
	}
	return 1
}

// count returns what kind k counts for in rates: its units or its calls, as declared; of the
// measured window, or all that ended (an interval's).
func (c *collector) count(s *snapshot, k int, all bool) int64 {
	ops, units := s.kinds[k].counts(all)
	if c.st.Kinds[k].CountUnits {
		return units
	}
	return ops
}

// rateCount is the count of the headline rate's kinds.
func (c *collector) rateCount(s *snapshot, all bool) int64 {
	var n int64
	for _, k := range c.st.RateKinds {
		n += c.count(s, int(k), all)
	}
	return n
}

// headline is the headline rate over secs from the counts of a to b: the rate kinds' count, or
// the headline kinds' when the step names them, times the step's scale.
func (c *collector) headline(a, b *snapshot, secs float64, all bool) float64 {
	n := c.rateCount(b, all) - c.rateCount(a, all)
	if len(c.st.HeadlineKinds) > 0 {
		n = 0
		for _, k := range c.st.HeadlineKinds {
			n += c.count(b, int(k), all) - c.count(a, int(k), all)
		}
	}
	r := per(float64(n), secs)
	if c.st.RateScale > 0 {
		r *= c.st.RateScale
	}
	return r
}

// rateCalls is the calls of the headline rate's kinds in the measured window.
func (c *collector) rateCalls(s *snapshot) int64 {
	var n int64
	for _, k := range c.st.RateKinds {
		n += s.kinds[k].ops
	}
	return n
}

// roleCounts returns the role aggregates between a and b: rows written (write kinds' units),
// rows deleted (delete kinds' units) and reads (read kinds' calls); of the measured window, or
// all that ended.
func (c *collector) roleCounts(a, b *snapshot, all bool) (written, deleted, reads int64) {
	for k, kd := range c.st.Kinds {
		aops, aunits := a.kinds[k].counts(all)
		bops, bunits := b.kinds[k].counts(all)
		switch kd.Role {
		case results.RoleWrite:
			written += bunits - aunits
		case results.RoleDelete:
			deleted += bunits - aunits
		case results.RoleRead:
			reads += bops - aops
		}
	}
	return written, deleted, reads
}

func per(x, n float64) float64 {
	if n <= 0 {
		return 0
	}
	return x / n
}

func (c *collector) interval(a, b *snapshot) results.Interval {
	secs := b.t.Sub(a.t).Seconds()
	written, deleted, reads := c.roleCounts(a, b, true)
	iv := results.Interval{
		Settle:    !c.settleFrom.IsZero() && !a.t.Before(c.settleFrom),
		Target:    c.tgt.Label,
		Step:      c.st.Name,
		T:         b.t.Sub(c.start).Seconds(),
		Secs:      secs,
		RateName:  c.st.RateName,
		RateKinds: c.rateNames,
		Rate:      c.headline(a, b, secs, true),
		IPS:       per(float64(written), secs),
		DPS:       per(float64(deleted), secs),
		QPS:       per(float64(reads), secs),
		Kinds:     make([]results.Kind, len(c.st.Kinds)),
	}
	for k, kd := range c.st.Kinds {
		iv.Kinds[k] = results.Kind{Name: kd.Name, Role: kd.Role, Unit: kd.Unit, Ops: b.kinds[k].allOps, Units: b.kinds[k].allUnits,
			MaxUs: float64(b.kinds[k].hist.IntervalMax) / 1e3}
	}
	iv.LagSecs, iv.Backlog = c.lag(b.t)
	c.replInterval(&iv, a, b)
	iv.Failed = b.failed - a.failed
	if c.based {
		c.lagMax = max(c.lagMax, iv.LagSecs)
	}
	iv.ClientCPUPct = per(float64(b.cpuNs-a.cpuNs-(b.observerNs-a.observerNs))/1e9, secs) * 100
	iv.ObserverCPUPct = per(float64(b.observerNs-a.observerNs)/1e9, secs) * 100
	if a.srvOK && b.srvOK && b.srv.Managed {
		iv.ServerCPUPct = per(float64(b.srv.CPUTicks-a.srv.CPUTicks)/sysstat.UserHZ, secs) * 100
		iv.ServerRSSMB = float64(b.srv.RSSBytes) / mib
		iv.ServerPSSMB = float64(b.srv.PSSBytes) / mib // 0 on the ticks it is not read
	}
	if !a.sysOK || !b.sysOK {
		return iv
	}
	if a.sys.DiskOK && b.sys.DiskOK {
		iv.ReadMBPerSec = per(float64(b.sys.Disk.ReadSectors-a.sys.Disk.ReadSectors)*sysstat.SectorSize/mib, secs)
		iv.WriteMBPerSec = per(float64(b.sys.Disk.WriteSectors-a.sys.Disk.WriteSectors)*sysstat.SectorSize/mib, secs)
		iv.DiscardMBPerSec = per(float64(b.sys.Disk.DiscardSectors-a.sys.Disk.DiscardSectors)*sysstat.SectorSize/mib, secs)
	}
	iv.HostCPUPct = per(float64(b.sys.CPU.BusyTicks()-a.sys.CPU.BusyTicks()), float64(totalTicks(b.sys.CPU)-totalTicks(a.sys.CPU))) * 100
	iv.ClientRSSMB = float64(b.sys.SelfRSSBytes) / mib
	iv.DBBytes, iv.LogBytes = b.sys.DirAllocated-b.sys.DirLogAllocated, b.sys.DirLogAllocated
	return iv
}

func totalTicks(c sysstat.CPUStat) uint64 {
	return c.User + c.Nice + c.System + c.Idle + c.IOWait + c.IRQ + c.SoftIRQ + c.Steal
}

// summarize computes the step's figures from the measured window [a, b].
func (c *collector) summarize(a, b *snapshot) results.Step {
	w := c.window(a, b)
	r := c.stepHeader(w)
	c.operationFigures(&r, w)
	c.sizeFigures(&r)
	c.processFigures(&r, w)
	c.clusterFigures(&r, a, b, w.secs)
	if a.sysOK && b.sysOK {
		c.systemFigures(&r, w)
	}
	c.serverFigures(&r, a, b, w.ops)
	c.memoryFigures(&r, a, b, w.ops)
	c.engineCounters(&r, b)
	// A commit's syncs are the operations': a checkpoint's syncs in the settling are not a
	// commit's (they show in fl/op, per op, with the settling's other writes).
	if c.opsEnd != nil {
		c.syscallFigures(&r, a, c.opsEnd, w.ops)
	} else {
		c.syscallFigures(&r, a, b, w.ops)
	}
	c.rateFigures(&r, w)
	c.scheduleFigures(&r, w)
	c.latencyFigures(&r, b)
	c.errorFigures(&r)
	c.faultFigures(&r, b.t)
	if c.st.Finish != nil {
		c.st.Finish(&r)
	}
	r.Degraded = c.degraded(&r)
	return r
}

// window is the measured window a step's figures are computed over, and what they divide by.
type window struct {
	// a and b are the snapshots at the window's start and the step's end.
	a, b *snapshot
	// secs is the operations' time in seconds, which rates divide by; wall adds the settling,
	// which the figures per second of the device and the CPUs divide by (their counts include
	// it).
	secs, wall float64
	// ops is the headline rate's count, the denominator of the per-op figures.
	ops float64
	// written, deleted and reads are the role aggregates of the measured window: rows written
	// and deleted by the write and delete kinds, calls of the read kinds.
	written, deleted, reads int64
	// ins is the denominator of the per-insert figures: the rate's count when its kinds write
	// (an index build: per indexed row), else the rows written (background inserts).
	ins float64
}

// window returns the measured window [a, b] with its times and counts.
func (c *collector) window(a, b *snapshot) *window {
	w := &window{a: a, b: b, wall: b.t.Sub(a.t).Seconds()}
	w.secs = w.wall
	if c.settles(a) {
		w.secs = c.settleFrom.Sub(a.t).Seconds()
	}
	// The operations' counts are the measured window's own (see Meter), from zero.
	w.ops = float64(c.rateCount(b, false))
	w.written, w.deleted, w.reads = c.roleCounts(c.first, b, false)
	w.ins = float64(w.written)
	if c.rateWrites() {
		w.ins = w.ops
	}
	return w
}

// settles says whether the step settled after a window that starts at a's instant.
func (c *collector) settles(a *snapshot) bool {
	return !c.settleFrom.IsZero() && c.settleFrom.After(a.t)
}

// stepHeader returns the step's record with what names and times it: target, step, engine,
// presentation, window, warm-up and settling.
func (c *collector) stepHeader(w *window) results.Step {
	r := results.Step{
		Target: c.tgt.Label, Step: c.st.Name, Start: w.a.t.UTC(), End: w.b.t.UTC(),
		WarmupSec: w.a.t.Sub(c.start).Seconds(),
	}
	if c.settles(w.a) {
		r.SettleSecs, r.Settled = w.wall-w.secs, c.settled
		if debt := c.debt; debt >= 0 {
			r.DebtBytes = &debt
		}
	}
	r.Secs = w.secs
	if c.tgt.Engine != nil {
		r.Engine = c.tgt.Engine.Info().Name
	}
	r.RateName, r.RateUnit, r.PerOp, r.Note, r.Group = c.st.RateName, c.st.RateUnit, c.st.PerOp, c.st.Note, c.st.Group
	r.RateKinds = c.rateNames
	return r
}

// operationFigures fills the rates and the per-kind counts. The operations' counts and
// histograms are the measured window's own (see Meter), from zero: those that ended before the
// warm-up's sample are in it; the system's figures are differences between the samples at the
// window's start and the step's end.
func (c *collector) operationFigures(r *results.Step, w *window) {
	z, b, secs := c.first, w.b, w.secs
	r.Ops = c.rateCount(b, false)
	r.Rate = c.headline(z, b, secs, false)
	r.CallsPerSec = per(float64(c.rateCalls(b)), secs)
	r.IPS, r.DPS, r.QPS = per(float64(w.written), secs), per(float64(w.deleted), secs), per(float64(w.reads), secs)
	r.Retries = b.retries - w.a.retries
	r.Kinds = make([]results.Kind, len(c.st.Kinds))
	for k, kd := range c.st.Kinds {
		r.Kinds[k] = results.Kind{Name: kd.Name, Role: kd.Role, Unit: kd.Unit, Ops: b.kinds[k].ops,
			Units: b.kinds[k].units, MaxUs: float64(b.kinds[k].hist.Max) / 1e3}
	}
}

// sizeFigures fills the rows the workload holds and the engine's own size of its data.
func (c *collector) sizeFigures(r *results.Step) {
	if c.tgt.Rows != nil {
		r.Rows = c.tgt.Rows()
	}
	if c.tgt.Engine != nil {
		// A server that does not answer must not hold the step's end (or Ctrl-C) up.
		ctx, cancel := context.WithTimeout(context.Background(), c.timeout(sizeTimeout))
		if n, ok, err := c.tgt.Engine.Size(ctx); err == nil && ok {
			r.EngineDBBytes = n
		}
		cancel()
	}
}

// processFigures fills this process's CPU per op, the client's (the observer's left out) and
// the observer's.
func (c *collector) processFigures(r *results.Step, w *window) {
	a, b, ops := w.a, w.b, w.ops
	observer := float64(b.observerNs - a.observerNs)
	r.ProcessCPUUsPerOp = per(float64(b.cpuNs-a.cpuNs)/1e3, ops)
	r.ClientCPUUsPerOp = per((float64(b.cpuNs-a.cpuNs)-observer)/1e3, ops)
	r.ObserverCPUPct = per(observer/1e9, w.wall) * 100
	r.ObserverUsPerTick = per(observer/1e3, float64(c.ticks))
}

// systemFigures fills the figures of the system samples at both ends of the window: sizes on
// disk, the device's I/O, the host's CPU and this process's memory.
func (c *collector) systemFigures(r *results.Step, w *window) {
	a, b, ops := w.a, w.b, w.ops
	if b.sys.DirOK {
		r.DBBytes, r.DBApparentBytes = b.sys.DirAllocated-b.sys.DirLogAllocated, b.sys.DirApparent-b.sys.DirLogApparent
		r.LogBytes = b.sys.DirLogAllocated
		r.BytesPerRow = per(float64(r.DBBytes), float64(r.Rows))
	}
	if !c.tgt.Sampler.HasDir() && r.EngineDBBytes > 0 {
		// No data directory here (a --dsn server): the size is the server's own figure.
		r.DBBytes = r.EngineDBBytes
		r.BytesPerRow = per(float64(r.DBBytes), float64(r.Rows))
	}
	if a.sys.DiskOK && b.sys.DiskOK {
		c.diskFigures(r, w)
	}
	busy := float64(b.sys.CPU.BusyTicks() - a.sys.CPU.BusyTicks())
	r.HostCPUPct = per(busy, float64(totalTicks(b.sys.CPU)-totalTicks(a.sys.CPU))) * 100
	r.HostCPUUsPerOp = per(busy/sysstat.UserHZ*1e6, ops)
	r.CSPerOp = per(float64(b.sys.CPU.Ctxt-a.sys.CPU.Ctxt), ops)
	if pct, ok := otherCPUPct(a, b); ok {
		r.OtherCPUPct = &pct
	}
	r.ClientRSSMB = float64(b.sys.SelfRSSBytes) / mib
	r.ClientMaxRSSMB = float64(b.sys.SelfHWMBytes) / mib
}

// diskFigures fills the device's I/O over the window: per second of wall time, per op, and
// writes per row inserted.
func (c *collector) diskFigures(r *results.Step, w *window) {
	d := diskDelta(w.a.sys.Disk, w.b.sys.Disk)
	ops, ins, wall := w.ops, w.ins, w.wall
	r.Device = c.tgt.Sampler.Device().Name
	r.ReadMBPerSec = per(float64(d.ReadSectors)*sysstat.SectorSize/mib, wall)
	r.WriteMBPerSec = per(float64(d.WriteSectors)*sysstat.SectorSize/mib, wall)
	r.DiscardMBPerSec = per(float64(d.DiscardSectors)*sysstat.SectorSize/mib, wall)
	r.GBRead = float64(d.ReadSectors) * sysstat.SectorSize / gib
	r.GBWritten = float64(d.WriteSectors) * sysstat.SectorSize / gib
	r.ReadsPerOp = per(float64(d.ReadIOs), ops)
	r.ReadKBPerOp = per(float64(d.ReadSectors)*sysstat.SectorSize/kib, ops)
	r.WritesPerInsert = per(float64(d.WriteIOs), ins)
	r.WriteKBPerInsert = per(float64(d.WriteSectors)*sysstat.SectorSize/kib, ins)
	r.WriteKBPerOp = per(float64(d.WriteSectors)*sysstat.SectorSize/kib, ops)
	r.DiscardKBPerOp = per(float64(d.DiscardSectors)*sysstat.SectorSize/kib, ops)
	r.FlushesPerOp = per(float64(d.FlushIOs), ops)
}

// engineCounters fills the engine's own counters, read at the step's start and end only
// (warm-up included): a level as it is at the end (table.LevelSuffix), a count as its change.
func (c *collector) engineCounters(r *results.Step, b *snapshot) {
	for k, v := range b.engine {
		if v0, ok := c.first.engine[k]; ok {
			if r.EngineCounters == nil {
				r.EngineCounters = map[string]int64{}
			}
			if strings.HasSuffix(k, table.LevelSuffix) {
				r.EngineCounters[k] = v // a level: as it is at the step's end
			} else {
				r.EngineCounters[k] = v - v0
			}
		}
	}
}

// rateFigures fills the per-second rate's percentiles, the rate's noise over the measured
// window and whether a paced step reached its target rate.
func (c *collector) rateFigures(r *results.Step, w *window) {
	r.RateP50, r.RateP99 = results.RatePercentile(c.rates, 0.50), results.RatePercentile(c.rates, 0.99)
	r.RateIntervals = len(c.rates)
	if c.based {
		end := w.b.t
		if !c.settleFrom.IsZero() {
			end = c.settleFrom
		}
		c.series.add(end, c.rateCount(w.b, false), true)
		r.RateCVPct, r.RateNoisePct, r.RateSlices = c.series.noise(w.a.t, end)
	}
	if c.st.TargetInsertRate > 0 {
		r.TargetIPS = c.st.TargetInsertRate
		met := r.IPS >= 0.95*c.st.TargetInsertRate
		r.TargetMet = &met
	}
}

// lag returns how far behind their schedules the paced workers are at t: the most behind, s,
// and the operations due but not started, estimated for each worker as its lag times its rate
// (exact for uniform arrivals, the expected count for Poisson).
func (c *collector) lag(t time.Time) (secs float64, backlog int64) {
	var due float64
	for _, m := range c.meters {
		d := m.sched.due.Load()
		if m.sched.rate == 0 || d == 0 {
			continue
		}
		at := t
		if !m.to.IsZero() && at.After(m.to) {
			at = m.to // nothing after the window's end is due
		}
		if late := float64(at.UnixNano()-d) / 1e9; late > 0 {
			secs = max(secs, late)
			due += math.Floor(late*m.sched.rate) + 1
		}
	}
	return secs, int64(due)
}

// scheduleFigures fills the step's Schedule when its Pace paced any worker: the rate kept, the
// lag and the operations skipped, over the measured window.
func (c *collector) scheduleFigures(r *results.Step, w *window) {
	pace := c.st.Pace
	if pace == nil || !slices.ContainsFunc(c.meters, func(m *Meter) bool { return m.sched.units > 0 }) {
		return
	}
	var units, offered, started, lateNs, skipped, unstarted int64
	for _, m := range c.meters {
		if m.sched.units == 0 {
			continue
		}
		n, sk, un := m.sched.started.Load(), m.sched.skipped.Load(), m.sched.unstarted.Load()
		units += n * m.sched.units
		offered += (m.sched.arrived.Load() + un) * m.sched.units
		unstarted += un
		started += n
		lateNs += m.sched.lateNs.Load()
		skipped += sk
	}
	s := &results.Schedule{Rate: pace.Rate, Arrivals: pace.Arrivals.String(), Offered: per(float64(offered), w.secs),
		Achieved: per(float64(units), w.secs), LagMeanMs: per(float64(lateNs)/1e6, float64(started)), LagMaxSecs: c.lagMax,
		Backlog: unstarted, LatencyLimitMs: float64(pace.LatencyLimit) / 1e6, Skipped: skipped}
	s.Met = s.Achieved >= 0.99*s.Offered
	r.Schedule = s
}

// latencyFigures fills each kind's response times (and from the intended start, for paced
// workers) from its histograms of the measured window.
func (c *collector) latencyFigures(r *results.Step, b *snapshot) {
	z := c.first
	var d hist.Snapshot
	for k, kd := range c.st.Kinds {
		d.Sub(&b.kinds[k].hist, &z.kinds[k].hist)
		if l, ok := latency(kd.Name, &d); ok {
			l.Percentiles = percentiles(&d, c.st.Percentiles)
			r.Latency = append(r.Latency, l)
		}
		d.Sub(&b.kinds[k].intended, &z.kinds[k].intended)
		if l, ok := latency(kd.Name+"_intended", &d); ok {
			r.Latency = append(r.Latency, l)
		}
	}
}

// minLateSecs is the least lateness of a tick counted as a starved sampler, whatever the tick
// (half of the default 1 s tick; shorter ticks, in tests, are not held to their half).
const minLateSecs = 0.5

// MaxWorkersPerCPU is the most client workers per CPU a step's figures are trusted with: past
// it, the workers, the ticks and the engine compete for the CPUs more than they run.
const MaxWorkersPerCPU = 64

// MinOps is the fewest operations a step's per-op figures are trusted with: below it a step is
// degraded. A per-op figure divides what the step's counters counted by its operations, and
// part of that is not the operations' (the settling's flush or checkpoint, the sampling,
// the engine's background work): over 100 operations or more it is at most a hundredth of
// each such count (of a 10 ms CPU tick, one device flush) per operation.
const MinOps = 100

// degraded returns the reasons the step's figures cannot be trusted.
func (c *collector) degraded(r *results.Step) []string {
	var why []string
	if !c.based {
		why = append(why, fmt.Sprintf("the warm-up (%v) did not end before the step did: nothing was measured", c.st.Warmup))
	}
	switch {
	case !c.based:
	case r.Ops == 0:
		why = append(why, "no operation was measured")
	case r.Ops < MinOps:
		why = append(why, fewOps(r.Ops, r.PerOp))
	}
	if c.lateTicks > 0 {
		why = append(why, fmt.Sprintf("%d ticks were late by more than half a tick, at least %gs (the sampler was starved of CPU)", c.lateTicks, minLateSecs))
	}
	if n, cpus := len(c.st.Workers), runtime.NumCPU(); n > MaxWorkersPerCPU*cpus {
		why = append(why, fmt.Sprintf("%d client workers on %d CPUs (more than %d per CPU): they measure the scheduler", n, cpus, MaxWorkersPerCPU))
	}
	return why
}

// fewOps is the reason a step of n operations (0 < n < MinOps), each one perOp, is degraded.
func fewOps(n int64, perOp string) string {
	what := "operations"
	if n == 1 {
		what = "operation"
	}
	if perOp != "" {
		what += " (per " + perOp + ")"
	}
	return fmt.Sprintf("only %d %s measured, fewer than %d: a per-op figure charges each with a large share of what the step cost besides its operations (settling, sampling, background work)", n, what, MinOps)
}

// rateWrites says whether the headline rate counts write kinds.
func (c *collector) rateWrites() bool {
	for _, k := range c.st.RateKinds {
		if c.st.Kinds[k].Role == results.RoleWrite {
			return true
		}
	}
	return false
}

// percentiles returns the response-time percentiles ps of d in µs, keyed "p99.99".
func percentiles(d *hist.Snapshot, ps []float64) map[string]float64 {
	if len(ps) == 0 {
		return nil
	}
	out := make(map[string]float64, len(ps))
	for _, p := range ps {
		out["p"+strconv.FormatFloat(p, 'f', -1, 64)] = float64(d.Quantile(p/100)) / 1e3
	}
	return out
}

func diskDelta(a, b sysstat.DiskStats) sysstat.DiskStats {
	return sysstat.DiskStats{
		ReadIOs: b.ReadIOs - a.ReadIOs, ReadSectors: b.ReadSectors - a.ReadSectors,
		WriteIOs: b.WriteIOs - a.WriteIOs, WriteSectors: b.WriteSectors - a.WriteSectors,
		DiscardIOs: b.DiscardIOs - a.DiscardIOs, DiscardSectors: b.DiscardSectors - a.DiscardSectors,
		FlushIOs: b.FlushIOs - a.FlushIOs,
	}
}

func latency(kind string, d *hist.Snapshot) (results.Latency, bool) {
	if d.Total <= 0 {
		return results.Latency{}, false
	}
	us := func(ns int64) float64 { return float64(ns) / 1e3 }
	return results.Latency{
		Kind: kind, Count: d.Total, MeanUs: d.Mean() / 1e3,
		P50Us: us(d.Quantile(0.50)), P90Us: us(d.Quantile(0.90)), P95Us: us(d.Quantile(0.95)), P99Us: us(d.Quantile(0.99)),
		P999Us: us(d.Quantile(0.999)), MaxUs: us(d.Max),
		Buckets: d.Buckets(nil),
	}, true
}

// otherCPUPct is the user-mode CPU of the host's other processes between a and b, percent of
// all the host's CPUs: the host's user and nice time (/proc/stat) less this process's user time
// (getrusage) and a managed server tree's, at least 0 (the host's ticks are 10 ms, the
// process's time µs). User time only: the kernel's threads and interrupts also work for the
// target (writing back its files, completing its I/O), in system, irq and softirq time. Not
// measured (false) without both system samples, or for a server whose process tree was not
// read (a --dsn server, whose processes may run on this host; a failed sample).
func otherCPUPct(a, b *snapshot) (float64, bool) {
	if !a.sysOK || !b.sysOK || a.srvOK != b.srvOK || a.srvOK && !b.srv.Managed {
		return 0, false
	}
	total := float64(totalTicks(b.sys.CPU) - totalTicks(a.sys.CPU))
	if total <= 0 {
		return 0, false
	}
	user := float64(b.sys.CPU.User+b.sys.CPU.Nice-a.sys.CPU.User-a.sys.CPU.Nice) - float64(b.userNs-a.userNs)/1e9*sysstat.UserHZ
	if a.srvOK {
		user -= float64(b.srv.UserTicks - a.srv.UserTicks)
	}
	return max(0, user/total*100), true
}

// memoryFigures fills the step's figures from the memory cgroup: sizes at the end, faults and
// refaults per op over the step, OOM kills since the step began (warm-up included: a kill
// anywhere in the step is the step's).
func (c *collector) memoryFigures(r *results.Step, a, b *snapshot, ops float64) {
	if c.tgt.Memory == nil || !a.memOK || !b.memOK {
		return
	}
	m := &results.Memory{LimitBytes: c.tgt.Memory.Limit, CgroupVersion: c.tgt.Memory.Version,
		CacheBytes: b.mem.CacheBytes, AnonBytes: b.mem.AnonBytes, UsageBytes: b.mem.UsageBytes,
		MajorFaultsPerOp: per(float64(b.mem.MajorFaults-a.mem.MajorFaults), ops),
		RefaultsPerOp:    per(float64(b.mem.Refaults-a.mem.Refaults), ops),
	}
	if c.first.memOK {
		m.OOMKills = b.mem.OOMKills - c.first.mem.OOMKills
	}
	if b.mem.PSIOK {
		some, full := b.mem.PSISomeAvg10, b.mem.PSIFullAvg10
		m.PSISomeAvg10, m.PSIFullAvg10 = &some, &full
	}
	r.Memory = m
}

// serverFigures fills the server's figures of a step: process CPU and memory for a managed
// server, the server's own log bytes and fsyncs per operation when it reports them.
func (c *collector) serverFigures(r *results.Step, a, b *snapshot, ops float64) {
	if !a.srvOK || !b.srvOK {
		return
	}
	r.Server = "external"
	if b.srv.Managed {
		r.Server = "managed"
		r.ServerCPUUsPerOp = per(float64(b.srv.CPUTicks-a.srv.CPUTicks)/sysstat.UserHZ*1e6, ops)
		r.ServerRSSMB = float64(b.srv.RSSBytes) / mib
		r.ServerPSSMB = float64(b.srv.PSSBytes) / mib
	}
	r.LogBytesPerOp, r.ServerFsyncsPerOp = -1, -1
	if a.srv.LogBytes >= 0 && b.srv.LogBytes >= 0 {
		r.LogBytesPerOp = per(float64(b.srv.LogBytes-a.srv.LogBytes), ops)
	}
	if a.srv.Fsyncs >= 0 && b.srv.Fsyncs >= 0 {
		r.ServerFsyncsPerOp = per(float64(b.srv.Fsyncs-a.srv.Fsyncs), ops)
	}
	for k, v := range b.srv.Counters {
		if v0, ok := a.srv.Counters[k]; ok {
			if r.ServerCounters == nil {
				r.ServerCounters = map[string]int64{}
			}
			r.ServerCounters[k] = v - v0
		}
	}
}
