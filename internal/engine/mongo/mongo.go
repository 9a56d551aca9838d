// Package mongo registers the "mongo" engine: the table model on a MongoDB server (or a
// MongoDB-compatible one) through the official Go driver, go.mongodb.org/mongo-driver/v2.
//
// Mapping: a table is a collection of the database "rumbench" (option database); a row is a
// document whose fields are the columns; the primary key is _id. A single integer key is _id
// itself (id_format native); a composite key, a binary string key, or any key with id_format
// string, is _id = the hexadecimal form of the key's order-preserving encoding (table.AppendValue),
// so _id order is key order, with the key columns also stored as fields. A secondary index is a
// MongoDB index on its columns followed by _id (the primary key appended, as every engine's
// index entries are unique). Statements become find, aggregate, count, insert, update and
// delete commands (see exec.go and docs/mongo.md).
//
// Durability: write concern w, j and wtimeout_ms, and read concern are client options,
// recorded in the manifest; a --server-config file of key=value lines sets them per target.
// Transactions: multi-document transactions when the server supports them (a replica set
// member or mongos, detected with hello) and option txn allows; otherwise the per-statement
// mode: every statement commits itself, Begin and Commit only mark the group.
//
// Managed mode (no dsn): rumbench starts FerretDB v1 (the rumbench-ferretdb helper,
// internal/server) in the data directory on 127.0.0.1, over a private PostgreSQL instance it
// starts there too (option backend=postgresql, the default) or over SQLite files
// (backend=sqlite), and stops both when the engine closes. Figures measured through it describe
// FerretDB over its backend, not MongoDB.
package mongo

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/netblock"
	"github.com/rumbench/rumbench/internal/redact"
	"github.com/rumbench/rumbench/internal/server"
	"github.com/rumbench/rumbench/internal/table"
)

// Name is the registered engine name.
const Name = "mongo"

// defaultIO is option io's default: Go's network poller. The driver starts a goroutine at
// every read and write of a connection (its cancellation listener) and hands it a value when
// the call returns; over a blocking socket that hand-off wakes another thread each time, which
// cost more than the poller saves (docs/mongo.md, "The client's cost").
const defaultIO = "netpoll"

// clientKeys are the options a --server-config file may set (the client's settings).
var clientKeys = map[string]string{
	"database":     "database the collections go in (default rumbench)",
	"w":            "write concern w: a number of members, majority, or a tag set name (default 1)",
	"j":            "write concern j, wait for the journal: true or false (default: --sync)",
	"wtimeout_ms":  "bound on a write's wait for its write concern, ms (0: none); the v2 driver applies it as the operation timeout (timeoutMS)",
	"read_concern": "read concern level: local, available, majority, linearizable, snapshot, or default (the server's; default)",
	"txn":          "multi-document transactions: auto (when the server supports them: replica set or mongos), on, off (per-statement mode; default auto)",
	"id_format":    "_id of a single integer key: native (the integer), string (hex of the order-preserving encoding: FerretDB over SQLite pushes down only string _id lookups), auto (string on the managed FerretDB, native with dsn; default)",
}

var engineOptions = func() map[string]string {
	m := map[string]string{
		"dsn":           "MongoDB URI of a running server (external mode), e.g. mongodb://user:pw@host:27017/?replicaSet=rs0",
		"server_config": "file of key=value lines setting the client options below (w, j, wtimeout_ms, read_concern, txn, id_format, database) for one target; they win over --engine-opt",
		"server_bin":    "directory holding the rumbench-ferretdb helper (managed mode; default: beside rumbench, $RUMBENCH_FERRETDB, PATH)",
		"backend":       "storage of the managed FerretDB: postgresql (a private PostgreSQL instance started in the engine's data directory, shared_buffers = --cache-mb, synchronous_commit = j; default) or sqlite (SQLite files, synchronous FULL or NORMAL by j; every find scans the collection). Managed mode only",
		"io":            "how the driver's connections (and wire=own's) use their sockets: raw (blocking sockets read and written with raw system calls, unseen by the Go scheduler, each session's goroutine on its OS thread during an operation; GOMAXPROCS grows by one per session), blocking (the same through the scheduler's system calls) or netpoll (Go's network poller; default)",
		"wire":          "how an insert batch reaches the server where the engine sends its own insert command (outside a transaction, acknowledged write concern, no retryable writes): own (one OP_MSG on the session's own connection, without handshake or authentication; default on the managed FerretDB; with a dsn only of one host without credentials, TLS or compressors; not with wtimeout_ms) or driver (the driver's RunCommand; default with a dsn or wtimeout_ms)",
	}
	for k, v := range clientKeys {
		m[k] = v
	}
	return m
}()

