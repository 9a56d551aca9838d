// Package sqlite registers the "sqlite" engine: SQLite (mattn/go-sqlite3, cgo, the bundled
// amalgamation) in WAL mode (or a rollback journal: journal_mode=delete), an update-in-place B-tree, under the SQL family adapter.
//
// The primary key is an INTEGER PRIMARY KEY (the rowid: a clustered B-tree, as in InnoDB). Sync
// on commit maps to synchronous=FULL (the WAL is synced at every commit); without it,
// synchronous=NORMAL (synced at checkpoints only). The cache size applies to each connection;
// under a memory cap, SQLite's soft heap limit holds all of them to the engine's share.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/engine/sqlfam"
	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/syncacct"
	"github.com/rumbench/rumbench/internal/syncacct/cshim"
	"github.com/rumbench/rumbench/internal/table"
)

var options = map[string]string{
	"journal_mode": "wal or delete (default wal)",
	"page_size":    "database page size in bytes, a power of two 512..65536 (default 4096)",
	"synchronous":  "overrides the --sync mapping: off, normal, full or extra",
}

func init() {
	engine.Register(engine.Spec{
		Name:         "sqlite",
		PerUnitBytes: perUnitBytes,
		Description:  "B-tree (SQLite via mattn/go-sqlite3, WAL or rollback journal: journal_mode), SQL family",
		Options:      options,
		Open:         open,
		SQL:          true,
		MaxColumns:   2000, // SQLITE_MAX_COLUMN as go-sqlite3 compiles it
		Check: func(extra map[string]string) error {
			_, err := parse(extra, true)
			return err
		},
	})
}

// config holds the parsed engine-specific options.
type config struct {
	journal, syncMode string
	page              int64
}

// parse reads the options; sync is the --sync setting that synchronous defaults from.
func parse(extra map[string]string, sync bool) (config, error) {
	var c config
	var err error
	if c.journal, err = engine.ChoiceOption("sqlite", extra, "journal_mode", "wal", "wal", "delete"); err != nil {
		return c, err
	}
	if c.page, err = engine.IntOption("sqlite", extra, "page_size", 4096); err != nil {
		return c, err
	}
	if c.page < 512 || c.page > 65536 || c.page&(c.page-1) != 0 {
		return c, fmt.Errorf("engine sqlite option page_size=%d is not a power of two in 512..65536", c.page)
	}
	syncDef := "normal"
	if sync {
		syncDef = "full"
	}
	c.syncMode, err = engine.ChoiceOption("sqlite", extra, "synchronous", syncDef, "off", "normal", "full", "extra")
	return c, err
}

