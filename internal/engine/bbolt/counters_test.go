package bbolt

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/table"
)

// TestWriteCounters commits batches of rows into a real bbolt file and checks its engine
// counters: one commit per batch, a meta page per commit, at least a page write and a meta
// write per commit, and allocated pages holding at least the rows' bytes.
func TestWriteCounters(t *testing.T) {
	e, err := open(context.Background(), engine.Options{Dir: t.TempDir(), Extra: map[string]string{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	cr, ok := e.(table.CounterReporter)
	if !ok {
		t.Fatalf("%T is no table.CounterReporter", e)
	}
	s := e.(*boltEngine).s
	c0 := cr.EngineCounters()
	const batches, rows, vlen = 50, 100, 100
	v := make([]byte, vlen)
	var payload int64
	for i := 0; i < batches; i++ {
		b := s.NewBatch()
		for j := 0; j < rows; j++ {
			k := binary.BigEndian.AppendUint64(nil, uint64(i*rows+j))
			if err := b.Set(k, v); err != nil {
				t.Fatal(err)
			}
			payload += int64(len(k) + vlen)
		}
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
		b.Close()
	}
	c1 := cr.EngineCounters()
	d := func(n string) int64 { return c1[n] - c0[n] }
	page := int64(s.db.Info().PageSize)
	if d(CounterCommits) != batches {
		t.Errorf("commits grew %d, want %d", d(CounterCommits), batches)
	}
	if d(CounterMetaWritten) != batches*page {
		t.Errorf("meta_bytes_written grew %d, want %d commits × %d", d(CounterMetaWritten), batches, page)
	}
	if d(CounterWrites) < 2*batches {
		t.Errorf("write_calls grew %d, want at least a page and a meta page for each of %d commits", d(CounterWrites), batches)
	}
	if d(CounterPageAlloc) < payload || d(CounterPageAlloc)%page != 0 {
		t.Errorf("page_alloc_bytes grew %d, want whole %d-byte pages and at least the rows' %d bytes", d(CounterPageAlloc), page, payload)
	}
}
