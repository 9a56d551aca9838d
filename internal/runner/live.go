package runner

import (
	"time"

	"github.com/rumbench/rumbench/internal/live"
	"github.com/rumbench/rumbench/internal/metric"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/sysstat"
)

// publish hands Setup.OnSample the step's state at snapshot b (the step's start is c.first),
// with the headline rate of the interval that ended at b; final marks the step's last tick.
// It runs on the observer's thread, from what the tick has merged already, and only when a
// receiver is set.
func (c *collector) publish(b *snapshot, rate float64, final bool) {
	if c.tgt.OnSample == nil {
		return
	}
	if b.engine != nil {
		c.lastEngine = b.engine
	}
	c.tgt.OnSample(c.sample(c.first, b, rate, final))
}

// sample builds the live sample of the step between its start a and snapshot b.
func (c *collector) sample(a, b *snapshot, rate float64, final bool) *live.Sample {
	s := &live.Sample{Target: c.tgt.Label, Step: c.st.Name, UnixMs: b.t.UnixMilli(), Final: final,
		RateName: c.st.RateName, Rate: rate, Ops: c.rateCount(b, true), Retries: b.retries - a.retries,
		Kinds: make([]live.Kind, len(c.st.Kinds))}
	if c.tgt.Engine != nil {
		s.Engine = c.tgt.Engine.Info().Name
	}
	var writes int64
	for k, kd := range c.st.Kinds {
		ks := &b.kinds[k]
		lk := &s.Kinds[k]
		lk.Name, lk.Role, lk.Unit, lk.Ops, lk.Units = kd.Name, kd.Role, kd.Unit, ks.allOps, ks.allUnits
		lk.SetHistogram(&ks.hist)
		if kd.Role == results.RoleWrite || kd.Role == results.RoleDelete {
			writes += ks.allOps
		}
	}
	s.Commits = b.commits - a.commits
	if s.Commits <= 0 {
		s.Commits = writes
	}
	s.ClientCPUNs = (b.cpuNs - a.cpuNs) - (b.observerNs - a.observerNs)
	s.ObserverCPUNs = b.observerNs - a.observerNs

	s.ReadBytes, s.WrittenBytes, s.Flushes, s.ContextSwitches, s.ClientRSSBytes, s.DBBytes = -1, -1, -1, -1, -1, -1
	if a.sysOK && b.sysOK {
		if a.sys.DiskOK && b.sys.DiskOK {
			d := diskDelta(a.sys.Disk, b.sys.Disk)
			s.ReadBytes, s.WrittenBytes = int64(d.ReadSectors)*sysstat.SectorSize, int64(d.WriteSectors)*sysstat.SectorSize
			s.Flushes = int64(d.FlushIOs)
		}
		s.ContextSwitches = int64(b.sys.CPU.Ctxt - a.sys.CPU.Ctxt)
		s.ClientRSSBytes = b.sys.SelfRSSBytes
		if b.sys.DirOK {
			s.DBBytes = b.sys.DirAllocated - b.sys.DirLogAllocated
		}
	}
	s.ServerCPUNs, s.ServerRSSBytes = -1, -1
	if a.srvOK && b.srvOK && b.srv.Managed {
		s.ServerCPUNs = int64(float64(b.srv.CPUTicks-a.srv.CPUTicks) / sysstat.UserHZ * float64(time.Second))
		s.ServerRSSBytes = b.srv.RSSBytes
	}
	s.Syncs = -1
	if a.acctOK && b.acctOK {
		t := b.acct.Sub(a.acct).Total()
		s.Syncs = int64(t.Syncs())
	}
	// The engine's counters as last read (a step's start and end, --pss-every-secs), the
	// server's as this tick read them.
	var srvA, srvB map[string]int64
	if a.srvOK && b.srvOK {
		srvA, srvB = a.srv.Counters, b.srv.Counters
	}
	s.StallUs, s.AppEvictions = -1, -1
	if v1, ok := metric.StallUsOf(c.lastEngine, srvB); ok {
		v0, _ := metric.StallUsOf(a.engine, srvA)
		s.StallUs = max(v1-v0, 0)
	}
	if v1, ok := metric.AppEvictionsOf(c.lastEngine, srvB); ok {
		v0, _ := metric.AppEvictionsOf(a.engine, srvA)
		s.AppEvictions = max(v1-v0, 0)
	}
	s.MemoryPressure = -1
	if b.memOK && b.mem.PSIOK {
		s.MemoryPressure = b.mem.PSISomeAvg10 / 100
	}
	return s
}