func open(ctx context.Context, o engine.Options) (table.Engine, error) {
	if err := engine.CheckExtra("sqlite", o.Extra, options); err != nil {
		return nil, err
	}
	c, err := parse(o.Extra, o.Sync)
	if err != nil {
		return nil, err
	}
	journal, page, syncMode := c.journal, c.page, c.syncMode
	path := filepath.Join(o.Dir, "sqlite.db")
	q := url.Values{}
	q.Set("_journal_mode", journal)
	q.Set("_synchronous", syncMode)
	q.Set("_busy_timeout", "60000")
	q.Set("_txlock", "immediate")
	q.Set("_cache_size", strconv.FormatInt(-(o.CacheBytes>>10), 10))
	db, err := sql.Open("sqlite3", "file:"+input.SQLitePath(path)+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	// page_size must be set before the first table exists; journal_mode=wal persists in the file.
	if _, err := db.ExecContext(ctx, "PRAGMA page_size="+strconv.FormatInt(page, 10)); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	if _, err := db.ExecContext(ctx, "VACUUM"); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	if o.MemoryBytes > 0 {
		// The cache is per connection: under a cap, SQLite's heap in this process (every
		// connection's pages) is held to the engine's share; past it SQLite reuses its pages.
		if _, err := db.ExecContext(ctx, "PRAGMA soft_heap_limit="+strconv.FormatInt(o.MemoryBytes, 10)); err != nil {
			db.Close()
			return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
		}
	}
	version, _, _ := sqlite3.Version()
	info := table.Info{
		Name:    "sqlite",
		Version: version,
		Dialect: table.DialectSQLite,
		// The write-ahead log and its index, or the rollback journal.
		LogFiles: []string{"*-wal", "*-shm", "*-journal"},
		Options: map[string]string{
			"cache_mb":     strconv.FormatInt(o.CacheBytes>>20, 10) + " per connection",
			"sync":         strconv.FormatBool(o.Sync),
			"journal_mode": journal,
			"synchronous":  syncMode,
			"page_size":    strconv.FormatInt(page, 10),
		},
	}
	if o.MemoryBytes > 0 {
		info.Options["soft_heap_limit_mb"] = strconv.FormatInt(o.MemoryBytes>>20, 10) + " (all connections, --memory-limit)"
	}
	e := sqlfam.New(db, dialect{}, info)
	e.DetachStatements() // embedded: no goroutine per statement to watch the step's context
	if !o.SyncAcct.Enabled {
		return e, nil
	}
	ip, err := cshim.StartInProcess(o.Dir, syncacct.SQLitePatterns, o.SyncAcct.Latency)
	if err != nil {
		e.Close()
		return nil, err
	}
	return &acctEngine{Engine: e, InProcess: ip}, nil
}

// acctEngine is the engine with its sync accounting: SQLite runs in this process and its libc
// calls go to the shim linked into this binary (package cshim), which counts them.
type acctEngine struct {
	*sqlfam.Engine
	*cshim.InProcess
}

// Close closes the engine and turns the accounting off.
func (e *acctEngine) Close() error {
	err := e.Engine.Close()
	e.InProcess.Stop()
	return err
}

// dialect is SQLite's SQL.
type dialect struct{}

func (dialect) Name() string { return "sqlite" }

func (dialect) ColumnType(c table.Column) string {
	switch c.Type {
	case table.Bytes:
		if c.Fixed {
			return fmt.Sprintf("CHAR(%d)", c.MaxLen)
		}
		if c.MaxLen > 0 {
			return fmt.Sprintf("VARCHAR(%d)", c.MaxLen)
		}
		return "BLOB"
	}
	// Timestamps are unix seconds: INTEGER (a DATETIME declaration would make the driver parse
	// them as time values).
	return "INTEGER"
}

// PrimaryKey declares an integer key as the rowid alias, which SQLite assigns (largest + 1) when
// NULL is inserted; a string key is a unique index beside the rowid, as YCSB's JDBC table has it.
func (d dialect) PrimaryKey(c table.Column) string {
	if c.Type == table.Bytes {
		return sqlfam.StringKey(d, c)
	}
	return c.Name + " INTEGER PRIMARY KEY"
}

// AutoIDInsert inserts NULL into the rowid alias, which generates the key.
func (dialect) AutoIDInsert(t *table.Table) string { return sqlfam.AutoIDInsertNull(t) }
func (dialect) TableSuffix() string                { return "" }

// BeginStatement opens transactions with BEGIN IMMEDIATE, as the connection's _txlock says:
// a deferred transaction that reads, then writes, can fail to upgrade its lock (SQLITE_BUSY at
// once, busy timeout or not) while another connection writes.
func (dialect) BeginStatement() string { return "BEGIN IMMEDIATE" }

// ReadOnly: SQLite has no read-only transaction; query_only makes the connection refuse every
// write until it is turned off.
func (dialect) ReadOnly() (begin, end []string) {
	return []string{"PRAGMA query_only = ON"}, []string{"PRAGMA query_only = OFF"}
}

// Duplicate recognizes a primary key or unique constraint failure.
func (dialect) Duplicate(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.ExtendedCode == sqlite3.ErrConstraintPrimaryKey || se.ExtendedCode == sqlite3.ErrConstraintUnique)
}

// Conflict recognizes SQLITE_BUSY and SQLITE_LOCKED (another connection holds the lock).
func (dialect) Conflict(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked)
}
func (dialect) Placeholder(int) string { return "?" }
func (dialect) MaxParams() int         { return 32766 }
func (dialect) NativeTime() bool       { return false }

func (dialect) IndexDDL(t *table.Table) []string { return sqlfam.CreateIndexStatements(t) }

func (dialect) IndexHint(t *table.Table, ix table.Index) string {
	return "INDEXED BY " + sqlfam.IndexName(t, ix)
}

// DeleteOldest uses the PostgreSQL form of the reference's delete (an IN subquery with ORDER BY
// and LIMIT), which SQLite supports without SQLITE_ENABLE_UPDATE_DELETE_LIMIT.
func (dialect) DeleteOldest(t *table.Table) string { return sqlfam.DeleteOldestIn(t, "?", "?") }

// Cleanup runs ANALYZE and a truncating WAL checkpoint, SQLite's counterpart of the reference's
// ANALYZE TABLE plus a flush of dirty pages.
func (dialect) Cleanup(ctx context.Context, db *sql.DB, tables []string) (string, error) {
	if _, err := db.ExecContext(ctx, "ANALYZE"); err != nil {
		return "", err
	}
	if _, err := db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return "", err
	}
	return "ANALYZE, wal_checkpoint(TRUNCATE)", nil
}

// Settle implements sqlfam.Settler: in WAL mode a passive checkpoint, which copies the WAL's
// frames into the database file as SQLite's automatic checkpoint does every 1000 pages (in
// rollback-journal mode the database file is written at commit: nothing is deferred).
func (dialect) Settle(ctx context.Context, db *sql.DB) (table.Settled, error) {
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return table.Settled{}, err
	}
	if mode != "wal" {
		return table.Settled{DebtBytes: -1}, nil
	}
	var busy, frames, done int64
	if err := db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &done); err != nil {
		return table.Settled{}, err
	}
	return table.Settled{Did: fmt.Sprintf("wal_checkpoint(PASSIVE): %d of %d frames", done, frames), DebtBytes: -1}, nil
}

// Size is page_count × page_size: the main database file, without the WAL.
func (dialect) Size(ctx context.Context, db *sql.DB) (int64, bool, error) {
	var pages, size int64
	if err := db.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		return 0, false, err
	}
	if err := db.QueryRowContext(ctx, "PRAGMA page_size").Scan(&size); err != nil {
		return 0, false, err
	}
	return pages * size, true, nil
}
