// Package postgres registers the "postgres" engine: PostgreSQL through pgx under the SQL family
// adapter. Sessions use pgx's connection API (pgconn: statements prepared once per session, run
// as one write of Bind, Execute and Sync with binary arguments and results from reused buffers,
// the reply read with pgx's message decoder) over blocking sockets by default; the
// client and io options choose database/sql or Go's network poller instead. The schema, the
// maintenance and the server's counters go through database/sql.
//
// Managed mode (the default): rumbench creates a private instance in the engine's data directory,
// applies its settings (shared_buffers = --cache-mb, synchronous_commit = --sync) and then the
// user's --server-config file, starts it on 127.0.0.1 and stops it when the engine closes. With
// --dsn it uses a server the user runs, and server-process figures are absent.
package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/engine/sqlfam"
	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/redact"
	"github.com/rumbench/rumbench/internal/server"
	"github.com/rumbench/rumbench/internal/syncacct"
	"github.com/rumbench/rumbench/internal/table"
)

var options = map[string]string{
	"dsn":           "URL of a running server (external mode), e.g. postgres://user@host:5432/db",
	"server_config": "postgresql.conf fragment applied after rumbench's settings (managed mode)",
	"server_bin":    "directory of the PostgreSQL server binaries (default: discovered)",
	"cluster":       "a primary with streaming replicas rumbench starts: replicas=N[,sync=on|off] (--cluster)",
	"read_from":     "with a cluster, where read-only statements go: primary or replicas (--read-from)",
}

func init() {
	for k, v := range sqlfam.ClientOptions {
		options[k] = v
	}
}

func init() {
	engine.Register(engine.Spec{
		Name: "postgres",
		// shared_buffers hold pages as on disk, plus a quarter free.
		CachePerFileByte: 1.25,
		PerUnitBytes:     perUnitBytes,
		Description:      "PostgreSQL (heap + B-tree indexes), private managed instance or --dsn; SQL family via pgx",
		Options:          options,
		Open:             open,
		Server:           true,
		Faults:           true,
		ClusterKind:      "replicas",
		// The client path: how the sessions talk to the server, not what it stores.
		ClientOptions: sqlfam.ClientOptionKeys(),
		Check:         check,
		SQL:           true,
		// Sessions share a thread (--jobs) over raw sockets.
		SharedThreads: sqlfam.SharedThreads,
		MaxColumns:    1600, // MaxHeapAttributeNumber
		Release: func(ctx context.Context, binDir string) (string, error) {
			return server.BinaryVersion(ctx, server.Postgres, binDir)
		},
	})
}

// check refuses, before any work, a --dsn that does not parse and, for a managed server,
// PostgreSQL programs that are not found.
func check(extra map[string]string) error {
	if list := extra["dsn"]; list != "" {
		dsns := sqlfam.SplitDSNs(list, dsnStarts)
		if len(dsns) > sqlfam.MaxDSNs {
			return fmt.Errorf("--dsn: a list of %d servers: at most %d", len(dsns), sqlfam.MaxDSNs)
		}
		for _, dsn := range dsns {
			if redact.UnescapedAt(dsn) {
				return fmt.Errorf("--dsn %s: %s", input.Short(redact.DSN(dsn)), redact.AtRule)
			}
			if _, err := pgx.ParseConfig(dsn); err != nil {
				return fmt.Errorf("--dsn %s: not a PostgreSQL URL or key=value string (want e.g. postgres://user@host:5432/db, or a comma-separated list of them)", input.Short(redact.DSN(dsn)))
			}
		}
		return nil
	}
	return server.CheckBinaries(server.Postgres, extra["server_bin"])
}

// maintenanceWorkMem is PostgreSQL's default maintenance_work_mem, bytes.
const maintenanceWorkMem = 64 << 20

