// Package server runs private database server instances for a benchmark: it creates a data
// directory, applies rumbench's settings and the user's configuration file, starts the server
// on 127.0.0.1 and a free port, reports its process tree's counters, and always stops it.
//
// An instance lives in one directory (Config.Dir): the data directory Dir/data, the unix
// socket, the generated configuration and the server log Dir/server.log, which is kept after
// Stop. Nothing outside Dir is touched: MariaDB runs with --defaults-file=Dir/my.cnf (never
// /etc/mysql), PostgreSQL with its own data directory. When the caller is root the server runs
// as the distribution's service user (postgres or mysql), which must be able to traverse the
// parent directories of Dir.
//
// The server is a child process in its own process group. Stop finds every process of the
// instance (the group, the descendants of the main process, and, for PostgreSQL, whose
// children each call setsid(), server processes working in the data directory) and returns
// only when none is left. If rumbench itself dies, the kernel sends the main process a
// parent-death signal (PostgreSQL: SIGQUIT, an immediate shutdown; MariaDB: SIGKILL).
//
// Setup needs no client program: PostgreSQL's runs over rumbench's own connection (pgx), as the
// superuser with the instance's random password; MariaDB's runs from an init file the server
// reads as it starts, and the version and plugins are read over rumbench's own connection
// (go-sql-driver/mysql). A server directory needs only what starting and stopping the server
// needs (a portable build: bin/ with its lib/ beside it).
package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Kind names a server product.
type Kind string

// The server kinds Start knows.
const (
	// Postgres is PostgreSQL (postgres and initdb are needed, with the libraries they load).
	Postgres Kind = "postgres"
	// MariaDB is MariaDB (mariadbd, mariadb-install-db and mariadb are needed).
	MariaDB Kind = "mariadb"
	// FerretDB is FerretDB v1, a MongoDB wire-protocol server, run by the rumbench-ferretdb
	// helper program over SQLite or over a private PostgreSQL instance (Config.Backend; see
	// ferretdb.go).
	FerretDB Kind = "ferretdb"
)

// Kinds lists the kinds Start accepts, in a stable order.
func Kinds() []Kind { return []Kind{Postgres, MariaDB, FerretDB} }

// DefaultStartTimeout bounds Start (data directory creation, server start and setup) when
// Config.StartTimeout is zero.
const DefaultStartTimeout = 60 * time.Second

// StopTimeout is how long Stop waits for a clean shutdown before it kills the process tree.
const StopTimeout = 30 * time.Second

// Setting is one server configuration parameter, written to the generated configuration
// file as Name = Value. Names are the server's own (shared_buffers, innodb_buffer_pool_size);
// values are passed through unchanged (units as the server understands them: "256MB", "256M").
// A MariaDB setting with an empty Value is written as a bare option (e.g. skip-log-bin).
type Setting struct{ Name, Value string }

