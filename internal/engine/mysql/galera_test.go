package mysql

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/engine/sqlfam"
	"github.com/rumbench/rumbench/internal/server"
	"github.com/rumbench/rumbench/internal/table"
)

// requireMariaDB skips the test when MariaDB is not installed.
func requireMariaDB(tb testing.TB) {
	tb.Helper()
	if err := server.CheckBinaries(server.MariaDB, ""); err != nil {
		if errors.Is(err, server.ErrBinaryNotFound) {
			tb.Skipf("skipping: %v", err)
		}
		tb.Fatal(err)
	}
}

// serverDir returns a directory the servers (run as the mysql user) can traverse.
func serverDir(tb testing.TB) string {
	dir := tb.TempDir()
	os.Chmod(filepath.Dir(dir), 0o755)
	os.Chmod(dir, 0o755)
	return dir
}

// checkCausal asserts that the check sessions of g wait for their node to apply what the cluster
// committed before their reads (wsrep_sync_wait = 1: the nodes count each such read in
// wsrep_causal_reads) and that the workers' sessions do not. It returns the table it counted
// (created, empty).
func checkCausal(t *testing.T, g *galeraEngine) *table.Table {
	t.Helper()
	ctx := context.Background()
	pi := piTable()
	if err := g.CreateTable(ctx, pi, false); err != nil {
		t.Fatal(err)
	}
	causalReads := func() int64 { // over the nodes
		t.Helper()
		var sum int64
		for _, db := range g.stats {
			var name string
			var n int64
			if err := db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'wsrep_causal_reads'").Scan(&name, &n); err != nil {
				t.Fatal(err)
			}
			sum += n
		}
		return sum
	}
	count := func(s table.Session, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if n, err := s.Count(ctx, pi, -1); err != nil || n != 0 {
			t.Fatalf("count: %d, %v", n, err)
		}
	}
	before := causalReads()
	for range 2 { // a session of the workers' on each node
		count(g.NewSession(ctx))
	}
	if got := causalReads() - before; got != 0 {
		t.Errorf("the workers' sessions made %d causal reads, want none", got)
	}
	before = causalReads()
	for range 2 { // a check session on each node
		count(g.NewCheckSession(ctx))
	}
	if got := causalReads() - before; got < 2 { // (a prepared statement's PREPARE waits too)
		t.Errorf("two check sessions' counts made %d causal reads, want one each at least", got)
	}
	return pi
}

// TestGaleraCheckSession: on a Galera cluster rumbench starts, the session a check reads through
// waits until its node has applied every write set committed before each read, so that a check
// after a step sees every acknowledged write; the workers' sessions, spread over the nodes, do
// not wait.
func TestGaleraCheckSession(t *testing.T) {
	requireMariaDB(t)
	eng, err := open(context.Background(), "mysql", "innodb", engine.Options{Dir: filepath.Join(serverDir(t), "e"),
		CacheBytes: 64 << 20, Extra: map[string]string{"cluster": "galera=2"}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	_ = checkCausal(t, eng.(*galeraEngine))
}

// TestGaleraDSNList: a --dsn list of a Galera cluster's nodes (the user's) is known as Galera:
// a duplicate key is also a conflict (MultiWriter), the checks read causally, and the nodes'
// wsrep status is read (the replication table).
func TestGaleraDSNList(t *testing.T) {
	requireMariaDB(t)
	ctx := context.Background()
	nodes, err := server.StartGalera(ctx, server.Config{Kind: server.MariaDB, Dir: serverDir(t),
		Settings: []server.Setting{{Name: "innodb_buffer_pool_size", Value: "32M"}, {Name: "skip-log-bin"}}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer sqlfam.Servers(nodes).Stop(ctx)
	eng, err := open(ctx, "mysql", "innodb", engine.Options{CacheBytes: 64 << 20,
		Extra: map[string]string{"dsn": nodes[0].DSN() + "," + nodes[1].DSN()}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	g := eng.(*galeraEngine)
	if g.Info().Options["galera"] != "on" {
		t.Errorf("options %v: want galera on", g.Info().Options)
	}
	s, err := g.ServerSample(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if s.Repl == nil || !s.Repl.Galera || s.Repl.Replicas != 2 {
		t.Errorf("replication %+v: want Galera's, two nodes", s.Repl)
	}
	pi := checkCausal(t, g)
	sess, err := g.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	rows := table.NewRows(len(pi.Columns), 1)
	row := rows.Append()
	row[0].I, row[1].I, row[2].I, row[3].I, row[4].I, row[5].I = 1, time.Now().Unix(), 1, 1, 1, 1
	row[6].B = rows.CopyBytes([]byte("x"))
	if err := sess.Insert(ctx, pi, rows); err != nil {
		t.Fatal(err)
	}
	err = sess.Insert(ctx, pi, rows)
	if !errors.Is(err, table.ErrDuplicate) || !errors.Is(err, table.ErrConflict) {
		t.Errorf("a duplicate key on a Galera node: %v, want a duplicate and a conflict (MultiWriter)", err)
	}
}
