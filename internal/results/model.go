// Package results defines the result model (the stable, documented schema of run.json,
// intervals.jsonl and steps.json) and writes run directories.
//
// Field names are snake_case with the unit in the name. docs/results.md documents every field; a
// change here is a schema change and must be made there too.
package results

import (
	"slices"
	"time"

	"github.com/rumbench/rumbench/internal/hist"
)

// SchemaVersion is the version of the result schema written in run.json.
// Version 3: write steps settle (settle_secs), db_bytes leaves the engine's logs out (log_bytes).
const SchemaVersion = 3

// Step statuses.
const (
	// StatusOK means the step ran to completion.
	StatusOK = "ok"
	// StatusTimeLimit means the step was stopped by its duration limit before its writers finished.
	StatusTimeLimit = "time_limit"
	// StatusInterrupted means the run was cancelled (Ctrl-C) during the step.
	StatusInterrupted = "interrupted"
	// StatusFailed means an operation failed; Error says how.
	StatusFailed = "failed"
	// StatusDegraded means the step ran to completion but its figures cannot be trusted;
	// Step.Degraded says why.
	StatusDegraded = "degraded"
	// StatusRunning is a run's status while it goes on.
	StatusRunning = "running"
	// StatusAbandoned is the status of a run whose process died while it ran (killed): it was
	// left "running" (Manifest.Abandoned).
	StatusAbandoned = "abandoned"
)

// Latency is the response-time distribution of one kind of operation over a step, in µs.
type Latency struct {
	// Kind is the operation kind as the workload declared it (Step.Kinds); a "_intended" suffix
	// marks response time measured from the paced intended start.
	Kind   string  `json:"kind"`
	Count  int64   `json:"count"`
	MeanUs float64 `json:"mean_us"`
	P50Us  float64 `json:"p50_us"`
	P90Us  float64 `json:"p90_us"`
	P95Us  float64 `json:"p95_us"`
	P99Us  float64 `json:"p99_us"`
	P999Us float64 `json:"p99_9_us"`
	MaxUs  float64 `json:"max_us"`
	// Percentiles are the extra percentiles asked for with --percentiles, µs, keyed by their
	// name ("p99.99").
	Percentiles map[string]float64 `json:"percentiles_us,omitempty"`
	// Buckets is the histogram: count of operations with response time <= le_ns.
	Buckets []hist.Bucket `json:"buckets,omitempty"`
}

// Operation roles: what an operation kind does to the data. The runner aggregates rates by role
// (ips, dps, qps) and reports choose columns by the roles a step's kinds have.
const (
	// RoleRead operations read (queries, lookups, scans); rates count their calls.
	RoleRead = "read"
	// RoleWrite operations add or change rows (inserts, updates, index builds).
	RoleWrite = "write"
	// RoleDelete operations remove rows.
	RoleDelete = "delete"
	// RoleOther operations mix reads and writes (a sysbench event, a transaction of several
	// statements) or do something else.
	RoleOther = "other"
)

// Roles lists the operation roles.
var Roles = []string{RoleRead, RoleWrite, RoleDelete, RoleOther}

// Kind is the count of one operation kind over a step or up to an interval: a kind is a name a
// workload declares for its step ("insert", "point_query", "event", "get_links_list"), with a role.
type Kind struct {
	Name string `json:"name"`
	Role string `json:"role"`
	// Unit names what Units counts ("rows", "statements").
	Unit string `json:"unit,omitempty"`
	// Ops is the number of operations (calls), Units the units they covered (rows inserted or
	// returned, statements run).
	Ops   int64 `json:"ops"`
	Units int64 `json:"units"`
	// MaxUs is the largest response time, µs: over the measured window for a step (the largest
	// per-interval maximum), over the interval for an interval record.
	MaxUs float64 `json:"max_us"`
}

