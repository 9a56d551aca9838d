package table

import "context"

// Engine is an open database that implements the table model. Its methods may be called from
// several goroutines; each worker does its data operations through its own Session.
//
// Engine is declared here, with the table model, rather than beside the engine registry
// (internal/engine): workloads depend on table only and must not import the registry, so the
// layers stay one-way (workload → table ← engine), and the registry's Spec.Open returns this
// interface.
type Engine interface {
	// Info describes the engine as opened (name, version, effective options).
	Info() Info
	// CreateTable creates t with its primary key, and its secondary indexes when withIndexes is
	// true. The table must not exist.
	CreateTable(ctx context.Context, t *Table, withIndexes bool) error
	// CreateIndexes builds every secondary index of t over the rows t holds now. Until it
	// returns, inserts maintain only the primary key.
	CreateIndexes(ctx context.Context, t *Table) error
	// NewSession opens a session (a connection, for a server) for one worker.
	NewSession(ctx context.Context) (Session, error)
	// Cleanup runs the engine's maintenance between the load and the query phases (memtable
	// flush and compaction, checkpoint, vacuum/analyze) and says what it did, in a few words.
	Cleanup(ctx context.Context) (string, error)
	// Size returns the engine's own figure for the logical database size in bytes, and false
	// when the engine has none.
	Size(ctx context.Context) (int64, bool, error)
	// Close closes the database. It is called once, after every session is closed.
	Close() error
}

// Info describes an open engine, for the manifest and the reports.
type Info struct {
	// Name is the registered engine name.
	Name string `json:"name"`
	// Family is "kv", "sql", "document" (the mongo engine) or "none".
	Family string `json:"family"`
	// Version is the engine's library or server version.
	Version string `json:"version"`
	// Stores is false for engines that keep no data (the null engine): invariants do not apply.
	Stores bool `json:"stores"`
	// Options are the effective engine options, every default resolved.
	Options map[string]string `json:"options"`
	// LogFiles are path.Match patterns of the files in the engine's data directory that hold
	// its logs rather than its tables and indexes: write-ahead logs, journals and their
	// preallocated files, a managed server's own log. A pattern without '/' matches a base
	// name (a matching directory takes all below it: "pg_wal"), one with '/' the path from
	// the data directory ("data/ib_logfile*"). The data directory's size is reported without
	// them (db_bytes) and with them apart (log_bytes).
	LogFiles []string `json:"log_files,omitempty"`
	// WholeRanges is true when the engine reads a whole table for every range read, whatever
	// its bounds (FerretDB, which filters ranges itself after fetching every row): a workload
	// that walks a table in ranges for its own checks walks it in as few ranges as its memory
	// allows. Measured operations are not changed.
	WholeRanges bool `json:"whole_ranges,omitempty"`
	// Dialect is a SQL engine's dialect (DialectPostgres, DialectMySQL, DialectSQLite): the key
	// of its statements' texts in Stmt.Dialects and of the DDL a workload writes for it; "" for
	// an engine without SQL. Workloads read it, never the engine's name.
	Dialect string `json:"dialect,omitempty"`
	// TableEngine is the storage engine a MySQL-dialect server creates tables with ("InnoDB",
	// "ROCKSDB"): the ENGINE= clause of DDL a workload writes itself; "" elsewhere.
	TableEngine string `json:"table_engine,omitempty"`
	// BinaryText says the engine binds byte values to text columns as binary, whatever their
	// bytes (MySQL's own wire path into latin1 columns): a workload may then declare text
	// columns for binary payloads, as a reference's DDL does.
	BinaryText bool `json:"binary_text,omitempty"`
	// Notes are caveats of the engine as opened, one line each (rumbench's settings an older
	// server release does not know and was started without): the run prints and records them.
	Notes []string `json:"notes,omitempty"`
}

// Session does data operations for one worker. It is not safe for concurrent use. Each call that
// writes is one transaction, committed (and synced when the engine syncs on commit) before it
// returns.
type Session interface {
	// Insert inserts rows (each with every column of t, primary key first) in one transaction.
	Insert(ctx context.Context, t *Table, rows *Rows) error
	// DeleteOldest deletes, in one transaction, the first n rows in primary-key order whose key is
	// at least fromPK, and returns how many it deleted.
	DeleteOldest(ctx context.Context, t *Table, fromPK int64, n int) (int, error)
	// Get looks up rows by primary key and appends the found ones to out, with the columns cols
	// (positions in t.Columns) in that order. Missing keys are skipped.
	Get(ctx context.Context, t *Table, pks []int64, cols []int, out *Rows) error
	// Scan appends to out up to limit entries of secondary index t.Indexes[index] in index order,
	// starting at the first entry whose leading columns are >= start (> start when inclusive is
	// false). Each output row holds the index's columns (a covering scan). len(start) may be
	// shorter than the index.
	Scan(ctx context.Context, t *Table, index int, start []Value, inclusive bool, limit int, out *Rows) error
	// Count returns the number of rows in t (index < 0) or of entries in secondary index index.
	Count(ctx context.Context, t *Table, index int) (int64, error)
	// Exec runs statement st with args (their order is described at Stmt). A Select appends its
	// result rows to out (columns st.Cols; one Int64 cell for Count and Sum) and returns how many
	// rows it returned; a write leaves out alone and returns how many rows it changed. A write
	// that meets a row held by another session's open transaction may fail with ErrConflict
	// after rolling back this session's transaction.
	Exec(ctx context.Context, st *Stmt, args []Value, out *Rows) (int64, error)
	// Begin opens a transaction: the writes that follow commit together at Commit (or are
	// dropped by Rollback). Without Begin each write commits itself.
	Begin(ctx context.Context) error
	// Commit commits the open transaction.
	Commit(ctx context.Context) error
	// Rollback drops the open transaction's writes; it is a no-op without one.
	Rollback(ctx context.Context) error
	// Close ends the session.
	Close() error
}

