package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A Galera cluster (StartGalera) is N private MariaDB instances on 127.0.0.1 that replicate
// synchronously through the Galera 4 provider (wsrep). Node i lives in Dir/node<i>, with its
// own SQL port and three more ports of its own, all on 127.0.0.1 and outside the kernel's
// ephemeral port range (see pickPorts): group communication (gmcast.listen_addr), incremental
// state transfer (ist.recv_addr) and the rsync daemon of a full state transfer
// (wsrep_sst_receive_address). Node 1 bootstraps the cluster
// (--wsrep-new-cluster, its first launch only); each other node then joins in turn with a full
// state transfer (SST) by rsync from a node already in the cluster, which replaces its data
// directory, so it is not created with mariadb-install-db and its benchmark user and database
// are node 1's (one password for the cluster). A node counts as started when it accepts
// connections and its wsrep_local_state_comment is Synced. A node that crashes or restarts
// (Crash, Restart) joins the others again on its own data: it receives the writesets it missed
// by incremental state transfer (IST) from a donor's gcache, and Crash and Restart return when
// it is Synced again. After a crash its grastate.dat holds no position: mariadbd --wsrep-recover
// reads it from InnoDB first (as mysqld_safe and galera_recovery do), else the node would take
// a full state transfer.

// MaxGaleraNodes is the largest cluster StartGalera starts.
const MaxGaleraNodes = 9

// GaleraClusterName is the wsrep_cluster_name of the clusters StartGalera starts.
const GaleraClusterName = "rumbench"

// GaleraGCacheSize is each node's gcache (gcache.size, a file Dir/node<i>/galera.cache outside
// the data directory, mapped into the server's memory): the writesets a node keeps for a node
// that rejoins. A node that was away for longer than the cluster needs to write this much
// gets a full state transfer (SST) instead of an incremental one (IST).
const GaleraGCacheSize = "256M"

// galeraProviders are where distributions put the Galera 4 provider library.
var galeraProviders = []string{
	"/usr/lib/galera/libgalera_smm.so",
	"/usr/lib/galera-4/libgalera_smm.so",
	"/usr/lib64/galera-4/libgalera_smm.so",
	"/usr/lib/libgalera_smm.so",
}

// galeraNode is what a node of a Galera cluster knows of its role (Config.galera).
type galeraNode struct {
	index int // 1-based
	// joiner: the first launch joins the cluster by SST (every node but node 1), so the data
	// directory starts empty.
	joiner bool
}

// GaleraNode reports whether s is a node of a cluster StartGalera started.
func (s *Server) GaleraNode() bool { return s.cfg.galera != nil }

// galeraSyncPoll is how often a starting node's wsrep state is read.
const galeraSyncPoll = 100 * time.Millisecond