// Step is the record of one target × step: the figures of DESIGN section 4.
type Step struct {
	Target string `json:"target"`
	// Rep is the repetition this record is of, 1..N in a run with --repeat N (N > 1), 0 in a
	// run without repeats. Reports summarize a target's repetitions of a step as one figure
	// with its interval.
	Rep    int    `json:"rep,omitempty"`
	Engine string `json:"engine"`
	Step   string `json:"step"`
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// Degraded gives the reasons the step's figures cannot be trusted (status "degraded", or
	// beside another status): nothing measured, a warm-up that never ended, a starved sampler,
	// more client threads than the host can run.
	Degraded []string `json:"degraded,omitempty"`
	// Remarks are the workload's own findings on this target's step, a line each (TPC-C's
	// figures derived from its kinds, and its response times checked against the
	// specification's limits), shown under the step's table.
	Remarks   []string  `json:"remarks,omitempty"`
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	WarmupSec float64   `json:"warmup_secs"`
	// Secs is the measured duration of the step's operations (after warm-up, before settling):
	// the rates divide by it.
	Secs float64 `json:"secs"`
	// SettleSecs is the time the step spent settling after its operations: the engine's
	// deferred work for what it wrote (a memtable flush, a checkpoint) and the file system's
	// dirty pages brought to disk. Its writes and CPU are in the step's per-op figures, its
	// time is not in Secs; the device's MB/s divide by Secs + SettleSecs. 0: no settling.
	SettleSecs float64 `json:"settle_secs,omitempty"`
	// Settled says what settling did ("memtable flush; syncfs"); empty when the step did not
	// settle (a read step, --settle off, or a long step under --settle auto).
	Settled string `json:"settled,omitempty"`
	// DebtBytes is the work the engine still owes after settling, in bytes (an LSM's pending
	// compaction); nil when the engine has no such figure or the step did not settle.
	DebtBytes *int64 `json:"debt_bytes,omitempty"`

	// RateName, RateUnit and PerOp are the step's presentation, declared by its workload: the
	// headline rate's short name ("ips", "qps", "Krps"), its unit ("rows/s") and what one op of
	// Ops is, the denominator of every per-op figure ("inserted row", "query", "statement").
	RateName string `json:"rate_name"`
	RateUnit string `json:"rate_unit"`
	PerOp    string `json:"per_op"`
	// Note is the workload's one-line legend of the step's table.
	Note string `json:"note,omitempty"`
	// Group places the step in a group of the workload (Manifest.Groups): grouped steps are
	// reported in one table per group with a row per step and target (sysbench's test groups).
	Group string `json:"group,omitempty"`
	// RateKinds names the kinds counted in Ops, by their units or by their calls as the
	// workload declared (rows for inserts and index builds, queries for queries, statements for
	// sysbench events).
	RateKinds []string `json:"rate_kinds"`
	Ops       int64    `json:"ops"`
	// Rate is ops/secs, the step's headline figure, except where the workload defines it
	// otherwise (sysbench's scan: thousand rows scanned per second from the mean latency).
	Rate float64 `json:"rate_per_sec"`
	// CallsPerSec is the calls of the rate kinds per second: sysbench events/s, insert
	// transactions/s, and the same as Rate where the rate counts calls.
	CallsPerSec float64 `json:"calls_per_sec"`
	// Kinds are the step's operation kinds as declared, with their counts and largest response
	// time.
	Kinds []Kind `json:"kinds"`
	// IPS, DPS and QPS aggregate the kinds by role: rows written per second (write kinds'
	// units), rows deleted per second (delete kinds' units) and reads per second (read kinds'
	// calls).
	IPS float64 `json:"ips"`
	DPS float64 `json:"dps"`
	QPS float64 `json:"qps"`
	// Retries counts operations abandoned after a deadlock or lock conflict (rolled back) and
	// tried again; they are not in Ops (sysbench's "ignored errors").
	Retries int64 `json:"retries"`
	// Errors counts the operations that failed with an error the step tolerated (rumbench run
	// --tolerate-errors, --fault), by class (table.ErrorClass: "connection", "timeout",
	// "conflict", "constraint", "other"), warm-up included; absent when none failed.
	Errors map[string]int64 `json:"errors,omitempty"`
	// FirstErrors is an error message of each class of Errors (the first one a worker met).
	FirstErrors map[string]string `json:"first_errors,omitempty"`
	// UnknownOutcome is the failed operations whose connection broke in flight: they may have
	// committed. Reconnects is the sessions' successes after a lost connection.
	UnknownOutcome int64 `json:"unknown_outcome,omitempty"`
	Reconnects     int64 `json:"reconnects,omitempty"`
	// Faults are the faults injected into the step (rumbench run --fault) and their figures;
	// AckCheck the workload's check of its acknowledged writes after them (nil: none ran).
	Faults []Fault `json:"faults,omitempty"`
	// Endpoints are a cluster's servers over the measured window (docs/clusters.md) and
	// Replication its replication state; absent for one server.
	Endpoints   []Endpoint   `json:"endpoints,omitempty"`
	Replication *Replication `json:"replication,omitempty"`
	AckCheck    *AckCheck    `json:"ack_check,omitempty"`

	// Rows is the table rows at the end of the step (all tables).
	Rows int64 `json:"rows"`
	// DBBytes is the allocated size (st_blocks·512) of the data directory's tables and indexes
	// at the end of the step: the directory without the engine's logs (LogBytes; see
	// table.Info.LogFiles). DBApparentBytes is the same files' st_size sum.
	DBBytes         int64 `json:"db_bytes"`
	DBApparentBytes int64 `json:"db_apparent_bytes"`
	// LogBytes is the allocated size of the engine's logs, journals and their preallocated
	// files in the data directory at the end of the step (pebble's and RocksDB's WAL,
	// WiredTiger's log and preplog files, SQLite's -wal, PostgreSQL's pg_wal, InnoDB's redo).
	LogBytes int64 `json:"log_bytes"`
	// EngineDBBytes is the engine's own size figure, 0 when it has none.
	EngineDBBytes int64 `json:"engine_db_bytes"`
	// BytesPerRow is DBBytes / Rows: the tables' and indexes' bytes per row, logs apart.
	BytesPerRow float64 `json:"bytes_per_row"`

	// Device is the block device counted (empty: storage figures were not measured).
	Device           string  `json:"device"`
	ReadMBPerSec     float64 `json:"read_mb_per_sec"`
	WriteMBPerSec    float64 `json:"write_mb_per_sec"`
	DiscardMBPerSec  float64 `json:"discard_mb_per_sec"`
	GBRead           float64 `json:"gb_read"`
	GBWritten        float64 `json:"gb_written"`
	ReadsPerOp       float64 `json:"reads_per_op"`
	ReadKBPerOp      float64 `json:"read_kb_per_op"`
	WritesPerInsert  float64 `json:"writes_per_insert"`
	WriteKBPerInsert float64 `json:"write_kb_per_insert"`
	// WriteKBPerOp is KB written per op (the unit of Ops), for every workload.
	WriteKBPerOp   float64 `json:"write_kb_per_op"`
	DiscardKBPerOp float64 `json:"discard_kb_per_op"`
	FlushesPerOp   float64 `json:"flushes_per_op"`

	HostCPUPct     float64 `json:"host_cpu_pct"`
	HostCPUUsPerOp float64 `json:"host_cpu_us_per_op"`
	// ClientCPUUsPerOp is this process's CPU per op without the observer's (the sampling
	// thread: ticks, samples, results writing, progress line); ProcessCPUUsPerOp with it.
	ClientCPUUsPerOp  float64 `json:"client_cpu_us_per_op"`
	ProcessCPUUsPerOp float64 `json:"process_cpu_us_per_op"`
	// ObserverCPUPct is the observer's CPU, percent of one CPU; ObserverUsPerTick its mean
	// work per tick, µs.
	ObserverCPUPct    float64 `json:"observer_cpu_pct"`
	ObserverUsPerTick float64 `json:"observer_us_per_tick"`
	CSPerOp           float64 `json:"cs_per_op"`
	// OtherCPUPct is the user-mode CPU of the host's other processes over the step (neither
	// this process nor a managed server's tree), percent of all the host's CPUs: user time only,
	// so that the kernel's work for the target (its threads writing back the target's files,
	// interrupts) is not counted as other processes'. Absent for a --dsn server (its processes
	// cannot be told from the others) and in runs recorded before it was measured.
	OtherCPUPct    *float64 `json:"other_cpu_pct,omitempty"`
	ClientRSSMB    float64  `json:"client_rss_mb"`
	ClientMaxRSSMB float64  `json:"client_max_rss_mb"`

	// Server is "managed" (rumbench started it: process figures present), "external" (--dsn:
	// only the server's own counters) or "" (embedded engine).
	Server           string  `json:"server,omitempty"`
	ServerCPUUsPerOp float64 `json:"server_cpu_us_per_op"`
	ServerRSSMB      float64 `json:"server_rss_mb"`
	ServerPSSMB      float64 `json:"server_pss_mb"`
	// LogBytesPerOp and ServerFsyncsPerOp come from the server's counters (PostgreSQL
	// pg_stat_wal; InnoDB/MyRocks status); -1 when the server does not report them.
	LogBytesPerOp     float64 `json:"log_bytes_per_op"`
	ServerFsyncsPerOp float64 `json:"server_fsyncs_per_op"`
	// ServerCounters are the server's other counters over the step (deltas), by their own names.
	ServerCounters map[string]int64 `json:"server_counters,omitempty"`
	// EngineCounters are an embedded engine's own statistics over the step (deltas), by their
	// own names (RocksDB's tickers, WiredTiger's statistics).
	EngineCounters map[string]int64 `json:"engine_counters,omitempty"`
	// Syscalls is the sync and write accounting of the step (--syscalls), nil when off.
	Syscalls *Syscalls `json:"syscalls,omitempty"`
	// Memory is the step's figures from the memory cgroup of --memory-limit, nil without a cap.
	Memory *Memory `json:"memory,omitempty"`

	// RateP50 and RateP99 are percentiles of the per-second rate, sorted descending: the rate
	// that 50% and 99% of the seconds met or exceeded; RateIntervals is the number of full
	// intervals they come from (0: the step was shorter than a tick, no per-second rate).
	RateP50       float64 `json:"rate_p50_per_sec"`
	RateP99       float64 `json:"rate_p99_per_sec"`
	RateIntervals int     `json:"rate_intervals"`
	// RateCVPct is the coefficient of variation, %, of the rate over the step's measured time
	// cut into RateSlices equal slices (sampled every 20 ms, whatever the step's length); and
	// RateNoisePct the half-width, % of the rate, of the 95% interval of the step's rate that
	// the slices give (Student's t over the slice means). RateSlices is 0 when the step was too
	// short to cut (fewer than three samples): its noise is not known.
	RateCVPct    float64 `json:"rate_cv_pct"`
	RateNoisePct float64 `json:"rate_noise_pct"`
	RateSlices   int     `json:"rate_slices"`

	// TargetIPS is the background writers' target in rows/s (0: not paced); TargetMet says
	// whether ips reached 95% of it.
	TargetIPS float64 `json:"target_ips"`
	TargetMet *bool   `json:"target_met,omitempty"`
	// Schedule is the step's fixed rate (rumbench run --rate) and how its clients kept to it;
	// nil when the run set no rate or the step has no worker it paces.
	Schedule *Schedule `json:"schedule,omitempty"`

	// Cleanup says what the engine's maintenance did before this step, if it ran.
	Cleanup     string    `json:"cleanup,omitempty"`
	CleanupSecs float64   `json:"cleanup_secs,omitempty"`
	Latency     []Latency `json:"latency"`
	// Shards are each shard's own figures in a merged run (rumbench merge), in shard order;
	// absent otherwise.
	Shards []ShardStep `json:"shards,omitempty"`
}

