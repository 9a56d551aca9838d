package server

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
)

// requireGalera skips the test when MariaDB, the Galera provider or the rsync SST's programs
// are not installed.
func requireGalera(t *testing.T) {
	t.Helper()
	requireKind(t, MariaDB)
	if _, err := galeraProvider(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	bins, err := findBinaries(MariaDB, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := galeraSSTPrograms(bins); err != nil {
		t.Skipf("skipping: %v", err)
	}
}

// openNode opens a connection pool to a node whose reads wait until the node has applied
// every writeset the cluster committed before them (wsrep_sync_wait=1).
func openNode(t *testing.T, s *Server) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", s.DSN()+"?wsrep_sync_wait=1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// wsrep reads one wsrep status value of s.
func wsrep(t *testing.T, s *Server, name string) string {
	t.Helper()
	st, err := s.WsrepStatus(context.Background())
	if err != nil {
		t.Fatalf("%s: %v", s.cfg.Name, err)
	}
	return st[name]
}

// checkCluster verifies that every node is Synced in one primary component of len(nodes).
func checkCluster(t *testing.T, nodes []*Server) {
	t.Helper()
	uuid := ""
	for _, s := range nodes {
		st, err := s.WsrepStatus(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", s.cfg.Name, err)
		}
		if st["wsrep_local_state_comment"] != "Synced" || st["wsrep_cluster_status"] != "Primary" ||
			st["wsrep_cluster_size"] != "3" || st["wsrep_ready"] != "ON" {
			t.Fatalf("%s: state %q, cluster %q of size %q, ready %q: want Synced in a Primary cluster of 3",
				s.cfg.Name, st["wsrep_local_state_comment"], st["wsrep_cluster_status"], st["wsrep_cluster_size"], st["wsrep_ready"])
		}
		if uuid != "" && st["wsrep_cluster_state_uuid"] != uuid {
			t.Fatalf("%s: cluster state %s, the first node's %s: two clusters", s.cfg.Name, st["wsrep_cluster_state_uuid"], uuid)
		}
		uuid = st["wsrep_cluster_state_uuid"]
	}
}

// rowsOf returns the number of rows of t and a checksum of their contents, read on db.
func rowsOf(t *testing.T, db *sql.DB) (int, string) {
	t.Helper()
	var n int
	var sum sql.NullString
	if err := db.QueryRow("SELECT count(*), sum(crc32(concat(id, ':', v))) FROM t").Scan(&n, &sum); err != nil {
		t.Fatal(err)
	}
	return n, sum.String
}

// TestGaleraCluster starts three nodes, checks that a write on one is read on another, crashes
// node 2 while node 1 takes writes, node 1 while node 3 does, and restarts node 3 while node 2
// does, each rejoining by IST with every row; pauses node 2 for 8 s (the stop fault) while node 1
// takes writes and waits until the cluster holds all three again (GaleraSettled); then stops
// the cluster with nothing left running.
func TestGaleraCluster(t *testing.T) {
	requireGalera(t)
	t.Parallel()
	dir := instanceDir(t)
	ctx := context.Background()
	t0 := time.Now()
	nodes, err := StartGalera(ctx, Config{Kind: MariaDB, Dir: dir,
		Settings: []Setting{{"innodb_buffer_pool_size", "32M"}, {"skip-log-bin", ""},
			{"wsrep_provider_options", "gcache.size=128M; gcs.fc_limit=40"}}}, 3)
	if err != nil {
		t.Fatalf("StartGalera: %v", err)
	}
	t.Logf("3 nodes started in %v", time.Since(t0).Round(time.Millisecond))
	t.Cleanup(func() {
		_ = stopNodes(nodes)
		if t.Failed() {
			for _, s := range nodes {
				t.Logf("last lines of %s:\n%s", s.LogPath(), s.LogTail(40))
			}
		}
	})
	for i, s := range nodes {
		if !s.GaleraNode() || s.Password() != nodes[0].Password() || s.Dir() != filepath.Join(dir, "node"+string(rune('1'+i))) {
			t.Fatalf("node %d: GaleraNode %v, dir %s, same password %v", i+1, s.GaleraNode(), s.Dir(), s.Password() == nodes[0].Password())
		}
		if name := wsrep(t, s, "wsrep_provider_name"); name != "Galera" {
			t.Fatalf("node %d: wsrep_provider_name %q", i+1, name)
		}
		// Node 1 only is created by mariadb-install-db and runs the init file; the gcache is
		// outside the data directory (not in its size).
		_, errInstall := os.Stat(filepath.Join(s.Dir(), "install-db.out"))
		_, errInit := os.Stat(filepath.Join(s.Dir(), "init.sql"))
		if (i == 0) != (errInstall == nil) || (i == 0) != (errInit == nil) {
			t.Errorf("node %d: install-db.out %v, init.sql %v", i+1, errInstall, errInit)
		}
		_, errIn := os.Stat(filepath.Join(s.DataDir(), "galera.cache"))
		if _, err := os.Stat(filepath.Join(s.Dir(), "galera.cache")); err != nil || errIn == nil {
			t.Errorf("node %d: gcache beside the data directory: %v, in it: %v", i+1, err, errIn)
		}
		// The caller's provider options join rumbench's and win over them.
		var name, opts string
		if err := openNode(t, s).QueryRow("SHOW GLOBAL VARIABLES LIKE 'wsrep_provider_options'").Scan(&name, &opts); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"gcache.size = 128M;", "gcs.fc_limit = 40;", "gcache.dir = " + s.Dir() + ";", "gmcast.listen_addr = tcp://127.0.0.1:"} {
			if !strings.Contains(opts, want) {
				t.Errorf("node %d: wsrep_provider_options lack %q: %s", i+1, want, opts)
			}
		}
	}
	checkCluster(t, nodes)

	db1, db2, db3 := openNode(t, nodes[0]), openNode(t, nodes[1]), openNode(t, nodes[2])
	for _, q := range []string{
		"CREATE TABLE t (id int AUTO_INCREMENT PRIMARY KEY, v varchar(40) NOT NULL)",
		"INSERT INTO t (v) SELECT md5(seq) FROM seq_1_to_1000",
	} {
		if _, err := db1.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if n, _ := rowsOf(t, db3); n != 1000 {
		t.Fatalf("node3 reads %d rows of the 1000 node1 wrote", n)
	}

	// fault crashes or restarts victim while writer takes single-row inserts, then checks that
	// the victim rejoined by IST, that every row the writer committed is on it once Crash or
	// Restart returns, and that the cluster is whole again.
	fault := func(kind string, victim *Server, vdb *sql.DB, writer *sql.DB) {
		t.Helper()
		var wg sync.WaitGroup
		stop := make(chan struct{})
		var werrs []string
		committed := 0
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := writer.Exec("INSERT INTO t (v) VALUES (md5(rand()))"); err != nil {
					// A failed write is the cluster's answer during the fault (e.g. while the
					// survivors form a new primary component): counted, not this test's failure.
					werrs = append(werrs, time.Now().Format("15:04:05.000 ")+err.Error())
					time.Sleep(10 * time.Millisecond)
					continue
				}
				committed++
			}
		}()
		time.Sleep(500 * time.Millisecond)
		off := victim.logSize()
		var took time.Duration
		var err error
		switch kind {
		case "crash":
			took, err = victim.Crash(ctx)
		case "restart":
			took, err = victim.Restart(ctx)
		case "stop":
			// Paused past the eviction timeout (evs.suspect_timeout 5 s): back when Synced.
			if _, err = Inject(ctx, victim, "stop", 8*time.Second); err == nil {
				took, err = GaleraSettled(ctx, nodes)
			}
		}
		if err != nil {
			close(stop)
			wg.Wait()
			t.Fatalf("%s %s: %v", kind, victim.cfg.Name, err)
		}
		time.Sleep(300 * time.Millisecond)
		close(stop)
		wg.Wait()
		if len(werrs) > 0 {
			t.Logf("%d writes failed during the %s of %s, the first: %s", len(werrs), kind, victim.cfg.Name, werrs[0])
		}
		log := victim.logSince(off)
		if kind != "stop" && (!strings.Contains(log, "IST received") || strings.Contains(log, "rsync SST completed")) {
			t.Errorf("%s did not rejoin by IST alone after the %s; its log since:\n%s", victim.cfg.Name, kind, log)
		}
		want, wsum := rowsOf(t, writer)
		got, gsum := rowsOf(t, vdb)
		t.Logf("%s rejoined in %v after the %s; %d rows written during it, %d in all", victim.cfg.Name, took.Round(time.Millisecond), kind, committed, want)
		if got != want || gsum != wsum || committed == 0 {
			t.Fatalf("%s has %d rows (checksum %s) after the %s, the writer %d (%s), %d written during it", victim.cfg.Name, got, gsum, kind, want, wsum, committed)
		}
		checkCluster(t, nodes)
	}
	fault("crash", nodes[1], db2, db1)
	fault("crash", nodes[0], db1, db3) // node 1, which bootstrapped, joins the others again
	fault("restart", nodes[2], db3, db2)
	fault("stop", nodes[1], db2, db1)

	for _, db := range []*sql.DB{db1, db2, db3} {
		db.Close()
	}
	for _, s := range nodes {
		stopAndCheck(t, s)
	}
	if left := leftovers(dir, 0); len(left) > 0 {
		t.Fatalf("processes of the cluster left after Stop: %v", left)
	}
}

