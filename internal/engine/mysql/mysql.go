// Package mysql registers the "mysql" engine: MariaDB or MySQL through go-sql-driver/mysql
// (server-side prepared statements; sessions use the driver's connections directly, over blocking
// sockets by default, and speak the statement commands on them themselves after the driver's
// handshake, see wire.go and the client, io and wire options) under the SQL family adapter, with the table engine InnoDB
// (update-in-place B-tree) or RocksDB (MyRocks, an LSM), chosen with the table_engine option.
//
// Managed mode (the default): rumbench creates a private MariaDB instance in the engine's data
// directory, applies its settings (buffer pool or block cache = --cache-mb, log flush at commit =
// --sync, binlog off) and then the user's --server-config file, starts it on 127.0.0.1 and stops it
// when the engine closes. With --dsn it uses a server the user runs.
package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	gomysql "github.com/go-sql-driver/mysql" // database/sql driver "mysql"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/engine/sqlfam"
	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/redact"
	"github.com/rumbench/rumbench/internal/server"
	"github.com/rumbench/rumbench/internal/syncacct"
	"github.com/rumbench/rumbench/internal/table"
)

var options = map[string]string{
	"table_engine":  "innodb or rocksdb (MyRocks) (default innodb)",
	"dsn":           "DSN of a running server (external mode), e.g. user:pass@tcp(host:3306)/db",
	"server_config": "my.cnf fragment applied after rumbench's settings (managed mode)",
	"server_bin":    "directory of mariadbd and mariadb-install-db (default: discovered)",
	"cluster":       "a Galera cluster rumbench starts: galera=N (--cluster; MariaDB with galera-4)",
	"read_from":     "with a --dsn list: primary (sessions spread over every server) or replicas (write to the first, read from the others) (--read-from)",
	"insert":        "prepared (the multi-row INSERT prepared once per session, binary protocol; default) or text (sent as text, its values written in by rumbench exactly as the driver's client-side interpolation writes them: less client CPU); native client only",
	"wire":          "own (rumbench speaks the statement commands, COM_STMT_PREPARE, COM_STMT_EXECUTE and COM_QUERY, itself on the driver's connection after its handshake, with buffers it reuses; a TLS or compressed connection stays with the driver; default) or driver (go-sql-driver/mysql's statement API); native client only",
}

func init() {
	for k, v := range sqlfam.ClientOptions {
		options[k] = v
	}
}

func init() {
	register("mysql", "innodb", "MariaDB/MySQL with InnoDB (or MyRocks with table_engine=rocksdb), managed instance or --dsn; SQL family")
	register("myrocks", "rocksdb", "MariaDB with MyRocks (RocksDB LSM tables): the mysql engine with table_engine=rocksdb")
}

// register adds an engine name whose table_engine defaults to te.
func register(name, te, description string) {
	engine.Register(engine.Spec{
		Name:        name,
		Description: description,
		Options:     options,
		Server:      true,
		Faults:      true,
		// Galera replicates InnoDB tables.
		ClusterKind: map[string]string{"innodb": "galera"}[te],
		// Sessions share a thread (--jobs) over raw sockets.
		SharedThreads: sqlfam.SharedThreads,
		// InnoDB's limit, or the server's own for MyRocks tables.
		SQL:        true,
		MaxColumns: map[string]int{"innodb": 1017, "rocksdb": 4096}[te],
		// The buffer pool holds pages as on disk, plus a quarter free; MyRocks' block cache
		// holds blocks uncompressed.
		CachePerFileByte: map[string]float64{"innodb": 1.25, "rocksdb": 3}[te],
		PerUnitBytes:     perUnitBytes[te],
		// The client path: how the sessions talk to the server, not what it stores.
		ClientOptions: append(sqlfam.ClientOptionKeys(), "insert", "wire"),
		Open: func(ctx context.Context, o engine.Options) (table.Engine, error) {
			return open(ctx, name, te, o)
		},
		Release: func(ctx context.Context, binDir string) (string, error) {
			return server.BinaryVersion(ctx, server.MariaDB, binDir)
		},
		Check: func(extra map[string]string) error {
			if _, err := tableEngine(name, te, extra); err != nil {
				return err
			}
			if list := extra["dsn"]; list != "" {
				dsns := sqlfam.SplitDSNs(list, dsnStarts)
				if len(dsns) > sqlfam.MaxDSNs {
					return fmt.Errorf("--dsn: a list of %d servers: at most %d", len(dsns), sqlfam.MaxDSNs)
				}
				for _, dsn := range dsns {
					if _, err := gomysql.ParseDSN(dsn); err != nil {
						return fmt.Errorf("--dsn %s: not a MySQL DSN (want e.g. user:pass@tcp(host:3306)/db, or a comma-separated list of them): %v", input.Short(redact.DSN(dsn)), err)
					}
				}
				return nil
			}
			return server.CheckBinaries(server.MariaDB, extra["server_bin"])
		},
	})
}