// Schedule is a step's fixed rate (rumbench run --rate) and what its clients achieved. Its
// rates count units of work: a transaction, an event, a request, an operation, or a row for a
// writer whose rate counts rows (the step's PerOp says which).
type Schedule struct {
	// Rate is the rate asked for, units per second over all clients; Arrivals how they were
	// spaced ("poisson", "uniform").
	Rate     float64 `json:"rate_per_sec"`
	Arrivals string  `json:"arrivals"`
	// Offered is the units the schedules held in the measured window (by intended start), per
	// second: Rate, give or take the schedule's own chance (Poisson arrivals in T seconds vary by
	// about sqrt(Rate·T)). Achieved is the units started per second of the window (by actual
	// start, as the step's operations count): the rate the clients kept; Met says whether it
	// came within 1% of Offered.
	Offered  float64 `json:"offered_per_sec"`
	Achieved float64 `json:"achieved_per_sec"`
	Met      bool    `json:"met"`
	// LagMeanMs is the mean over the operations started in the window of how late each started
	// (actual start − intended start), ms: pgbench's "schedule lag". LagMaxSecs is the largest
	// lag a tick saw (how far behind the clients were), s, and Backlog the operations of the
	// window due but not started when the clients stopped (each client's schedule counted).
	LagMeanMs  float64 `json:"lag_mean_ms"`
	LagMaxSecs float64 `json:"lag_max_secs"`
	Backlog    int64   `json:"backlog"`
	// LatencyLimitMs is --latency-limit (0: none); Skipped the operations skipped because they
	// were later than it when their turn came (not run, not errors).
	LatencyLimitMs float64 `json:"latency_limit_ms,omitempty"`
	Skipped        int64   `json:"skipped"`
}

