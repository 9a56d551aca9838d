package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/engine/sqlfam"
	"github.com/rumbench/rumbench/internal/server"
	"github.com/rumbench/rumbench/internal/table"
)

// A PostgreSQL cluster (--cluster replicas=N[,sync=on]): a primary in the engine's directory and
// N hot standbys in Dir/replica<i>, each a base backup of the primary streaming its WAL; with
// sync, synchronous_standby_names 'ANY 1 (*)' (each commit waits until one standby flushed it).
// Sessions write to the primary; with --read-from replicas their read-only statements outside a
// transaction go to the standbys (sqlfam.Cluster). kill-primary fails over: the primary is
// killed and left down, the standby that received the most WAL promoted, the others pointed at
// it, and new connections (the sessions' reconnections, the schema pool's) go to it.

// syncStandbys is the synchronous_standby_names of sync=on: any one standby's flush.
const syncStandbys = "ANY 1 (*)"

// clusterEngine is the SQL engine on a PostgreSQL cluster.
type clusterEngine struct {
	engineWithServer
	spec     engine.Cluster
	readFrom string
	cl       *sqlfam.Cluster

	mu       sync.Mutex
	nodes    []*node        // every server, the first primary: the endpoints' order
	srvs     sqlfam.Servers // the nodes' servers, in that order
	primary  *node
	replicas []*node       // the standbys streaming now
	port     *atomic.Int64 // the primary's port, which the schema pool's connections dial
}

// node is a server of the cluster and its endpoint.
type node struct {
	srv *server.Server
	ep  *sqlfam.Endpoint
}

