package mysql

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/server"
	"github.com/rumbench/rumbench/internal/table"
)

// TestGaleraCheckSession: on a Galera cluster the session a check reads through waits until its
// node has applied every write set committed before each read (wsrep_sync_wait = 1: the nodes
// count it in wsrep_causal_reads), so that a check after a step sees every acknowledged write;
// the workers' sessions, spread over the nodes, do not wait.
func TestGaleraCheckSession(t *testing.T) {
	if err := server.CheckBinaries(server.MariaDB, ""); err != nil {
		if errors.Is(err, server.ErrBinaryNotFound) {
			t.Skipf("skipping: %v", err)
		}
		t.Fatal(err)
	}
	ctx := context.Background()
	dir := t.TempDir()
	os.Chmod(filepath.Dir(dir), 0o755) // the servers run as the mysql user
	os.Chmod(dir, 0o755)
	eng, err := open(ctx, "mysql", "innodb", engine.Options{Dir: filepath.Join(dir, "e"), CacheBytes: 64 << 20,
		Extra: map[string]string{"cluster": "galera=2"}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	g := eng.(*galeraEngine)
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
}