// StartGalera starts a Galera cluster of n MariaDB nodes (2 <= n <= MaxGaleraNodes) on
// 127.0.0.1 and returns them in order (node 1 first). base describes every node (Kind MariaDB
// or empty; BinDir, Settings, ConfigFile, Plugins, Env, Cgroup, StartTimeout; Password: the
// shared password, "" for a random one); base.Dir is the cluster directory (created when
// missing, else it must be empty) and node i lives in base.Dir/node<i> with Name "node<i>".
// Name, ReplicaOf and FirstArgs are StartGalera's own and must be empty.
//
// The Galera settings come after base.Settings (so they win; the user's ConfigFile still wins
// over both): wsrep_on, wsrep_provider (libgalera_smm.so of Debian's galera-4), the cluster
// name and address, the node's name and addresses, wsrep_provider_options (the node's ports,
// gcache.size GaleraGCacheSize in Dir/node<i>), wsrep_sst_method=rsync, binlog_format=ROW,
// default_storage_engine=InnoDB and innodb_autoinc_lock_mode=2. A wsrep_provider_options in
// base.Settings is not replaced but appended to rumbench's, so its options win (e.g.
// "gcache.size=1G; evs.suspect_timeout=PT3S"); one in the ConfigFile replaces them all, the
// ports too, and breaks the cluster. Node 1 bootstraps the cluster;
// the others join one after another by rsync SST. Each node's start (its SST included) is
// bounded by base.StartTimeout (0: DefaultStartTimeout) and all by ctx. A node is started when
// it accepts connections and is Synced.
//
// Every returned Server must be stopped with Stop. On error no node is left running and the
// error names the node; a node's own failure is a *StartError (errors.As) with its log tail. A
// missing provider, or a missing program of the rsync state transfer (wsrep_sst_rsync, rsync,
// ss or lsof, ps), gives an error matching ErrBinaryNotFound that says what to install; a
// non-empty base.Dir one matching ErrDirNotEmpty.
//
// Crash and Restart of a node return when it is Synced again (the time is its rejoin: after a
// crash, mostly the others' wait to declare its earlier incarnation dead, evs.suspect_timeout
// and evs.inactive_timeout). With n = 2 a node that crashes leaves the other without a quorum
// (non-Primary: it refuses queries until the crashed node is back); a clean Restart does not.
// Each node keeps every writeset in its gcache, a file mapped into its memory: up to
// GaleraGCacheSize of its RSS, per node.
func StartGalera(ctx context.Context, base Config, n int) ([]*Server, error) {
	if err := galeraRefusal(&base, n); err != nil {
		return nil, err
	}
	provider, err := galeraProvider()
	if err != nil {
		return nil, err
	}
	bins, err := findBinaries(MariaDB, base.BinDir)
	if err != nil {
		return nil, err
	}
	if err := galeraSSTPrograms(bins); err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(base.Dir)
	if err != nil {
		return nil, fmt.Errorf("server: cluster directory %s: %w", base.Dir, err)
	}
	if err := galeraClusterDir(dir); err != nil {
		return nil, err
	}
	taken := map[int]bool{}
	ports, err := pickPorts(3*n, taken)
	if err != nil {
		return nil, err
	}
	for _, p := range ports {
		taken[p] = true
	}
	gcomm := make([]string, n)
	for i := range n {
		gcomm[i] = "127.0.0.1:" + strconv.Itoa(ports[3*i])
	}
	address := "gcomm://" + strings.Join(gcomm, ",")

	// The caller's provider options go after rumbench's, so that they win.
	var settings []Setting
	var userOpts []string
	for _, st := range base.Settings {
		if strings.ReplaceAll(strings.ToLower(st.Name), "-", "_") == "wsrep_provider_options" {
			if v := strings.Trim(st.Value, "; "); v != "" {
				userOpts = append(userOpts, v)
			}
			continue
		}
		settings = append(settings, st)
	}

	var nodes []*Server
	for i := 1; i <= n; i++ {
		cfg := base
		cfg.Name = fmt.Sprintf("node%d", i)
		cfg.Dir = filepath.Join(dir, cfg.Name)
		gport, iport, sport := ports[3*(i-1)], ports[3*(i-1)+1], ports[3*(i-1)+2]
		opts := strings.Join(append([]string{
			fmt.Sprintf("gmcast.listen_addr=tcp://127.0.0.1:%d", gport),
			fmt.Sprintf("ist.recv_addr=127.0.0.1:%d", iport),
			"gcache.dir=" + cfg.Dir, "gcache.size=" + GaleraGCacheSize,
		}, userOpts...), ";")
		cfg.Settings = append(slices.Clone(settings),
			Setting{"wsrep_on", "ON"},
			Setting{"wsrep_provider", provider},
			Setting{"wsrep_cluster_name", GaleraClusterName},
			Setting{"wsrep_cluster_address", address},
			Setting{"wsrep_node_name", cfg.Name},
			Setting{"wsrep_node_address", "127.0.0.1"},
			Setting{"wsrep_provider_options", opts},
			Setting{"wsrep_sst_method", "rsync"},
			Setting{"wsrep_sst_receive_address", "127.0.0.1:" + strconv.Itoa(sport)},
			Setting{"binlog_format", "ROW"},
			Setting{"default_storage_engine", "InnoDB"},
			Setting{"innodb_autoinc_lock_mode", "2"},
		)
		cfg.galera = &galeraNode{index: i, joiner: i > 1}
		if i == 1 {
			cfg.FirstArgs = []string{"--wsrep-new-cluster"}
		} else {
			cfg.Password = nodes[0].Password()
		}
		cfg.pickPort = func() (int, error) {
			p, err := pickPorts(1, taken)
			if err != nil {
				return 0, err
			}
			return p[0], nil
		}
		s, err := Start(ctx, cfg)
		if err != nil {
			err = fmt.Errorf("server: galera node%d of %d: %w", i, n, err)
			return nil, errors.Join(err, stopNodes(nodes))
		}
		taken[s.Port()] = true
		nodes = append(nodes, s)
	}
	return nodes, nil
}