// openCluster starts the cluster and opens the engine on it.
func openCluster(ctx context.Context, o engine.Options, info table.Info, choice sqlfam.ClientChoice, spec engine.Cluster) (table.Engine, error) {
	readFrom, err := engine.ChoiceOption("postgres", o.Extra, "read_from", engine.ReadPrimary, engine.ReadPrimary, engine.ReadReplicas)
	if err != nil {
		return nil, err
	}
	if !choice.Native {
		return nil, errors.New("postgres: --cluster needs the native client (client=native): database/sql's pool dials one server")
	}
	if spec.Sync && !o.Sync {
		return nil, errors.New("postgres: --cluster sync=on needs --sync: with synchronous_commit off a commit waits for no replica")
	}
	if o.MemoryBytes > 0 {
		// The cluster shares the memory limit's cgroup: each server gets its share of the cache.
		o.CacheBytes /= int64(spec.Replicas + 1)
	}
	sets := settings(o)
	e := &clusterEngine{spec: spec, readFrom: readFrom, port: new(atomic.Int64)}
	stopAll := func() { e.srvs.Stop(context.WithoutCancel(ctx)) }
	p, err := server.Start(ctx, server.Config{Kind: server.Postgres, BinDir: o.Extra["server_bin"], Dir: o.Dir, Name: "primary",
		ConfigFile: o.Extra["server_config"], Settings: sets, Cgroup: o.Cgroup})
	if err != nil {
		return nil, err
	}
	e.nodes, e.srvs = append(e.nodes, &node{srv: p}), append(e.srvs, p)
	for i := 1; i <= spec.Replicas; i++ {
		name := "replica" + strconv.Itoa(i)
		r, err := server.Start(ctx, server.Config{Kind: server.Postgres, BinDir: o.Extra["server_bin"], Dir: filepath.Join(o.Dir, name),
			Name: name, ReplicaOf: p, Password: p.Password(), Cgroup: o.Cgroup})
		if err != nil {
			stopAll()
			return nil, err
		}
		e.nodes, e.srvs = append(e.nodes, &node{srv: r}), append(e.srvs, r)
	}
	if spec.Sync {
		if err := p.SetSynchronousStandbys(ctx, syncStandbys); err != nil {
			stopAll()
			return nil, err
		}
	}
	for i, n := range e.nodes {
		c, err := newConnector(n.srv.DSN(), choice)
		if err != nil {
			stopAll()
			return nil, fmt.Errorf("postgres: %w", err)
		}
		role := "replica"
		if i == 0 {
			role = "primary"
		}
		n.ep = &sqlfam.Endpoint{Name: n.srv.Name(), Role: role, Connector: c}
	}
	e.primary, e.replicas = e.nodes[0], e.nodes[1:]
	e.port.Store(int64(p.Port()))
	cfg, err := pgx.ParseConfig(p.DSN())
	if err != nil {
		stopAll()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	port := e.port
	db := stdlib.OpenDB(*cfg, stdlib.OptionBeforeConnect(func(_ context.Context, c *pgx.ConnConfig) error {
		c.Port = uint16(port.Load())
		return nil
	}))
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		stopAll()
		return nil, fmt.Errorf("postgres: connect: %w", connectError(err))
	}
	info.Options["cluster"], info.Options["read_from"] = spec.String(), readFrom
	info.Options["server_config"] = o.Extra["server_config"]
	e.engineWithServer = engineWithServer{sqlfam.ServerEngine{Engine: sqlfam.New(db, dialect{}, info), Srv: p}}
	e.cl = sqlfam.NewCluster(e.endpoints(e.nodes), e.endpoints(e.nodes[:1]), e.readers())
	e.SetConnector(e.cl)
	if err := e.describe(ctx); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

func (e *clusterEngine) endpoints(ns []*node) []*sqlfam.Endpoint {
	out := make([]*sqlfam.Endpoint, len(ns))
	for i, n := range ns {
		out[i] = n.ep
	}
	return out
}

// readers (under mu) are the endpoints read-only statements go to: the streaming replicas with --read-from
// replicas (none left: the primary), else none (the writer).
func (e *clusterEngine) readers() []*sqlfam.Endpoint {
	if e.readFrom != engine.ReadReplicas {
		return nil
	}
	return e.endpoints(e.replicas)
}

// CloseContext stops every server of the cluster, the standbys first.
func (e *clusterEngine) CloseContext(ctx context.Context) error {
	err := e.Engine.Close()
	if serr := e.srvs.Stop(ctx); err == nil {
		err = serr
	}
	return err
}

// Close implements table.Engine.
func (e *clusterEngine) Close() error { return e.CloseContext(context.Background()) }

// Nodes implements table.FaultTarget.
func (e *clusterEngine) Nodes() []string { return e.srvs.Names() }

// Fault implements table.Faulter on the primary.
func (e *clusterEngine) Fault(ctx context.Context, kind string, d time.Duration) (float64, error) {
	return e.FaultNode(ctx, kind, "", d)
}

// FaultNode implements table.FaultTarget: kill-primary fails over; the other kinds hit the named
// server ("": the current primary), which starts again as what it was.
func (e *clusterEngine) FaultNode(ctx context.Context, kind, name string, d time.Duration) (float64, error) {
	if kind == "kill-primary" {
		return e.failover(ctx)
	}
	e.mu.Lock()
	target := e.primary.srv
	e.mu.Unlock()
	if name != "" {
		if target = e.srvs.Named(name); target == nil {
			return 0, fmt.Errorf("fault %s: no server %q", kind, name)
		}
	}
	return server.Inject(ctx, target, kind, d)
}

// failover kills the primary and leaves it down, promotes the standby that received the most WAL
// (with sync=on it holds every acknowledged commit), points the other standbys at it (and, with
// sync=on, makes it wait for one of them), and routes new connections to it. It returns the
// seconds from the kill to the new primary accepting writes.
func (e *clusterEngine) failover(ctx context.Context) (float64, error) {
	// The state is read and swapped under mu; the kill and the promotion run outside it (the
	// collector's ticks read the state meanwhile).
	e.mu.Lock()
	primary, replicas := e.primary, append([]*node(nil), e.replicas...)
	e.mu.Unlock()
	if len(replicas) == 0 {
		return 0, errors.New("kill-primary: no standby is left to promote")
	}
	t0 := time.Now()
	if err := primary.srv.Kill(); err != nil {
		return 0, err
	}
	best, bestAt := -1, int64(-1)
	for i, r := range replicas {
		at, err := r.srv.WALReceived(ctx)
		if err == nil && at > bestAt {
			best, bestAt = i, at
		}
	}
	if best < 0 {
		return 0, errors.New("kill-primary: no standby answered")
	}
	np := replicas[best]
	if err := np.srv.Promote(ctx); err != nil {
		return 0, err
	}
	took := time.Since(t0).Seconds()
	rest := append(append([]*node(nil), replicas[:best]...), replicas[best+1:]...)
	var errs []error
	for _, r := range rest {
		errs = append(errs, r.srv.Follow(ctx, np.srv))
	}
	if e.spec.Sync && len(rest) > 0 {
		errs = append(errs, np.srv.SetSynchronousStandbys(ctx, syncStandbys))
	}
	e.mu.Lock()
	e.primary, e.replicas = np, rest
	readers := e.readers()
	e.mu.Unlock()
	e.port.Store(int64(np.srv.Port()))
	e.cl.Route([]*sqlfam.Endpoint{np.ep}, readers)
	// The schema pool's idle connections are the dead primary's.
	e.DB().SetMaxIdleConns(0)
	e.DB().SetMaxIdleConns(2)
	return took, errors.Join(errs...)
}

// ServerSample implements table.ServerReporter: the primary's counters (after a failover, the
// new primary's, whose WAL position goes on from the old one's), the process trees summed over
// the servers that run, and the replication state from pg_stat_replication: the standby
// furthest behind in replayed bytes and replay_lag.
func (e *clusterEngine) ServerSample(ctx context.Context, pss bool) (table.ServerSample, error) {
	s, err := e.counters(ctx)
	if err != nil {
		return s, err
	}
	s = e.srvs.WithTrees(s, pss)
	s.Repl = replication(ctx, e.DB())
	return s, nil
}

// replication reads a primary's pg_stat_replication: its standbys streaming now, the one
// furthest behind in WAL bytes not replayed and in replay delay (unknown, -1, when it cannot be
// read: a standby, a user without the right).
func replication(ctx context.Context, db *sql.DB) *table.Replication {
	r := table.NewReplication()
	var n int
	var lagBytes int64
	var lagSecs float64
	if err := db.QueryRowContext(ctx, `SELECT count(*), COALESCE(max(pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)), 0)::bigint,
		COALESCE(extract(epoch FROM max(replay_lag)), 0)::float8 FROM pg_stat_replication`).Scan(&n, &lagBytes, &lagSecs); err == nil {
		r.Replicas, r.LagBytes, r.LagSecs = n, lagBytes, lagSecs
	}
	return r
}

// EndpointSamples implements table.EndpointReporter: each server's statements and process tree.
func (e *clusterEngine) EndpointSamples(dst []table.EndpointSample) []table.EndpointSample {
	start := len(dst)
	dst = e.cl.EndpointSamples(dst)
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, n := range e.nodes {
		s := &dst[start+i]
		s.Managed, s.Role = true, "down"
		if n == e.primary {
			s.Role = "primary"
		} else if slices.Contains(e.replicas, n) {
			s.Role = "replica"
		}
		if st, err := n.srv.Stats(false); err == nil {
			s.Up, s.CPUTicks, s.RSSBytes = true, st.CPUTicks, st.RSSBytes
		}
	}
	return dst
}

// dsnStarts says whether a piece of a --dsn list begins a connection string of its own.
func dsnStarts(p string) bool {
	return strings.HasPrefix(p, "postgres://") || strings.HasPrefix(p, "postgresql://") || strings.Contains(p, "host=")
}

// listEngine is the SQL engine on a --dsn list of the user's servers: sessions spread over all
// of them, or with --read-from replicas write to the first and read from the others.
type listEngine struct {
	engineWithServer
	cl *sqlfam.Cluster
}

// openList opens the engine on a --dsn list.
func openList(ctx context.Context, info table.Info, choice sqlfam.ClientChoice, dsns []string, readFrom string) (table.Engine, error) {
	if !choice.Native {
		return nil, errors.New("postgres: a --dsn list needs the native client (client=native): database/sql's pool dials one server")
	}
	eps := make([]*sqlfam.Endpoint, len(dsns))
	for i, d := range dsns {
		cfg, err := pgconn.ParseConfig(d)
		if err != nil {
			return nil, fmt.Errorf("postgres: --dsn list, server %d: not a PostgreSQL URL or key=value string", i+1)
		}
		c, err := newConnector(d, choice)
		if err != nil {
			return nil, fmt.Errorf("postgres: %w", err)
		}
		eps[i] = &sqlfam.Endpoint{Name: net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))), Role: "node", Connector: c}
	}
	writers, readers := sqlfam.ListRoutes(eps, readFrom == engine.ReadReplicas)
	db, err := sql.Open("pgx", dsns[0])
	if err == nil {
		err = db.PingContext(ctx)
	}
	if err != nil {
		if db != nil {
			db.Close()
		}
		return nil, fmt.Errorf("postgres: connect: %w", connectError(err))
	}
	info.Options["read_from"] = readFrom
	info.Options["servers"] = strconv.Itoa(len(dsns))
	e := &listEngine{engineWithServer: engineWithServer{sqlfam.ServerEngine{Engine: sqlfam.New(db, dialect{}, info)}}}
	e.cl = sqlfam.NewCluster(eps, writers, readers)
	e.SetConnector(e.cl)
	if err := e.describe(ctx); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// EndpointSamples implements table.EndpointReporter.
func (e *listEngine) EndpointSamples(dst []table.EndpointSample) []table.EndpointSample {
	return e.cl.EndpointSamples(dst)
}

// ServerSample implements table.ServerReporter: the first server's counters and, when it is a
// primary with standbys, their replication lag.
func (e *listEngine) ServerSample(ctx context.Context, pss bool) (table.ServerSample, error) {
	s, err := e.counters(ctx)
	if err != nil {
		return s, err
	}
	s.Repl = replication(ctx, e.DB())
	return s, nil
}