func tableEngine(name, def string, extra map[string]string) (string, error) {
	return engine.ChoiceOption(name, extra, "table_engine", def, "innodb", "rocksdb")
}

// myrocksWriteBuffers is the memtable memory MyRocks keeps by default, bytes: RocksDB's two
// write buffers of 64 MiB.
const myrocksWriteBuffers = 128 << 20

// settings returns rumbench's server settings for the table engine, cache size and sync mode,
// and under a cap (o.MemoryBytes) MyRocks' memtables within what the share leaves beside the
// cache.
func settings(te string, o engine.Options) ([]server.Setting, []string) {
	flush := "2" // write the log at commit, sync it once a second
	if o.Sync {
		flush = "1"
	}
	cache := strconv.FormatInt(o.CacheBytes, 10)
	s := []server.Setting{
		{Name: "skip-log-bin", Value: ""},
		{Name: "innodb_flush_log_at_trx_commit", Value: flush},
	}
	if te == "rocksdb" {
		// MyRocks: 1 syncs the WAL at commit, 2 writes it and syncs once a second.
		s = append(s, server.Setting{Name: "rocksdb_block_cache_size", Value: cache},
			server.Setting{Name: "rocksdb_flush_log_at_trx_commit", Value: flush},
			server.Setting{Name: "innodb_buffer_pool_size", Value: "16M"})
		if o.MemoryBytes > 0 {
			s = append(s, server.Setting{Name: "rocksdb_db_write_buffer_size", Value: strconv.FormatInt(o.BufferBytes(1, myrocksWriteBuffers), 10)})
		}
		return s, []string{"ha_rocksdb"}
	}
	return append(s, server.Setting{Name: "innodb_buffer_pool_size", Value: cache}), nil
}

