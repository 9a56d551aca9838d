package pebble

import (
	pdb "github.com/cockroachdb/pebble/v2"

	"github.com/rumbench/rumbench/internal/engine/kv"
)

// pebEngine is the engine with pebble's metrics as engine counters (table.CounterReporter).
type pebEngine struct {
	*kv.Engine
	s *store
}

// EngineCounters implements table.CounterReporter from pebble's Metrics, cumulative since the
// store was opened, in bytes (see writeCounters), and its pressure counters (write stalls and
// read amplification, pressure.go); nil once pebble has failed fatally.
func (e *pebEngine) EngineCounters() map[string]int64 {
	if e.s.failed() != nil {
		return nil
	}
	m := e.s.db.Metrics()
	out := writeCounters(m)
	pressureCounters(&e.s.stalls, m, out)
	return out
}

// Names of the write counters, all in bytes. What pebble wrote to files is
// wal_bytes_written + flush_bytes_written + compact_bytes_written (+ ingest_bytes, which
// rumbench never ingests); the MANIFEST and OPTIONS files are not counted.
const (
	// CounterWALIn is the logical bytes of the batches committed to the WAL (Metrics.WAL.BytesIn).
	CounterWALIn = "wal_bytes_in"
	// CounterWALWritten is the bytes written to WAL files, record framing included
	// (Metrics.WAL.BytesWritten).
	CounterWALWritten = "wal_bytes_written"
	// CounterFlushWritten is the bytes written to sstables and blob files by memtable flushes
	// (Σ levels' TableBytesFlushed + BlobBytesFlushed).
	CounterFlushWritten = "flush_bytes_written"
	// CounterCompactWritten is the bytes written to sstables and blob files by compactions
	// (Σ levels' TableBytesCompacted + BlobBytesCompacted).
	CounterCompactWritten = "compact_bytes_written"
	// CounterCompactRead is the bytes compactions read (Σ levels' TableBytesRead).
	CounterCompactRead = "compact_bytes_read"
	// CounterIngested is the bytes of sstables ingested (Σ levels' TableBytesIngested).
	CounterIngested = "ingest_bytes"
)

// writeCounters turns pebble's metrics into the write counters (bytes, cumulative).
func writeCounters(m *pdb.Metrics) map[string]int64 {
	var flushed, compacted, read, ingested uint64
	for i := range m.Levels {
		l := &m.Levels[i]
		flushed += l.TableBytesFlushed + l.BlobBytesFlushed
		compacted += l.TableBytesCompacted + l.BlobBytesCompacted
		read += l.TableBytesRead
		ingested += l.TableBytesIngested
	}
	return map[string]int64{
		CounterWALIn:          int64(m.WAL.BytesIn),
		CounterWALWritten:     int64(m.WAL.BytesWritten),
		CounterFlushWritten:   int64(flushed),
		CounterCompactWritten: int64(compacted),
		CounterCompactRead:    int64(read),
		CounterIngested:       int64(ingested),
	}
}