func init() {
	engine.Register(engine.Spec{
		Name:         Name,
		Description:  "MongoDB through the official Go driver: --dsn mongodb://... or a private managed FerretDB v1 over PostgreSQL or SQLite (a MongoDB-compatible server: its figures are FerretDB's, not MongoDB's)",
		Options:      engineOptions,
		Open:         open,
		Server:       true,
		Faults:       true,
		ClientConfig: true,
		// How the sessions reach the server and what they ask of it per operation; database and
		// id_format say where and how the data is stored.
		ClientOptions: []string{"io", "wire", "w", "j", "wtimeout_ms", "read_concern", "txn"},
		Check:         check,
	})
}

// check refuses bad options and, for the managed FerretDB over PostgreSQL, missing PostgreSQL
// programs, before anything starts.
func check(extra map[string]string) error {
	c, err := parseConfig(extra, false)
	if err != nil || c.dsn != "" || c.backend != server.BackendPostgreSQL {
		return err
	}
	if err := server.CheckBinaries(server.Postgres, ""); err != nil {
		return fmt.Errorf("engine mongo: the managed FerretDB's PostgreSQL backend: %w (or pass --engine-opt mongo.backend=sqlite)", err)
	}
	return nil
}

// testMonitor, when set (by tests), sees the commands of the engines opened after.
var testMonitor *event.CommandMonitor

// config is the engine's effective configuration.
type config struct {
	dsn, serverBin, serverConfig string
	// backend is the managed FerretDB's storage: server.BackendPostgreSQL or BackendSQLite.
	backend     string
	database    string
	w           string // "1", "majority", a tag set name
	j           bool
	jSet        bool
	wtimeout    time.Duration
	readConcern string // "" = the server's default
	txn         string // auto, on, off
	idFormat    string // auto, native, string
	io          string // raw, blocking, netpoll
	wire        string // own, driver
	// wireNet and wireAddr are the server's address for wire=own with a dsn.
	wireNet, wireAddr string
}

