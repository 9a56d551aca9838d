package results

// Syscalls is a step's sync and write accounting (rumbench run --syscalls or --fsync-latency):
// what the hooks counted (the preloaded library in a managed server, the shim linked in for
// SQLite, the wrapping vfs.FS for Pebble), next to the device's flushes and the server's own
// fsync counter over the same window. Per-commit figures divide by Commits, per-op figures by
// the step's Ops. docs/results.md documents the fields, docs/metrics.md the formulas.
type Syscalls struct {
	// Source names the hooks: preload, inprocess, pebble-vfs or none.
	Source string `json:"source"`
	// Complete is false when the engine syncs or writes through a path the hooks cannot see;
	// Note says which (e.g. InnoDB's asynchronous data-page writes, bbolt's Go system calls).
	Complete bool   `json:"complete"`
	Note     string `json:"note,omitempty"`
	// InjectedLatencyUs is the latency slept in every sync call (--fsync-latency), µs.
	InjectedLatencyUs float64 `json:"injected_latency_us"`
	// Commits is the step's write transactions (the workload's count; for the insert benchmark
	// its insert and delete statements, each one transaction).
	Commits int64 `json:"commits"`
	// Syncs is every counted sync: fsync + fdatasync + sync_file_range + msync + syncfs + sync +
	// O_DSYNC/O_SYNC writes; the other counts break it down by call.
	Syncs          int64 `json:"syncs"`
	Fsyncs         int64 `json:"fsyncs"`
	Fdatasyncs     int64 `json:"fdatasyncs"`
	SyncFileRanges int64 `json:"sync_file_ranges"`
	Msyncs         int64 `json:"msyncs"`
	Syncfs         int64 `json:"syncfs"`
	DsyncWrites    int64 `json:"dsync_writes"`
	// Syncs per commit, in total and by file class (log, data, other).
	SyncsPerCommit      float64 `json:"syncs_per_commit"`
	LogSyncsPerCommit   float64 `json:"log_syncs_per_commit"`
	DataSyncsPerCommit  float64 `json:"data_syncs_per_commit"`
	OtherSyncsPerCommit float64 `json:"other_syncs_per_commit"`
	// WriteCalls and the bytes written per class (write, pwrite, writev, pwritev... calls).
	WriteCalls        int64   `json:"write_calls"`
	LogBytes          int64   `json:"log_bytes"`
	DataBytes         int64   `json:"data_bytes"`
	OtherBytes        int64   `json:"other_bytes"`
	LogBytesPerOp     float64 `json:"log_bytes_per_op"`
	DataBytesPerOp    float64 `json:"data_bytes_per_op"`
	LogBytesPerCommit float64 `json:"log_bytes_per_commit"`
	// SyncUs is the mean real time of a sync call (injected delay excluded), µs; DelaySecs the
	// total latency injected over the step, seconds.
	SyncUs    float64 `json:"sync_us"`
	DelaySecs float64 `json:"delay_secs"`
	// Side by side: device flushes (diskstats) and the server's own fsync counter per commit,
	// -1 when not measured.
	DeviceFlushesPerCommit float64 `json:"device_flushes_per_commit"`
	ServerFsyncsPerCommit  float64 `json:"server_fsyncs_per_commit"`
	// Disagree lists the sources the hooks fall short of beyond the tolerance: a sign of a sync
	// path they cannot see (empty: consistent).
	Disagree []string `json:"disagree,omitempty"`
}
