package metric

import (
	"math"
	"slices"

	"github.com/rumbench/rumbench/internal/results"
)

// Rules for "not measured", shared by the figures they apply to.
const (
	noDevice    = "no block device behind the data directory (tmpfs, overlay, NFS): run.json says why"
	notManaged  = "the server was not started by rumbench (--dsn) or the engine is embedded"
	notReported = "embedded engine, or the server does not report it"
	noSyscalls  = "run without --syscalls or --fsync-latency"
	noCap       = "run without --memory-limit"
	mib         = 1 << 20
)

func always(f func(s *results.Step) float64) func(*results.Step) (float64, bool) {
	return func(s *results.Step) (float64, bool) { return f(s), true }
}

func storage(f func(s *results.Step) float64) func(*results.Step) (float64, bool) {
	return func(s *results.Step) (float64, bool) { return f(s), s.Device != "" }
}

func managed(f func(s *results.Step) float64) func(*results.Step) (float64, bool) {
	return func(s *results.Step) (float64, bool) { return f(s), s.Server == "managed" }
}

// counter reads a server counter figure, -1 when the server reports none.
func counter(f func(s *results.Step) float64) func(*results.Step) (float64, bool) {
	return func(s *results.Step) (float64, bool) { v := f(s); return v, s.Server != "" && v >= 0 }
}

func syscalls(f func(x *results.Syscalls) float64) func(*results.Step) (float64, bool) {
	return func(s *results.Step) (float64, bool) {
		if s.Syscalls == nil {
			return 0, false
		}
		v := f(s.Syscalls)
		return v, v >= 0
	}
}

func hasSyscalls(s *results.Step) bool { return s.Syscalls != nil }
func hasMemory(s *results.Step) bool   { return s.Memory != nil }

// IOBoundReadKB is the storage read per op, KiB, from which a capped step is labelled IO-bound
// rather than cached: a quarter of a 4 KiB page per op.
const IOBoundReadKB = 1.0

func memory(f func(m *results.Memory) float64) func(*results.Step) (float64, bool) {
	return func(s *results.Step) (float64, bool) {
		if s.Memory == nil {
			return 0, false
		}
		return f(s.Memory), true
	}
}
func onServer(s *results.Step) bool { return s.Server != "" }

// background says whether the step has kinds of role that its rate does not count: a
// background writer beside queries.
func background(role string) func(s *results.Step) bool {
	return func(s *results.Step) bool { return s.HasRole(role) && !s.RateHasRole(role) }
}

// paced names the steps the schedule figures apply to.
const paced = "steps at a fixed rate (--rate)"

func hasSchedule(s *results.Step) bool { return s.Schedule != nil }

// clustered says which steps have the replication figures.
const clustered = "steps on a cluster (--cluster, a --dsn list)"

// streaming and galera say whether a step has a cluster's replication figures of that kind.
func streaming(s *results.Step) bool {
	return s.Replication != nil && s.Replication.Kind == "streaming"
}
func galera(s *results.Step) bool { return s.Replication != nil && s.Replication.Kind == "galera" }

// faulted says which steps have the failure figures.
const faulted = "steps with faults (--fault) or tolerated errors"

func hasFaults(s *results.Step) bool { return len(s.Faults) > 0 }

// faultMax is the largest of f over the step's faults.
func faultMax(f func(x *results.Fault) float64) func(*results.Step) (float64, bool) {
	return func(s *results.Step) (float64, bool) {
		if len(s.Faults) == 0 {
			return 0, false
		}
		m := 0.0
		for i := range s.Faults {
			m = max(m, f(&s.Faults[i]))
		}
		return m, true
	}
}

func schedule(f func(x *results.Schedule) float64) func(*results.Step) (float64, bool) {
	return func(s *results.Step) (float64, bool) {
		if s.Schedule == nil {
			return 0, false
		}
		return f(s.Schedule), true
	}
}

// RateLatency returns the latency record of the step's first rate kind, nil when it has none:
// at a fixed rate (--rate) its response time from the intended start (the "_intended" record),
// what a user waiting in line sees; else its response time.
func RateLatency(s *results.Step) *results.Latency {
	if s.Schedule != nil && len(s.RateKinds) > 0 {
		if l := latencyOf(s, s.RateKinds[0]+"_intended"); l != nil {
			return l
		}
	}
	return ServiceLatency(s)
}

// ServiceLatency returns the latency record of the step's first rate kind measured from each
// operation's actual start (its service time), nil when it has none.
func ServiceLatency(s *results.Step) *results.Latency {
	if len(s.RateKinds) == 0 {
		return nil
	}
	return latencyOf(s, s.RateKinds[0])
}

func latencyOf(s *results.Step, kind string) *results.Latency {
	for i := range s.Latency {
		if s.Latency[i].Kind == kind {
			return &s.Latency[i]
		}
	}
	return nil
}

func service(f func(l *results.Latency) float64) func(*results.Step) (float64, bool) {
	return func(s *results.Step) (float64, bool) {
		if l := ServiceLatency(s); l != nil && s.Schedule != nil {
			return f(l), true
		}
		return 0, false
	}
}

func percentile(f func(l *results.Latency) float64) func(*results.Step) (float64, bool) {
	return func(s *results.Step) (float64, bool) {
		if l := RateLatency(s); l != nil {
			return f(l), true
		}
		return 0, false
	}
}

// Percentile returns percentile name ("p99", "p99.99") of l in µs, false when l lacks it.
func Percentile(l *results.Latency, name string) (float64, bool) {
	if v, ok := l.Percentiles[name]; ok {
		return v, true
	}
	switch name {
	case "p50":
		return l.P50Us, true
	case "p90":
		return l.P90Us, true
	case "p95":
		return l.P95Us, true
	case "p99":
		return l.P99Us, true
	case "p99.9":
		return l.P999Us, true
	}
	return 0, false
}

