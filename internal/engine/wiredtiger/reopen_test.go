//go:build wiredtiger

package wiredtiger

import (
	"context"
	"testing"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/table"
)

// TestCleanupReopens checks the cleanup's reopen: the cache is empty after it, every row is
// read back, and the counters stay cumulative (WiredTiger restarts its statistics at an open).
func TestCleanupReopens(t *testing.T) {
	ctx := context.Background()
	tb := &table.Table{Name: "r", Columns: []table.Column{{Name: "id", Type: table.Int64, NotNull: true}, {Name: "a", Type: table.Int64, NotNull: true}},
		Indexes: []table.Index{{Name: "ia", Columns: []int{1}}}}
	e, sess := openTable(t, engine.Options{Dir: t.TempDir(), CacheBytes: 64 << 20, Sync: true}, tb)
	const n = 5000
	rows := table.NewRows(2, n)
	for i := range n {
		r := rows.Append()
		r[0], r[1] = table.Value{I: int64(i)}, table.Value{I: int64(i * 7 % n)}
	}
	if err := sess.Insert(ctx, tb, rows); err != nil {
		t.Fatal(err)
	}
	if _, err := e.(table.Settler).Settle(ctx); err != nil { // a checkpoint: block writes to count
		t.Fatal(err)
	}
	cr := e.(table.CounterReporter)
	before := cr.EngineCounters()
	did, err := e.Cleanup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if did != "checkpoint; reopen (the cache emptied)" {
		t.Errorf("Cleanup said %q", did)
	}
	after := cr.EngineCounters()
	for _, k := range []string{"log_bytes_written", "block_bytes_written", "checkpoints"} {
		if after[k] < before[k] || before[k] == 0 {
			t.Errorf("%s: %d before the reopen, %d after: want a cumulative counter", k, before[k], after[k])
		}
	}
	if after[CounterCacheBytes] >= before[CounterCacheBytes] {
		t.Errorf("cache bytes %d before the reopen, %d after: want the cache emptied", before[CounterCacheBytes], after[CounterCacheBytes])
	}
	got, err := sess.Count(ctx, tb, -1)
	if err != nil || got != n {
		t.Errorf("after the reopen: %d rows (err %v), want %d", got, err, n)
	}
	if got, err := sess.Count(ctx, tb, 0); err != nil || got != n {
		t.Errorf("after the reopen: %d index entries (err %v), want %d", got, err, n)
	}
}
