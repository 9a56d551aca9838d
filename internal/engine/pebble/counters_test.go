package pebble

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/table"
)

// TestWriteCounters writes rows into a real pebble store and checks its write counters: all
// present, the WAL's bytes at least the rows' keys and values (framing only adds), the flush's
// bytes moving only when the memtable is flushed (Settle), every counter monotonic, and each
// one the sum of its pebble metrics.
func TestWriteCounters(t *testing.T) {
	ctx := context.Background()
	e, err := open(ctx, engine.Options{Dir: t.TempDir(), CacheBytes: 8 << 20, Extra: map[string]string{}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	cr, ok := e.(table.CounterReporter)
	if !ok {
		t.Fatalf("%T is no table.CounterReporter", e)
	}
	s := e.(*pebEngine).s
	c0 := cr.EngineCounters()
	names := []string{CounterWALIn, CounterWALWritten, CounterFlushWritten, CounterCompactWritten, CounterCompactRead, CounterIngested}
	for _, n := range names {
		if _, ok := c0[n]; !ok {
			t.Fatalf("counter %s missing: %v", n, c0)
		}
	}
	const rows, vlen = 20000, 100
	var payload int64
	v := make([]byte, vlen)
	for i := 0; i < rows; i += 100 {
		b := s.NewBatch()
		for j := i; j < i+100; j++ {
			k := binary.BigEndian.AppendUint64([]byte("k"), uint64(j))
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
	if d := c1[CounterWALIn] - c0[CounterWALIn]; d < payload {
		t.Errorf("wal_bytes_in grew %d, want at least the rows' %d bytes", d, payload)
	}
	if c1[CounterWALWritten]-c0[CounterWALWritten] < c1[CounterWALIn]-c0[CounterWALIn] {
		t.Errorf("wal_bytes_written %v below wal_bytes_in", c1)
	}
	if c1[CounterFlushWritten] != c0[CounterFlushWritten] {
		t.Errorf("flush_bytes_written moved without a flush (64 MiB memtable, %d bytes written): %v -> %v", payload, c0, c1)
	}
	if _, err := e.(table.Settler).Settle(ctx); err != nil {
		t.Fatal(err)
	}
	c2 := cr.EngineCounters()
	// A flushed sstable holds the rows (snappy on a zero value shrinks it): more than the keys.
	if d := c2[CounterFlushWritten] - c1[CounterFlushWritten]; d < rows*9 {
		t.Errorf("flush_bytes_written grew %d in Settle, want at least the %d bytes of the keys", d, rows*9)
	}
	for _, n := range names {
		if c2[n] < c1[n] || c1[n] < c0[n] {
			t.Errorf("counter %s went back: %d, %d, %d", n, c0[n], c1[n], c2[n])
		}
	}
	m := s.db.Metrics()
	var fl, co uint64
	for i := range m.Levels {
		fl += m.Levels[i].TableBytesFlushed + m.Levels[i].BlobBytesFlushed
		co += m.Levels[i].TableBytesCompacted + m.Levels[i].BlobBytesCompacted
	}
	got := writeCounters(m)
	if got[CounterFlushWritten] != int64(fl) || got[CounterCompactWritten] != int64(co) || got[CounterWALWritten] != int64(m.WAL.BytesWritten) {
		t.Errorf("counters %v, metrics flush %d compact %d wal %d", got, fl, co, m.WAL.BytesWritten)
	}
}