// ShardStep is one shard's figures of a merged step: its share of the operations and the
// figures of its client host and process, which a merged step sums (process figures) or counts
// once per host (host-wide figures).
type ShardStep struct {
	Shard    int     `json:"shard"`
	RunID    string  `json:"run_id"`
	Hostname string  `json:"hostname"`
	Status   string  `json:"status"`
	Ops      int64   `json:"ops"`
	Secs     float64 `json:"secs"`
	Rate     float64 `json:"rate_per_sec"`
	// Host and process figures as the shard recorded them (see Step).
	HostCPUPct       float64 `json:"host_cpu_pct"`
	HostCPUUsPerOp   float64 `json:"host_cpu_us_per_op"`
	ClientCPUUsPerOp float64 `json:"client_cpu_us_per_op"`
	ClientRSSMB      float64 `json:"client_rss_mb"`
	ClientMaxRSSMB   float64 `json:"client_max_rss_mb"`
	GBRead           float64 `json:"gb_read"`
	GBWritten        float64 `json:"gb_written"`
	WriteKBPerOp     float64 `json:"write_kb_per_op"`
	P99Us            float64 `json:"p99_us"`
}

// Interval is one line of intervals.jsonl: one target × step × tick.
type Interval struct {
	Target string `json:"target"`
	// Rep is the repetition the interval belongs to (see Step.Rep).
	Rep  int     `json:"rep,omitempty"`
	Step string  `json:"step"`
	T    float64 `json:"t_secs"`
	Secs float64 `json:"secs"`
	// Settle marks the interval of the step's settling (see Step.SettleSecs): no operations,
	// the deferred writes; left out of the per-second rate percentiles.
	Settle bool `json:"settle,omitempty"`
	// Per-second rates over the interval: the headline (named RateName, as the step's) and the
	// role aggregates (see Step).
	RateName string  `json:"rate_name,omitempty"`
	Rate     float64 `json:"rate_per_sec"`
	// RateKinds names the kinds the rate counts, as the step's.
	RateKinds []string `json:"rate_kinds,omitempty"`
	IPS       float64  `json:"ips"`
	DPS       float64  `json:"dps"`
	QPS       float64  `json:"qps"`
	// Kinds are the step's operation kinds: counts since the step's start and the largest
	// response time in the interval (0: none).
	Kinds []Kind `json:"kinds"`
	// System figures over the interval.
	ReadMBPerSec    float64 `json:"read_mb_per_sec"`
	WriteMBPerSec   float64 `json:"write_mb_per_sec"`
	DiscardMBPerSec float64 `json:"discard_mb_per_sec"`
	HostCPUPct      float64 `json:"host_cpu_pct"`
	ClientCPUPct    float64 `json:"client_cpu_pct"`
	ObserverCPUPct  float64 `json:"observer_cpu_pct"`
	ClientRSSMB     float64 `json:"client_rss_mb"`
	// ServerCPUPct (100 = one CPU) and ServerRSSMB of a managed server.
	ServerCPUPct float64 `json:"server_cpu_pct"`
	ServerRSSMB  float64 `json:"server_rss_mb"`
	// ServerPSSMB is the managed server's PSS on the ticks it is read (--pss-every-secs, and
	// the step's last), absent otherwise.
	ServerPSSMB float64 `json:"server_pss_mb,omitempty"`
	// DBBytes and LogBytes are the data directory's tables and indexes and its logs, allocated
	// bytes (see Step).
	DBBytes  int64 `json:"db_bytes"`
	LogBytes int64 `json:"log_bytes,omitempty"`
	// LagSecs is how far behind their schedules the paced clients are at the interval's end
	// (the most behind, s) and Backlog the operations due but not started then; absent when
	// no client is paced or none is behind.
	LagSecs float64 `json:"lag_secs,omitempty"`
	Backlog int64   `json:"backlog,omitempty"`
	// Failed is the operations that failed in the interval (tolerated errors), Faults the
	// kinds of the faults injected in it.
	Failed int64    `json:"failed,omitempty"`
	Faults []string `json:"faults,omitempty"`
	// ReplLagBytes and ReplLagSecs are a cluster's replication lag at the interval's end: the
	// standby furthest behind, in WAL bytes not yet replayed and replay delay (s); for Galera,
	// FlowPaused is the fraction of the interval the nodes' replication was paused by flow
	// control (mean over the nodes) and CertFailures the certification failures in it.
	ReplLagBytes int64   `json:"repl_lag_bytes,omitempty"`
	ReplLagSecs  float64 `json:"repl_lag_secs,omitempty"`
	FlowPaused   float64 `json:"flow_paused,omitempty"`
	CertFailures int64   `json:"cert_failures,omitempty"`
}

