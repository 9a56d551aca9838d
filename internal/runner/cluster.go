package runner

import (
	"github.com/rumbench/rumbench/internal/hist"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/sysstat"
	"github.com/rumbench/rumbench/internal/table"
)

// replStats gathers a cluster's replication readings over a step's measured window.
type replStats struct {
	n                   int
	lagSum              float64
	lagMax, recvQMax    int64
	lagSecsMax          float64
	first, last         table.Replication
	haveFirst, haveLast bool
}

// replInterval fills an interval's replication figures from the readings at its ends and adds
// the reading at its end to the step's when the measured window has begun.
func (c *collector) replInterval(iv *results.Interval, a, b *snapshot) {
	if !b.srvOK || b.srv.Repl == nil {
		return
	}
	r := b.srv.Repl
	iv.ReplLagBytes, iv.ReplLagSecs = max(r.LagBytes, 0), max(r.LagSecs, 0)
	if a.srvOK && a.srv.Repl != nil && r.FlowPausedNs >= 0 && a.srv.Repl.FlowPausedNs >= 0 && iv.Secs > 0 {
		// A node started again in the interval has its counters from 0: no negative share.
		iv.FlowPaused = max(float64(r.FlowPausedNs-a.srv.Repl.FlowPausedNs), 0) / 1e9 / iv.Secs / float64(max(r.Replicas, 1))
		iv.CertFailures = max(r.CertFailures-a.srv.Repl.CertFailures, 0)
	}
	if !c.based {
		return
	}
	s := &c.repl
	if !s.haveFirst && a.srvOK && a.srv.Repl != nil {
		s.first, s.haveFirst = *a.srv.Repl, true
	}
	s.last, s.haveLast = *r, true
	if r.LagBytes >= 0 {
		s.n++
		s.lagSum += float64(r.LagBytes)
		s.lagMax = max(s.lagMax, r.LagBytes)
	}
	s.lagSecsMax = max(s.lagSecsMax, r.LagSecs)
	s.recvQMax = max(s.recvQMax, r.RecvQueue)
}

// clusterFigures fills a step's endpoints (from the samples at the window's ends) and its
// replication (from the window's readings).
func (c *collector) clusterFigures(r *results.Step, a, b *snapshot, secs float64) {
	if len(b.eps) > 0 && len(a.eps) == len(b.eps) {
		var d hist.Snapshot
		for i, e := range b.eps {
			e0 := a.eps[i]
			d.Sub(&e.Latency, &e0.Latency)
			ep := results.Endpoint{Name: e.Name, Role: e.Role, Stmts: e.Stmts - e0.Stmts, Errors: e.Errors - e0.Errors,
				P50Us: float64(d.Quantile(0.5)) / 1e3, P99Us: float64(d.Quantile(0.99)) / 1e3, MaxUs: float64(d.Quantile(1)) / 1e3}
			ep.StmtsPerSec = per(float64(ep.Stmts), secs)
			if e.Managed && e.Up && e0.Up && e.CPUTicks >= e0.CPUTicks {
				ep.CPUPct = per(float64(e.CPUTicks-e0.CPUTicks)/sysstat.UserHZ, secs) * 100
				ep.RSSMB = float64(e.RSSBytes) / mib
			}
			r.Endpoints = append(r.Endpoints, ep)
		}
	}
	s := &c.repl
	if !s.haveLast {
		return
	}
	kind := "streaming"
	if s.last.Galera {
		kind = "galera"
	}
	rep := &results.Replication{Kind: kind, Replicas: s.last.Replicas, LagBytesMax: s.lagMax, LagSecsMax: s.lagSecsMax,
		LagBytesMean: per(s.lagSum, float64(s.n))}
	if s.haveFirst && s.last.FlowPausedNs >= 0 && s.first.FlowPausedNs >= 0 {
		rep.FlowPaused = max(float64(s.last.FlowPausedNs-s.first.FlowPausedNs), 0) / 1e9 / secs / float64(max(s.last.Replicas, 1))
		rep.CertFailures = max(s.last.CertFailures-s.first.CertFailures, 0)
		rep.BFAborts = max(s.last.BFAborts-s.first.BFAborts, 0)
		rep.RecvQueueMax = max(s.recvQMax, 0)
	}
	r.Replication = rep
}