// parseConfig reads the options: --engine-opt values, then the server_config file's lines over
// them. sync is --sync, the default of j.
func parseConfig(extra map[string]string, sync bool) (config, error) {
	if err := engine.CheckExtra(Name, extra, engineOptions); err != nil {
		return config{}, err
	}
	vals := map[string]string{}
	for k, v := range extra {
		vals[k] = v
	}
	c := config{dsn: vals["dsn"], serverBin: vals["server_bin"], serverConfig: vals["server_config"]}
	if redact.UnescapedAt(c.dsn) {
		return config{}, fmt.Errorf("--dsn %s: %s", input.Short(redact.DSN(c.dsn)), redact.AtRule)
	}
	var err error
	if c.serverConfig != "" {
		if err := readClientFile(c.serverConfig, vals); err != nil {
			return config{}, err
		}
	}
	if c.backend, err = engine.ChoiceOption(Name, vals, "backend", server.BackendPostgreSQL, server.BackendPostgreSQL, server.BackendSQLite); err != nil {
		return config{}, err
	}
	if _, set := vals["backend"]; set && c.dsn != "" {
		return config{}, fmt.Errorf("engine mongo option backend=%s: the backend is the managed FerretDB's storage; with dsn the server is yours (drop one of them)", c.backend)
	}
	c.database = vals["database"]
	if c.database == "" {
		c.database = "rumbench"
	}
	if err := table.CheckIdent(c.database); err != nil {
		return config{}, fmt.Errorf("engine mongo option database: not a database name: %w", err)
	}
	c.w = vals["w"]
	if c.w == "" {
		c.w = "1"
	}
	if n, err := strconv.Atoi(c.w); err == nil && n < 0 {
		return config{}, fmt.Errorf("engine mongo option w=%q: a number of members must be >= 0", c.w)
	}
	c.j = sync
	if v, ok := vals["j"]; ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return config{}, fmt.Errorf("engine mongo option j=%q: want true or false", v)
		}
		c.j, c.jSet = b, true
	}
	if v, ok := vals["wtimeout_ms"]; ok {
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil || ms < 0 {
			return config{}, fmt.Errorf("engine mongo option wtimeout_ms=%q: want a whole number of milliseconds >= 0", v)
		}
		c.wtimeout = time.Duration(ms) * time.Millisecond
	}
	if c.readConcern, err = engine.ChoiceOption(Name, vals, "read_concern", "default", "default", "local", "available", "majority", "linearizable", "snapshot"); err != nil {
		return config{}, err
	}
	if c.readConcern == "default" {
		c.readConcern = ""
	}
	if c.txn, err = engine.ChoiceOption(Name, vals, "txn", "auto", "auto", "on", "off"); err != nil {
		return config{}, err
	}
	if c.idFormat, err = engine.ChoiceOption(Name, vals, "id_format", "auto", "auto", "native", "string"); err != nil {
		return config{}, err
	}
	if c.io, err = engine.ChoiceOption(Name, vals, "io", defaultIO, ioModes...); err != nil {
		return config{}, err
	}
	defWire := "own"
	if c.dsn != "" || c.wtimeout > 0 {
		defWire = "driver"
	}
	if c.wire, err = engine.ChoiceOption(Name, vals, "wire", defWire, wireModes...); err != nil {
		return config{}, err
	}
	if c.wire == "own" && c.wtimeout > 0 {
		return config{}, fmt.Errorf("engine mongo option wire=own: the own connection applies no operation timeout (wtimeout_ms=%d); valid: wire=own with wtimeout_ms=0, or wire=driver", c.wtimeout.Milliseconds())
	}
	if c.wire == "own" && c.dsn != "" {
		if c.wireNet, c.wireAddr, err = wireAddr(c.dsn); err != nil {
			return config{}, err
		}
	}
	if c.w == "0" && c.j {
		if c.jSet {
			return config{}, errors.New("engine mongo: w=0 (unacknowledged) cannot wait for the journal (j=true)")
		}
		c.j = false // --sync's default of j does not apply to unacknowledged writes
	}
	return c, nil
}

// readClientFile reads a --server-config file of key=value lines (blank lines and lines
// starting with # are skipped) into vals; only the client options are allowed.
func readClientFile(path string, vals map[string]string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("engine mongo: server config file: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if _, known := clientKeys[k]; !ok || !known {
			keys := make([]string, 0, len(clientKeys))
			for k := range clientKeys {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			return fmt.Errorf("engine mongo: %s line %d: %q is not key=value with a key among %s", path, n, line, strings.Join(keys, ", "))
		}
		vals[k] = v
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("engine mongo: server config file: %w", err)
	}
	return nil
}

// writeConcern is the configured write concern.
func (c *config) writeConcern() *writeconcern.WriteConcern {
	wc := &writeconcern.WriteConcern{}
	if n, err := strconv.Atoi(c.w); err == nil {
		wc.W = n
	} else {
		wc.W = c.w
	}
	if c.w != "0" {
		j := c.j
		wc.Journal = &j
	}
	return wc
}

// readConcernOf returns the configured read concern, nil for the server's default.
func (c *config) readConcernOf() *readconcern.ReadConcern {
	if c.readConcern == "" {
		return nil
	}
	return &readconcern.ReadConcern{Level: c.readConcern}
}

// sqliteParams are the managed FerretDB's SQLite settings. FerretDB ignores the write concern;
// rumbench maps j onto SQLite's own durability: synchronous FULL (a WAL sync per commit) for
// j=true, NORMAL (syncs at checkpoints only) for j=false. Write transactions take SQLite's
// write lock when they begin (_txlock=immediate), so concurrent writers wait for each other
// instead of failing with SQLITE_BUSY when a read lock cannot be upgraded, for up to a minute
// (busy_timeout; FerretDB's default of 10 s was exceeded by two LinkBench loaders here).
func sqliteParams(j bool) string {
	sync := "normal"
	if j {
		sync = "full"
	}
	return "_txlock=immediate&_pragma=busy_timeout(60000)&_pragma=synchronous(" + sync + ")"
}