// Endpoint is one server of a cluster over a step's measured window: what the sessions sent it
// and, for a server rumbench started, its process tree.
type Endpoint struct {
	// Name is "primary", "replicaN", "nodeN", or host:port of a --dsn list; Role its part at
	// the step's end: primary, replica, node, or down (a killed primary).
	Name string `json:"name"`
	Role string `json:"role"`
	// Stmts is the statements sent to it, StmtsPerSec their rate, the percentiles and the
	// largest of their response times (µs; the largest within the histogram's bucket
	// resolution), Errors those that failed.
	Stmts       int64   `json:"stmts"`
	StmtsPerSec float64 `json:"stmts_per_sec"`
	P50Us       float64 `json:"p50_us"`
	P99Us       float64 `json:"p99_us"`
	MaxUs       float64 `json:"max_us"`
	Errors      int64   `json:"errors,omitempty"`
	// CPUPct is its process tree's CPU over the window (100 = one CPU) and RSSMB its resident
	// memory at the end; absent for a server the user runs or one that is down.
	CPUPct float64 `json:"cpu_pct,omitempty"`
	RSSMB  float64 `json:"rss_mb,omitempty"`
}

// Replication is a cluster's replication over a step's measured window, from the per-second
// readings.
type Replication struct {
	// Kind is "streaming" (PostgreSQL's standbys: the lag figures) or "galera" (the flow
	// control and certification figures).
	Kind string `json:"kind"`
	// Replicas is the standbys streaming at the end (Galera: the cluster's nodes).
	Replicas int `json:"replicas"`
	// LagBytesMax and LagBytesMean are the WAL bytes the standby furthest behind had not
	// replayed, largest and mean of the readings; LagSecsMax its largest replay delay (s).
	LagBytesMax  int64   `json:"lag_bytes_max"`
	LagBytesMean float64 `json:"lag_bytes_mean"`
	LagSecsMax   float64 `json:"lag_secs_max"`
	// Galera: FlowPaused is the fraction of the window the nodes' replication was paused by
	// flow control (mean over the nodes), CertFailures the certification failures and BFAborts
	// the transactions they aborted, RecvQueueMax the longest queue of write sets a node had
	// received and not applied.
	FlowPaused   float64 `json:"flow_paused,omitempty"`
	CertFailures int64   `json:"cert_failures,omitempty"`
	BFAborts     int64   `json:"bf_aborts,omitempty"`
	RecvQueueMax int64   `json:"recv_queue_max,omitempty"`
}