// Config describes the instance Start creates.
type Config struct {
	// Kind selects the server: Postgres, MariaDB or FerretDB.
	Kind Kind
	// BinDir is the directory holding the server binaries. Empty means discover them:
	// for PostgreSQL /usr/lib/postgresql/<highest version>/bin, then the directory of
	// `postgres` found in PATH; for MariaDB mariadbd in PATH, then /usr/sbin (the client
	// programs in the same directory, PATH or /usr/bin). When set, MariaDB's programs are
	// also looked up in BinDir's siblings bin, sbin and scripts (a tarball layout); for
	// PostgreSQL also in the directory BinDir/postgres links to.
	BinDir string
	// Dir is the instance directory. It is created when missing and must otherwise be an empty
	// directory. Data goes in Dir/data, the unix socket in Dir, the log in Dir/server.log.
	Dir string
	// Settings are rumbench's parameters, written in order before the user's file, so the
	// user's file wins for a parameter both set.
	Settings []Setting
	// ConfigFile is the user's postgresql.conf or my.cnf fragment ("" = none). It is copied
	// into Dir (Dir/user.conf or Dir/user.cnf, readable by the service user) and included
	// after Settings. A my.cnf fragment without a group header is read as [mysqld].
	ConfigFile string
	// Plugins are MariaDB plugin libraries to load at start (plugin-load-add), e.g.
	// "ha_rocksdb". Start fails if one of them is not active afterwards. PostgreSQL: must be
	// empty (use shared_preload_libraries in Settings).
	Plugins []string
	// StartTimeout bounds the whole of Start; 0 means DefaultStartTimeout.
	StartTimeout time.Duration
	// Env are extra environment variables (KEY=VALUE) of the server processes, set after the
	// caller's environment (they win), e.g. LD_PRELOAD for the sync accounting library. The
	// set-up programs (initdb, mariadb-install-db) do not get them.
	Env []string
	// Cgroup is the directory of a cgroup the server process is written into as soon as it
	// starts (its children are then born there), and every process of its tree once it accepts
	// connections. Empty: none. The set-up programs stay out.
	Cgroup string

	// Backend is FerretDB's storage (FerretDB only): BackendSQLite ("" too: SQLite files in
	// Dir/data) or BackendPostgreSQL (a private PostgreSQL instance that Start creates first, in
	// Dir/postgresql, and that the helper reaches over TCP on 127.0.0.1; it is stopped after
	// the helper, its processes count as the server's in Stats, and its log is appended to
	// Dir/server.log when it stops).
	Backend string
	// BackendSettings are the PostgreSQL backend's settings (Config.Settings of that instance).
	BackendSettings []Setting

	// Name is the instance's name within a cluster ("" for a lone server): a PostgreSQL
	// replica's application_name, a Galera node's wsrep_node_name. Letters, digits and _ only.
	Name string
	// Password is the benchmark user's password ("" = a new random one). The instances of one
	// cluster share the first one's: a replica's data is a copy of its primary's, and a Galera
	// node replicates the user it creates to the others.
	Password string
	// ReplicaOf makes a PostgreSQL instance a hot standby of this running primary: its data
	// directory is a base backup of the primary (pg_basebackup over 127.0.0.1, as the
	// superuser), and it streams the primary's WAL (primary_conninfo, application_name Name).
	// Settings and ConfigFile are the primary's (the backup copies its postgresql.conf).
	ReplicaOf *Server
	// FirstArgs are extra server arguments of the first launch only, not of a restart after a
	// fault (a Galera node that bootstraps the cluster: --wsrep-new-cluster).
	FirstArgs []string

	pickPort func() (int, error) // the port source (nil: freePort): tests', a Galera node's
	galera   *galeraNode         // a node of a Galera cluster (galera.go); nil: none
}

// FerretDB's storage backends (Config.Backend).
const (
	// BackendSQLite stores each database in a SQLite file of Dir/data.
	BackendSQLite = "sqlite"
	// BackendPostgreSQL stores each collection in a table of a private PostgreSQL instance.
	BackendPostgreSQL = "postgresql"
)

// Server is a running private server instance. Its methods are safe for concurrent use.
// Every Server returned by Start must be stopped with Stop.
type Server struct {
	kind    Kind
	cfg     Config
	bins    binaries
	acct    *account // nil: the server runs as the current user
	dir     string   // absolute instance directory
	dataDir string
	logPath string
	port    int
	version string
	walker  *treeWalker // Stats' buffers
	// password is the benchmark user's random password (PostgreSQL: postgres; MariaDB:
	// rumbench), also in Dir/password (0600).
	password string
	// backend is FerretDB's PostgreSQL instance (nil: none).
	backend *Server

	userConf []byte // content of cfg.ConfigFile
	// leftOut are rumbench's settings this release does not know (LeftOut).
	leftOut []string

	launchOff int64    // size of the log when the running server was launched
	launched  bool     // a launch has succeeded: Config.FirstArgs are not given again
	promoted  bool     // a replica promoted to primary (Promote)
	toolExtra []string // environment added to the next set-up program's (runToolEnv)
	step      string   // the stage Start is in, for StartError.Step

	pid      int
	waitDone chan struct{} // closed when cmd.Wait returned
	waitErr  error         // valid after waitDone is closed

	stopMu  sync.Mutex
	stopped bool
	stopErr error
}