// galeraRefusal checks StartGalera's arguments, filling in base.Kind.
func galeraRefusal(base *Config, n int) error {
	if n < 2 || n > MaxGaleraNodes {
		return fmt.Errorf("server: a galera cluster has 2 to %d nodes, not %d", MaxGaleraNodes, n)
	}
	switch base.Kind {
	case "":
		base.Kind = MariaDB
	case MariaDB:
	default:
		return fmt.Errorf("server: a galera cluster is made of mariadb nodes, not %s", base.Kind)
	}
	switch {
	case base.Dir == "":
		return errors.New("server: no cluster directory given")
	case base.Name != "" || base.ReplicaOf != nil || len(base.FirstArgs) > 0:
		return errors.New("server: a galera node's name, replica source and first-launch arguments are StartGalera's own")
	case strings.ContainsAny(base.Dir, ";="):
		return fmt.Errorf("server: cluster directory %q: a galera provider option (gcache.dir) cannot hold ; or =", base.Dir)
	}
	return nil
}

// galeraProvider returns the path of the Galera 4 provider library.
func galeraProvider() (string, error) {
	for _, p := range galeraProviders {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", &notFoundError{fmt.Sprintf("galera provider libgalera_smm.so not found in %s: install Debian's galera-4 (apt-get install galera-4)",
		strings.Join(galeraProviders, ", "))}
}

// galeraSSTPrograms checks for the programs of the rsync state transfer: the script
// wsrep_sst_rsync (mariadb-server; in PATH, or beside mariadbd or in its build's bin/ or
// scripts/) and, in PATH, what the script runs: rsync, ss (iproute2) or lsof to see its daemon
// listen, and ps (procps) to see it end. Without them a joiner would fail only at its state
// transfer, after a wait.
func galeraSSTPrograms(bins binaries) error {
	var missing, pkgs []string
	need := func(found bool, what, pkg string) {
		if !found {
			missing, pkgs = append(missing, what), append(pkgs, pkg)
		}
	}
	inPath := func(name string) bool {
		_, err := exec.LookPath(name)
		return err == nil
	}
	script := inPath("wsrep_sst_rsync")
	up := filepath.Dir(bins.baseDir)
	for _, d := range []string{bins.baseDir, filepath.Join(up, "bin"), filepath.Join(up, "scripts")} {
		if fi, err := os.Stat(filepath.Join(d, "wsrep_sst_rsync")); err == nil && !fi.IsDir() {
			script = true
		}
	}
	need(script, "wsrep_sst_rsync", "mariadb-server")
	need(inPath("rsync"), "rsync", "rsync")
	need(inPath("ss") || inPath("lsof"), "ss or lsof", "iproute2")
	need(inPath("ps"), "ps", "procps")
	if len(missing) > 0 {
		return &notFoundError{fmt.Sprintf("galera's rsync state transfer needs %s, not found in PATH: install Debian's %s (apt-get install %s)",
			strings.Join(missing, ", "), strings.Join(pkgs, ", "), strings.Join(pkgs, " "))}
	}
	return nil
}

// galeraClusterDir creates the cluster directory (mode 0755: the mysql OS user traverses it to
// the node directories) or checks that it is empty.
func galeraClusterDir(dir string) error {
	f, err := os.Open(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("server: cannot create the cluster directory: %w", err)
		}
		return os.Chmod(dir, 0o755) // not the umask's
	case err != nil:
		return fmt.Errorf("server: cluster directory: %w", err)
	}
	defer f.Close()
	if _, err := f.Readdirnames(1); err != io.EOF {
		if err == nil {
			return &dirError{fmt.Sprintf("server: cluster directory %s is not empty: pass a new or empty directory", dir)}
		}
		return &dirError{fmt.Sprintf("server: cluster directory %s: %v (pass a new or empty directory)", dir, err)}
	}
	return nil
}