// Fault is one fault injected into a step (rumbench run --fault) and what the clients saw.
type Fault struct {
	// Kind is "kill", "restart", "stop", "sever" or "kill-primary" (a failover: the primary
	// killed and left down, a replica promoted); AtSecs when it was injected, from the
	// step's start; ForSecs how long a stop or a sever lasted.
	Kind   string  `json:"kind"`
	AtSecs float64 `json:"at_secs"`
	// Node is the cluster's server it was aimed at ("": the primary or the first node).
	Node    string  `json:"node,omitempty"`
	ForSecs float64 `json:"for_secs,omitempty"`
	// Error says why the fault could not be injected or the server not started again.
	Error string `json:"error,omitempty"`
	// UnavailSecs is how long the target served no one: from the first operation that failed
	// after the fault (for a stop, which stalls rather than fails: the fault) to the first
	// success, by any client, of an operation started after its own failure; 0 when no
	// operation failed. Until the step's end when none succeeded again (Unrecovered).
	UnavailSecs float64 `json:"unavail_secs"`
	// RecoverSecs is from the fault to the end of the first interval after the outage whose
	// rate is back to 90% of BaselineRate, the median per-interval rate of the 30 s before the
	// fault; absent when it was not back by the step's end (Unrecovered) or there was no
	// interval before the fault. RecoveryP99Us is the p99 response time of that window (from
	// the intended starts at a fixed rate).
	RecoverSecs   *float64 `json:"recover_secs,omitempty"`
	BaselineRate  float64  `json:"baseline_rate_per_sec"`
	RecoveryP99Us float64  `json:"recovery_p99_us,omitempty"`
	Unrecovered   bool     `json:"unrecovered,omitempty"`
	// Failed is the operations that failed from the fault to the next one (or the step's end),
	// Unknown those of them of unknown outcome.
	Failed  int64 `json:"failed"`
	Unknown int64 `json:"unknown_outcome"`
	// ServerReadySecs is how long the server took, after it was started again (kill,
	// restart), to accept connections: its crash recovery after a kill; for a Galera node,
	// until it is synced with the cluster again (its rejoin); for kill-primary, from the kill to
	// the promoted replica accepting writes (the failover).
	ServerReadySecs float64 `json:"server_ready_secs,omitempty"`
}

