package memcap

// Shares is how a cap is divided between what the engine's process holds. Under a cap the
// kernel counts the engine's own memory, the Go heap of the process that drives it and the page
// cache of its files against one limit; each part is sized from the cap so that their sum stays
// under it with a margin (docs/io-bound.md measures the parts).
type Shares struct {
	// Limit is the cap, bytes.
	Limit int64
	// Engine is what the engine may allocate for itself, bytes: its cache and everything else it
	// sizes (write buffers or memtables, a server's buffer pool and work memory). Half the cap.
	Engine int64
	// Go is the Go memory limit of an embedded engine's worker process, bytes: the workload's
	// buffers, the index build's sorted runs, the invariant check, and the memory of an engine
	// written in Go (bbolt). A quarter of the cap.
	Go int64
	// Reserve is the rest, bytes: the page cache the engine's reads and writes need in flight,
	// the C allocator's free memory that it has not given back, the program's own pages. At
	// least a quarter of the cap.
	Reserve int64
}

// SharesOf divides a cap of limit bytes (limit > 0): half for the engine, a quarter for the Go
// heap, the rest in reserve.
func SharesOf(limit int64) Shares {
	s := Shares{Limit: limit, Engine: limit / 2, Go: limit / 4}
	s.Reserve = limit - s.Engine - s.Go
	return s
}

// SharesFor divides a cap of limit bytes (limit > 0) for an engine: SharesOf for an embedded
// engine, whose worker's Go heap is in the cap; for a managed server (server true), whose process
// holds no Go heap (rumbench, its client, runs outside the cap), three quarters for the engine
// (its buffer pool or cache, and its work memory) and the rest in reserve.
func SharesFor(limit int64, server bool) Shares {
	if !server {
		return SharesOf(limit)
	}
	s := Shares{Limit: limit, Engine: limit / 4 * 3}
	s.Reserve = limit - s.Engine
	return s
}