// pgSettings are the managed FerretDB's PostgreSQL settings: shared_buffers is the engine's
// cache (--cache-mb), and j maps onto synchronous_commit (on: a WAL flush per commit; off: the
// WAL writer flushes within a few hundred milliseconds), as the postgres engine maps --sync.
func pgSettings(cacheBytes int64, j bool) []server.Setting {
	sync := "off"
	if j {
		sync = "on"
	}
	st := []server.Setting{{Name: "synchronous_commit", Value: sync}}
	if mb := cacheBytes >> 20; mb > 0 {
		st = append(st, server.Setting{Name: "shared_buffers", Value: strconv.FormatInt(mb, 10) + "MB"})
	}
	return st
}

// settingsText renders settings as "name=value name=value" for the manifest.
func settingsText(st []server.Setting) string {
	parts := make([]string, len(st))
	for i, x := range st {
		parts[i] = x.Name + "=" + x.Value
	}
	return strings.Join(parts, " ")
}

// eng is an open mongo engine.
type eng struct {
	cfg    config
	client *mongo.Client
	db     *mongo.Database
	srv    *server.Server
	// pgSet are the managed PostgreSQL backend's settings (nil: none).
	pgSet []server.Setting
	info  table.Info
	// txn: multi-document transactions are used; idString: single integer keys are encoded.
	txn      bool
	idString bool
	// topology is standalone, replicaset or sharded (from hello).
	topology string
	// insertWC is the write concern document InsertMany sends outside a transaction (nil:
	// none). insertLean: an insert outside a transaction is sent as the session's own command
	// (Database.RunCommand), because InsertMany would send that command and no more: false
	// for an unacknowledged write concern (InsertMany sends it without awaiting a reply) and
	// where InsertMany makes its write retryable (a txnNumber; retryWrites on a replica set or
	// mongos). Within a transaction the command is the same either way.
	insertWC   []byte
	insertLean bool
	// maxBatch and maxCmd are the server's limits of one insert command: documents
	// (maxWriteBatchSize) and bytes (maxBsonObjectSize plus the 16 KiB MongoDB allows a
	// command above it).
	maxBatch, maxCmd int
	retryWrites      bool
	// lock: a session's goroutine stays on its OS thread during an operation (the connections
	// block the thread); holdsP: the thread keeps its P while it waits (raw system calls), and
	// every open session adds one to GOMAXPROCS (netblock.HoldPs).
	lock, holdsP bool
	// findEach: the server is FerretDB (not the managed one over SQLite), which pushes an
	// equality on _id down to its backend but not an $in: a select of whole keys IN a list, and
	// a Get of several keys, are one find per key (option in_lists in Info).
	findEach bool
	// wireOwn: insert commands go on the sessions' own connections (option wire=own), to
	// wireAddr on wireNet, dialed with wireDial (option io's sockets).
	wireOwn           bool
	wireNet, wireAddr string
	wireDial          func(ctx context.Context, network, addr string) (net.Conn, error)
	// last is the last serverStatus reading (ServerSample is called by one goroutine, the
	// runner's sampler).
	last table.ServerSample

	mu     sync.Mutex
	tables map[string]*tstate
	// dropped counts DropTable's calls (a session's cached table state is then stale).
	dropped atomic.Int64
}