// AckCheck is a workload's check, after a step with faults, of the writes its clients were told
// committed (workload.AckChecker).
type AckCheck struct {
	// Checked says whether the step's writes could be checked; How says how, or why not.
	Checked bool   `json:"checked"`
	How     string `json:"how"`
	// Acknowledged is the writes the clients were told committed, Unknown those whose
	// connection broke in flight (they may or may not have committed).
	Acknowledged int64 `json:"acknowledged"`
	Unknown      int64 `json:"unknown_outcome"`
	// Lost is the acknowledged writes the check did not find: at least this many (an
	// operation of unknown outcome that committed can hide one lost write).
	Lost int64 `json:"lost"`
}

// Kind returns the step's kind named name, nil when the step has none.
func (s *Step) Kind(name string) *Kind { return findKind(s.Kinds, name) }

// KindOps returns the operations (calls) of the step's kind name, 0 when it has none.
func (s *Step) KindOps(name string) int64 {
	if k := s.Kind(name); k != nil {
		return k.Ops
	}
	return 0
}

// KindUnits returns the units (rows, statements) of the step's kind name, 0 when it has none.
func (s *Step) KindUnits(name string) int64 {
	if k := s.Kind(name); k != nil {
		return k.Units
	}
	return 0
}

// Kind returns the interval's kind named name, nil when it has none.
func (iv *Interval) Kind(name string) *Kind { return findKind(iv.Kinds, name) }

