package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/engine/sqlfam"
	"github.com/rumbench/rumbench/internal/server"
	"github.com/rumbench/rumbench/internal/table"
)

// A Galera cluster (--cluster galera=N): N MariaDB nodes in Dir/node<i> that rumbench starts
// (server.StartGalera), every one taking writes: sessions spread over them in turn
// (sqlfam.Cluster), the schema pool on node1. A --dsn list of the user's servers spreads the same
// way. A certification failure reaches the client as a deadlock (1213): a conflict.

// galeraEngine is the SQL engine on a Galera cluster or a --dsn list.
type galeraEngine struct {
	engineWithServer
	cl    *sqlfam.Cluster
	nodes sqlfam.Servers // nil for a --dsn list
	// stats holds a connection per node for its wsrep status (nil: a --dsn list of servers that
	// are not Galera nodes).
	stats []*sql.DB
}

// openSpread opens the engine on several servers when the options ask for them (a --cluster,
// a --dsn list); handled is false when they ask for one server.
func openSpread(ctx context.Context, name, te string, o engine.Options, info table.Info, choice sqlfam.ClientChoice,
	connector func(dsn string) (sqlfam.Connector, error)) (eng table.Engine, handled bool, err error) {
	dsn := o.Extra["dsn"]
	if v := o.Extra["cluster"]; v != "" {
		spec, err := engine.ParseCluster(v)
		if err != nil {
			return nil, true, err
		}
		if spec.Galera == 0 || dsn != "" {
			return nil, true, fmt.Errorf("%s: --cluster %s: MariaDB clusters are galera=N, started by rumbench (not with --dsn)", name, v)
		}
		if o.MemoryBytes > 0 {
			o.CacheBytes /= int64(spec.Galera) // the nodes share the memory limit's cgroup
		}
		sets, plugins := settings(te, o)
		eng, err = openGalera(ctx, name, o, info, choice, spec, sets, plugins, connector, dialect{te: te, galera: true})
		return eng, true, err
	}
	if dsns := sqlfam.SplitDSNs(dsn, dsnStarts); len(dsns) > 1 {
		readFrom, err := engine.ChoiceOption(name, o.Extra, "read_from", engine.ReadPrimary, engine.ReadPrimary, engine.ReadReplicas)
		if err != nil {
			return nil, true, err
		}
		if !choice.Native {
			return nil, true, fmt.Errorf("%s: a --dsn list needs the native client (client=native): database/sql's pool dials one server", name)
		}
		eng, err = openDSNList(ctx, name, info, dsns, readFrom, connector, dialect{te: te})
		return eng, true, err
	}
	if o.Extra["read_from"] == engine.ReadReplicas {
		return nil, true, fmt.Errorf("%s: --read-from replicas needs a --dsn list (a Galera cluster's nodes all take reads and writes)", name)
	}
	return nil, false, nil
}

