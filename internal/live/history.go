package live

import (
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/rumbench/rumbench/internal/hist"
	"github.com/rumbench/rumbench/internal/metric"
	"github.com/rumbench/rumbench/internal/openmetrics"
	"github.com/rumbench/rumbench/internal/results"
)

const mib = 1 << 20

// WriteRuns writes recorded runs' series with timestamps in the OpenMetrics format, for
// `promtool tsdb create-blocks-from openmetrics`: the series the endpoint serves, from what
// the run directories hold. Each interval record is a point of the counts (operations, units,
// the step's ops), the headline rate, the device's bytes and the CPU times (their rates
// integrated over the intervals) and the memory gauges; the step record adds, at the
// measured window's start (zero) and at the step's end, the response-time histogram and the
// counts only it holds (commits with --syscalls, device flushes, syncs, context switches,
// stall time, evictions, retries). A step without its record has no series (its intervals'
// times are relative to its start, which only the record gives).
func WriteRuns(w io.Writer, runs []*results.Run) error {
	var names []Run
	var entries []*entry
	for ri, r := range runs {
		run := Run{ID: r.Manifest.RunID, Label: r.Manifest.Label, Workload: r.Manifest.Workload, Version: r.Manifest.Version}
		if sh := r.Manifest.Shard; sh != nil {
			run.Shard = ShardName(sh.Index, sh.Count)
		}
		names = append(names, run)
		for i := range r.Steps {
			if e := history(&r.Steps[i], r.Intervals); e != nil {
				e.run = ri
				entries = append(entries, e)
			}
		}
	}
	ow := openmetrics.NewWriter(w)
	writeFamilies(ow, names, entries, true)
	return ow.End()
}

// ShardName is the shard label's value of shard i of n: "I/N".
func ShardName(i, n int) string { return fmt.Sprintf("%d/%d", i, n) }