var clusterName = regexp.MustCompile(`^[A-Za-z0-9_]{1,32}$`)

var passwordChars = regexp.MustCompile(`^[A-Za-z0-9]{8,64}$`)

var settingName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

func (c *Config) validate() error {
	switch c.Kind {
	case Postgres, MariaDB, FerretDB:
	case "":
		return errors.New("server: no server kind given (valid: postgres, mariadb, ferretdb)")
	default:
		return fmt.Errorf("server: unknown server kind %q (valid: postgres, mariadb, ferretdb)", c.Kind)
	}
	if c.Kind == FerretDB && (c.ConfigFile != "" || len(c.Plugins) > 0) {
		return errors.New("server: ferretdb takes no configuration file and no plugins")
	}
	switch {
	case c.Kind != FerretDB && (c.Backend != "" || len(c.BackendSettings) > 0):
		return fmt.Errorf("server: a storage backend is FerretDB's; %s has none", c.Kind)
	case c.Backend != "" && c.Backend != BackendSQLite && c.Backend != BackendPostgreSQL:
		return fmt.Errorf("server: unknown ferretdb backend %q (valid: %s, %s)", c.Backend, BackendSQLite, BackendPostgreSQL)
	case c.Backend != BackendPostgreSQL && len(c.BackendSettings) > 0:
		return errors.New("server: backend settings are the PostgreSQL backend's")
	}
	if c.Dir == "" {
		return errors.New("server: no instance directory given")
	}
	for _, s := range c.Settings {
		if !settingName.MatchString(s.Name) {
			return fmt.Errorf("server: invalid %s setting name %q", c.Kind, s.Name)
		}
		if strings.ContainsAny(s.Value, "\n\r\x00") {
			return fmt.Errorf("server: %s setting %s: value must be one line", c.Kind, s.Name)
		}
	}
	if c.Kind == Postgres && len(c.Plugins) > 0 {
		return errors.New("server: plugins are MariaDB-only; for postgres set shared_preload_libraries")
	}
	for _, p := range c.Plugins {
		if !settingName.MatchString(p) {
			return fmt.Errorf("server: invalid plugin name %q", p)
		}
	}
	for _, kv := range c.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return fmt.Errorf("server: environment entry %q is not KEY=VALUE", kv)
		}
	}
	if c.Name != "" && !clusterName.MatchString(c.Name) {
		return fmt.Errorf("server: instance name %q: want letters, digits and _ (at most 32)", c.Name)
	}
	if c.Password != "" && !passwordChars.MatchString(c.Password) {
		return errors.New("server: a given password must be 8 to 64 letters and digits")
	}
	if c.ReplicaOf != nil && (c.Kind != Postgres || c.ReplicaOf.kind != Postgres) {
		return errors.New("server: a replica made by base backup is PostgreSQL's")
	}
	if c.StartTimeout < 0 {
		return fmt.Errorf("server: negative start timeout %v", c.StartTimeout)
	}
	return nil
}