// openGalera starts the cluster and opens the engine on it. sets and plugins are one server's.
func openGalera(ctx context.Context, name string, o engine.Options, info table.Info, choice sqlfam.ClientChoice, spec engine.Cluster,
	sets []server.Setting, plugins []string, connector func(dsn string) (sqlfam.Connector, error), d dialect) (table.Engine, error) {
	if !choice.Native {
		return nil, fmt.Errorf("%s: --cluster needs the native client (client=native): database/sql's pool dials one server", name)
	}
	if d.te != "innodb" {
		return nil, fmt.Errorf("%s: Galera replicates InnoDB tables only (table_engine=innodb)", name)
	}
	nodes, err := server.StartGalera(ctx, server.Config{Kind: server.MariaDB, BinDir: o.Extra["server_bin"], Dir: o.Dir,
		ConfigFile: o.Extra["server_config"], Settings: sets, Plugins: plugins, Cgroup: o.Cgroup}, spec.Galera)
	if err != nil {
		return nil, err
	}
	stopAll := func() { sqlfam.Servers(nodes).Stop(context.WithoutCancel(ctx)) }
	e := &galeraEngine{nodes: sqlfam.Servers(nodes)}
	eps := make([]*sqlfam.Endpoint, len(nodes))
	for i, n := range nodes {
		c, err := connector(n.DSN())
		if err != nil {
			stopAll()
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		eps[i] = &sqlfam.Endpoint{Name: n.Name(), Role: "node", Connector: c}
		db, err := openQuiet(n.DSN() + "?timeout=5s")
		if err != nil {
			stopAll()
			return nil, err
		}
		db.SetMaxOpenConns(1)
		e.stats = append(e.stats, db)
	}
	// The schema pool's reads (sizes, counters) and the checks' sessions (SetCausal below) wait
	// until their node has applied every write set committed before them (wsrep_sync_wait=1): a
	// node applies the others' writes after their commit.
	db, err := openQuiet(withParams(nodes[0].DSN() + "?wsrep_sync_wait=1"))
	if err == nil {
		err = db.PingContext(ctx)
	}
	if err != nil {
		e.closeStats()
		stopAll()
		return nil, fmt.Errorf("%s: connect: %w", name, err)
	}
	info.Options["cluster"], info.Options["server_config"] = spec.String(), o.Extra["server_config"]
	e.engineWithServer = engineWithServer{sqlfam.ServerEngine{Engine: sqlfam.New(db, d, info), Srv: nodes[0]}}
	e.cl = sqlfam.NewCluster(eps, eps, nil)
	e.cl.SetCausal(causalRead)
	e.SetConnector(e.cl)
	if err := e.describe(ctx); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// openDSNList opens the engine on a --dsn list of the user's servers: sessions spread over all
// of them, or with --read-from replicas write to the first and read from the others.
func openDSNList(ctx context.Context, name string, info table.Info, dsns []string, readFrom string,
	connector func(dsn string) (sqlfam.Connector, error), d dialect) (table.Engine, error) {
	eps := make([]*sqlfam.Endpoint, len(dsns))
	for i, dsn := range dsns {
		cfg, err := gomysql.ParseDSN(dsn)
		if err != nil {
			return nil, fmt.Errorf("%s: --dsn list, server %d: not a MySQL DSN", name, i+1)
		}
		c, err := connector(dsn)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		eps[i] = &sqlfam.Endpoint{Name: cfg.Addr, Role: "node", Connector: c}
	}
	writers, readers := sqlfam.ListRoutes(eps, readFrom == engine.ReadReplicas)
	db, err := openQuiet(withParams(dsns[0]))
	if err == nil {
		err = db.PingContext(ctx)
	}
	if err != nil {
		if db != nil {
			db.Close()
		}
		return nil, fmt.Errorf("%s: connect: %w", name, err)
	}
	if d.galera, err = wsrepOn(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	info.Options["read_from"], info.Options["servers"] = readFrom, strconv.Itoa(len(dsns))
	e := &galeraEngine{engineWithServer: engineWithServer{sqlfam.ServerEngine{Engine: sqlfam.New(db, d, info)}}}
	e.cl = sqlfam.NewCluster(eps, writers, readers)
	e.SetConnector(e.cl)
	if d.galera {
		// The user's Galera nodes: as a cluster rumbench starts, the checks read causally and
		// each node's wsrep status is read.
		info.Options["galera"] = "on"
		e.cl.SetCausal(causalRead)
		for _, dsn := range dsns {
			s, err := openQuiet(dsn)
			if err != nil {
				e.Close()
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			s.SetMaxOpenConns(1)
			e.stats = append(e.stats, s)
		}
	}
	if err := e.describe(ctx); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// causalRead makes a Galera node's reads on a session wait until the node has applied every write
// set the cluster committed before them.
const causalRead = "SET SESSION wsrep_sync_wait = 1"

// wsrepOn says whether db's server is a Galera node (wsrep_on: ON; MariaDB without Galera has it
// OFF, MySQL has no such variable).
func wsrepOn(ctx context.Context, db *sql.DB) (bool, error) {
	var name, v string
	err := db.QueryRowContext(ctx, "SHOW GLOBAL VARIABLES LIKE 'wsrep_on'").Scan(&name, &v)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return strings.EqualFold(v, "ON"), err
}

// dsnStarts says whether a piece of a --dsn list begins a DSN of its own (user[:pw]@addr/db).
func dsnStarts(p string) bool {
	return strings.Contains(p, "@tcp(") || strings.Contains(p, "@unix(") || strings.Contains(p, "@/")
}

func (e *galeraEngine) closeStats() {
	for _, db := range e.stats {
		db.Close()
	}
}

// CloseContext closes the pools and stops every node (the last first).
func (e *galeraEngine) CloseContext(ctx context.Context) error {
	err := e.Engine.Close()
	e.closeStats()
	if serr := e.nodes.Stop(ctx); err == nil {
		err = serr
	}
	return err
}

// Close implements table.Engine.
func (e *galeraEngine) Close() error { return e.CloseContext(context.Background()) }

// Nodes implements table.FaultTarget.
func (e *galeraEngine) Nodes() []string { return e.nodes.Names() }

// Fault implements table.Faulter on node1 (a sever: every connection).
func (e *galeraEngine) Fault(ctx context.Context, kind string, d time.Duration) (float64, error) {
	return e.FaultNode(ctx, kind, "", d)
}

// FaultNode implements table.FaultTarget: the fault hits the named node ("": node1); a killed,
// restarted or stopped node rejoins the cluster (IST), and the seconds returned run until it is
// synced (after a stop: until every node is in the cluster again, server.GaleraSettled).
func (e *galeraEngine) FaultNode(ctx context.Context, kind, name string, d time.Duration) (float64, error) {
	if kind == "kill-primary" {
		return 0, errors.New("kill-primary: a Galera cluster has no primary (kill@T:nodeN)")
	}
	var target *server.Server
	switch {
	case len(e.nodes) == 0: // a --dsn list: a sever only
	case name == "":
		target = e.nodes[0]
	default:
		if target = e.nodes.Named(name); target == nil {
			return 0, fmt.Errorf("fault %s: no node %q", kind, name)
		}
	}
	secs, err := server.Inject(ctx, target, kind, d)
	if err != nil || kind != "stop" || target == nil {
		return secs, err
	}
	// A node paused past the eviction timeout rejoins once it runs again: the fault lasts
	// until the cluster holds every node again.
	t, err := server.GaleraSettled(ctx, e.nodes)
	return t.Seconds(), err
}

// ServerSample implements table.ServerReporter: node1's counters (the schema pool's server), the
// process trees summed over the nodes that run (of a cluster rumbench started), and Galera's
// replication state summed over the nodes (flow control, certification failures; the longest
// receive queue).
func (e *galeraEngine) ServerSample(ctx context.Context, pss bool) (table.ServerSample, error) {
	s, err := e.counters(ctx)
	if err != nil {
		return s, err
	}
	if len(e.nodes) > 0 {
		s = e.nodes.WithTrees(s, pss)
	}
	if len(e.stats) == 0 {
		return s, nil // a --dsn list of servers that are not Galera nodes
	}
	r := table.NewReplication()
	r.Galera = true
	for _, db := range e.stats {
		st, err := wsrepStatus(ctx, db)
		if err != nil {
			continue // a node that is down or rejoining
		}
		r.FlowPausedNs = max(r.FlowPausedNs, 0) + st["wsrep_flow_control_paused_ns"]
		r.CertFailures = max(r.CertFailures, 0) + st["wsrep_local_cert_failures"]
		r.BFAborts = max(r.BFAborts, 0) + st["wsrep_local_bf_aborts"]
		r.RecvQueue = max(r.RecvQueue, st["wsrep_local_recv_queue"])
		r.Replicas = max(r.Replicas, int(st["wsrep_cluster_size"]))
	}
	s.Repl = r
	return s, nil
}

// wsrepStatus reads a node's numeric wsrep status variables.
func wsrepStatus(ctx context.Context, db *sql.DB) (map[string]int64, error) {
	rows, err := db.QueryContext(ctx, `SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_flow_control_paused_ns',
		'wsrep_local_cert_failures', 'wsrep_local_bf_aborts', 'wsrep_local_recv_queue', 'wsrep_cluster_size')`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		n, _ := strconv.ParseInt(v, 10, 64)
		out[strings.ToLower(k)] = n
	}
	return out, rows.Err()
}

// EndpointSamples implements table.EndpointReporter: each node's statements and process tree.
func (e *galeraEngine) EndpointSamples(dst []table.EndpointSample) []table.EndpointSample {
	start := len(dst)
	dst = e.cl.EndpointSamples(dst)
	for i, n := range e.nodes {
		s := &dst[start+i]
		s.Managed = true
		if st, err := n.Stats(false); err == nil {
			s.Up, s.CPUTicks, s.RSSBytes = true, st.CPUTicks, st.RSSBytes
		} else {
			s.Role = "down"
		}
	}
	return dst
}