// history makes the series of step st from its record and its intervals.
func history(st *results.Step, ivs []results.Interval) *entry {
	if st.Start.IsZero() {
		return nil
	}
	e := &entry{target: st.Target, rep: st.Rep, step: st.Step, engine: st.Engine, done: true, status: st.Status}
	begin := st.Start.Add(-time.Duration(st.WarmupSec * float64(time.Second)))
	units := rateByUnits(st)
	managed := st.Server == "managed"
	var acc struct{ read, written, client, observer, server float64 }
	window := &Sample{Target: st.Target, Rep: st.Rep, Step: st.Step, Engine: st.Engine, UnixMs: st.Start.UnixMilli(), partial: true}
	window.markUnmeasured()
	window.Ops, window.ClientCPUNs, window.ObserverCPUNs, window.Commits = -1, -1, -1, -1
	// The record's figures are zero at the window's start.
	zero(stepEnd(st), window)
	for i := range ivs {
		iv := &ivs[i]
		if iv.Target != st.Target || iv.Rep != st.Rep || iv.Step != st.Step {
			continue
		}
		acc.read += iv.ReadMBPerSec * iv.Secs * mib
		acc.written += iv.WriteMBPerSec * iv.Secs * mib
		acc.client += iv.ClientCPUPct / 100 * iv.Secs
		acc.observer += iv.ObserverCPUPct / 100 * iv.Secs
		acc.server += iv.ServerCPUPct / 100 * iv.Secs
		p := &Sample{Target: st.Target, Rep: st.Rep, Step: st.Step, Engine: st.Engine,
			UnixMs: begin.Add(time.Duration(iv.T * float64(time.Second))).UnixMilli(), RateName: iv.RateName, Rate: iv.Rate,
			Kinds: make([]Kind, len(iv.Kinds))}
		p.markUnmeasured()
		p.Retries, p.Commits = -1, -1 // the record's, at the step's end
		for k, kd := range iv.Kinds {
			p.Kinds[k] = Kind{Name: kd.Name, Role: kd.Role, Unit: kd.Unit, Ops: kd.Ops, Units: kd.Units}
			if slices.Contains(iv.RateKinds, kd.Name) || len(iv.RateKinds) == 0 && slices.Contains(st.RateKinds, kd.Name) {
				if units {
					p.Ops += kd.Units
				} else {
					p.Ops += kd.Ops
				}
			}
		}
		if st.Device != "" {
			p.ReadBytes, p.WrittenBytes = int64(math.Round(acc.read)), int64(math.Round(acc.written))
		}
		p.ClientCPUNs, p.ObserverCPUNs = int64(acc.client*1e9), int64(acc.observer*1e9)
		if iv.ClientRSSMB > 0 {
			p.ClientRSSBytes = int64(iv.ClientRSSMB * mib)
		}
		if managed {
			p.ServerCPUNs, p.ServerRSSBytes = int64(acc.server*1e9), int64(iv.ServerRSSMB*mib)
		}
		if iv.DBBytes > 0 {
			p.DBBytes = iv.DBBytes
		}
		e.points = append(e.points, p)
	}
	// The window's start among the intervals' points, in time order (none at its time).
	at := len(e.points)
	for i, p := range e.points {
		if p.UnixMs >= window.UnixMs {
			at = i
			break
		}
	}
	if at == len(e.points) || e.points[at].UnixMs != window.UnixMs {
		e.points = slices.Insert(e.points, at, window)
	} else {
		merge(e.points[at], window)
	}
	// The step's end: its last interval's point (the final tick's), or a point of its own.
	final := stepEnd(st)
	if last := e.points[len(e.points)-1]; !last.partial && abs(last.UnixMs-final.UnixMs) < 500 {
		merge(last, final)
		last.Final = true
	} else if final.UnixMs > last.UnixMs {
		final.Final = true
		e.points = append(e.points, final)
	}
	return e
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// rateByUnits says whether the step's ops count its rate kinds' units (rows) rather than
// their calls, as the record's counts show (the declaration is not recorded).
func rateByUnits(st *results.Step) bool {
	var units int64
	for _, k := range st.Kinds {
		if slices.Contains(st.RateKinds, k.Name) {
			units += k.Units
		}
	}
	return units == st.Ops && st.Ops > 0
}

// stepEnd is the point of a step's record at its end: the histogram of each kind and the
// counts only the record holds, the other figures not measured.
func stepEnd(st *results.Step) *Sample {
	p := &Sample{Target: st.Target, Rep: st.Rep, Step: st.Step, Engine: st.Engine, UnixMs: st.End.UnixMilli(),
		RateName: st.RateName, partial: true, Kinds: make([]Kind, len(st.Kinds))}
	p.markUnmeasured()
	p.Ops, p.ClientCPUNs, p.ObserverCPUNs, p.Commits = -1, -1, -1, -1
	p.Retries = st.Retries
	ops := float64(st.Ops)
	if st.Device != "" {
		p.Flushes = int64(math.Round(st.FlushesPerOp * ops))
	}
	if st.CSPerOp > 0 || st.HostCPUPct > 0 {
		p.ContextSwitches = int64(math.Round(st.CSPerOp * ops))
	}
	if sc := st.Syscalls; sc != nil {
		p.Syncs, p.Commits = sc.Syncs, sc.Commits
	}
	if v, ok := metric.StallUs(st); ok {
		p.StallUs = int64(v)
	}
	if v, ok := metric.AppEvictions(st); ok {
		p.AppEvictions = int64(v)
	}
	for k, kd := range st.Kinds {
		p.Kinds[k] = Kind{Name: kd.Name, Role: kd.Role, Unit: kd.Unit, Ops: -1, Units: -1}
		var s hist.Snapshot
		for _, l := range st.Latency {
			if l.Kind == kd.Name {
				s.AddBuckets(l.Buckets)
				s.Total, s.Sum = l.Count, int64(math.Round(l.MeanUs*1e3*float64(l.Count)))
			}
		}
		p.Kinds[k].SetHistogram(&s)
	}
	return p
}

// zero sets the record's figures of p (those stepEnd fills) to zero in w: their value at the
// measured window's start.
func zero(p, w *Sample) {
	w.Retries = 0
	for _, f := range []struct{ from, to *int64 }{{&p.Commits, &w.Commits}, {&p.Flushes, &w.Flushes}, {&p.Syncs, &w.Syncs},
		{&p.ContextSwitches, &w.ContextSwitches}, {&p.StallUs, &w.StallUs}, {&p.AppEvictions, &w.AppEvictions}} {
		if *f.from >= 0 {
			*f.to = 0
		}
	}
	w.Kinds = make([]Kind, len(p.Kinds))
	for k := range p.Kinds {
		w.Kinds[k] = Kind{Name: p.Kinds[k].Name, Role: p.Kinds[k].Role, Unit: p.Kinds[k].Unit, Ops: -1, Units: -1,
			Buckets: make([]int64, len(Bounds))}
	}
}

// merge adds the record's figures of r (a partial point: the histogram and the record's
// counts) into the interval's point p of the same time.
func merge(p, r *Sample) {
	for _, f := range []struct{ from, to *int64 }{{&r.Commits, &p.Commits}, {&r.Flushes, &p.Flushes}, {&r.Syncs, &p.Syncs},
		{&r.ContextSwitches, &p.ContextSwitches}, {&r.StallUs, &p.StallUs}, {&r.AppEvictions, &p.AppEvictions},
		{&r.Retries, &p.Retries}} {
		if *f.from >= 0 {
			*f.to = *f.from
		}
	}
	for k := range r.Kinds {
		if k < len(p.Kinds) && p.Kinds[k].Name == r.Kinds[k].Name {
			p.Kinds[k].Count, p.Kinds[k].SumNs, p.Kinds[k].Buckets = r.Kinds[k].Count, r.Kinds[k].SumNs, r.Kinds[k].Buckets
		}
	}
}