func open(ctx context.Context, o engine.Options) (table.Engine, error) {
	cfg, err := parseConfig(o.Extra, o.Sync)
	if err != nil {
		return nil, err
	}
	e := &eng{cfg: cfg, tables: map[string]*tstate{}, wireOwn: cfg.wire == "own", wireNet: cfg.wireNet, wireAddr: cfg.wireAddr,
		wireDial: netblock.DialFor(cfg.io)}
	dsn := cfg.dsn
	if dsn == "" {
		sc := server.Config{Kind: server.FerretDB, BinDir: cfg.serverBin, Dir: o.Dir, Cgroup: o.Cgroup, Backend: cfg.backend}
		if cfg.backend == server.BackendSQLite {
			sc.Settings = []server.Setting{{Name: "sqlite-params", Value: sqliteParams(cfg.j)}}
		} else {
			e.pgSet = pgSettings(o.CacheBytes, cfg.j)
			sc.BackendSettings = e.pgSet
		}
		e.srv, err = server.Start(ctx, sc)
		if err != nil {
			return nil, err
		}
		dsn = e.srv.DSN()
		if e.wireOwn {
			if e.wireNet, e.wireAddr, err = wireAddr(dsn); err != nil {
				e.CloseContext(context.WithoutCancel(ctx))
				return nil, err
			}
		}
	}
	copts := options.Client().ApplyURI(dsn).SetAppName("rumbench").
		SetWriteConcern(cfg.writeConcern())
	if rc := cfg.readConcernOf(); rc != nil {
		copts.SetReadConcern(rc)
	}
	if cfg.wtimeout > 0 {
		copts.SetTimeout(cfg.wtimeout)
	}
	e.retryWrites = copts.RetryWrites == nil || *copts.RetryWrites
	if wc := cfg.writeConcern(); wc.Acknowledged() {
		_, e.insertWC, err = driver.MarshalBSONWriteConcern(wc, 0)
		if err != nil {
			e.CloseContext(context.WithoutCancel(ctx))
			return nil, fmt.Errorf("mongo: write concern: %w", err)
		}
	}
	copts.SetDialer(dialer{io: cfg.io})
	if cfg.io != "netpoll" {
		e.lock, e.holdsP = true, cfg.io == "raw"
	}
	if testMonitor != nil {
		copts.SetMonitor(testMonitor)
	}
	e.client, err = mongo.Connect(copts)
	if err == nil {
		e.db = e.client.Database(cfg.database)
		err = e.describe(ctx)
	}
	if err != nil {
		e.CloseContext(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("mongo: connect: %w", err)
	}
	return e, nil
}

// describe asks the server what it is (hello, buildInfo, serverStatus) and records the
// effective options in Info.
func (e *eng) describe(ctx context.Context) error {
	if err := e.hello(ctx); err != nil {
		return err
	}
	build, err := e.buildInfo(ctx)
	if err != nil {
		return err
	}
	storage := e.storageEngine(ctx)
	if err := e.chooseModes(build); err != nil {
		return err
	}
	e.recordInfo(build, storage)
	return nil
}

// hello asks the server its topology and limits (hello), and sets the write batch and command
// sizes and whether inserts go lean.
func (e *eng) hello(ctx context.Context) error {
	var hello struct {
		SetName           string `bson:"setName"`
		Msg               string `bson:"msg"`
		MaxBsonObjectSize int    `bson:"maxBsonObjectSize"`
		MaxWriteBatchSize int    `bson:"maxWriteBatchSize"`
	}
	if err := e.client.Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&hello); err != nil {
		return err
	}
	switch {
	case hello.SetName != "":
		e.topology = "replicaset"
	case hello.Msg == "isdbgrid":
		e.topology = "sharded"
	default:
		e.topology = "standalone"
	}
	// The defaults are MongoDB's since 3.6.
	e.maxBatch, e.maxCmd = cmp.Or(hello.MaxWriteBatchSize, 100000), cmp.Or(hello.MaxBsonObjectSize, 16<<20)+16<<10
	e.insertLean = e.insertWC != nil && (e.topology == "standalone" || !e.retryWrites)
	return nil
}

// serverBuild is what buildInfo says of the server: its MongoDB version and, for FerretDB, its
// own ("" for a MongoDB server).
type serverBuild struct {
	Version         string `bson:"version"`
	FerretDBVersion string `bson:"ferretdbVersion"`
}

// buildInfo asks the server its versions.
func (e *eng) buildInfo(ctx context.Context) (serverBuild, error) {
	var build serverBuild
	err := e.client.Database("admin").RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&build)
	return build, err
}

// storageEngine asks the server its storage engine (serverStatus): "" when it does not say.
func (e *eng) storageEngine(ctx context.Context) string {
	var status struct {
		StorageEngine struct {
			Name string `bson:"name"`
		} `bson:"storageEngine"`
	}
	_ = e.client.Database("admin").RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Decode(&status)
	return status.StorageEngine.Name
}

