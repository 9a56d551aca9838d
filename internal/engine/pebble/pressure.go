package pebble

import (
	"sync"
	"time"

	pdb "github.com/cockroachdb/pebble/v2"
)

// Names of pebble's pressure counters among the engine counters (steps.json engine_counters).
const (
	// CounterWriteStalls is the write stalls pebble began: commits held back because the
	// memtables were full and not yet flushed, or L0 had too many sublevels (its
	// WriteStallBegin events), count.
	CounterWriteStalls = "write_stalls"
	// CounterWriteStallUs is the time writes were stalled, from each WriteStallBegin to its
	// WriteStallEnd (a stall still going on counts up to the moment read), µs: the engine's
	// stall time (stall_us/op).
	CounterWriteStallUs = "write_stall_us"
	// CounterReadAmp is pebble's read amplification at the step's end (Metrics.ReadAmp: L0
	// sublevels plus the non-empty levels below, the sstables a point read may look in), a
	// level (table.LevelSuffix).
	CounterReadAmp = "read_amp_now"
)

// stalls keeps the count and duration of pebble's write stalls from its event listener.
type stalls struct {
	mu    sync.Mutex
	n     int64
	total time.Duration
	begun time.Time // zero: no stall going on
}

// listener returns the event listener that feeds s (pebble makes the other events no-ops).
func (s *stalls) listener() *pdb.EventListener {
	return &pdb.EventListener{
		WriteStallBegin: func(pdb.WriteStallBeginInfo) {
			s.mu.Lock()
			s.n++
			s.begun = time.Now()
			s.mu.Unlock()
		},
		WriteStallEnd: func() {
			s.mu.Lock()
			if !s.begun.IsZero() {
				s.total += time.Since(s.begun)
				s.begun = time.Time{}
			}
			s.mu.Unlock()
		},
	}
}

// pressureCounters adds pebble's pressure counters to out: write stalls and their time
// (cumulative since the store was opened) and the read amplification (a level) from m.
func pressureCounters(s *stalls, m *pdb.Metrics, out map[string]int64) {
	s.mu.Lock()
	n, total := s.n, s.total
	if !s.begun.IsZero() {
		total += time.Since(s.begun)
	}
	s.mu.Unlock()
	out[CounterWriteStalls] = n
	out[CounterWriteStallUs] = total.Microseconds()
	out[CounterReadAmp] = int64(m.ReadAmp())
}
