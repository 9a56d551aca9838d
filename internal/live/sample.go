// Package live is the view of a run while it goes on: the sample the runner's tick publishes
// for each target × step (what the tick has merged already: the meters' counters and
// histograms, the system sample), the registry that keeps the latest of each, and the
// OpenMetrics endpoint a Prometheus server scrapes (--metrics-listen). It also turns a
// recorded run's intervals and steps into the same series with timestamps (rumbench report
// --format openmetrics), so a past run can be loaded beside live ones. See docs/live.md.
package live

import (
	"github.com/rumbench/rumbench/internal/hist"
)

// Bounds are the upper bounds of the response-time histogram's classic buckets, ns: 1, 2 and
// 5 of each power of ten from 1 µs to 10 s (22 buckets and +Inf).
var Bounds = []int64{
	1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, // µs
	1e6, 2e6, 5e6, 1e7, 2e7, 5e7, 1e8, 2e8, 5e8, // ms
	1e9, 2e9, 5e9, 1e10, // s
}

// Sample is one target × step as one tick of the runner left it: counts since the step's start,
// the response-time histogram of its measured window, the system's counters since the step's
// start and the latest gauges. A figure that was not measured is -1 (a device, a managed
// server, sync accounting, a memory cap, an engine's stall counters absent).
//
// It is built on the runner's observer thread from the tick's merged snapshot (never on an
// operation's path) and, for an engine under --memory-limit, streamed from the engine worker
// to the coordinator as one JSON line per tick.
type Sample struct {
	// Target, Rep and Step name the series (Rep: the repetition, 0 in a run without repeats);
	// Engine is the target's registered engine.
	Target string `json:"target"`
	Rep    int    `json:"rep,omitempty"`
	Step   string `json:"step"`
	Engine string `json:"engine"`
	// UnixMs is when the tick was taken, ms since the Unix epoch.
	UnixMs int64 `json:"t_ms"`
	// Final marks the step's last tick: its counts are the step's record's.
	Final bool `json:"final,omitempty"`
	// RateName and Rate are the step's headline rate over the last interval (per second, or
	// as the workload scales it: TPC-C's per minute); 0 on the step's first sample.
	RateName string  `json:"rate_name"`
	Rate     float64 `json:"rate"`
	// Ops is the count the step's per-op figures divide by, of every unit of work that
	// ended (the warm-up's included): the headline kinds' units or calls as each declares.
	Ops   int64  `json:"ops"`
	Kinds []Kind `json:"kinds"`
	// Commits are the write transactions (Meter.Commit, else the write and delete kinds'
	// calls); Retries the operations abandoned after a conflict and tried again.
	Commits int64 `json:"commits"`
	Retries int64 `json:"retries"`

	// The device behind the data directory since the step's start: bytes read and written,
	// flush requests (-1: no device).
	ReadBytes    int64 `json:"read_bytes"`
	WrittenBytes int64 `json:"written_bytes"`
	Flushes      int64 `json:"flushes"`
	// ContextSwitches are the host's since the step's start (-1: not read).
	ContextSwitches int64 `json:"context_switches"`
	// ClientCPUNs is this process's CPU time since the step's start less the observer's
	// (ccpu_us/op's numerator), ObserverCPUNs the observer thread's, ns.
	ClientCPUNs   int64 `json:"client_cpu_ns"`
	ObserverCPUNs int64 `json:"observer_cpu_ns"`
	// ServerCPUNs is a managed server's process tree's CPU time since the step's start, ns
	// (-1: no managed server).
	ServerCPUNs int64 `json:"server_cpu_ns"`
	// Syncs are the engine's sync calls since the step's start (--syscalls; -1 without).
	Syncs int64 `json:"syncs"`
	// StallUs is the engine's stall time since the step's start (stall_us/op's numerator),
	// as last read: an embedded engine's counters are read at the step's start and end and
	// with --pss-every-secs, a server's every tick (-1: the engine reports none).
	StallUs int64 `json:"stall_us"`
	// AppEvictions are the pages the engine's callers evicted themselves since the step's
	// start, read as StallUs (-1: none reported).
	AppEvictions int64 `json:"app_evictions"`

	// Gauges: this process's and a managed server's RSS, bytes (-1: not read; no managed
	// server); the memory cgroup's pressure under --memory-limit (PSI some avg10, 0..1; -1:
	// no cap or no PSI); the data directory's tables and indexes, allocated bytes (-1: not
	// measured).
	ClientRSSBytes int64   `json:"client_rss_bytes"`
	ServerRSSBytes int64   `json:"server_rss_bytes"`
	MemoryPressure float64 `json:"memory_pressure"`
	DBBytes        int64   `json:"db_bytes"`

	// partial marks a point of a past run that holds only its step record's figures (the
	// histogram and the counts only the record has): the interval's figures are left out.
	partial bool
}

// Kind is one operation kind of a sample.
type Kind struct {
	Name string `json:"name"`
	Role string `json:"role"`
	Unit string `json:"unit,omitempty"`
	// Ops and Units count every operation of the kind that ended since the step's start, the
	// warm-up's included (as the per-second progress does).
	Ops   int64 `json:"ops"`
	Units int64 `json:"units"`
	// Count and SumNs are the measured window's operations (the step record's count) and the
	// sum of their response times, ns; Buckets the cumulative count at each of Bounds.
	Count   int64   `json:"count"`
	SumNs   int64   `json:"sum_ns"`
	Buckets []int64 `json:"buckets"`
}

// SetHistogram fills k's measured count, sum and classic buckets from a histogram snapshot.
func (k *Kind) SetHistogram(s *hist.Snapshot) {
	k.Count, k.SumNs = s.Total, s.Sum
	if len(k.Buckets) != len(Bounds) {
		k.Buckets = make([]int64, len(Bounds))
	}
	s.CountsAtMost(Bounds, k.Buckets)
}