func findKind(ks []Kind, name string) *Kind {
	for i := range ks {
		if ks[i].Name == name {
			return &ks[i]
		}
	}
	return nil
}

// HasRole says whether the step has a kind of role with at least one operation.
func (s *Step) HasRole(role string) bool {
	for _, k := range s.Kinds {
		if k.Role == role && k.Ops > 0 {
			return true
		}
	}
	return false
}

// RateHasRole says whether the step's headline rate counts a kind of role.
func (s *Step) RateHasRole(role string) bool {
	for _, k := range s.Kinds {
		if k.Role == role && slices.Contains(s.RateKinds, k.Name) {
			return true
		}
	}
	return false
}

// MaxUs returns the largest response time (µs) of the kinds the filter keeps, and whether any
// kind was kept that ran.
func (s *Step) MaxUs(keep func(k *Kind) bool) (float64, bool) {
	var m float64
	ok := false
	for i := range s.Kinds {
		if k := &s.Kinds[i]; k.Ops > 0 && keep(k) {
			m, ok = max(m, k.MaxUs), true
		}
	}
	return m, ok
}

// Memory is a step's figures from the memory cgroup that capped its engine (--memory-limit):
// the engine's process (an embedded engine's worker, a managed server's process tree) and the
// page cache of the files it touched, charged to one cgroup.
type Memory struct {
	// LimitBytes is the cap, bytes; CgroupVersion the cgroup hierarchy's version (1 or 2).
	LimitBytes    int64 `json:"limit_bytes"`
	CgroupVersion int   `json:"cgroup_version"`
	// CacheBytes, AnonBytes and UsageBytes are the cgroup's page cache, anonymous memory and
	// total charge at the step's end, bytes.
	CacheBytes int64 `json:"cache_bytes"`
	AnonBytes  int64 `json:"anon_bytes"`
	UsageBytes int64 `json:"usage_bytes"`
	// MajorFaultsPerOp is the cgroup's page faults that read storage (pgmajfault) per op;
	// RefaultsPerOp the pages read back after the cap evicted them (workingset_refault) per op.
	MajorFaultsPerOp float64 `json:"major_faults_per_op"`
	RefaultsPerOp    float64 `json:"refaults_per_op"`
	// PSISomeAvg10 and PSIFullAvg10 are the cgroup's memory pressure at the step's end (PSI
	// avg10, percent of the last 10 s some / all tasks stalled on memory); absent where the
	// kernel gives none (cgroup v1).
	PSISomeAvg10 *float64 `json:"psi_some_avg10,omitempty"`
	PSIFullAvg10 *float64 `json:"psi_full_avg10,omitempty"`
	// OOMKills is the processes the kernel killed during the step because the cgroup hit its
	// cap (a killed step fails with "out of memory under the cap").
	OOMKills int64 `json:"oom_kills"`
}