// The ports of a cluster's nodes are picked outside the kernel's ephemeral range (where
// freePort's come from), because a port that is free now must stay free until the node binds
// it, also when the node binds it again after a crash: in the ephemeral range the kernel may
// give it meanwhile to any outgoing connection as its local port (the nodes' own connections to
// each other, the benchmark's), and the node's bind then fails with "Address already in use".

// staticPortFloor is the lowest port pickPorts picks (below it: well-known services).
const staticPortFloor = 10000

// staticPortRange returns the range [lo, hi] of ports outside the kernel's ephemeral range
// (net.ipv4.ip_local_port_range) that pickPorts picks from; ok is false when the ephemeral range
// leaves fewer than 1000 such ports.
func staticPortRange() (lo, hi int, ok bool) {
	elo, ehi := 32768, 60999 // Linux's default
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			a, err1 := strconv.Atoi(f[0])
			z, err2 := strconv.Atoi(f[1])
			if err1 == nil && err2 == nil && a <= z {
				elo, ehi = a, z
			}
		}
	}
	switch {
	case elo-1-staticPortFloor >= 1000:
		return staticPortFloor, elo - 1, true
	case 65535-(ehi+1) >= 1000:
		return max(ehi+1, staticPortFloor), 65535, true
	}
	return 0, 0, false
}

// pickPorts returns k distinct TCP ports of 127.0.0.1, none of taken, each free a moment ago
// (held by a listener until all are picked), outside the ephemeral range when there is room
// (staticPortRange), else from it (freePort's).
func pickPorts(k int, taken map[int]bool) ([]int, error) {
	lo, hi, static := staticPortRange()
	var ports []int
	for tries := 0; len(ports) < k; tries++ {
		if tries == 100*k+1000 {
			return nil, fmt.Errorf("server: no %d free ports on 127.0.0.1 in %d-%d", k, lo, hi)
		}
		addr := "127.0.0.1:0"
		if static {
			p := lo + rand.IntN(hi-lo+1)
			if taken[p] || slices.Contains(ports, p) {
				continue
			}
			addr = "127.0.0.1:" + strconv.Itoa(p)
		}
		l, err := net.Listen("tcp", addr)
		if err != nil {
			if static {
				continue // in use
			}
			return nil, fmt.Errorf("server: cannot find a free port on 127.0.0.1: %w", err)
		}
		defer l.Close()
		p := l.Addr().(*net.TCPAddr).Port
		if !taken[p] && !slices.Contains(ports, p) {
			ports = append(ports, p)
		}
	}
	return ports, nil
}

// stopNodes stops nodes, the last started first, and returns their errors.
func stopNodes(nodes []*Server) error {
	var errs []error
	for i := len(nodes) - 1; i >= 0; i-- {
		errs = append(errs, nodes[i].Stop(context.Background()))
	}
	return errors.Join(errs...)
}

// galeraJoinerInit prepares the data directory of a node that joins by SST: an empty directory
// of the service account, which the rsync SST fills with a donor's data.
func (s *Server) galeraJoinerInit() error {
	if err := os.Mkdir(s.dataDir, 0o700); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	s.logf("galera joiner: no mariadb-install-db, the data directory is filled by the state transfer")
	return s.chown(s.dataDir)
}