// settings returns rumbench's server settings: shared_buffers from the cache, sync, serial
// index builds, and under a cap (o.MemoryBytes) maintenance_work_mem last, within what the
// share leaves beside shared_buffers.
func settings(o engine.Options) []server.Setting {
	sync := "off"
	if o.Sync {
		sync = "on"
	}
	sets := []server.Setting{
		{Name: "shared_buffers", Value: strconv.FormatInt(o.CacheBytes>>20, 10) + "MB"},
		{Name: "synchronous_commit", Value: sync},
		{Name: "max_parallel_maintenance_workers", Value: "0"}, // serial index builds, as the reference's configs
	}
	if o.MemoryBytes > 0 {
		// An index build and the three autovacuum workers each take up to maintenance_work_mem:
		// four parts of what the share leaves.
		sets = append(sets, server.Setting{Name: "maintenance_work_mem", Value: strconv.FormatInt(o.BufferBytes(4, maintenanceWorkMem)>>20, 10) + "MB"})
	}
	return sets
}

func open(ctx context.Context, o engine.Options) (table.Engine, error) {
	if err := engine.CheckExtra("postgres", o.Extra, options); err != nil {
		return nil, err
	}
	info := table.Info{Name: "postgres", Options: map[string]string{
		"cache_mb": strconv.FormatInt(o.CacheBytes>>20, 10), "sync": strconv.FormatBool(o.Sync),
	}, LogFiles: []string{"pg_wal", "server.log"}, Dialect: table.DialectPostgres} // the WAL and the managed server's log
	choice, err := sqlfam.ParseClientOptions("postgres", o.Extra, info.Options)
	if err != nil {
		return nil, err
	}
	dsn := o.Extra["dsn"]
	if v := o.Extra["cluster"]; v != "" {
		spec, err := engine.ParseCluster(v)
		if err != nil {
			return nil, err
		}
		if spec.Galera > 0 || dsn != "" {
			return nil, fmt.Errorf("postgres: --cluster %s: PostgreSQL clusters are replicas=N, started by rumbench (not with --dsn)", v)
		}
		return openCluster(ctx, o, info, choice, spec)
	}
	if dsns := sqlfam.SplitDSNs(dsn, dsnStarts); len(dsns) > 1 {
		readFrom, err := engine.ChoiceOption("postgres", o.Extra, "read_from", engine.ReadPrimary, engine.ReadPrimary, engine.ReadReplicas)
		if err != nil {
			return nil, err
		}
		return openList(ctx, info, choice, dsns, readFrom)
	}
	if o.Extra["read_from"] == engine.ReadReplicas {
		return nil, errors.New("postgres: --read-from replicas needs a cluster (--cluster replicas=N, or a --dsn list)")
	}
	acct, cov, env, err := sqlfam.StartAcct(o.SyncAcct, dsn != "", filepath.Join(o.Dir, "data"), syncacct.PostgresPatterns, true, "")
	if err != nil {
		return nil, err
	}
	closeAcct := func() {
		if acct != nil {
			acct.Close()
		}
	}
	var srv *server.Server
	if dsn == "" {
		var err error
		sets := settings(o)
		if o.MemoryBytes > 0 {
			info.Options["maintenance_work_mem"] = sets[len(sets)-1].Value + " (--memory-limit)"
		}
		srv, err = server.Start(ctx, server.Config{
			Kind: server.Postgres, BinDir: o.Extra["server_bin"], Dir: o.Dir, ConfigFile: o.Extra["server_config"],
			Settings: sets, Env: env, Cgroup: o.Cgroup,
		})
		if err != nil {
			closeAcct()
			return nil, err
		}
		dsn = srv.DSN()
		info.Options["server_config"] = o.Extra["server_config"]
		if left := srv.LeftOut(); len(left) > 0 {
			info.Notes = append(info.Notes, fmt.Sprintf("this PostgreSQL release does not know rumbench's setting %s: started without it", strings.Join(left, ", ")))
		}
	}
	db, err := sql.Open("pgx", dsn)
	if err == nil {
		err = db.PingContext(ctx)
	}
	if err != nil {
		if srv != nil {
			srv.Stop(context.WithoutCancel(ctx))
		}
		closeAcct()
		return nil, fmt.Errorf("postgres: connect: %w", connectError(err))
	}
	e := &engineWithServer{sqlfam.ServerEngine{Engine: sqlfam.New(db, dialect{}, info), Srv: srv, Acct: acct, AcctCoverage: cov}}
	if choice.Native {
		c, err := newConnector(dsn, choice)
		if err != nil {
			e.Close()
			return nil, fmt.Errorf("postgres: %w", err)
		}
		e.SetConnector(c)
	}
	if err := e.describe(ctx); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// engineWithServer is the SQL engine on its server.
type engineWithServer struct{ sqlfam.ServerEngine }

// describe records the server version and the effective durability settings in Info.
func (e *engineWithServer) describe(ctx context.Context) error {
	info := e.Engine.Info()
	if err := e.DB().QueryRowContext(ctx, "SHOW server_version").Scan(&info.Version); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	for _, name := range []string{"shared_buffers", "synchronous_commit", "fsync", "wal_sync_method", "full_page_writes", "wal_level", "max_wal_size", "checkpoint_timeout", "wal_compression"} {
		var v string
		if err := e.DB().QueryRowContext(ctx, "SHOW "+name).Scan(&v); err != nil {
			return fmt.Errorf("postgres: SHOW %s: %w", name, err)
		}
		info.Options["server."+name] = v
	}
	e.Engine.SetInfo(info)
	return nil
}

// dialect is PostgreSQL's SQL: $n placeholders, no index hints, the reference's IN-subquery delete.
type dialect struct{}

func (dialect) Name() string { return "postgres" }

func (dialect) ColumnType(c table.Column) string {
	switch c.Type {
	case table.Bytes:
		if !c.Text {
			return "bytea"
		}
		if c.Fixed {
			return fmt.Sprintf("char(%d)", c.MaxLen)
		}
		if c.MaxLen > 0 {
			return fmt.Sprintf("varchar(%d)", c.MaxLen)
		}
		return "text"
	case table.Timestamp:
		return "timestamp without time zone"
	case table.Int32:
		return "int"
	}
	return "bigint"
}

func (d dialect) PrimaryKey(c table.Column) string {
	if c.Type == table.Bytes {
		return sqlfam.StringKey(d, c)
	}
	typ := "bigint"
	switch {
	case c.AutoIncrement && c.Type == table.Int32:
		typ = "serial"
	case c.AutoIncrement:
		typ = "bigserial"
	case c.Type == table.Int32:
		typ = "int"
	}
	return c.Name + " " + typ + " PRIMARY KEY"
}

// AutoIDInsert leaves the key out, so its sequence generates it, as sysbench does on PostgreSQL.
func (dialect) AutoIDInsert(t *table.Table) string { return sqlfam.AutoIDInsertOmit(t, "$") }

// SyncAutoID moves the serial sequence of t's key past the largest key (rows loaded with
// explicit keys do not advance it), never backwards.
func (dialect) SyncAutoID(ctx context.Context, conn *sql.Conn, t *table.Table) error {
	key := t.Columns[0].Name
	seq := fmt.Sprintf("pg_get_serial_sequence('%s', '%s')", t.Name, key)
	// v is the largest key in use: the table's, or the last the sequence handed out.
	q := fmt.Sprintf("SELECT setval(%s, GREATEST(v, 1), v > 0) FROM (SELECT GREATEST((SELECT COALESCE(MAX(%s), 0) FROM %s), "+
		"(SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM %s_%s_seq)) AS v) AS used",
		seq, key, t.Name, t.Name, key)
	_, err := conn.ExecContext(ctx, q)
	return err
}

// Returning marks the dialect as reporting generated keys through INSERT ... RETURNING.
func (dialect) Returning() {}

// Duplicate recognizes unique_violation (SQLSTATE 23505).
func (dialect) Duplicate(err error) bool { return pgCode(err) == "23505" }

// Conflict recognizes deadlock_detected (40P01), serialization_failure (40001) and
// lock_not_available (55P03).
func (dialect) Conflict(err error) bool {
	c := pgCode(err)
	return c == "40P01" || c == "40001" || c == "55P03"
}

// Lost recognizes a connection the server ended: admin_shutdown (57P01), crash_shutdown
// (57P02), cannot_connect_now (57P03, a server starting or recovering) and the connection
// exceptions (class 08); and a connection pgx closed after a network error.
func (dialect) Lost(err error) bool {
	c := pgCode(err)
	var ce *pgconn.ConnectError
	return c == "57P01" || c == "57P02" || c == "57P03" || strings.HasPrefix(c, "08") || errors.As(err, &ce) ||
		pgconn.SafeToRetry(err) || errors.Is(err, pgconn.ErrConnClosed)
}

// pgCode returns the SQLSTATE of a server error, "" for other errors.
func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// UnpreparedArgs makes pgx send an unprepared statement with the simple protocol.
func (dialect) UnpreparedArgs() []any                      { return []any{pgx.QueryExecModeSimpleProtocol} }
func (dialect) TableSuffix() string                        { return "" }
func (dialect) Placeholder(i int) string                   { return "$" + strconv.Itoa(i+1) }
func (dialect) IndexHint(*table.Table, table.Index) string { return "" }

// IndexDDL creates the indexes and, for an auto-increment key loaded with explicit values, moves
// its sequence past the largest key (the load ran before the indexes, as in sysbench).
func (dialect) IndexDDL(t *table.Table) []string {
	out := sqlfam.CreateIndexStatements(t)
	if c := t.Columns[0]; c.AutoIncrement {
		out = append(out, fmt.Sprintf("SELECT setval(pg_get_serial_sequence('%s', '%s'), (SELECT COALESCE(max(%s), 0) + 1 FROM %s), false)",
			t.Name, c.Name, c.Name, t.Name))
	}
	return out
}
func (dialect) NativeTime() bool                                          { return true }
func (dialect) MaxParams() int                                            { return 65535 }
func (dialect) DeleteOldest(t *table.Table) string                        { return sqlfam.DeleteOldestIn(t, "$1", "$2") }
func (dialect) Size(ctx context.Context, db *sql.DB) (int64, bool, error) { return dbSize(ctx, db) }

func dbSize(ctx context.Context, db *sql.DB) (int64, bool, error) {
	var n int64
	err := db.QueryRowContext(ctx, "SELECT pg_database_size(current_database())").Scan(&n)
	return n, err == nil, err
}

// Cleanup is the reference's: VACUUM (ANALYZE) of every table, then a CHECKPOINT.
func (dialect) Cleanup(ctx context.Context, db *sql.DB, tables []string) (string, error) {
	for _, t := range tables {
		if _, err := db.ExecContext(ctx, "VACUUM (ANALYZE, INDEX_CLEANUP ON) "+t); err != nil {
			return "", err
		}
	}
	if _, err := db.ExecContext(ctx, "CHECKPOINT"); err != nil {
		return "", err
	}
	return "VACUUM (ANALYZE, INDEX_CLEANUP ON) per table, CHECKPOINT", nil
}

// Settle implements sqlfam.Settler: a CHECKPOINT, which writes the shared buffers' dirty pages
// to the tables' files (what the checkpointer does every checkpoint_timeout). A user without the
// right to it (a --dsn server's non-superuser without pg_checkpoint) leaves it undone, said so.
func (dialect) Settle(ctx context.Context, db *sql.DB) (table.Settled, error) {
	if _, err := db.ExecContext(ctx, "CHECKPOINT"); err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "42501" {
			return table.Settled{Did: "no CHECKPOINT (not permitted to this user)", DebtBytes: -1}, nil
		}
		return table.Settled{}, err
	}
	return table.Settled{Did: "CHECKPOINT", DebtBytes: -1}, nil
}