// chooseModes sets what the engine does on this server: transactions (txn=on is refused on a
// standalone server), the _id format, and one find per key of an IN list.
func (e *eng) chooseModes(build serverBuild) error {
	switch e.cfg.txn {
	case "on":
		if e.topology == "standalone" {
			return fmt.Errorf("option txn=on, but the server is a standalone %s: MongoDB runs multi-document transactions on a replica set or through mongos (use txn=auto or off)", e.serverName(build.FerretDBVersion))
		}
		e.txn = true
	case "auto":
		e.txn = e.topology != "standalone" && build.FerretDBVersion == ""
	}
	e.idString = e.cfg.idFormat == "string" || (e.cfg.idFormat == "auto" && e.srv != nil)
	// Over SQLite FerretDB scans the table for an _id equality too: one $in find (one scan) is
	// cheaper than a scan per key. The backend of a dsn FerretDB is not known: per key.
	e.findEach = build.FerretDBVersion != "" && (e.srv == nil || e.cfg.backend != server.BackendSQLite)
	return nil
}

// versionText names the server and its version for Info: MongoDB's, FerretDB's, or a managed
// server's.
func (e *eng) versionText(build serverBuild) string {
	version := "MongoDB " + build.Version
	if build.FerretDBVersion != "" {
		version = "FerretDB " + build.FerretDBVersion + " (MongoDB-compatible " + build.Version + ")"
	}
	if e.srv != nil {
		version = e.srv.Version() + ", MongoDB-compatible " + build.Version
	}
	return version
}

// recordInfo records the engine's Info: the server's version, storage engine (storage) and
// topology, and the effective options (a wire=own that cannot serve this server's writes falls
// back to the driver here).
func (e *eng) recordInfo(build serverBuild, storage string) {
	txn, idf := "per-statement", "native"
	if e.txn {
		txn = "transactions"
	}
	if e.idString {
		idf = "string"
	}
	wire := e.cfg.wire
	if e.wireOwn && (e.txn || !e.insertLean) {
		e.wireOwn = false
		wire = "driver (wire=own serves acknowledged writes that are not retryable, outside transactions)"
	}
	j := strconv.FormatBool(e.cfg.j)
	if e.cfg.w == "0" {
		j = "n/a (w=0)"
	}
	rc := e.cfg.readConcern
	if rc == "" {
		rc = "server default"
	}
	e.info = table.Info{Name: Name, Family: "document", Version: e.versionText(build), Stores: true, LogFiles: logFiles, Options: map[string]string{
		"database": e.cfg.database, "w": e.cfg.w, "j": j, "wtimeout_ms": strconv.FormatInt(e.cfg.wtimeout.Milliseconds(), 10),
		"read_concern": rc, "txn": txn, "id_format": idf, "io": e.cfg.io, "wire": wire,
		"server.topology": e.topology, "server.storage_engine": orNotReported(storage),
		"server_config": e.cfg.serverConfig,
	}}
	if e.srv != nil {
		e.info.Options["backend"] = e.cfg.backend
		if e.cfg.backend == server.BackendSQLite {
			e.info.Options["server"] = "managed FerretDB over SQLite"
			e.info.Options["server.sqlite"] = sqliteParams(e.cfg.j)
		} else {
			e.info.Options["server"] = "managed FerretDB over PostgreSQL"
			e.info.Options["server.postgresql"] = settingsText(e.pgSet)
		}
	}
	if build.FerretDBVersion != "" {
		// FerretDB accepts the write concern and read concern and ignores them.
		e.info.Options["server.write_concern"] = "ignored by FerretDB"
		e.info.WholeRanges = true
	}
	e.info.Options["in_lists"] = "one $in find"
	if e.findEach {
		e.info.Options["in_lists"] = "one find per key (FerretDB pushes no $in down)"
	}
}

// serverName names the server for messages.
func (e *eng) serverName(ferret string) string {
	if ferret != "" {
		return "FerretDB"
	}
	return "MongoDB"
}