// Start creates the instance described by cfg, starts the server and waits until it accepts
// connections, then creates the database "rumbench" (and for MariaDB the TCP user
// rumbench@127.0.0.1 with password rumbench and all privileges). The whole of Start is bounded
// by cfg.StartTimeout and by ctx. On error nothing is left running and the returned error says
// what to fix; a failure of the server itself is a *StartError carrying the server log's tail.
// Missing binaries give an error matching ErrBinaryNotFound, a non-empty Dir ErrDirNotEmpty.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	timeout := cfg.StartTimeout
	if timeout == 0 {
		timeout = DefaultStartTimeout
	}
	bins, err := findBinaries(cfg.Kind, cfg.BinDir)
	if err != nil {
		return nil, err
	}
	acct, err := serviceAccount(cfg.Kind)
	if err != nil {
		return nil, err
	}
	var userConf []byte
	if cfg.ConfigFile != "" {
		if userConf, err = os.ReadFile(cfg.ConfigFile); err != nil {
			return nil, fmt.Errorf("server: cannot read the %s config file: %w", cfg.Kind, err)
		}
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("server: instance directory %s: %w", cfg.Dir, err)
	}
	s := &Server{
		kind: cfg.Kind, cfg: cfg, bins: bins, acct: acct, dir: dir, userConf: userConf, walker: newTreeWalker(),
		dataDir: filepath.Join(dir, "data"), logPath: filepath.Join(dir, "server.log"),
	}
	if err := s.prepareDir(); err != nil {
		return nil, err
	}
	s.dropUnknownSettings(ctx)
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := s.start(tctx); err != nil {
		kerr := s.kill(quitWait)
		switch {
		case ctx.Err() != nil:
			err = fmt.Errorf("server: %s start cancelled: %w", s.kind, ctx.Err())
		case tctx.Err() != nil:
			err = s.startError(s.step, fmt.Sprintf("timed out after %v, during %s", timeout, s.step),
				"raise the start timeout, or look in the server log for what it was waiting on",
				s.launchOff, context.DeadlineExceeded)
		}
		return nil, errors.Join(err, kerr)
	}
	return s, nil
}

// start initializes the data directory, launches the server (retrying on a port conflict)
// and runs the setup statements.
func (s *Server) start(ctx context.Context) error {
	s.step = s.initStep()
	if err := s.initialize(ctx); err != nil {
		return err
	}
	s.step = "start"
	pick := s.cfg.pickPort
	if pick == nil {
		pick = freePort
	}
	const attempts = 3
	for i := 1; ; i++ {
		port, err := pick()
		if err != nil {
			return err
		}
		s.port = port
		err = s.launch(ctx)
		if err == nil {
			break
		}
		if !errors.Is(err, errPortInUse) {
			return err
		}
		if i == attempts {
			return s.startError("start", fmt.Sprintf("port %d was taken by another process, %d times", port, attempts),
				"try again", s.launchOff, err)
		}
		s.logf("port %d was taken by another process; retrying on another port", port)
	}
	s.step = "setup"
	return s.setup(ctx)
}

// DSN returns the connection string for the database "rumbench" over TCP on 127.0.0.1, with
// the instance's random password: a pgx URL ("postgres://postgres:PW@127.0.0.1:PORT/rumbench?
// sslmode=disable", scram-sha-256) or a go-sql-driver/mysql DSN
// ("rumbench:PW@tcp(127.0.0.1:PORT)/rumbench"). It holds a secret: never record it. For
// FerretDB it is a MongoDB URI without credentials ("mongodb://127.0.0.1:PORT/?
// directConnection=true": FerretDB v1 over SQLite does not authenticate, and over PostgreSQL it
// uses the backend's user and password for a client that does not; it listens on the loopback
// address only).
func (s *Server) DSN() string {
	switch s.kind {
	case Postgres:
		return fmt.Sprintf("postgres://postgres:%s@127.0.0.1:%d/rumbench?sslmode=disable", s.password, s.port)
	case FerretDB:
		return fmt.Sprintf("mongodb://127.0.0.1:%d/?directConnection=true", s.port)
	}
	return fmt.Sprintf("rumbench:%s@tcp(127.0.0.1:%d)/rumbench", s.password, s.port)
}

// Password returns the instance's random password (the one in DSN and in Dir/password).
func (s *Server) Password() string { return s.password }

// Kind returns the server kind.
func (s *Server) Kind() Kind { return s.kind }