// galeraWaitSynced waits, after the server of a Galera node accepts connections, until its
// wsrep_local_state_comment is Synced (a joiner has received its state and applied the
// cluster's writesets). It returns nil at once for other servers, ctx.Err() when ctx ends
// first and a *StartError when the server exits.
func (s *Server) galeraWaitSynced(ctx context.Context, off int64) error {
	if s.cfg.galera == nil {
		return nil
	}
	t0 := time.Now()
	db, err := sql.Open("mysql", s.DSN()+"?timeout=5s")
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tick := time.NewTicker(galeraSyncPoll)
	defer tick.Stop()
	state := ""
	var qerr error
	for {
		var name string
		qerr = db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'wsrep_local_state_comment'").Scan(&name, &state)
		if qerr == nil && state == "Synced" {
			s.logf("galera %s (pid %d) is Synced after %v", s.cfg.Name, s.pid, time.Since(t0).Round(time.Millisecond))
			return nil
		}
		select {
		case <-s.waitDone:
			return s.startError("start", fmt.Sprintf("the server exited before it was Synced with the cluster (%v)", s.waitErr),
				"see the server log (a failed state transfer names its cause there)", off, s.waitErr)
		case <-ctx.Done():
			why := fmt.Sprintf("wsrep_local_state_comment %q", state)
			if qerr != nil && !errors.Is(qerr, context.Canceled) && !errors.Is(qerr, context.DeadlineExceeded) {
				why = qerr.Error()
			}
			s.logf("galera %s not Synced after %v: %s", s.cfg.Name, time.Since(t0).Round(time.Millisecond), why)
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// galeraSettleWindow is how long the nodes must agree before a cluster counts as settled:
// longer than the group's keepalive period (1 s).
const galeraSettleWindow = 2 * time.Second

// GaleraSettled waits until every node of a cluster is Synced in one Primary component of all
// of them (each reports wsrep_cluster_size len(nodes)) for galeraSettleWindow, and returns the
// time from the call to the first reading of that run (0 when the cluster never left it). A
// node paused past the eviction timeout (the stop fault) reads its old view for seconds after
// it runs again, Synced in a cluster of all, while the others went on without it: only the
// others' size says it has rejoined. It returns ctx.Err() when ctx ends first, an error when a
// node exits.
func GaleraSettled(ctx context.Context, nodes []*Server) (time.Duration, error) {
	dbs := make([]*sql.DB, len(nodes)) // one pool per node for the whole wait
	for i, s := range nodes {
		db, err := s.statusDB()
		if err != nil {
			return 0, err
		}
		defer db.Close()
		dbs[i] = db
	}
	t0 := time.Now()
	since := t0 // the first reading of the current run of settled readings
	want := strconv.Itoa(len(nodes))
	tick := time.NewTicker(galeraSyncPoll)
	defer tick.Stop()
	for {
		settled := true
		for i, s := range nodes {
			if s.exited() {
				return 0, fmt.Errorf("server: galera %s exited (%v)", s.cfg.Name, s.waitErr)
			}
			st, err := s.wsrepStatusOn(ctx, dbs[i])
			settled = settled && err == nil && st["wsrep_local_state_comment"] == "Synced" && st["wsrep_cluster_status"] == "Primary" &&
				st["wsrep_ready"] == "ON" && st["wsrep_cluster_size"] == want
		}
		now := time.Now()
		switch {
		case !settled:
			since = time.Time{}
		case since.IsZero():
			since = now
		case now.Sub(since) >= galeraSettleWindow:
			return since.Sub(t0), nil
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-tick.C:
		}
	}
}

// WsrepStatus returns a MariaDB server's wsrep status variables (SHOW GLOBAL STATUS LIKE
// 'wsrep%') by name, values as the server prints them: for a Galera node (GaleraNode) e.g.
// wsrep_local_state_comment ("Synced", "Donor/Desynced", ...), wsrep_cluster_size (nodes),
// wsrep_cluster_status ("Primary"), wsrep_flow_control_paused (the fraction of time paused by
// flow control since the last FLUSH STATUS), wsrep_local_recv_queue (writesets waiting to be
// applied) and the counters wsrep_replicated, wsrep_received (writesets) and
// wsrep_flow_control_sent; a server without wsrep has few or none. It reads them over a
// connection of its own (5 s to connect), closed before it returns, so a sampler may call it
// once a second; ctx bounds it. A server that does not answer gives an error.
func (s *Server) WsrepStatus(ctx context.Context) (map[string]string, error) {
	db, err := s.statusDB()
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return s.wsrepStatusOn(ctx, db)
}

// statusDB opens a pool of one connection to s for reading its status (5 s to connect).
func (s *Server) statusDB() (*sql.DB, error) {
	if s.kind != MariaDB {
		return nil, fmt.Errorf("server: wsrep status is MariaDB's, not %s's", s.kind)
	}
	db, err := sql.Open("mysql", s.DSN()+"?timeout=5s")
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// wsrepStatusOn is WsrepStatus read over db, a pool of statusDB.
func (s *Server) wsrepStatusOn(ctx context.Context, db *sql.DB) (map[string]string, error) {
	rows, err := db.QueryContext(ctx, "SHOW GLOBAL STATUS LIKE 'wsrep%'")
	if err != nil {
		return nil, fmt.Errorf("server: wsrep status of %s: %w", s.cfg.Name, err)
	}
	defer rows.Close()
	st := map[string]string{}
	for rows.Next() {
		var k string
		var v sql.NullString
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("server: wsrep status of %s: %w", s.cfg.Name, err)
		}
		st[k] = v.String
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("server: wsrep status of %s: %w", s.cfg.Name, err)
	}
	return st, nil
}

// usesInitFile says whether the server runs the init file (the benchmark's user and database)
// at this launch: a lone server at every launch, a Galera cluster's node 1 at its first only.
// The file's statements are DDL, which Galera replicates to the whole cluster in total order (a
// stall of every node's writes), and a joiner's data, its users included, is a donor's copy.
func (s *Server) usesInitFile() bool {
	return s.cfg.galera == nil || (s.cfg.galera.index == 1 && !s.launched)
}

// recoveredPosition matches the line of mariadbd --wsrep-recover that gives the node's last
// committed position (the cluster state's UUID and the seqno).
var recoveredPosition = regexp.MustCompile(`WSREP: Recovered position:\s*([0-9a-f]{8}-[0-9a-f-]{27}):(-?[0-9]+)`)

// galeraRecover returns the arguments of a Galera node's relaunch after a crash: a node killed
// while it ran has no position in its grastate.dat (seqno -1), and would start from none and
// take a full state transfer; mariadbd --wsrep-recover reads its last committed position from
// InnoDB (its crash recovery), which --wsrep_start_position then gives the provider, so the node
// asks for the writesets it missed (IST). Other servers and a node shut down cleanly get args
// unchanged.
func (s *Server) galeraRecover(ctx context.Context, args []string) ([]string, error) {
	if s.cfg.galera == nil {
		return args, nil
	}
	state, err := os.ReadFile(filepath.Join(s.dataDir, "grastate.dat"))
	if err != nil || !grastateUnknown(string(state)) {
		return args, nil // none: the node never got a state; a position: a clean shutdown
	}
	off := s.logSize()
	rargs := []string{"--defaults-file=" + s.configPath(), "--datadir=" + s.dataDir,
		"--log-error=" + s.logPath, "--pid-file=" + filepath.Join(s.dir, "mysqld-recover.pid"),
		"--skip-networking", "--wsrep-recover"}
	if err := s.runTool(ctx, true, nil, s.bins.server, rargs...); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, s.startError("wsrep-recover", "mariadbd --wsrep-recover failed after the crash", "see the server log", off, err)
	}
	m := recoveredPosition.FindAllStringSubmatch(s.logSince(off), -1)
	if len(m) == 0 || m[len(m)-1][2] == "-1" {
		s.logf("galera %s: no position recovered; the node joins with a full state transfer", s.cfg.Name)
		return args, nil
	}
	pos := m[len(m)-1][1] + ":" + m[len(m)-1][2]
	s.logf("galera %s: recovered position %s after the crash", s.cfg.Name, pos)
	return append(args, "--wsrep_start_position="+pos), nil
}

// grastateUnknown says whether a grastate.dat holds a cluster state but no position (seqno -1:
// the server did not shut down cleanly).
func grastateUnknown(state string) bool {
	uuid, seqno := "", ""
	for _, line := range strings.Split(state, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "uuid":
			uuid = strings.TrimSpace(v)
		case "seqno":
			seqno = strings.TrimSpace(v)
		}
	}
	return uuid != "" && uuid != "00000000-0000-0000-0000-000000000000" && seqno == "-1"
}