// orNotReported returns s, or "not reported" when it is empty.
func orNotReported(s string) string {
	if s == "" {
		return "not reported"
	}
	return s
}

// Info implements table.Engine.
func (e *eng) Info() table.Info { return e.info }

// ThreadBound implements table.ThreadBound: with io=raw or io=blocking the sessions' connections
// block their thread.
func (e *eng) ThreadBound() bool { return e.lock }

// tstate is what the engine knows of one table: its collection and how its rows map to
// documents.
type tstate struct {
	t    *table.Table
	coll *mongo.Collection
	// encoded: _id is the hex of the key encoding and the key columns are fields too.
	encoded bool
	// field[c] is column c's field name; byField the reverse ("_id" maps to column 0 when not
	// encoded).
	field   []string
	byField map[string]int
	// ixName are the MongoDB index names; ixSort the sort documents (index columns, then _id)
	// ascending and descending.
	ixName        []string
	ixAsc, ixDesc []bson.Raw
	// idAsc and idDesc sort by _id.
	idAsc, idDesc bson.Raw
	autoMu        sync.Mutex
	autoInit      bool
	autoMax       atomic.Int64 // the largest key handed out or seen (auto-increment tables)
}

// state returns the table's state, made on first use.
func (e *eng) state(t *table.Table) (*tstate, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if ts := e.tables[t.Name]; ts != nil && ts.t == t {
		return ts, nil
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	ts := &tstate{t: t, coll: e.db.Collection(t.Name), byField: map[string]int{}}
	c0 := t.Columns[0]
	ts.encoded = t.Keys() > 1 || (c0.Type == table.Bytes && !c0.Text) || (c0.Type != table.Bytes && e.idString)
	for i, c := range t.Columns {
		f := c.Name
		if i == 0 && !ts.encoded {
			f = "_id"
		}
		ts.field = append(ts.field, f)
		ts.byField[f] = i
	}
	ts.idAsc, ts.idDesc = sortDoc("_id", 1), sortDoc("_id", -1)
	for _, ix := range t.Indexes {
		ts.ixName = append(ts.ixName, ix.Name)
		ts.ixAsc = append(ts.ixAsc, ts.indexKeys(ix, 1))
		ts.ixDesc = append(ts.ixDesc, ts.indexKeys(ix, -1))
	}
	e.tables[t.Name] = ts
	return ts, nil
}

// indexKeys is the key document of index ix: its columns, then _id, in direction dir.
func (ts *tstate) indexKeys(ix table.Index, dir int32) bson.Raw {
	i, b := docStart(nil)
	for _, c := range ix.Columns {
		b = appendInt32(b, ts.field[c], dir)
	}
	b = appendInt32(b, "_id", dir)
	return bson.Raw(docEnd(b, i))
}

// CreateTable implements table.Engine: a collection, and its indexes when withIndexes.
func (e *eng) CreateTable(ctx context.Context, t *table.Table, withIndexes bool) error {
	ts, err := e.state(t)
	if err != nil {
		return err
	}
	if err := e.db.CreateCollection(ctx, t.Name); err != nil {
		var ce mongo.CommandError
		if errors.As(err, &ce) && (ce.Code == 48 || ce.Name == "NamespaceExists") {
			return fmt.Errorf("mongo: collection %s already exists in database %s: drop it, or pass another database (--engine-opt database=...)", t.Name, e.cfg.database)
		}
		return fmt.Errorf("mongo: create collection %s: %w", t.Name, err)
	}
	if withIndexes {
		return e.createIndexes(ctx, ts)
	}
	return nil
}

// CreateIndexes implements table.Engine.
func (e *eng) CreateIndexes(ctx context.Context, t *table.Table) error {
	ts, err := e.state(t)
	if err != nil {
		return err
	}
	return e.createIndexes(ctx, ts)
}

func (e *eng) createIndexes(ctx context.Context, ts *tstate) error {
	if len(ts.ixName) == 0 {
		return nil
	}
	models := make([]mongo.IndexModel, len(ts.ixName))
	for i, name := range ts.ixName {
		models[i] = mongo.IndexModel{Keys: ts.ixAsc[i], Options: options.Index().SetName(name)}
	}
	if _, err := ts.coll.Indexes().CreateMany(ctx, models); err != nil {
		return fmt.Errorf("mongo: create indexes of %s: %w", ts.t.Name, err)
	}
	return nil
}

// Cleanup implements table.Engine: the fsync command (a checkpoint of the storage engine) when
// the server has it.
func (e *eng) Cleanup(ctx context.Context) (string, error) {
	err := e.client.Database("admin").RunCommand(ctx, bson.D{{Key: "fsync", Value: 1}}).Err()
	if err == nil {
		return "fsync command (storage engine checkpoint)", nil
	}
	var ce mongo.CommandError
	if errors.As(err, &ce) && (ce.Code == 59 || ce.Name == "CommandNotFound") {
		return "none: the server has no fsync command", nil
	}
	return "", fmt.Errorf("mongo: fsync: %w", err)
}

// logFiles are the logs in a managed server's directory: the PostgreSQL backend's WAL, the
// SQLite backend's write-ahead logs, the servers' logs.
var logFiles = []string{"pg_wal", "*-wal", "*-shm", "*.log"}

// Settle implements table.Settler: on the managed FerretDB over PostgreSQL, a CHECKPOINT of the
// backend (FerretDB has no fsync command; its documents are the backend's pages); elsewhere the
// fsync command, a checkpoint of the storage engine (what WiredTiger does every 60 s), when the
// server has it.
func (e *eng) Settle(ctx context.Context) (table.Settled, error) {
	if e.srv != nil && e.srv.Backend() != nil {
		conn, err := pgx.Connect(ctx, e.srv.Backend().DSN())
		if err != nil {
			return table.Settled{}, fmt.Errorf("mongo: connect to the PostgreSQL backend: %w", err)
		}
		defer conn.Close(context.WithoutCancel(ctx))
		if _, err := conn.Exec(ctx, "CHECKPOINT"); err != nil {
			return table.Settled{}, fmt.Errorf("mongo: CHECKPOINT of the PostgreSQL backend: %w", err)
		}
		return table.Settled{Did: "CHECKPOINT of the PostgreSQL backend", DebtBytes: -1}, nil
	}
	did, err := e.Cleanup(ctx)
	return table.Settled{Did: did, DebtBytes: -1}, err
}

// Size implements table.Engine: dbStats' totalSize (data and indexes as stored), else
// storageSize + indexSize.
func (e *eng) Size(ctx context.Context) (int64, bool, error) {
	st, err := e.dbStats(ctx)
	if err != nil {
		return 0, false, err
	}
	if st.total > 0 {
		return st.total, true, nil
	}
	if st.storage+st.index > 0 {
		return st.storage + st.index, true, nil
	}
	return 0, false, nil
}

// NewSession implements table.Engine.
func (e *eng) NewSession(ctx context.Context) (table.Session, error) {
	s := &session{e: e, plans: map[*table.Stmt]*plan{}}
	if e.txn {
		var err error
		if s.sess, err = e.client.StartSession(); err != nil {
			return nil, fmt.Errorf("mongo: session: %w", err)
		}
	}
	if e.holdsP {
		netblock.HoldPs(1)
		s.heldP = true
	}
	return s, nil
}

// Close implements table.Engine.
func (e *eng) Close() error { return e.CloseContext(context.Background()) }

// CloseContext implements table.ContextCloser: a done ctx (an interrupted run) kills the
// managed server instead of waiting for its clean shutdown.
func (e *eng) CloseContext(ctx context.Context) error {
	var err error
	if e.client != nil {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		if ctx.Err() != nil {
			cancel()
			dctx, cancel = context.WithTimeout(context.Background(), time.Second)
		}
		err = e.client.Disconnect(dctx)
		cancel()
		e.client = nil
	}
	if e.srv != nil {
		if serr := e.srv.Stop(ctx); serr != nil && err == nil {
			err = serr
		}
	}
	return err
}

// Fault implements table.Faulter on the managed server (a sever also on a server the user
// runs): see server.Inject. FerretDB's PostgreSQL backend goes down and up with it.
func (e *eng) Fault(ctx context.Context, kind string, d time.Duration) (float64, error) {
	return server.Inject(ctx, e.srv, kind, d)
}