// TestGaleraRefusals: arguments StartGalera refuses, and a missing provider, each with a
// one-line error, before anything starts.
func TestGaleraRefusals(t *testing.T) {
	requireKind(t, MariaDB)
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "x"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		cfg  Config
		n    int
		want string
	}{
		{"one node", Config{Kind: MariaDB}, 1, "a galera cluster has 2 to 9 nodes, not 1"},
		{"ten nodes", Config{}, 10, "a galera cluster has 2 to 9 nodes, not 10"},
		{"postgres", Config{Kind: Postgres}, 3, "a galera cluster is made of mariadb nodes, not postgres"},
		{"a name", Config{Name: "x"}, 3, "StartGalera's own"},
		{"not empty", Config{Dir: full}, 2, "is not empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.cfg.Dir == "" {
				tc.cfg.Dir = filepath.Join(t.TempDir(), "cluster")
			}
			_, err := StartGalera(context.Background(), tc.cfg, tc.n)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v, want one line with %q", err, tc.want)
			}
			if tc.name == "not empty" && !errors.Is(err, ErrDirNotEmpty) {
				t.Errorf("want ErrDirNotEmpty: %v", err)
			}
		})
	}
	t.Run("no rsync", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir()) // mariadbd is found in /usr/sbin, the script in /usr/bin
		if _, err := findBinaries(MariaDB, ""); err != nil {
			t.Skipf("mariadbd is not in /usr/sbin: %v", err)
		}
		_, err := StartGalera(context.Background(), Config{Dir: filepath.Join(t.TempDir(), "cluster")}, 2)
		if !errors.Is(err, ErrBinaryNotFound) || !strings.Contains(err.Error(), "needs rsync, ss or lsof, ps, not found in PATH: install Debian's rsync, iproute2, procps") ||
			strings.Contains(err.Error(), "\n") {
			t.Fatalf("got %v, want a one-line ErrBinaryNotFound naming rsync, iproute2 and procps", err)
		}
	})
	t.Run("no provider", func(t *testing.T) {
		saved := galeraProviders
		galeraProviders = []string{filepath.Join(t.TempDir(), "libgalera_smm.so")}
		defer func() { galeraProviders = saved }()
		dir := filepath.Join(t.TempDir(), "cluster")
		_, err := StartGalera(context.Background(), Config{Dir: dir}, 3)
		if !errors.Is(err, ErrBinaryNotFound) || !strings.Contains(err.Error(), "install Debian's galera-4") || strings.Contains(err.Error(), "\n") {
			t.Fatalf("got %v, want a one-line ErrBinaryNotFound naming galera-4", err)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the cluster directory was created before the refusal: %v", err)
		}
	})
}

