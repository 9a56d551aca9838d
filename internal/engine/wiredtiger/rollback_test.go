//go:build wiredtiger

package wiredtiger

import (
	"context"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/table"
)

// openTable opens WiredTiger with o and creates tb in it; it returns the engine and a session,
// both closed at the test's end.
func openTable(t *testing.T, o engine.Options, tb *table.Table) (table.Engine, table.Session) {
	t.Helper()
	ctx := context.Background()
	s, _ := engine.Lookup("wiredtiger")
	e, err := s.Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if err := e.CreateTable(ctx, tb, true); err != nil {
		t.Fatal(err)
	}
	sess, err := e.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() }) // runs before the engine's close
	return e, sess
}

// TestCacheRollback inserts a transaction far larger than a 1 MiB cache: WiredTiger rolls it
// back for want of room, and the error says so (not "conflict" alone), with the advice.
func TestCacheRollback(t *testing.T) {
	defer func(n int) { maxConflictRetries = n }(maxConflictRetries)
	maxConflictRetries = 2
	ctx := context.Background()
	tb := &table.Table{Name: "big", Columns: []table.Column{{Name: "id", Type: table.Int64, NotNull: true}, {Name: "a", Type: table.Int64, NotNull: true},
		{Name: "data", Type: table.Bytes, MaxLen: 200}}, Indexes: []table.Index{{Name: "ia", Columns: []int{1}}}}
	_, sess := openTable(t, engine.Options{Dir: t.TempDir(), CacheBytes: 1 << 20}, tb)
	const n = 40_000 // about 10 MB with its index entries: ten times the cache
	rows := table.NewRows(3, n)
	pad := []byte(strings.Repeat("x", 200))
	for i := range n {
		r := rows.Append()
		r[0], r[1], r[2] = table.Value{I: int64(i)}, table.Value{I: int64(i * 7919 % n)}, table.Value{B: pad}
	}
	err := sess.Insert(ctx, tb, rows)
	if err == nil {
		t.Skip("WiredTiger took the transaction in a 1 MiB cache: nothing to explain")
	}
	if !strings.Contains(err.Error(), "for want of cache room") || !strings.Contains(err.Error(), "--cache-mb") {
		t.Errorf("error %q: want the cache named as the cause", err)
	}
	t.Log(err)
}