// Keeper is implemented by engines whose tables outlive the process (a data directory, a
// server): a later run can use the tables an earlier one loaded (rumbench prepare, run --reuse)
// or drop them (run --fresh on a --dsn server).
type Keeper interface {
	// AttachTable makes t, created and loaded by an earlier run in this database, usable by
	// this engine. It reports whether t exists and, when it has secondary indexes, whether
	// they were built. An engine that cannot tell an empty table from none reports an empty
	// table as absent.
	AttachTable(ctx context.Context, t *Table) (exists, indexed bool, err error)
	// DropTable removes t, its indexes and its rows; a table that does not exist is no error.
	DropTable(ctx context.Context, t *Table) error
}

// CheckSessioner is implemented by engines whose sessions may read something older than every
// write acknowledged so far: a cluster whose nodes apply the others' commits after those were
// acknowledged (Galera), or whose reads go to standbys. NewCheckSession opens a session whose
// every read sees each write acknowledged before the read began; the checks that read back what
// a step wrote (invariants, acknowledged writes) use it (workload.CheckSession).
type CheckSessioner interface {
	NewCheckSession(ctx context.Context) (Session, error)
}

// ContextCloser is implemented by engines whose Close can wait on something outside the process
// (a managed server's clean shutdown): CloseContext with a done ctx closes without waiting
// (the run was interrupted), killing what it must.
type ContextCloser interface {
	CloseContext(ctx context.Context) error
}

// CounterReporter is implemented by embedded engines that keep statistics of their own
// (compaction bytes, stall time, log syncs): the runner reads them at each step's start and end
// and records the deltas, except for levels (names ending in LevelSuffix), which it records as
// they are at the step's end.
type CounterReporter interface {
	// EngineCounters returns the engine's cumulative counters by their own names, and levels
	// (bytes in a cache, read amplification) named with LevelSuffix.
	EngineCounters() map[string]int64
}

// LevelSuffix ends the name of an engine counter that is a level, not a count: the runner
// records its value at the step's end instead of its change over the step ("cache_bytes_now").
const LevelSuffix = "_now"

// Settler is implemented by engines that defer work a write causes: a memtable that an LSM
// flushes later, a checkpoint that a B-tree or a server takes every minute, SQLite's WAL
// checkpoint. A published report's hour-long step contains that work; a step of seconds ends
// before it. The runner calls Settle at the end of a write step (after its workers stop, before
// its last sample), so that the step's write figures include what its operations caused.
type Settler interface {
	// Settle brings everything written so far to where the engine keeps it on disk and waits
	// for it: no deferred flush or checkpoint of data written before the call is left. It does
	// not compact. It reports what it did and the debt it leaves (an LSM's pending compaction).
	Settle(ctx context.Context) (Settled, error)
}

// Settled is what a Settle call did and left.
type Settled struct {
	// Did says what was brought to disk, in words ("memtable flush", "checkpoint").
	Did string
	// DebtBytes is the engine's estimate of the work it still owes for what was written
	// (pending compaction bytes of an LSM), -1 when it has no such figure.
	DebtBytes int64
}

// ThreadBound is implemented by engines whose sessions may wait for their server in blocking
// system calls on the calling goroutine's thread. ThreadBound reports whether they do with the
// options the engine was opened with; the runner then keeps each worker goroutine of a step with
// several workers on one OS thread for the whole step (runtime.LockOSThread), so that a worker
// does not move to another thread between its operations (each move wakes another thread and
// migrates the work).
type ThreadBound interface {
	ThreadBound() bool
}

// ServerReporter is implemented by engines that run on a database server. The runner samples it
// on every tick, next to the OS counters.
type ServerReporter interface {
	// ServerSample reads the server's cumulative counters and, for a server rumbench manages,
	// its process tree; with pss also the tree's proportional set size, which is costly (the
	// kernel walks the server's page tables): the runner asks for it at a step's start and end.
	ServerSample(ctx context.Context, pss bool) (ServerSample, error)
}

// ServerSample is one reading of a server's counters. Counters are cumulative; -1 means the
// server does not report that counter.
type ServerSample struct {
	// Managed is true when rumbench started the server: the process fields are valid.
	Managed bool
	// CPUTicks is the user+system CPU time of the server's process tree, reaped children
	// included, in USER_HZ ticks.
	CPUTicks uint64
	// UserTicks is the user-mode part of CPUTicks, in USER_HZ ticks.
	UserTicks uint64
	// RSSBytes and PSSBytes are the tree's resident and proportional set sizes.
	RSSBytes, PSSBytes int64
	// LogBytes is what the server reports it wrote to its redo/WAL log (and binlog), bytes.
	LogBytes int64
	// Fsyncs is the syncs the server reports it issued (WAL syncs; InnoDB data + log fsyncs).
	Fsyncs int64
	// Counters are the server's other cumulative counters by their own names (checkpoints,
	// data bytes written, compaction bytes, ...), reported per step as deltas.
	Counters map[string]int64
	// Repl is a cluster's replication state (nil: one server). The process fields above are
	// then the sums over the cluster's managed servers.
	Repl *Replication
}
