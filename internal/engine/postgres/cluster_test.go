package postgres

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
	"github.com/rumbench/rumbench/internal/workload/insert"
)

// TestCheckSessionReadsPrimary: with reads sent to a streaming replica, the session a check
// reads through reads the primary (a standby replays the primary's WAL after the commit was
// acknowledged), while a worker's reads go to the replica; a writer that refuses the check
// connection's set-up is passed over.
func TestCheckSessionReadsPrimary(t *testing.T) {
	if err := server.CheckBinaries(server.Postgres, ""); err != nil {
		if errors.Is(err, server.ErrBinaryNotFound) {
			t.Skipf("skipping: %v", err)
		}
		t.Fatal(err)
	}
	ctx := context.Background()
	dir := t.TempDir()
	os.Chmod(filepath.Dir(dir), 0o755) // the servers run as the postgres user
	os.Chmod(dir, 0o755)
	eng, err := open(ctx, engine.Options{Dir: filepath.Join(dir, "e"), CacheBytes: 64 << 20,
		Extra: map[string]string{"cluster": "replicas=1", "read_from": "replicas"}})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	tb := insert.NewTable(0)
	tb.Indexes = nil
	if err := eng.CreateTable(ctx, tb, false); err != nil {
		t.Fatal(err)
	}
	stmts := func() map[string]int64 {
		out := map[string]int64{}
		for _, s := range eng.(table.EndpointReporter).EndpointSamples(nil) {
			out[s.Role] += s.Stmts
		}
		return out
	}
	count := func(s table.Session, err error) (map[string]int64, error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		before := stmts()
		_, err = s.Count(ctx, tb, -1)
		after := stmts()
		for role := range after {
			after[role] -= before[role]
		}
		return after, err
	}
	if got, err := count(eng.(table.CheckSessioner).NewCheckSession(ctx)); err != nil || got["primary"] == 0 || got["replica"] != 0 {
		t.Errorf("a check's count: statements by role %v (%v), want the primary's", got, err)
	}
	// The replica may not have replayed the CREATE TABLE yet: a worker's count fails there until
	// it has.
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, err := count(eng.NewSession(ctx))
		if err == nil {
			if got["replica"] == 0 || got["primary"] != 0 {
				t.Errorf("a worker's count: statements by role %v, want the replica's", got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// A writer that refuses a check connection's set-up is passed over: with the standby listed
	// as a writer first and a set-up it refuses (a standby assigns no transaction id), two check
	// sessions (one starting at each) both read the primary.
	ce := eng.(*clusterEngine)
	ce.cl.Route([]*sqlfam.Endpoint{ce.nodes[1].ep, ce.nodes[0].ep}, nil)
	ce.cl.SetCausal("SELECT txid_current()")
	for range 2 {
		if got, err := count(ce.NewCheckSession(ctx)); err != nil || got["primary"] == 0 || got["replica"] != 0 {
			t.Errorf("a check's count past a refusing standby: statements by role %v (%v), want the primary's", got, err)
		}
	}
}