// Port returns the TCP port the server listens on (127.0.0.1 only).
func (s *Server) Port() int { return s.port }

// Pid returns the process id of the main server process (the postmaster, mariadbd), the
// root of the tree Stats sums.
func (s *Server) Pid() int { return s.pid }

// Dir returns the absolute instance directory.
func (s *Server) Dir() string { return s.dir }

// DataDir returns the absolute data directory (Dir/data): the bytes a size figure measures.
// FerretDB over PostgreSQL keeps its documents in the backend's (Backend().DataDir()).
func (s *Server) DataDir() string { return s.dataDir }

// SocketPath returns the absolute path of the server's unix socket.
func (s *Server) SocketPath() string { return s.socketPath() }

// Version returns the version the server reports, e.g. "PostgreSQL 15.18 (Debian
// 15.18-0+deb12u1)" or "10.11.19-MariaDB-0+deb12u1".
func (s *Server) Version() string { return s.version }

// LogPath returns the absolute path of the server log (Dir/server.log). The log also holds
// the output of the set-up programs (initdb, mariadb-install-db) and is kept after Stop.
func (s *Server) LogPath() string { return s.logPath }

// LogTail returns the last maxLines lines of the server log ("" if it cannot be read).
func (s *Server) LogTail(maxLines int) string { return readLogTail(s.logPath, maxLines) }

func (s *Server) socketPath() string {
	if s.kind == Postgres {
		return filepath.Join(s.dir, fmt.Sprintf(".s.PGSQL.%d", s.port))
	}
	return filepath.Join(s.dir, "mysqld.sock")
}

// writeFile writes a file of the instance (mode 0644 inside the private instance directory),
// owned by the service account.
func (s *Server) writeFile(path string, data []byte) error {
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	return s.chown(path)
}

// Per-kind steps; see postgres.go and mariadb.go.

func (s *Server) initialize(ctx context.Context) error {
	if s.kind == FerretDB {
		return s.ferretInit(ctx)
	}
	if s.kind == Postgres {
		return s.pgInit(ctx)
	}
	return s.myInit(ctx)
}

func (s *Server) serverArgs() ([]string, error) {
	if s.kind == FerretDB {
		return s.ferretArgs(), nil
	}
	if s.kind == Postgres {
		return s.pgArgs(), nil
	}
	return s.myArgs()
}

func (s *Server) ready() bool {
	if s.kind == FerretDB {
		return s.ferretReady()
	}
	if s.kind == Postgres {
		return s.pgReady()
	}
	return s.myReady()
}

func (s *Server) setup(ctx context.Context) error {
	if s.kind == FerretDB {
		return nil // the helper reported its version in its ready file
	}
	if s.kind == Postgres {
		return s.pgSetup(ctx)
	}
	return s.mySetup(ctx, s.launchOff)
}

// configPath is the generated configuration file: data/postgresql.conf or Dir/my.cnf.
func (s *Server) configPath() string {
	if s.kind == FerretDB {
		return filepath.Join(s.dir, "ready")
	}
	if s.kind == Postgres {
		return filepath.Join(s.dataDir, "postgresql.conf")
	}
	return filepath.Join(s.dir, "my.cnf")
}

// userConfigPath is where the user's configuration file is copied.
func (s *Server) userConfigPath() string {
	if s.kind == FerretDB {
		return ""
	}
	if s.kind == Postgres {
		return filepath.Join(s.dir, "user.conf")
	}
	return filepath.Join(s.dir, "user.cnf")
}

// initStep names the program that creates the data directory.
func (s *Server) initStep() string {
	if s.kind == FerretDB {
		return "mkdir"
	}
	if s.kind == Postgres && s.cfg.ReplicaOf != nil {
		return "pg_basebackup"
	}
	if s.kind == Postgres {
		return "initdb"
	}
	if s.bins.selfInit {
		return "mysqld --initialize-insecure"
	}
	return "mariadb-install-db"
}