func open(ctx context.Context, name, defTE string, o engine.Options) (table.Engine, error) {
	if err := engine.CheckExtra(name, o.Extra, options); err != nil {
		return nil, err
	}
	te, err := tableEngine(name, defTE, o.Extra)
	if err != nil {
		return nil, err
	}
	info := table.Info{Name: name, Options: map[string]string{
		"cache_mb": strconv.FormatInt(o.CacheBytes>>20, 10), "sync": strconv.FormatBool(o.Sync), "table_engine": te,
	}, LogFiles: mysqlLogFiles}
	choice, err := sqlfam.ParseClientOptions(name, o.Extra, info.Options)
	if err != nil {
		return nil, err
	}
	ins, wire, err := insertWire(name, o.Extra, choice)
	if err != nil {
		return nil, err
	}
	info.Options["insert"] = ins
	dsn := o.Extra["dsn"]
	info.Options["wire"] = wire
	info.Dialect, info.TableEngine, info.BinaryText = table.DialectMySQL, map[string]string{"innodb": table.TableEngineInnoDB, "rocksdb": table.TableEngineRocksDB}[te], wire == "own"
	complete, note := true, ""
	if te == "innodb" {
		complete, note = false, "InnoDB writes data pages with asynchronous I/O (io_uring or libaio), which the library does not see: data bytes are missing (their syncs are counted)"
	}
	connector := func(dsn string) (sqlfam.Connector, error) {
		c, err := newConnector(dsn, choice)
		if err != nil {
			return nil, err
		}
		c.textInsert, c.ownWire = ins == "text", wire == "own"
		return c, nil
	}
	if eng, handled, err := openSpread(ctx, name, te, o, info, choice, connector); handled {
		return eng, err
	}
	acct, cov, env, err := sqlfam.StartAcct(o.SyncAcct, dsn != "", filepath.Join(o.Dir, "data"), syncacct.MariaDBPatterns, complete, note)
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
		sets, plugins := settings(te, o)
		if te == "rocksdb" && o.MemoryBytes > 0 {
			info.Options["rocksdb_db_write_buffer_size_mb"] = strconv.FormatInt(o.BufferBytes(1, myrocksWriteBuffers)>>20, 10) + " (--memory-limit)"
		}
		srv, err = server.Start(ctx, server.Config{Kind: server.MariaDB, BinDir: o.Extra["server_bin"], Dir: o.Dir,
			ConfigFile: o.Extra["server_config"], Settings: sets, Plugins: plugins, Env: env, Cgroup: o.Cgroup})
		if err != nil {
			closeAcct()
			return nil, err
		}
		dsn = srv.DSN()
		info.Options["server_config"] = o.Extra["server_config"]
	}
	db, err := openQuiet(withParams(dsn))
	if err == nil {
		err = db.PingContext(ctx)
	}
	if err != nil {
		if srv != nil {
			srv.Stop(context.WithoutCancel(ctx))
		}
		closeAcct()
		return nil, fmt.Errorf("mysql: connect: %w", err)
	}
	e := &engineWithServer{sqlfam.ServerEngine{Engine: sqlfam.New(db, dialect{te: te}, info), Srv: srv, Acct: acct, AcctCoverage: cov}}
	if choice.Native {
		c, err := newConnector(dsn, choice)
		if err != nil {
			e.Close()
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		c.textInsert, c.ownWire = ins == "text", wire == "own"
		e.SetConnector(c)
	}
	if err := e.describe(ctx); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// insertWire reads the insert and wire options against the client choice: the insert path
// ("prepared" or "text") and the wire ("own", or "driver" where the connection needs the
// driver's: database/sql, TLS, compression).
func insertWire(name string, extra map[string]string, choice sqlfam.ClientChoice) (ins, wire string, err error) {
	ins, err = engine.ChoiceOption(name, extra, "insert", "prepared", "prepared", "text")
	if err != nil {
		return "", "", err
	}
	if ins == "text" && !choice.Native {
		return "", "", fmt.Errorf("%s: insert=text needs client=native", name)
	}
	wire, err = engine.ChoiceOption(name, extra, "wire", "own", "own", "driver")
	if err != nil {
		return "", "", err
	}
	if !choice.Native {
		if extra["wire"] == "own" {
			return "", "", fmt.Errorf("%s: wire=own needs client=native", name)
		}
		return ins, "driver", nil
	}
	if dsn := extra["dsn"]; wire == "own" && dsn != "" {
		if why := ownWireRefusal(dsn); why != "" {
			if extra["wire"] == "own" {
				return "", "", fmt.Errorf("%s: wire=own: the dsn asks for %s, which stays with the driver (valid: wire=driver, or a dsn without tls and compress)", name, why)
			}
			wire = "driver" // the default follows what the connection can take
		}
	}
	return ins, wire, nil
}

// ownWireRefusal says what in dsn keeps statements with the driver (TLS or compression, which
// the own wire path does not speak), or "" when nothing does; an unparsable dsn is left to the
// connection's own error.
func ownWireRefusal(dsn string) string {
	cfg, err := gomysql.ParseDSN(withParams(dsn))
	if err != nil {
		return ""
	}
	var why []string
	if cfg.TLS != nil {
		why = append(why, "TLS (tls="+cfg.TLSConfig+")")
	}
	if strings.Contains(cfg.FormatDSN(), "compress=true") {
		why = append(why, "compression (compress=true)")
	}
	return strings.Join(why, " and ")
}

// withParams adds the driver parameters rumbench relies on: time values as UTC time.Time.
func withParams(dsn string) string {
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + "parseTime=true&loc=UTC&interpolateParams=true"
}

// engineWithServer is the SQL engine on its server.
type engineWithServer struct{ sqlfam.ServerEngine }

// describe records the server version and the effective durability settings in Info.
func (e *engineWithServer) describe(ctx context.Context) error {
	info := e.Engine.Info()
	if err := e.DB().QueryRowContext(ctx, "SELECT VERSION()").Scan(&info.Version); err != nil {
		return fmt.Errorf("mysql: %w", err)
	}
	rows, err := e.DB().QueryContext(ctx, `SHOW GLOBAL VARIABLES WHERE Variable_name IN ('innodb_flush_log_at_trx_commit',
		'innodb_flush_method', 'innodb_buffer_pool_size', 'innodb_doublewrite', 'log_bin', 'sync_binlog',
		'rocksdb_flush_log_at_trx_commit', 'rocksdb_block_cache_size', 'innodb_log_file_size', 'innodb_use_fdatasync')`)
	if err != nil {
		return fmt.Errorf("mysql: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return err
		}
		info.Options["server."+k] = v
	}
	e.Engine.SetInfo(info)
	return rows.Err()
}

// dialect is MySQL's SQL: FORCE INDEX, ORDER BY … LIMIT delete, ENGINE= suffix.
type dialect struct {
	te string
	// galera: the nodes of a Galera cluster all take writes (see MultiWriter).
	galera bool
}

// MultiWriter says whether the dialect is a Galera cluster's: a duplicate key is then also a
// conflict (sqlfam's multiWriter).
func (d dialect) MultiWriter() bool { return d.galera }

func (dialect) Name() string { return "mysql" }

// ReadOnly: a read-only transaction alone does not hold on MySQL and MariaDB, where a DDL
// statement commits the transaction it is in and runs in a new one (DROP TABLE ran); with the
// session's access mode read-only too, that new transaction is read-only as well, and DDL fails
// (error 1792).
func (dialect) ReadOnly() (begin, end []string) {
	return []string{"SET SESSION TRANSACTION READ ONLY", "START TRANSACTION READ ONLY"},
		[]string{"ROLLBACK", "SET SESSION TRANSACTION READ WRITE"}
}

// Duplicate recognizes ER_DUP_ENTRY (1062).
func (dialect) Duplicate(err error) bool { return mysqlErr(err) == 1062 }

// Conflict recognizes ER_LOCK_DEADLOCK (1213) and ER_LOCK_WAIT_TIMEOUT (1205).
func (dialect) Conflict(err error) bool {
	n := mysqlErr(err)
	return n == 1213 || n == 1205
}

// Lost recognizes a connection the server ended: ER_SERVER_SHUTDOWN (1053), a killed connection
// (1927), the client's "server has gone away" and "lost connection" (2006, 2013), and the
// driver's invalid connection; and a Galera node out of the cluster's Primary Component (a
// node paused past the eviction timeout, or rejoining), which refuses every statement until it
// is synced again: 1047 "WSREP has not yet prepared node for application use" and 1180 "...
// (provider status: Not connected to Primary Component)". The session then reconnects, to the
// next node.
func (dialect) Lost(err error) bool {
	var me *gomysql.MySQLError
	if !errors.As(err, &me) {
		return errors.Is(err, gomysql.ErrInvalidConn)
	}
	switch me.Number {
	case 1053, 1927, 2006, 2013:
		return true
	case 1047, 1180: // a Galera node's refusal, or the same code for another cause
		return strings.Contains(me.Message, "WSREP") || strings.Contains(me.Message, "Primary Component")
	}
	return false
}

// mysqlErr returns the server's error number, 0 for other errors.
func mysqlErr(err error) uint16 {
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

func (dialect) ColumnType(c table.Column) string {
	switch c.Type {
	case table.Bytes:
		kind := "varbinary"
		if c.Text {
			kind = "varchar"
		}
		if c.Fixed && c.Text {
			kind = "char"
		}
		if c.MaxLen > 0 {
			return fmt.Sprintf("%s(%d)", kind, c.MaxLen)
		}
		if c.Text {
			return "longtext"
		}
		return "longblob"
	case table.Timestamp:
		return "datetime"
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
	if c.Type == table.Int32 {
		typ = "int"
	}
	if c.AutoIncrement {
		typ += " NOT NULL AUTO_INCREMENT"
	} else {
		typ += " NOT NULL"
	}
	return c.Name + " " + typ + " PRIMARY KEY"
}

// AutoIDInsert inserts 0 into the auto-increment key, which generates it, as sysbench's
// oltp_insert does on MySQL.
func (dialect) AutoIDInsert(t *table.Table) string { return sqlfam.AutoIDInsertZero(t) }

func (d dialect) TableSuffix() string {
	if d.te == "rocksdb" {
		return "ENGINE=ROCKSDB"
	}
	return "ENGINE=InnoDB"
}

func (dialect) Placeholder(int) string { return "?" }
func (dialect) NativeTime() bool       { return true }
func (dialect) MaxParams() int         { return 65535 }

func (dialect) IndexHint(t *table.Table, ix table.Index) string {
	return "FORCE INDEX (" + sqlfam.IndexName(t, ix) + ")"
}

// IndexDDL adds every index in one ALTER TABLE on InnoDB, one ALTER per index on MyRocks, as the
// reference does.
func (d dialect) IndexDDL(t *table.Table) []string {
	var adds []string
	for _, ix := range t.Indexes {
		adds = append(adds, fmt.Sprintf("ADD INDEX %s (%s)", sqlfam.IndexName(t, ix), sqlfam.ColumnList(t, ix.Columns)))
	}
	if len(adds) == 0 {
		return nil
	}
	if d.te == "rocksdb" {
		out := make([]string, len(adds))
		for i, a := range adds {
			out[i] = "ALTER TABLE " + t.Name + " " + a
		}
		return out
	}
	return []string{"ALTER TABLE " + t.Name + " " + strings.Join(adds, ", ")}
}

func (dialect) DeleteOldest(t *table.Table) string {
	pk := t.Columns[0].Name
	return fmt.Sprintf("DELETE FROM %s WHERE %s >= ? ORDER BY %s LIMIT ?", t.Name, pk, pk)
}

func (dialect) Size(ctx context.Context, db *sql.DB) (int64, bool, error) {
	var n sql.NullInt64
	err := db.QueryRowContext(ctx, `SELECT SUM(data_length + index_length) FROM information_schema.tables
		WHERE table_schema = DATABASE()`).Scan(&n)
	return n.Int64, err == nil && n.Valid, err
}

// Cleanup is the reference's: ANALYZE TABLE, then for InnoDB a write-back of dirty pages (the
// dirty-page targets lowered to 1% until the buffer pool has almost none, then restored), for
// MyRocks a memtable flush and an L0 compaction.
func (d dialect) Cleanup(ctx context.Context, db *sql.DB, tables []string) (string, error) {
	for _, t := range tables {
		if _, err := db.ExecContext(ctx, "ANALYZE TABLE "+t); err != nil {
			return "", err
		}
	}
	if d.te == "rocksdb" {
		// MariaDB's MyRocks has one variable for both (Facebook's MySQL: rocksdb_compact_lzero_now).
		if _, err := db.ExecContext(ctx, "SET GLOBAL rocksdb_force_flush_memtable_and_lzero_now = 1"); err != nil {
			return "", err
		}
		return "ANALYZE TABLE, memtable flush, L0 compaction (rocksdb_force_flush_memtable_and_lzero_now)", nil
	}
	if err := writeBackDirtyPages(ctx, db); err != nil {
		return "", err
	}
	return "ANALYZE TABLE, dirty pages written back (max_dirty_pages_pct 1 until <1% dirty)", nil
}

// Settle implements sqlfam.Settler: InnoDB's dirty pages written back (what its page cleaners
// do over time), MyRocks' memtable flushed (what it does when the memtable fills).
func (d dialect) Settle(ctx context.Context, db *sql.DB) (table.Settled, error) {
	if d.te == "rocksdb" {
		if _, err := db.ExecContext(ctx, "SET GLOBAL rocksdb_force_flush_memtable_now = 1"); err != nil {
			return table.Settled{}, err
		}
		return table.Settled{Did: "memtable flush (rocksdb_force_flush_memtable_now)", DebtBytes: -1}, nil
	}
	if err := writeBackDirtyPages(ctx, db); err != nil {
		var me *gomysql.MySQLError
		if errors.As(err, &me) && me.Number == 1227 { // a --dsn user without SUPER
			return table.Settled{Did: "no write-back of dirty pages (SET GLOBAL not permitted to this user)", DebtBytes: -1}, nil
		}
		return table.Settled{}, err
	}
	return table.Settled{Did: "dirty pages written back (max_dirty_pages_pct 1 until <1% dirty)", DebtBytes: -1}, nil
}

// writeBackDirtyPages lowers InnoDB's dirty-page targets to 1% until the buffer pool has
// almost no dirty pages (at most 5 minutes), then restores them.
func writeBackDirtyPages(ctx context.Context, db *sql.DB) error {
	var pct, lwm string
	if err := db.QueryRowContext(ctx, "SELECT @@innodb_max_dirty_pages_pct, @@innodb_max_dirty_pages_pct_lwm").Scan(&pct, &lwm); err != nil {
		return err
	}
	defer db.ExecContext(context.WithoutCancel(ctx), "SET GLOBAL innodb_max_dirty_pages_pct_lwm = "+lwm+", GLOBAL innodb_max_dirty_pages_pct = "+pct)
	if _, err := db.ExecContext(ctx, "SET GLOBAL innodb_max_dirty_pages_pct = 1, GLOBAL innodb_max_dirty_pages_pct_lwm = 1"); err != nil {
		return err
	}
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		var name string
		var dirty, total int64
		if err := db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'").Scan(&name, &dirty); err != nil {
			return err
		}
		if err := db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_total'").Scan(&name, &total); err != nil {
			return err
		}
		if dirty*100 <= total {
			break
		}
		select {
		case <-time.After(200 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// mysqlLogFiles are the logs in a managed MariaDB's directory: InnoDB's redo log, the binary
// log and its index, Aria's log, MyRocks' WAL (#rocksdb/*.log) and info log, the transaction
// coordinator log, the server's log.
var mysqlLogFiles = []string{"ib_logfile*", "binlog.*", "*-bin.*", "aria_log.*", "*.log", "LOG", "LOG.old.*"}

// statusCounters are the SHOW GLOBAL STATUS counters a step records (those the server has).
// Innodb_buffer_pool_wait_free counts the times a thread needed a free page in the buffer pool,
// found none and waited for dirty pages to be written back: InnoDB's cache pressure
// (appevict/op); rocksdb_stall_micros is MyRocks' write stall time (stall_us/op).
const statusCounters = `'Innodb_os_log_written', 'Binlog_bytes_written', 'rocksdb_wal_bytes', 'Innodb_data_fsyncs', 'Innodb_buffer_pool_wait_free',
	'Innodb_os_log_fsyncs', 'rocksdb_wal_synced', 'Innodb_data_written', 'Innodb_data_writes', 'Innodb_data_read',
	'Innodb_pages_written', 'Innodb_buffer_pool_pages_flushed', 'rocksdb_bytes_written', 'rocksdb_bytes_read',
	'rocksdb_compact_read_bytes', 'rocksdb_compact_write_bytes', 'rocksdb_flush_write_bytes', 'rocksdb_stall_micros',
	'Questions', 'Com_commit', 'Com_select', 'Com_update', 'Com_delete', 'Com_insert'`

// ServerSample implements table.ServerReporter: log bytes (InnoDB redo + binlog + MyRocks WAL),
// fsyncs (InnoDB data and log fsyncs + MyRocks WAL syncs) and the other status counters from SHOW
// GLOBAL STATUS, and the process tree of a managed server.
func (e *engineWithServer) ServerSample(ctx context.Context, pss bool) (table.ServerSample, error) {
	s, err := e.counters(ctx)
	if err != nil {
		return s, err
	}
	return e.WithTree(s, pss)
}

// counters reads the server's status counters (ServerSample without the process tree).
func (e *engineWithServer) counters(ctx context.Context) (table.ServerSample, error) {
	s := table.ServerSample{LogBytes: -1, Fsyncs: -1, Counters: map[string]int64{}}
	rows, err := e.DB().QueryContext(ctx, "SHOW GLOBAL STATUS WHERE Variable_name IN ("+statusCounters+")")
	if err != nil {
		return s, err
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var v int64
		if err := rows.Scan(&k, &v); err != nil {
			return s, err
		}
		s.Counters[k] = v
		switch strings.ToLower(k) {
		case "innodb_os_log_written", "binlog_bytes_written", "rocksdb_wal_bytes":
			s.LogBytes = max(s.LogBytes, 0) + v
		case "innodb_data_fsyncs", "innodb_os_log_fsyncs", "rocksdb_wal_synced":
			s.Fsyncs = max(s.Fsyncs, 0) + v
		}
	}
	if err := rows.Err(); err != nil {
		return s, err
	}
	return s, nil
}

// openQuiet opens a database/sql pool on dsn (the schema, the maintenance, the server's counters)
// whose driver logs nothing: the errors it logs are those it returns or retries (a connection a
// server's restart closed).
func openQuiet(dsn string) (*sql.DB, error) {
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return nil, err
	}
	cfg.Logger = quiet{}
	c, err := gomysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(c), nil
}
