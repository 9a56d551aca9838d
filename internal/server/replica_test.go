package server

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestPostgresReplicas starts a primary with two streaming replicas (synchronous: ANY 1), checks
// that rows written on the primary reach both, kills the primary, promotes the replica that
// received the most WAL, points the other at it, and checks that a row written on the new
// primary reaches the other replica: nothing acknowledged is lost, nothing is left running.
func TestPostgresReplicas(t *testing.T) {
	requireKind(t, Postgres)
	dir := instanceDir(t)
	p := startServer(t, Config{Kind: Postgres, Dir: dir, Settings: []Setting{{Name: "shared_buffers", Value: "32MB"}}})
	var reps []*Server
	for _, name := range []string{"replica1", "replica2"} {
		r := startServer(t, Config{Kind: Postgres, Dir: filepath.Join(dir, name), Name: name, ReplicaOf: p, Password: p.Password()})
		if !r.Standby() {
			t.Fatalf("%s: not a standby", name)
		}
		reps = append(reps, r)
	}
	ctx := context.Background()
	if err := p.SetSynchronousStandbys(ctx, "ANY 1 (*)"); err != nil {
		t.Fatal(err)
	}
	exec := func(s *Server, q string) {
		t.Helper()
		if err := s.pgExec(ctx, "rumbench", func(c *pgx.Conn) error { _, err := c.Exec(ctx, q); return err }); err != nil {
			t.Fatalf("%s on port %d: %v", q, s.Port(), err)
		}
	}
	count := func(s *Server) int64 {
		var n int64
		if err := s.pgExec(ctx, "rumbench", func(c *pgx.Conn) error {
			return c.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n)
		}); err != nil {
			return -1
		}
		return n
	}
	waitCount := func(s *Server, want int64) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for count(s) != want {
			if time.Now().After(deadline) {
				t.Fatalf("port %d has %d rows, want %d", s.Port(), count(s), want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	exec(p, "CREATE TABLE t (id int PRIMARY KEY)")
	for i := 0; i < 100; i++ {
		exec(p, "INSERT INTO t VALUES ("+strconv.Itoa(i)+")") // each commit waits for a replica's flush
	}
	for _, r := range reps {
		waitCount(r, 100)
	}
	if err := p.Kill(); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	if _, err := p.Stats(false); err == nil {
		t.Fatal("Stats of a killed primary succeeded")
	}
	best, other := reps[0], reps[1]
	b0, err := best.WALReceived(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if b1, err := other.WALReceived(ctx); err != nil || b0 <= 0 {
		t.Fatalf("WALReceived: %d, %d, %v", b0, b1, err)
	} else if b1 > b0 {
		best, other = other, best
	}
	if err := best.Promote(ctx); err != nil {
		t.Fatal(err)
	}
	if best.Standby() {
		t.Fatal("a promoted replica is still a standby")
	}
	if err := other.Follow(ctx, best); err != nil {
		t.Fatal(err)
	}
	if got := count(best); got != 100 {
		t.Fatalf("the new primary has %d rows, want 100", got)
	}
	exec(best, "INSERT INTO t VALUES (1000)")
	waitCount(other, 101)
	if err := p.Stop(ctx); err != nil {
		t.Fatalf("Stop after Kill: %v", err)
	}
	for _, r := range reps {
		stopAndCheck(t, r)
	}
}
