package live

import (
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/openmetrics"
	"github.com/rumbench/rumbench/internal/redact"
	"github.com/rumbench/rumbench/internal/results"
)

// MaxLabelChars is the longest label value written: a longer one is cut to its first
// MaxLabelChars-1 characters and "…".
const MaxLabelChars = input.EchoChars

// LabelValue is a value as a label carries it: passwords masked (redact.DSN), characters that
// could drive a terminal escaped (input.Printable: a run directory from elsewhere may hold
// them), at most MaxLabelChars characters.
func LabelValue(s string) string {
	s = input.Printable(redact.DSN(s))
	if utf8.RuneCountInString(s) <= MaxLabelChars {
		return s
	}
	n := 0
	for i := range s {
		if n == MaxLabelChars-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// counterFamily is a counter of a target × step: its name (without "_total"), unit, help and
// value in a sample (negative: not measured, no sample).
type counterFamily struct {
	name, unit, help string
	value            func(s *Sample) float64
}

// counters are the counters of a step (each from the step's start), in exposition order.
var counters = []counterFamily{
	{"rumbench_ops", "", "the step's ops, the denominator of its per-op figures (the headline kinds' units or calls as declared), every unit of work that ended since the step's start, warm-up included",
		func(s *Sample) float64 { return float64(s.Ops) }},
	{"rumbench_commits", "", "write transactions committed since the step's start (the workload's count, else its write and delete calls)",
		func(s *Sample) float64 { return float64(s.Commits) }},
	{"rumbench_device_read_bytes", "bytes", "bytes read from the data directory's block device since the step's start (system-wide)",
		func(s *Sample) float64 { return float64(s.ReadBytes) }},
	{"rumbench_device_written_bytes", "bytes", "bytes written to the data directory's block device since the step's start (system-wide)",
		func(s *Sample) float64 { return float64(s.WrittenBytes) }},
	{"rumbench_device_flushes", "", "flush requests completed by the data directory's block device since the step's start (system-wide)",
		func(s *Sample) float64 { return float64(s.Flushes) }},
	{"rumbench_syncs", "", "the engine's sync calls (fsync, fdatasync, sync_file_range, msync, syncfs, O_DSYNC writes) since the step's start (--syscalls)",
		func(s *Sample) float64 { return float64(s.Syncs) }},
	{"rumbench_client_cpu_seconds", "seconds", "this process's CPU time since the step's start, the observer's left out (ccpu_us/op's numerator)",
		func(s *Sample) float64 { return float64(s.ClientCPUNs) / 1e9 }},
	{"rumbench_observer_cpu_seconds", "seconds", "the observer thread's CPU time since the step's start (ticks, samples, results, progress)",
		func(s *Sample) float64 { return float64(s.ObserverCPUNs) / 1e9 }},
	{"rumbench_server_cpu_seconds", "seconds", "a managed server's process tree's CPU time since the step's start",
		func(s *Sample) float64 { return nonNegative(s.ServerCPUNs, 1e9) }},
	{"rumbench_context_switches", "", "the host's context switches since the step's start (system-wide)",
		func(s *Sample) float64 { return float64(s.ContextSwitches) }},
	{"rumbench_stall_seconds", "seconds", "time the engine's callers waited on its cache or write stalls since the step's start, as last read (stall_us/op's numerator)",
		func(s *Sample) float64 { return nonNegative(s.StallUs, 1e6) }},
	{"rumbench_app_evictions", "", "pages the engine's callers evicted from its cache themselves since the step's start, as last read (appevict/op's numerator)",
		func(s *Sample) float64 { return float64(s.AppEvictions) }},
}

// gauges are the gauges of a step that come from its latest sample, exposed while it runs.
var gauges = []counterFamily{
	{"rumbench_client_rss_bytes", "bytes", "this process's resident memory",
		func(s *Sample) float64 { return float64(s.ClientRSSBytes) }},
	{"rumbench_server_rss_bytes", "bytes", "a managed server's process tree's resident memory",
		func(s *Sample) float64 { return float64(s.ServerRSSBytes) }},
	{"rumbench_memory_pressure_ratio", "ratio", "the engine's memory cgroup's pressure under --memory-limit: the share of the last 10 s some task stalled on memory (PSI some avg10)",
		func(s *Sample) float64 { return s.MemoryPressure }},
	{"rumbench_db_bytes", "bytes", "allocated bytes of the data directory's tables and indexes (logs apart)",
		func(s *Sample) float64 { return float64(s.DBBytes) }},
}

// nonNegative is v/scale, or -1 (not measured) for a negative v.
func nonNegative(v int64, scale float64) float64 {
	if v < 0 {
		return -1
	}
	return float64(v) / scale
}

// bucketLabels are the "le" labels of Bounds and +Inf, in seconds.
var bucketLabels = func() []openmetrics.Label {
	out := make([]openmetrics.Label, len(Bounds)+1)
	for i, b := range Bounds {
		out[i] = openmetrics.Label{Name: "le", Value: openmetrics.FormatFloat(float64(b) / 1e9)}
	}
	out[len(Bounds)] = openmetrics.Label{Name: "le", Value: "+Inf"}
	return out
}()

// exposition writes families: a family's header comes with its first sample, so a family no
// series has is left out.
type exposition struct {
	w       *openmetrics.Writer
	stamped bool
	started string // the family whose header was written last
}

func (x *exposition) family(name string, t openmetrics.Type, unit, help string) {
	if x.started != name {
		x.w.Family(name, t, unit, help)
		x.started = name
	}
}

func (x *exposition) sample(name string, labels []openmetrics.Label, v float64, at int64, extra ...openmetrics.Label) {
	if x.stamped {
		x.w.SampleAt(name, labels, v, at, extra...)
	} else {
		x.w.Sample(name, labels, v, extra...)
	}
}

// runLabels are the labels of the run.
func runLabels(run Run) []openmetrics.Label {
	ls := []openmetrics.Label{{Name: "run_id", Value: LabelValue(run.ID)}, {Name: "run_label", Value: LabelValue(run.Label)},
		{Name: "workload", Value: LabelValue(run.Workload)}}
	if run.Shard != "" {
		ls = append(ls, openmetrics.Label{Name: "shard", Value: LabelValue(run.Shard)})
	}
	return ls
}

// stepLabels are the labels of a target × step: the run's, then target, engine, step and (in a
// run with repeats) rep.
func stepLabels(run []openmetrics.Label, e *entry) []openmetrics.Label {
	ls := append(append(make([]openmetrics.Label, 0, len(run)+5), run...),
		openmetrics.Label{Name: "target", Value: LabelValue(e.target)}, openmetrics.Label{Name: "engine", Value: LabelValue(e.engine)},
		openmetrics.Label{Name: "step", Value: LabelValue(e.step)})
	if e.rep > 0 {
		ls = append(ls, openmetrics.Label{Name: "rep", Value: strconv.Itoa(e.rep)})
	}
	return ls
}

// with returns ls and more, in a new slice.
func with(ls []openmetrics.Label, more ...openmetrics.Label) []openmetrics.Label {
	return append(append(make([]openmetrics.Label, 0, len(ls)+len(more)), ls...), more...)
}

// running says whether the step of e is running at point p: not after its last tick nor its
// record.
func running(e *entry, p *Sample, last bool) bool { return !p.Final && !(last && e.done) }

// failed says whether the step of e has failed at point p (known from its record, at its end).
func failed(e *entry, p *Sample, last bool) bool {
	return e.status == results.StatusFailed && (p.Final || last && e.done)
}

// writeFamilies writes the series of entries (each point of each, with its timestamp when
// stamped), family by family; an entry's run is runs[entry.run].
func writeFamilies(w *openmetrics.Writer, runs []Run, entries []*entry, stamped bool) {
	x := &exposition{w: w, stamped: stamped}
	rls := x.runInfo(runs, entries)
	s := &series{x: x, entries: entries, labels: make([][]openmetrics.Label, len(entries))}
	for i, e := range entries {
		if e.labels == nil {
			e.labels = stepLabels(rls[e.run], e)
		}
		s.labels[i] = e.labels
	}
	s.stepFamilies()
	s.kindFamilies()
	for _, g := range gauges {
		s.each(func(e *entry, ls []openmetrics.Label, p *Sample, last bool) {
			if v := g.value(p); v >= 0 && s.current(e, p, last) {
				x.family(g.name, openmetrics.Gauge, g.unit, g.help)
				x.sample(g.name, ls, v, p.UnixMs)
			}
		})
	}
}

// runInfo writes the runs' info family and returns each run's labels.
func (x *exposition) runInfo(runs []Run, entries []*entry) [][]openmetrics.Label {
	x.family("rumbench_run", openmetrics.Info, "", "the run: its id, label, workload, shard and rumbench's version")
	rls := make([][]openmetrics.Label, len(runs))
	for ri, run := range runs {
		rls[ri] = runLabels(run)
		info := with(rls[ri], openmetrics.Label{Name: "version", Value: LabelValue(run.Version)})
		if !x.stamped {
			x.sample("rumbench_run_info", info, 1, 0)
			continue
		}
		// A past run's info at its first and last points.
		first, last := int64(math.MaxInt64), int64(math.MinInt64)
		for _, e := range entries {
			for _, p := range e.points {
				if e.run == ri {
					first, last = min(first, p.UnixMs), max(last, p.UnixMs)
				}
			}
		}
		if first <= last {
			x.sample("rumbench_run_info", info, 1, first)
			if last != first {
				x.sample("rumbench_run_info", info, 1, last)
			}
		}
	}
	return rls
}

// series are the entries being written, with their labels.
type series struct {
	x       *exposition
	entries []*entry
	labels  [][]openmetrics.Label
}

// each calls fn on every point of every entry, last set on an entry's last point.
func (s *series) each(fn func(e *entry, ls []openmetrics.Label, p *Sample, last bool)) {
	for i, e := range s.entries {
		for k, p := range e.points {
			fn(e, s.labels[i], p, k == len(e.points)-1)
		}
	}
}

// eachKind calls fn on every kind of every point, a kind's points together.
func (s *series) eachKind(fn func(ls []openmetrics.Label, k *Kind, p *Sample)) {
	for i, e := range s.entries {
		if len(e.points) == 0 {
			continue
		}
		for k := range e.points[len(e.points)-1].Kinds {
			for _, p := range e.points {
				if k < len(p.Kinds) {
					fn(s.labels[i], &p.Kinds[k], p)
				}
			}
		}
	}
}

// current says whether a gauge is written at point p: gauges are of the running steps only (a
// finished step's last rate or memory would otherwise stay on a dashboard for the rest of the
// run; its counters stay, with their final values); a past run's series have them at each
// point, its end's included.
func (s *series) current(e *entry, p *Sample, last bool) bool {
	return !p.partial && (s.x.stamped || running(e, p, last))
}

// stepFamilies writes the step's families: running, rate, counters and errors.
func (s *series) stepFamilies() {
	x := s.x
	s.each(func(e *entry, ls []openmetrics.Label, p *Sample, last bool) {
		if p.partial && !p.Final {
			return
		}
		x.family("rumbench_step_running", openmetrics.Gauge, "", "1 while the step runs, 0 once it has ended")
		v := 0.0
		if running(e, p, last) {
			v = 1
		}
		x.sample("rumbench_step_running", ls, v, p.UnixMs)
	})
	s.each(func(e *entry, ls []openmetrics.Label, p *Sample, last bool) {
		if !s.current(e, p, last) {
			return
		}
		x.family("rumbench_rate_per_second", openmetrics.Gauge, "", "the step's headline rate over the last interval, per second (or as its workload scales it: rate_name)")
		x.sample("rumbench_rate_per_second", with(ls, openmetrics.Label{Name: "rate_name", Value: LabelValue(p.RateName)}), p.Rate, p.UnixMs)
	})
	for _, c := range counters {
		s.each(func(e *entry, ls []openmetrics.Label, p *Sample, last bool) {
			if v := c.value(p); v >= 0 {
				x.family(c.name, openmetrics.Counter, c.unit, c.help)
				x.sample(c.name+"_total", ls, v, p.UnixMs)
			}
		})
	}
	for _, kind := range []string{"retried", "failed"} {
		s.each(func(e *entry, ls []openmetrics.Label, p *Sample, last bool) {
			if p.Retries < 0 {
				return
			}
			x.family("rumbench_errors", openmetrics.Counter, "", "errors of the step: retried (operations abandoned after a deadlock or lock conflict and tried again) and failed (1 once an operation's error failed the step)")
			v := float64(p.Retries)
			if kind == "failed" {
				v = 0
				if failed(e, p, last) {
					v = 1
				}
			}
			x.sample("rumbench_errors_total", with(ls, openmetrics.Label{Name: "error", Value: kind}), v, p.UnixMs)
		})
	}
}

// kindFamilies writes the kinds' families: operations, units and the response-time histogram.
func (s *series) kindFamilies() {
	x := s.x
	s.eachKind(func(ls []openmetrics.Label, k *Kind, p *Sample) {
		if k.Ops < 0 {
			return
		}
		x.family("rumbench_operations", openmetrics.Counter, "", "operations of a kind that ended since the step's start, warm-up included")
		x.sample("rumbench_operations_total", with(ls, openmetrics.Label{Name: "kind", Value: LabelValue(k.Name)},
			openmetrics.Label{Name: "role", Value: LabelValue(k.Role)}), float64(k.Ops), p.UnixMs)
	})
	s.eachKind(func(ls []openmetrics.Label, k *Kind, p *Sample) {
		if k.Units < 0 {
			return
		}
		x.family("rumbench_operation_units", openmetrics.Counter, "", "units (rows, statements) of a kind's operations that ended since the step's start, warm-up included")
		x.sample("rumbench_operation_units_total", with(ls, openmetrics.Label{Name: "kind", Value: LabelValue(k.Name)},
			openmetrics.Label{Name: "unit", Value: LabelValue(k.Unit)}), float64(k.Units), p.UnixMs)
	})
	s.eachKind(func(ls []openmetrics.Label, k *Kind, p *Sample) {
		if len(k.Buckets) != len(Bounds) {
			return
		}
		x.family("rumbench_response_seconds", openmetrics.Histogram, "seconds", "response time of a kind's operations in the step's measured window (the step record's histogram)")
		kl := with(ls, openmetrics.Label{Name: "kind", Value: LabelValue(k.Name)})
		for b, n := range k.Buckets {
			x.sample("rumbench_response_seconds_bucket", kl, float64(n), p.UnixMs, bucketLabels[b])
		}
		x.sample("rumbench_response_seconds_bucket", kl, float64(k.Count), p.UnixMs, bucketLabels[len(Bounds)])
		x.sample("rumbench_response_seconds_count", kl, float64(k.Count), p.UnixMs)
		x.sample("rumbench_response_seconds_sum", kl, float64(k.SumNs)/1e9, p.UnixMs)
	})
}
