package bbolt

import "github.com/rumbench/rumbench/internal/engine/kv"

// boltEngine is the engine with bbolt's transaction statistics as engine counters
// (table.CounterReporter).
type boltEngine struct {
	*kv.Engine
	s *store
}

// Names of the engine counters. A commit writes the pages its transaction allocated (bbolt
// copies every page it changes, the freelist's included, to newly allocated pages) and one
// meta page, so what bbolt wrote to its file is page_alloc_bytes + meta_bytes_written.
const (
	// CounterPageAlloc is the bytes of the pages write transactions allocated, and wrote at
	// commit (TxStats.PageAlloc).
	CounterPageAlloc = "page_alloc_bytes"
	// CounterMetaWritten is the bytes of the meta pages commits wrote: commits × page size.
	CounterMetaWritten = "meta_bytes_written"
	// CounterWrites is the write calls bbolt made for pages and meta pages (TxStats.Write).
	CounterWrites = "write_calls"
	// CounterCommits is the write transactions the engine's batches committed.
	CounterCommits = "commits"
)

// EngineCounters implements table.CounterReporter: bbolt's cumulative transaction statistics
// since the database was opened (bytes, calls, commits; see the Counter names).
func (e *boltEngine) EngineCounters() map[string]int64 {
	ts := e.s.db.Stats().TxStats
	commits := e.s.commits.Load()
	return map[string]int64{
		CounterPageAlloc:   ts.GetPageAlloc(),
		CounterMetaWritten: commits * int64(e.s.db.Info().PageSize),
		CounterWrites:      ts.GetWrite(),
		CounterCommits:     commits,
	}
}
