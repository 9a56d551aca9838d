// Package results defines the result model (the stable, documented schema of run.json,
// intervals.jsonl and steps.json) and writes run directories.
//
// Field names are snake_case with the unit in the name. docs/results.md documents every field; a
// change here is a schema change and must be made there too.
package results

import (
	"time"

	"github.com/rumbench/rumbench/internal/hist"
)

// SchemaVersion is the version of the result schema written in run.json.
const SchemaVersion = 1

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
)

// Latency is the response-time distribution of one kind of operation over a step, in µs.
type Latency struct {
	// Kind is the operation kind: insert, delete, range_query, point_query, create_index; a
	// "_intended" suffix marks response time measured from the paced intended start.
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

// Step is the record of one target × step: the figures of DESIGN section 4.
type Step struct {
	Target    string    `json:"target"`
	Engine    string    `json:"engine"`
	Step      string    `json:"step"`
	Status    string    `json:"status"`
	Error     string    `json:"error,omitempty"`
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	WarmupSec float64   `json:"warmup_secs"`
	// Secs is the measured duration (after warm-up).
	Secs float64 `json:"secs"`
	// RateKinds names the kinds counted in ops; Ops is their unit count (rows for inserts and
	// index builds, queries for query steps).
	RateKinds []string `json:"rate_kinds"`
	Ops       int64    `json:"ops"`
	// Rate is ops/secs, the step's headline figure: inserts/s for load steps, indexed rows/s for
	// l.x, queries/s for queries; for a sysbench test the reference's QPS (statements/s, BEGIN and
	// COMMIT included), and for the scan test thousand rows scanned per second (Krps).
	Rate float64 `json:"rate_per_sec"`
	// Group is the sysbench test group: "point" (point queries), "range" (range queries without
	// aggregation), "range_agg" (with aggregation), "write"; empty for other workloads.
	Group string `json:"group,omitempty"`
	// Events is the number of sysbench events (one transaction, or one statement without a
	// transaction) and EventsPerSec their rate; Statements counts every statement they ran,
	// BEGIN and COMMIT included (sysbench's "queries").
	Events       int64   `json:"events"`
	EventsPerSec float64 `json:"events_per_sec"`
	Statements   int64   `json:"statements"`
	// Retries counts operations abandoned after a deadlock or lock conflict (rolled back) and
	// tried again; they are not in Ops (sysbench's "ignored errors").
	Retries int64 `json:"retries"`

	RowsInserted     int64 `json:"rows_inserted"`
	RowsDeleted      int64 `json:"rows_deleted"`
	Queries          int64 `json:"queries"`
	InsertStatements int64 `json:"insert_statements"`
	DeleteStatements int64 `json:"delete_statements"`
	// RowsPerQuery is the mean number of rows a query returned (the insert benchmark expects 10).
	RowsPerQuery float64 `json:"rows_per_query"`
	IPS          float64 `json:"ips"`
	DPS          float64 `json:"dps"`
	QPS          float64 `json:"qps"`

	// Rows is the table rows at the end of the step (all tables).
	Rows int64 `json:"rows"`
	// DBBytes is the allocated size of the data directory (st_blocks·512) at the end of the step.
	DBBytes         int64 `json:"db_bytes"`
	DBApparentBytes int64 `json:"db_apparent_bytes"`
	// EngineDBBytes is the engine's own size figure, 0 when it has none.
	EngineDBBytes int64   `json:"engine_db_bytes"`
	BytesPerRow   float64 `json:"bytes_per_row"`

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

	HostCPUPct       float64 `json:"host_cpu_pct"`
	HostCPUUsPerOp   float64 `json:"host_cpu_us_per_op"`
	ClientCPUUsPerOp float64 `json:"client_cpu_us_per_op"`
	CSPerOp          float64 `json:"cs_per_op"`
	ClientRSSMB      float64 `json:"client_rss_mb"`
	ClientMaxRSSMB   float64 `json:"client_max_rss_mb"`

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
	// Syscalls is the sync and write accounting of the step (--syscalls), nil when off.
	Syscalls *Syscalls `json:"syscalls,omitempty"`

	MaxInsertUs float64 `json:"max_insert_us"`
	MaxDeleteUs float64 `json:"max_delete_us"`
	MaxQueryUs  float64 `json:"max_query_us"`
	// RateP50 and RateP99 are percentiles of the per-second rate, sorted descending: the rate
	// that 50% and 99% of the seconds met or exceeded.
	RateP50 float64 `json:"rate_p50_per_sec"`
	RateP99 float64 `json:"rate_p99_per_sec"`

	// TargetIPS is the background writers' target in rows/s (0: not paced); TargetMet says
	// whether ips reached 95% of it.
	TargetIPS float64 `json:"target_ips"`
	TargetMet *bool   `json:"target_met,omitempty"`

	// Cleanup says what the engine's maintenance did before this step, if it ran.
	Cleanup     string    `json:"cleanup,omitempty"`
	CleanupSecs float64   `json:"cleanup_secs,omitempty"`
	Latency     []Latency `json:"latency"`
}

// Interval is one line of intervals.jsonl: one target × step × tick.
type Interval struct {
	Target string  `json:"target"`
	Step   string  `json:"step"`
	T      float64 `json:"t_secs"`
	Secs   float64 `json:"secs"`
	// Per-second rates over the interval.
	IPS  float64 `json:"ips"`
	DPS  float64 `json:"dps"`
	QPS  float64 `json:"qps"`
	Rate float64 `json:"rate_per_sec"`
	// Largest response time in the interval, per kind, µs (0: none).
	MaxInsertUs float64 `json:"max_insert_us"`
	MaxDeleteUs float64 `json:"max_delete_us"`
	MaxQueryUs  float64 `json:"max_query_us"`
	// Cumulative counts since the step's start.
	RowsInserted int64 `json:"rows_inserted"`
	RowsDeleted  int64 `json:"rows_deleted"`
	Queries      int64 `json:"queries"`
	// System figures over the interval.
	ReadMBPerSec    float64 `json:"read_mb_per_sec"`
	WriteMBPerSec   float64 `json:"write_mb_per_sec"`
	DiscardMBPerSec float64 `json:"discard_mb_per_sec"`
	HostCPUPct      float64 `json:"host_cpu_pct"`
	ClientCPUPct    float64 `json:"client_cpu_pct"`
	ClientRSSMB     float64 `json:"client_rss_mb"`
	// ServerCPUPct (100 = one CPU) and ServerRSSMB of a managed server.
	ServerCPUPct float64 `json:"server_cpu_pct"`
	ServerRSSMB  float64 `json:"server_rss_mb"`
	DBBytes      int64   `json:"db_bytes"`
}