// TestGaleraPorts: the ports of a cluster are distinct, free, outside the ephemeral range and
// never one already taken.
func TestGaleraPorts(t *testing.T) {
	lo, hi, ok := staticPortRange()
	if !ok {
		t.Skip("the ephemeral port range leaves no room")
	}
	taken := map[int]bool{}
	first, err := pickPorts(27, taken)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range first {
		taken[p] = true
	}
	more, err := pickPorts(27, taken)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range append(first, more...) {
		if seen[p] || p < lo || p > hi {
			t.Fatalf("port %d: twice, or outside %d-%d: %v %v", p, lo, hi, first, more)
		}
		seen[p] = true
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			t.Fatalf("port %d is not free: %v", p, err)
		}
		l.Close()
	}
}

func TestGrastate(t *testing.T) {
	for state, want := range map[string]bool{
		"# GALERA saved state\nversion: 2.1\nuuid:    9f222944-ebe0-11f1-8b59-aacdfcd30a0d\nseqno:   -1\nsafe_to_bootstrap: 0\n":   true,
		"# GALERA saved state\nversion: 2.1\nuuid:    9f222944-ebe0-11f1-8b59-aacdfcd30a0d\nseqno:   7077\nsafe_to_bootstrap: 1\n": false,
		"# GALERA saved state\nversion: 2.1\nuuid:    00000000-0000-0000-0000-000000000000\nseqno:   -1\nsafe_to_bootstrap: 0\n":   false,
		"": false,
	} {
		if got := grastateUnknown(state); got != want {
			t.Errorf("grastateUnknown(%q) = %v", state, got)
		}
	}
}
