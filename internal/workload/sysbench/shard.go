package sysbench

import (
	"fmt"

	"github.com/rumbench/rumbench/internal/workload"
)

var _ workload.Sharder = (*Workload)(nil)

// SetShard implements workload.Sharder. The run has Count × Threads threads on the Tables
// tables: shard Index owns the contiguous part workload.Shard.Range gives it of the tables
// (loads them, builds their index, and its threads pick among them only) and runs the threads
// numbered from Index × Threads, whose keys and share of --events are those of the same threads
// of one process. A shard needs one table at least: fewer tables than shards are refused.
func (w *Workload) SetShard(s workload.Shard) error {
	if s.Count > w.cfg.Tables {
		return fmt.Errorf("--shard %s: sysbench gives each shard its own tables: --tables %d is fewer than the %d shards", s, w.cfg.Tables, s.Count)
	}
	w.shard = s
	return nil
}

// ShardPart implements workload.Sharder ("" in an unsplit run).
func (w *Workload) ShardPart() string {
	if w.shard.Count <= 1 {
		return ""
	}
	lo, hi := w.shard.Range(int64(w.cfg.Tables))
	return fmt.Sprintf("tables sbtest%d..sbtest%d of %d, threads %d..%d of %d", lo+1, hi, w.cfg.Tables,
		w.firstThread()+1, w.firstThread()+w.cfg.Threads, w.cfg.Threads*w.shard.Count)
}

// tableNos are the numbers (1-based: sbtest<n>) of the tables this process owns.
func (w *Workload) tableNos() []int {
	lo, hi := w.shard.Range(int64(w.cfg.Tables))
	var out []int
	for n := lo + 1; n <= hi; n++ {
		out = append(out, int(n))
	}
	return out
}

// firstThread is the number (0-based) of this process's first thread among all shards'.
func (w *Workload) firstThread() int { return w.shard.Index * w.cfg.Threads }

// allThreads is the number of threads of all shards.
func (w *Workload) allThreads() int { return w.cfg.Threads * max(w.shard.Count, 1) }