func init() {
	isRate := func(s *results.Step) func(k *results.Kind) bool {
		return func(k *results.Kind) bool { return slices.Contains(s.RateKinds, k.Name) }
	}
	label := func(name, meaning string) *Metric { return &Metric{Name: name, Field: "-", Meaning: meaning} }
	add(
		label("target", "the engine, or engine:config, a row is about (with its status when not ok)"),
		label("test", "the step (sysbench test) a row of a group table is about"),
		label("op", "the operation kind a latency row is about, as the workload declared it (_intended: from the paced start)"),

		// Throughput.
		&Metric{Name: "rate", Field: "rate_per_sec", Unit: "ops/s", Better: Higher, Rate: true,
			Meaning:  "the step's headline rate; the column is named as the workload names it (ips, qps, Krps...)",
			Formula:  "ops / secs, ops counted as the workload declares (rows inserted or indexed, queries, statements)",
			Value:    always(func(s *results.Step) float64 { return s.Rate }),
			Interval: func(iv *results.Interval) (float64, bool) { return iv.Rate, true }},
		&Metric{Name: "eps", Field: "calls_per_sec", Unit: "calls/s", Better: Higher,
			Meaning: "operations of the rate's kinds per second, as called: sysbench events/s, insert transactions/s",
			Formula: "Δcalls of the rate kinds / secs",
			Value:   always(func(s *results.Step) float64 { return s.CallsPerSec })},
		&Metric{Name: "ips", Field: "ips", Unit: "rows/s", Better: Higher, Rate: true,
			Meaning: "rows written per second by write operations the rate does not count (a background writer)",
			Formula: "Σ write kinds' rows / secs", Steps: "steps with write kinds beside their rate (query steps)",
			Applies:  background(results.RoleWrite),
			Value:    always(func(s *results.Step) float64 { return s.IPS }),
			Interval: func(iv *results.Interval) (float64, bool) { return iv.IPS, true }},
		&Metric{Name: "dps", Field: "dps", Unit: "rows/s", Better: Higher,
			Meaning: "rows deleted per second by delete operations the rate does not count",
			Formula: "Σ delete kinds' rows / secs", Steps: "steps with delete kinds (--delete-per-insert)",
			Applies:  background(results.RoleDelete),
			Value:    always(func(s *results.Step) float64 { return s.DPS }),
			Interval: func(iv *results.Interval) (float64, bool) { return iv.DPS, true }},
		&Metric{Name: "qps", Field: "qps", Unit: "reads/s", Better: Higher,
			Meaning: "read operations per second that the rate does not count",
			Formula: "Σ read kinds' calls / secs", Steps: "steps with read kinds beside their rate",
			Applies:  background(results.RoleRead),
			Value:    always(func(s *results.Step) float64 { return s.QPS }),
			Interval: func(iv *results.Interval) (float64, bool) { return iv.QPS, true }},
		&Metric{Name: "ips_target", Field: "target_ips", Unit: "rows/s",
			Meaning: "the paced background writers' total target", Formula: "writers × rate per writer",
			Steps: "paced steps", Applies: func(s *results.Step) bool { return s.TargetIPS > 0 },
			Value: always(func(s *results.Step) float64 { return s.TargetIPS })},
		&Metric{Name: "met", Field: "target_met", Unit: "yes/NO", Better: Higher, YesNo: true,
			Meaning: "whether the background writers reached 95% of their target (the insert benchmark's SLA)",
			Formula: "ips >= 0.95 · ips_target", Steps: "paced steps",
			Applies: func(s *results.Step) bool { return s.TargetMet != nil },
			Value: func(s *results.Step) (float64, bool) {
				if s.TargetMet == nil {
					return 0, false
				}
				if *s.TargetMet {
					return 1, true
				}
				return 0, true
			}},
		&Metric{Name: "rate_asked", Field: "schedule.rate_per_sec", Unit: "units/s", Steps: paced,
			Meaning: "the fixed rate asked for (--rate), over all clients: transactions, events, requests or operations (rows for the insert benchmark's writers)",
			Formula: "as given", Applies: hasSchedule,
			Value: schedule(func(x *results.Schedule) float64 { return x.Rate })},
		&Metric{Name: "offered", Field: "schedule.offered_per_sec", Unit: "units/s", Steps: paced,
			Meaning: "the arrivals the clients' schedules held in the measured window, per second: the rate asked for, give or take the schedule's own chance (Poisson arrivals in T seconds vary by about √(rate·T))",
			Formula: "(started + skipped + due but not started at the window's end) / secs", Applies: hasSchedule,
			Value: schedule(func(x *results.Schedule) float64 { return x.Offered })},
		&Metric{Name: "achieved", Field: "schedule.achieved_per_sec", Unit: "units/s", Better: Higher, Steps: paced,
			Meaning: "the operations the clients started per second of the measured window: the rate they kept", Formula: "started / secs",
			Applies: hasSchedule, Value: schedule(func(x *results.Schedule) float64 { return x.Achieved })},
		&Metric{Name: "kept", Field: "schedule.met", Unit: "yes/NO", Better: Higher, YesNo: true, Steps: paced,
			Meaning: "whether the clients kept the fixed rate: NO when they fell behind (the server could not keep up, or the client's host)",
			Formula: "achieved >= 0.99 · offered", Applies: hasSchedule,
			Value: schedule(func(x *results.Schedule) float64 {
				if x.Met {
					return 1
				}
				return 0
			})},
		&Metric{Name: "lag_ms", Field: "schedule.lag_mean_ms", Unit: "ms", Better: Lower, Steps: paced,
			Meaning: "mean schedule lag: how late the operations started after their intended start (pgbench's \"schedule lag\")",
			Formula: "Σ(actual start − intended start) / started", Applies: hasSchedule,
			Value: schedule(func(x *results.Schedule) float64 { return x.LagMeanMs })},
		&Metric{Name: "lag_s", Field: "schedule.lag_max_secs; lag_secs per interval", Unit: "s", Better: Lower, Steps: paced,
			Meaning: "how far behind their schedules the clients were: the largest a tick saw over the step (per interval: at its end, the client most behind)",
			Formula: "max over ticks of (tick time − the intended start of the oldest operation not started)", Applies: hasSchedule,
			Value:    schedule(func(x *results.Schedule) float64 { return x.LagMaxSecs }),
			Interval: func(iv *results.Interval) (float64, bool) { return iv.LagSecs, true }},
		&Metric{Name: "backlog", Field: "schedule.backlog; backlog per interval", Unit: "ops", Integer: true, Better: Lower, Steps: paced,
			Meaning: "operations due but not started: of the measured window when the clients stopped (per interval: at its end)",
			Formula: "the arrivals of each client's schedule before the window's end (or its own end) it had not taken; per interval Σ over clients of ⌊lag · the client's rate⌋ + 1 (exact for uniform arrivals, the expected count for Poisson)", Applies: hasSchedule,
			Value:    schedule(func(x *results.Schedule) float64 { return float64(x.Backlog) }),
			Interval: func(iv *results.Interval) (float64, bool) { return float64(iv.Backlog), true }},
		&Metric{Name: "skipped", Field: "schedule.skipped", Unit: "ops", Integer: true, Better: Lower, Steps: "steps at a fixed rate with --latency-limit",
			Meaning: "operations skipped because they were later than --latency-limit when their turn came: not run, not errors",
			Formula: "count", Applies: func(s *results.Step) bool { return s.Schedule != nil && s.Schedule.LatencyLimitMs > 0 },
			Value: schedule(func(x *results.Schedule) float64 { return float64(x.Skipped) })},
		&Metric{Name: "secs", Field: "secs", Unit: "s", Meaning: "measured duration of the operations (after the warm-up, before settling)",
			Formula: "end of the operations − start of the measured window", Value: always(func(s *results.Step) float64 { return s.Secs })},
		&Metric{Name: "settle_s", Field: "settle_secs", Unit: "s", Better: Lower, Steps: "write steps that settled (--settle)",
			Meaning: "time spent after the operations bringing the engine's deferred work for what they wrote to disk (memtable flush, checkpoint; `settled` in steps.json says which) and the file system's dirty pages (syncfs): its writes and CPU are in the step's per-op figures, its time is not in secs",
			Formula: "end of the settling − end of the operations",
			Applies: func(s *results.Step) bool { return s.Settled != "" },
			Value:   always(func(s *results.Step) float64 { return s.SettleSecs })},
		&Metric{Name: "rate_p50", Field: "rate_p50_per_sec", Unit: "ops/s", Better: Higher,
			Meaning: "the per-second rate that half of the seconds met", Missing: "no interval of the step lasted half a tick: it ran for less than 0.5 s",
			Formula: "the rates of the step's intervals of at least half a tick (0.5 s; the settling's left out) sorted descending, the value at rank round(0.5·n)",
			Value:   func(s *results.Step) (float64, bool) { return s.RateP50, s.RateIntervals > 0 }},
		&Metric{Name: "rate_p99", Field: "rate_p99_per_sec", Unit: "ops/s", Better: Higher,
			Meaning: "the per-second rate that 99% of the seconds met: a low-tail throughput", Missing: "no interval of the step lasted half a tick: it ran for less than 0.5 s",
			Formula: "the rates of the step's intervals of at least half a tick (0.5 s; the settling's left out) sorted descending, the value at rank round(0.99·n)",
			Value:   func(s *results.Step) (float64, bool) { return s.RateP99, s.RateIntervals > 0 }},
		&Metric{Name: "noise%", Field: "rate_noise_pct", Unit: "% of the rate", Better: Lower,
			Meaning: "how far the step's rate may be from its true value: the half-width of the 95% interval of the rate from its own slices (the measured time cut into 10 equal slices); a ratio of two rates within their noise is marked ~",
			Missing: "the step was too short to cut (fewer than three 20 ms samples)",
			Formula: "t(0.975, 9) · sd(slice rates) / mean(slice rates) / √10 · 100",
			Applies: func(s *results.Step) bool { return s.RateSlices > 0 },
			Value:   func(s *results.Step) (float64, bool) { return s.RateNoisePct, s.RateSlices > 0 }},
		&Metric{Name: "cv%", Field: "rate_cv_pct", Unit: "% of the rate", Better: Lower,
			Meaning: "coefficient of variation of the rate over the step's 10 slices of time; above 10 the step is marked noisy (its rate moved while it ran: lengthen it, or repeat it)",
			Missing: "the step was too short to cut (fewer than three 20 ms samples)",
			Formula: "sd(slice rates) / mean(slice rates) · 100",
			Applies: func(s *results.Step) bool { return s.RateSlices > 0 },
			Value:   func(s *results.Step) (float64, bool) { return s.RateCVPct, s.RateSlices > 0 }},
		&Metric{Name: "retries", Field: "retries", Unit: "ops", Integer: true, Better: Lower,
			Meaning: "operations rolled back after a deadlock or lock conflict and run again (not in ops)",
			Formula: "count", Steps: "steps that retried", Applies: func(s *results.Step) bool { return s.Retries > 0 },
			Value: always(func(s *results.Step) float64 { return float64(s.Retries) })},
		&Metric{Name: "failed", Field: "errors", Unit: "ops", Integer: true, Better: Lower,
			Meaning: "operations that failed with an error the run went on through (--fault, --tolerate-errors), every class",
			Formula: "Σ errors[class]", Steps: faulted, Applies: func(s *results.Step) bool { return len(s.Errors) > 0 || len(s.Faults) > 0 },
			Value: always(func(s *results.Step) float64 {
				var n int64
				for _, v := range s.Errors {
					n += v
				}
				return float64(n)
			}),
			Interval: func(iv *results.Interval) (float64, bool) { return float64(iv.Failed), true }},
		&Metric{Name: "unknown", Field: "unknown_outcome", Unit: "ops", Integer: true, Better: Lower,
			Meaning: "failed operations whose connection broke in flight: they may have committed",
			Formula: "count", Steps: faulted, Applies: func(s *results.Step) bool { return len(s.Errors) > 0 || len(s.Faults) > 0 },
			Value: always(func(s *results.Step) float64 { return float64(s.UnknownOutcome) })},
		&Metric{Name: "unavail_s", Field: "faults[].unavail_secs", Unit: "s", Better: Lower, Steps: faulted,
			Meaning: "how long the target served no one after a fault: from the first operation that failed (a stop: the fault) to the first success after it; the longest of the step's faults",
			Formula: "max over faults of (first success after a failure − first failure)", Applies: hasFaults,
			Value: faultMax(func(f *results.Fault) float64 { return f.UnavailSecs })},
		&Metric{Name: "recover_s", Field: "faults[].recover_secs", Unit: "s", Better: Lower, Steps: faulted,
			Meaning: "from a fault until the per-second rate was back to 90% of its median over the 30 s before it; the longest of the step's faults, infinite when one had not recovered by the step's end",
			Formula: "max over faults of (end of the first interval after the outage at ≥ 0.9 × baseline − fault)", Applies: hasFaults,
			Value: func(s *results.Step) (float64, bool) {
				worst, ok := 0.0, false
				for i := range s.Faults {
					switch f := &s.Faults[i]; {
					case f.RecoverSecs != nil:
						worst, ok = max(worst, *f.RecoverSecs), true
					case f.Unrecovered:
						worst, ok = math.Inf(1), true
					}
				}
				return worst, ok
			}},
		&Metric{Name: "ready_s", Field: "faults[].server_ready_secs", Unit: "s", Better: Lower, Steps: faulted,
			Meaning: "how long the managed server took to accept connections after it was started again (kill: its crash recovery; restart)",
			Formula: "max over faults of the server's start", Applies: hasFaults,
			Value: faultMax(func(f *results.Fault) float64 { return f.ServerReadySecs })},
		&Metric{Name: "acked", Field: "ack_check.acknowledged", Unit: "writes", Integer: true, Better: Higher, Steps: faulted,
			Meaning: "writes the clients were told committed in a step with faults",
			Formula: "count", Applies: func(s *results.Step) bool { return s.AckCheck != nil },
			Value: func(s *results.Step) (float64, bool) {
				if s.AckCheck == nil {
					return 0, false
				}
				return float64(s.AckCheck.Acknowledged), true
			}},
		&Metric{Name: "repl_lag_kb", Field: "replication.lag_bytes_max", Unit: "KB", Better: Lower, Steps: clustered,
			Meaning: "replication lag: the WAL the standby furthest behind had not replayed, the largest of the per-second readings",
			Formula: "max over ticks of max over standbys of (pg_current_wal_lsn − replay_lsn) / 1024", Applies: streaming,
			Value: func(s *results.Step) (float64, bool) {
				return float64(s.Replication.LagBytesMax) / 1024, streaming(s)
			}},
		&Metric{Name: "repl_lag_s", Field: "replication.lag_secs_max", Unit: "s", Better: Lower, Steps: clustered,
			Meaning: "replication lag in time: the standby furthest behind's replay delay (replay_lag), the largest of the per-second readings",
			Formula: "max over ticks of max over standbys of replay_lag", Applies: streaming,
			Value: func(s *results.Step) (float64, bool) { return s.Replication.LagSecsMax, streaming(s) }},
		&Metric{Name: "flow_paused", Field: "replication.flow_paused", Unit: "%", Better: Lower, Steps: clustered,
			Meaning: "Galera: the share of the step the nodes' replication was paused by flow control (a node's apply queue too long), mean over the nodes",
			Formula: "Δ Σ wsrep_flow_control_paused_ns / (secs × nodes) × 100", Applies: galera,
			Value: func(s *results.Step) (float64, bool) { return s.Replication.FlowPaused * 100, galera(s) }},
		&Metric{Name: "cert_fail", Field: "replication.cert_failures", Unit: "txns", Integer: true, Better: Lower, Steps: clustered,
			Meaning: "Galera: certification failures, transactions that conflicted with one another node committed first (the client retries them as conflicts)",
			Formula: "Δ Σ wsrep_local_cert_failures over the nodes", Applies: galera,
			Value: func(s *results.Step) (float64, bool) { return float64(s.Replication.CertFailures), galera(s) }},
		&Metric{Name: "lost", Field: "ack_check.lost", Unit: "writes", Integer: true, Better: Lower, Steps: faulted,
			Meaning: "acknowledged writes the workload's check did not find after the step's faults (at least this many: a write of unknown outcome that committed can hide one)",
			Formula: "acknowledged − found", Applies: func(s *results.Step) bool { return s.AckCheck != nil && s.AckCheck.Checked },
			Value: func(s *results.Step) (float64, bool) {
				if s.AckCheck == nil || !s.AckCheck.Checked {
					return 0, false
				}
				return float64(s.AckCheck.Lost), true
			}},

		// Response time.
		&Metric{Name: "max", Field: "kinds[].max_us", Unit: "µs", Latency: true, Better: Lower,
			Meaning: "largest response time of the operations the rate counts (of the row's kind in latency tables)",
			Formula: "exact maximum over the measured window (the largest per-interval maximum)",
			Value: func(s *results.Step) (float64, bool) {
				return s.MaxUs(isRate(s))
			}},
		&Metric{Name: "max_i", Field: "kinds[].max_us", Unit: "µs", Latency: true, Better: Lower,
			Meaning: "largest response time of the write operations the rate does not count (background inserts)",
			Formula: "exact maximum over the measured window", Steps: "steps with write kinds beside their rate",
			Applies: background(results.RoleWrite),
			Value: func(s *results.Step) (float64, bool) {
				return s.MaxUs(func(k *results.Kind) bool {
					return k.Role == results.RoleWrite && !slices.Contains(s.RateKinds, k.Name)
				})
			}},
		&Metric{Name: "count", Field: "latency[].count", Unit: "ops", Integer: true,
			Meaning: "operations of the row's kind measured", Formula: "histogram total",
			Value: func(s *results.Step) (float64, bool) {
				if l := RateLatency(s); l != nil {
					return float64(l.Count), true
				}
				return 0, false
			}},
		&Metric{Name: "p50", Field: "latency[].p50_us", Unit: "µs", Latency: true, Better: Lower,
			Meaning: "median response time (of the rate's kind, from each operation's intended start at a fixed rate; of the row's kind in latency tables)",
			Formula: "upper bound of the histogram bucket holding the 50th percentile (≤ 1/64 relative error)",
			Value:   percentile(func(l *results.Latency) float64 { return l.P50Us })},
		&Metric{Name: "p90", Field: "latency[].p90_us", Unit: "µs", Latency: true, Better: Lower,
			Meaning: "90th percentile response time", Formula: "as p50, at 0.90",
			Value: percentile(func(l *results.Latency) float64 { return l.P90Us })},
		&Metric{Name: "p95", Field: "latency[].p95_us", Unit: "µs", Latency: true, Better: Lower,
			Meaning: "95th percentile response time", Formula: "as p50, at 0.95",
			Value: percentile(func(l *results.Latency) float64 { return l.P95Us })},
		&Metric{Name: "p99", Field: "latency[].p99_us", Unit: "µs", Latency: true, Better: Lower,
			Meaning: "99th percentile response time", Formula: "as p50, at 0.99",
			Value: percentile(func(l *results.Latency) float64 { return l.P99Us })},
		&Metric{Name: "p99.9", Field: "latency[].p99_9_us", Unit: "µs", Latency: true, Better: Lower,
			Meaning: "99.9th percentile response time", Formula: "as p50, at 0.999",
			Value: percentile(func(l *results.Latency) float64 { return l.P999Us })},
		&Metric{Name: "svc_p50", Field: "latency[].p50_us", Unit: "µs", Latency: true, Better: Lower, Steps: paced,
			Meaning: "median service time at a fixed rate: from each operation's actual start, without the wait for its turn (p50 is from the intended start there)",
			Formula: "as p50, of the rate's kind without _intended", Applies: hasSchedule,
			Value: service(func(l *results.Latency) float64 { return l.P50Us })},
		&Metric{Name: "svc_p99", Field: "latency[].p99_us", Unit: "µs", Latency: true, Better: Lower, Steps: paced,
			Meaning: "99th percentile service time at a fixed rate: from each operation's actual start (p99 is from the intended start there)",
			Formula: "as p99, of the rate's kind without _intended", Applies: hasSchedule,
			Value: service(func(l *results.Latency) float64 { return l.P99Us })},
		&Metric{Name: "pN", Field: "latency[].percentiles_us", Unit: "µs", Latency: true, Better: Lower,
			Meaning: "a percentile chosen with --percentiles (p99.99 ...)", Formula: "as p50, at N/100",
			Missing: "not asked for with --percentiles"},

		// Storage.
		&Metric{Name: "rMB/s", Field: "read_mb_per_sec", Unit: "MiB/s", Meaning: "bytes read from the device per second",
			Formula: "Δsectors_read · 512 / 1024² / secs", Missing: noDevice,
			Value:    storage(func(s *results.Step) float64 { return s.ReadMBPerSec }),
			Interval: func(iv *results.Interval) (float64, bool) { return iv.ReadMBPerSec, true }},
		&Metric{Name: "wMB/s", Field: "write_mb_per_sec", Unit: "MiB/s", Meaning: "bytes written to the device per second",
			Formula: "Δsectors_written · 512 / 1024² / secs", Missing: noDevice,
			Value:    storage(func(s *results.Step) float64 { return s.WriteMBPerSec }),
			Interval: func(iv *results.Interval) (float64, bool) { return iv.WriteMBPerSec, true }},
		&Metric{Name: "GBw", Field: "gb_written", Unit: "GiB", Meaning: "bytes written to the device in the step",
			Formula: "Δsectors_written · 512 / 1024³", Missing: noDevice,
			Value: storage(func(s *results.Step) float64 { return s.GBWritten })},
		&Metric{Name: "rKB/op", Field: "read_kb_per_op", Unit: "KB/op", Better: Lower, Missing: noDevice,
			Meaning: "KB read from the device per op", Formula: "Δsectors_read · 512 / 1024 / ops",
			Value: storage(func(s *results.Step) float64 { return s.ReadKBPerOp })},
		&Metric{Name: "wKB/op", Field: "write_kb_per_op", Unit: "KB/op", Better: Lower, Missing: noDevice,
			Meaning: "KB written to the device per op", Formula: "Δsectors_written · 512 / 1024 / ops",
			Steps: "steps whose rate does not count writes (with writes it is wKB/i)", Applies: func(s *results.Step) bool { return !s.RateHasRole(results.RoleWrite) },
			Value: storage(func(s *results.Step) float64 { return s.WriteKBPerOp })},
		&Metric{Name: "wKB/i", Field: "write_kb_per_insert", Unit: "KB/insert", Better: Lower, Missing: noDevice,
			Meaning: "KB written to the device per row written (per indexed row for an index build, per background insert in query steps)",
			Formula: "Δsectors_written · 512 / 1024 / rows written", Steps: "steps with write kinds",
			Applies: func(s *results.Step) bool { return s.HasRole(results.RoleWrite) },
			Value:   storage(func(s *results.Step) float64 { return s.WriteKBPerInsert })},
		&Metric{Name: "dKB/op", Field: "discard_kb_per_op", Unit: "KB/op", Missing: noDevice,
			Meaning: "KB discarded (TRIM) per op, never added to writes", Formula: "Δsectors_discarded · 512 / 1024 / ops",
			Value: storage(func(s *results.Step) float64 { return s.DiscardKBPerOp })},
		&Metric{Name: "fl/op", Field: "flushes_per_op", Unit: "flushes/op", Better: Lower, Missing: noDevice,
			Meaning: "cache flushes the device received per op (fsyncs that reached it)", Formula: "Δflushes_completed (diskstats field 16) / ops",
			Value: storage(func(s *results.Step) float64 { return s.FlushesPerOp })},

		// CPU.
		&Metric{Name: "tcpu_us/op", Field: "client_cpu_us_per_op + server_cpu_us_per_op", Unit: "µs/op", Better: Lower,
			Meaning: "the target's own CPU time per op: this process's (the engine's, when it is embedded; its worker's under --memory-limit), the observer's excluded, plus the managed server's process tree; other processes, and the kernel's work outside them (writeback of their files, interrupts), left out",
			Formula: "ccpu_us/op + scpu_us/op (an embedded engine: ccpu_us/op)", Missing: "a --dsn server (its CPU is not seen from here)",
			Value: TargetCPU},
		&Metric{Name: "cpu_us/op", Field: "host_cpu_us_per_op", Unit: "µs/op", Better: Lower,
			Meaning: "the host's CPU time per op: every process's, the target's and any other's (other%), as the kernel's ticks sample it (short of the exact time when CPUs idle between short bursts: then below ccpu_us/op)",
			Formula: "Δ(user+nice+system+irq+softirq) / USER_HZ · 10⁶ / ops (/proc/stat)",
			Value:   always(func(s *results.Step) float64 { return s.HostCPUUsPerOp })},
		&Metric{Name: "ccpu_us/op", Field: "client_cpu_us_per_op", Unit: "µs/op", Better: Lower,
			Meaning: "this process's CPU time per op, the observer's excluded (the engine's included when it is embedded)",
			Formula: "(Δ(utime+stime) from getrusage − Δ the observer thread's CPU) · 10⁶ / ops",
			Value:   always(func(s *results.Step) float64 { return s.ClientCPUUsPerOp })},
		&Metric{Name: "pcpu_us/op", Field: "process_cpu_us_per_op", Unit: "µs/op", Better: Lower,
			Meaning: "this process's CPU time per op, the observer's included", Formula: "Δ(utime+stime) from getrusage · 10⁶ / ops",
			Value: always(func(s *results.Step) float64 { return s.ProcessCPUUsPerOp })},
		&Metric{Name: "obs%", Field: "observer_cpu_pct", Unit: "% of a CPU", Better: Lower,
			Meaning:  "CPU of rumbench's observer (ticks, system and server samples, results writing, progress line), on its own thread",
			Formula:  "Δ CLOCK_THREAD_CPUTIME_ID of the tick thread / secs · 100",
			Value:    always(func(s *results.Step) float64 { return s.ObserverCPUPct }),
			Interval: func(iv *results.Interval) (float64, bool) { return iv.ObserverCPUPct, true }},
		&Metric{Name: "obs_us/tick", Field: "observer_us_per_tick", Unit: "µs/tick", Better: Lower,
			Meaning: "the observer's mean CPU time per tick", Formula: "Δ observer thread CPU / ticks",
			Value: always(func(s *results.Step) float64 { return s.ObserverUsPerTick })},
		&Metric{Name: "cs/op", Field: "cs_per_op", Unit: "switches/op", Better: Lower,
			Meaning: "context switches on the host per op", Formula: "Δctxt (/proc/stat) / ops",
			Value: always(func(s *results.Step) float64 { return s.CSPerOp })},
		&Metric{Name: "cpu%", Field: "host_cpu_pct", Unit: "%", Meaning: "host CPU busy, percent of all CPUs (vmstat us+sy)",
			Formula:  "Δbusy / Δ(busy+idle+iowait+steal) · 100",
			Value:    always(func(s *results.Step) float64 { return s.HostCPUPct }),
			Interval: func(iv *results.Interval) (float64, bool) { return iv.HostCPUPct, true }},
		&Metric{Name: "other%", Field: "other_cpu_pct", Unit: "% of the host", Better: Lower,
			Meaning: "user-mode CPU of the host's other processes (neither this process nor the managed server's tree), percent of all its CPUs; above 10, by more than the host counters' resolution, the step is marked busy host: its rates and response times shared the CPUs, cpu_us/op counts that CPU, tcpu_us/op leaves it out",
			Formula: "(Δ(user+nice) of /proc/stat − this process's user time (getrusage) − the managed server tree's utime+cutime) / Δ(all ticks) · 100, at least 0; user time only, as the kernel's threads and interrupts work for the target too (writeback of its files); busy host when above 10 + 2/(secs + settle_s) (two 10 ms ticks of each CPU over the step)",
			Missing: "a --dsn server (its processes cannot be told from the others), or a run recorded before rumbench measured it",
			Value:   OtherCPUPct},

		// Space and memory.
		&Metric{Name: "rows", Field: "rows", Unit: "rows", Integer: true, Meaning: "rows the tables hold at the end of the step",
			Formula: "inserted − deleted, by the workload's count", Value: always(func(s *results.Step) float64 { return float64(s.Rows) })},
		&Metric{Name: "db_MB", Field: "db_bytes", Unit: "MiB", Better: Lower, Meaning: "allocated size of the tables and indexes at the end of the step: the data directory without the engine's logs (log_MB); on a --dsn server, which has no data directory here, the server's own figure (eng_MB)",
			Formula:  "Σ st_blocks · 512 / 1024² (like du) over the data directory's files that are not logs",
			Value:    always(func(s *results.Step) float64 { return float64(s.DBBytes) / mib }),
			Interval: func(iv *results.Interval) (float64, bool) { return float64(iv.DBBytes) / mib, true }},
		&Metric{Name: "debt_MB", Field: "debt_bytes", Unit: "MiB", Better: Lower, Steps: "write steps that settled, on an LSM engine",
			Meaning: "the compaction the engine still owes after settling (pebble's estimated compaction debt, RocksDB's estimate-pending-compaction-bytes): write work the step caused and did not pay",
			Formula: "debt_bytes / 1024²", Missing: "the engine has no such estimate",
			Applies: func(s *results.Step) bool { return s.Settled != "" },
			Value: func(s *results.Step) (float64, bool) {
				if s.DebtBytes == nil {
					return 0, false
				}
				return float64(*s.DebtBytes) / mib, true
			}},
		&Metric{Name: "log_MB", Field: "log_bytes", Unit: "MiB", Meaning: "allocated size of the engine's logs at the end of the step: write-ahead logs, journals and their preallocated files, a managed server's log (the engine's log_files patterns in run.json)",
			Formula:  "Σ st_blocks · 512 / 1024² over the data directory's files that the engine's log_files match",
			Steps:    "steps of engines that keep logs in their data directory",
			Applies:  func(s *results.Step) bool { return s.LogBytes > 0 },
			Value:    always(func(s *results.Step) float64 { return float64(s.LogBytes) / mib }),
			Interval: func(iv *results.Interval) (float64, bool) { return float64(iv.LogBytes) / mib, true }},
		&Metric{Name: "eng_MB", Field: "engine_db_bytes", Unit: "MiB", Better: Lower, Missing: "the engine has no size figure of its own",
			Meaning: "the engine's own size figure (pebble DiskSpaceUsage, SQLite pages, pg_database_size...)", Formula: "engine_db_bytes / 1024²",
			Value: func(s *results.Step) (float64, bool) { return float64(s.EngineDBBytes) / mib, s.EngineDBBytes != 0 }},
		&Metric{Name: "B/row", Field: "bytes_per_row", Unit: "bytes/row", Better: Lower, Meaning: "allocated bytes of the tables and indexes per row held (logs apart)",
			Formula: "db_bytes / rows", Value: always(func(s *results.Step) float64 { return s.BytesPerRow })},
		&Metric{Name: "rss_MB", Field: "client_rss_mb", Unit: "MiB", Meaning: "this process's resident memory at the end of the step",
			Formula: "VmRSS (/proc/self/status)", Value: always(func(s *results.Step) float64 { return s.ClientRSSMB })},

		// Memory cap (--memory-limit): the engine's memory cgroup.
		&Metric{Name: "db/mem", Field: "db_bytes / memory.limit_bytes", Unit: "ratio", Missing: noCap,
			Meaning: "the database's size against the memory cap: above 1 it cannot all be cached", Formula: "db_bytes / memory.limit_bytes",
			Steps: "steps run with --memory-limit", Applies: hasMemory,
			Value: func(s *results.Step) (float64, bool) {
				if s.Memory == nil || s.Memory.LimitBytes <= 0 {
					return 0, false
				}
				return float64(s.DBBytes) / float64(s.Memory.LimitBytes), true
			}},
		&Metric{Name: "regime", Field: "read_kb_per_op, engine_counters, server_counters, latency", Unit: "cached | IO-bound | cache-bound",
			Missing: "run without --memory-limit on an engine that reports no cache pressure (stall_us/op, appevict/op), or no block device behind the data directory",
			Meaning: "whether the step ran from memory, waited on storage reads, or waited on the engine's cache or write stalls, from what it measured",
			Formula: "IO-bound when read_kb_per_op >= 1 (a quarter of a 4 KiB page per op); else cache-bound when the stall time (stall_us/op · ops) is at least a quarter of the operations' time (Σ count · mean response time of the step's kinds); else cached",
			Steps:   "steps run with --memory-limit, and steps of engines that report cache pressure", Applies: func(s *results.Step) bool { return hasMemory(s) || hasPressure(s) },
			Words: []string{"cached", "IO-bound", "cache-bound"}, Value: Regime},
		&Metric{Name: "stall_us/op", Field: "engine_counters, server_counters", Unit: "µs/op", Better: Lower,
			Missing: "the engine reports no stall time (sqlite, lmdb, bbolt, postgres, InnoDB, mongo)",
			Meaning: "time the engine's callers waited on its cache or its write stalls, per op (wiredtiger: waiting for cache space, evicting pages themselves, forced eviction, reading pages back; rocksdb, myrocks, pebble: write stalls)",
			Formula: "Σ Δ(wiredtiger app_cache_wait_us + force_evict_{dirty,clean,fail}_us + app_read_us; rocksdb rocksdb.stall.micros; pebble write_stall_us; myrocks rocksdb_stall_micros) / ops",
			Steps:   "steps of engines that report a stall time", Applies: func(s *results.Step) bool { _, ok := StallUs(s); return ok },
			Value: func(s *results.Step) (float64, bool) {
				v, ok := StallUs(s)
				return per(v, float64(s.Ops)), ok
			}},
		&Metric{Name: "appevict/op", Field: "engine_counters, server_counters", Unit: "pages/op", Better: Lower,
			Missing: "the engine reports no such count (all but wiredtiger and InnoDB)",
			Meaning: "pages the engine's callers had to free in its cache themselves before going on, per op (wiredtiger: pages evicted by application threads; InnoDB: waits for a free buffer pool page)",
			Formula: "Σ Δ(wiredtiger app_evict_pages; InnoDB Innodb_buffer_pool_wait_free) / ops",
			Steps:   "steps of wiredtiger and mysql (InnoDB)", Applies: func(s *results.Step) bool { _, ok := AppEvictions(s); return ok },
			Value: func(s *results.Step) (float64, bool) {
				v, ok := AppEvictions(s)
				return per(v, float64(s.Ops)), ok
			}},
		&Metric{Name: "cache_MB", Field: "memory.cache_bytes", Unit: "MiB", Missing: noCap,
			Meaning: "page cache charged to the engine's memory cgroup at the step's end", Formula: "v1 total_cache, v2 file (memory.stat) / 1024²",
			Steps: "steps run with --memory-limit", Applies: hasMemory, Value: memory(func(m *results.Memory) float64 { return float64(m.CacheBytes) / mib })},
		&Metric{Name: "anon_MB", Field: "memory.anon_bytes", Unit: "MiB", Missing: noCap,
			Meaning: "anonymous memory (heaps, engine caches) of the engine's memory cgroup at the step's end", Formula: "v1 total_rss, v2 anon (memory.stat) / 1024²",
			Steps: "steps run with --memory-limit", Applies: hasMemory, Value: memory(func(m *results.Memory) float64 { return float64(m.AnonBytes) / mib })},
		&Metric{Name: "majflt/op", Field: "memory.major_faults_per_op", Unit: "faults/op", Better: Lower, Missing: noCap,
			Meaning: "page faults that read storage, in the engine's memory cgroup, per op", Formula: "Δ pgmajfault (memory.stat; v1 total_pgmajfault) / ops",
			Steps: "steps run with --memory-limit", Applies: hasMemory, Value: memory(func(m *results.Memory) float64 { return m.MajorFaultsPerOp })},
		&Metric{Name: "refault/op", Field: "memory.refaults_per_op", Unit: "pages/op", Better: Lower, Missing: noCap,
			Meaning: "pages read back soon after the cap evicted them, per op: the working set does not fit", Formula: "Δ workingset_refault (file + anon; v1 total_) / ops",
			Steps: "steps run with --memory-limit", Applies: hasMemory, Value: memory(func(m *results.Memory) float64 { return m.RefaultsPerOp })},
		&Metric{Name: "psi_some", Field: "memory.psi_some_avg10", Unit: "%", Better: Lower, Missing: noCap + ", or cgroup v1 (no per-cgroup pressure)",
			Meaning: "share of the last 10 s of the step in which some of the engine's tasks stalled on memory", Formula: "memory.pressure some avg10 at the step's end",
			Steps: "steps run with --memory-limit on cgroup v2", Applies: hasMemory, Value: func(s *results.Step) (float64, bool) {
				if s.Memory == nil || s.Memory.PSISomeAvg10 == nil {
					return 0, false
				}
				return *s.Memory.PSISomeAvg10, true
			}},
		&Metric{Name: "psi_full", Field: "memory.psi_full_avg10", Unit: "%", Better: Lower, Missing: noCap + ", or cgroup v1 (no per-cgroup pressure)",
			Meaning: "share of the last 10 s of the step in which all of the engine's tasks stalled on memory", Formula: "memory.pressure full avg10 at the step's end",
			Steps: "steps run with --memory-limit on cgroup v2", Applies: hasMemory, Value: func(s *results.Step) (float64, bool) {
				if s.Memory == nil || s.Memory.PSIFullAvg10 == nil {
					return 0, false
				}
				return *s.Memory.PSIFullAvg10, true
			}},
		&Metric{Name: "oom", Field: "memory.oom_kills", Unit: "processes", Integer: true, Better: Lower, Missing: noCap,
			Meaning: "processes the kernel killed because the engine's cgroup hit its cap during the step (the step then fails)", Formula: "Δ oom_kill (v2 memory.events, v1 memory.oom_control)",
			Steps: "steps run with --memory-limit", Applies: hasMemory, Value: memory(func(m *results.Memory) float64 { return float64(m.OOMKills) })},

		// Servers.
		&Metric{Name: "scpu_us/op", Field: "server_cpu_us_per_op", Unit: "µs/op", Better: Lower, Missing: notManaged,
			Meaning: "the managed server's CPU time per op", Formula: "Δ Σ(utime+stime+cutime+cstime) over the server's process tree / 100 · 10⁶ / ops",
			Steps: "steps on a server", Applies: onServer, Value: managed(func(s *results.Step) float64 { return s.ServerCPUUsPerOp })},
		&Metric{Name: "srss_MB", Field: "server_rss_mb", Unit: "MiB", Missing: notManaged,
			Meaning: "the managed server's resident memory (Σ VmRSS of its processes)", Formula: "Σ VmRSS / 1024²",
			Steps: "steps on a server", Applies: onServer, Value: managed(func(s *results.Step) float64 { return s.ServerRSSMB })},
		&Metric{Name: "spss_MB", Field: "server_pss_mb", Unit: "MiB", Missing: notManaged,
			Meaning: "the managed server's proportional memory (shared buffers counted once)", Formula: "Σ Pss (smaps_rollup) / 1024²",
			Steps: "steps on a server", Applies: onServer, Value: managed(func(s *results.Step) float64 { return s.ServerPSSMB })},
		&Metric{Name: "srv_logB/op", Field: "log_bytes_per_op", Unit: "bytes/op", Better: Lower, Missing: notReported,
			Meaning: "log (WAL, redo, binlog) bytes per op by the server's own counters", Formula: "Δ server log counter / ops (see docs/metrics.md, Server engines)",
			Steps: "steps on a server", Applies: onServer, Value: counter(func(s *results.Step) float64 { return s.LogBytesPerOp })},
		&Metric{Name: "srv_fsync/op", Field: "server_fsyncs_per_op", Unit: "fsyncs/op", Better: Lower, Missing: notReported,
			Meaning: "fsyncs per op by the server's own counters", Formula: "Δ server fsync counter / ops (see docs/metrics.md, Server engines)",
			Steps: "steps on a server", Applies: onServer, Value: counter(func(s *results.Step) float64 { return s.ServerFsyncsPerOp })},

		// Sync accounting.
		label("source", "what counted the syncs: preload (servers), inprocess (SQLite), pebble-vfs, none"),
		label("check", "whether the sync counts agree with the device's flushes and the server's fsyncs (! names a shortfall)"),
		&Metric{Name: "commits", Field: "syscalls.commits", Unit: "commits", Integer: true, Missing: noSyscalls,
			Meaning: "write transactions of the step, the denominator of per-commit figures", Formula: "the workload's count",
			Applies: hasSyscalls, Value: syscalls(func(x *results.Syscalls) float64 { return float64(x.Commits) })},
		&Metric{Name: "sync/c", Field: "syscalls.syncs_per_commit", Unit: "syncs/commit", Better: Lower, Missing: noSyscalls,
			Meaning: "sync calls per commit (fsync, fdatasync, sync_file_range, msync, syncfs, O_DSYNC writes)", Formula: "Δsyncs / commits",
			Steps: "steps run with --syscalls", Applies: hasSyscalls, Value: syscalls(func(x *results.Syscalls) float64 { return x.SyncsPerCommit })},
		&Metric{Name: "log/c", Field: "syscalls.log_syncs_per_commit", Unit: "syncs/commit", Better: Lower, Missing: noSyscalls,
			Meaning: "syncs of log files per commit", Formula: "Δlog syncs / commits",
			Applies: hasSyscalls, Value: syscalls(func(x *results.Syscalls) float64 { return x.LogSyncsPerCommit })},
		&Metric{Name: "data/c", Field: "syscalls.data_syncs_per_commit", Unit: "syncs/commit", Better: Lower, Missing: noSyscalls,
			Meaning: "syncs of data files per commit", Formula: "Δdata syncs / commits",
			Applies: hasSyscalls, Value: syscalls(func(x *results.Syscalls) float64 { return x.DataSyncsPerCommit })},
		&Metric{Name: "other/c", Field: "syscalls.other_syncs_per_commit", Unit: "syncs/commit", Missing: noSyscalls,
			Meaning: "syncs of other files (directories, manifests) per commit", Formula: "Δother syncs / commits",
			Applies: hasSyscalls, Value: syscalls(func(x *results.Syscalls) float64 { return x.OtherSyncsPerCommit })},
		&Metric{Name: "dev_fl/c", Field: "syscalls.device_flushes_per_commit", Unit: "flushes/commit", Missing: noDevice,
			Meaning: "cache flushes the device received per commit", Formula: "Δflushes_completed / commits",
			Applies: hasSyscalls, Value: syscalls(func(x *results.Syscalls) float64 { return x.DeviceFlushesPerCommit })},
		&Metric{Name: "srv_fs/c", Field: "syscalls.server_fsyncs_per_commit", Unit: "fsyncs/commit", Missing: notReported,
			Meaning: "fsyncs per commit by the server's own counters", Formula: "Δ server fsync counter / commits",
			Applies: hasSyscalls, Value: syscalls(func(x *results.Syscalls) float64 { return x.ServerFsyncsPerCommit })},
		&Metric{Name: "logB/op", Field: "syscalls.log_bytes_per_op", Unit: "bytes/op", Better: Lower, Missing: noSyscalls,
			Meaning: "bytes written to log files per op, as the sync hooks counted them", Formula: "Δlog bytes / ops",
			Applies: hasSyscalls, Value: syscalls(func(x *results.Syscalls) float64 { return x.LogBytesPerOp })},
		&Metric{Name: "dataB/op", Field: "syscalls.data_bytes_per_op", Unit: "bytes/op", Better: Lower, Missing: noSyscalls,
			Meaning: "bytes written to data files per op, as the sync hooks counted them", Formula: "Δdata bytes / ops",
			Applies: hasSyscalls, Value: syscalls(func(x *results.Syscalls) float64 { return x.DataBytesPerOp })},
		&Metric{Name: "sync_us", Field: "syscalls.sync_us", Unit: "µs", Better: Lower, Missing: noSyscalls,
			Meaning: "mean real time of one sync call", Formula: "Σ sync time / syncs",
			Applies: hasSyscalls, Value: syscalls(func(x *results.Syscalls) float64 { return x.SyncUs })},
		&Metric{Name: "delay_s", Field: "syscalls.delay_secs", Unit: "s", Missing: noSyscalls,
			Meaning: "latency injected into the step's sync calls (--fsync-latency)", Formula: "syncs · injected latency",
			Applies: hasSyscalls, Value: syscalls(func(x *results.Syscalls) float64 { return x.DelaySecs })},
	)
}