// ServerSample implements table.ServerReporter: WAL bytes from the WAL insert position (exact and
// immediate), WAL syncs, writes and full-page images from pg_stat_wal (with track_wal_io_timing
// on, also the time spent in the syncs, wal_sync_time_us), checkpoints and buffers
// written from pg_stat_bgwriter (backends publish them at most once a second, so a step
// shorter than a few seconds undercounts), and the process tree of a managed server.
func (e *engineWithServer) ServerSample(ctx context.Context, pss bool) (table.ServerSample, error) {
	s, err := e.counters(ctx)
	if err != nil {
		return s, err
	}
	return e.WithTree(s, pss)
}

// counters reads the server's own counters (ServerSample without the process tree).
func (e *engineWithServer) counters(ctx context.Context) (table.ServerSample, error) {
	s := table.ServerSample{LogBytes: -1, Fsyncs: -1}
	if err := e.DB().QueryRowContext(ctx, "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::bigint").Scan(&s.LogBytes); err != nil {
		return s, err
	}
	var walWrite, walFPI int64
	var syncUs sql.NullInt64
	if err := e.DB().QueryRowContext(ctx, `SELECT wal_sync, wal_write, wal_fpi,
		CASE WHEN current_setting('track_wal_io_timing')::bool THEN (wal_sync_time * 1000)::bigint END FROM pg_stat_wal`,
	).Scan(&s.Fsyncs, &walWrite, &walFPI, &syncUs); err != nil {
		s.Fsyncs = -1 // before PostgreSQL 14
	} else {
		s.Counters = map[string]int64{"wal_write": walWrite, "wal_fpi": walFPI, "wal_sync": s.Fsyncs}
		if syncUs.Valid {
			s.Counters["wal_sync_time_us"] = syncUs.Int64
		}
	}
	var timed, req, bufCkpt, bufClean, bufBackend int64
	if err := e.DB().QueryRowContext(ctx, `SELECT checkpoints_timed, checkpoints_req, buffers_checkpoint, buffers_clean,
		buffers_backend FROM pg_stat_bgwriter`).Scan(&timed, &req, &bufCkpt, &bufClean, &bufBackend); err == nil {
		if s.Counters == nil {
			s.Counters = map[string]int64{}
		}
		s.Counters["checkpoints_timed"], s.Counters["checkpoints_req"] = timed, req
		s.Counters["buffers_checkpoint"], s.Counters["buffers_clean"], s.Counters["buffers_backend"] = bufCkpt, bufClean, bufBackend
	} else if err := e.DB().QueryRowContext(ctx, `SELECT c.num_timed, c.num_requested, c.buffers_written, b.buffers_clean
		FROM pg_stat_checkpointer c, pg_stat_bgwriter b`).Scan(&timed, &req, &bufCkpt, &bufClean); err == nil {
		// PostgreSQL 17 moved the checkpoints to pg_stat_checkpointer and dropped buffers_backend.
		if s.Counters == nil {
			s.Counters = map[string]int64{}
		}
		s.Counters["checkpoints_timed"], s.Counters["checkpoints_req"] = timed, req
		s.Counters["buffers_checkpoint"], s.Counters["buffers_clean"] = bufCkpt, bufClean
	}
	return s, nil
}

// connectError returns err, a failed connection, as one line: pgconn writes the error of each
// address it tried on a line of its own, the same one twice when it tried again without TLS.
// errors.Is and errors.As see err.
func connectError(err error) error { return oneLineError{err} }

type oneLineError struct{ err error }

func (e oneLineError) Error() string {
	var parts []string
	for _, l := range strings.Split(e.err.Error(), "\n") {
		if l = strings.TrimSpace(l); l != "" && !slices.Contains(parts, l) {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, " ")
}

func (e oneLineError) Unwrap() error { return e.err }
