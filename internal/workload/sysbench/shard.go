package sysbench

import (
	"context"
	"fmt"

	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
)

var (
	_ workload.Sharder      = (*Workload)(nil)
	_ workload.SharedTables = (*Workload)(nil)
)

// SetShard implements workload.Sharder. The run has Count × Threads threads on the Tables
// tables, numbered from Index × Threads (their keys and share of --events are those of the same
// threads of one process). With at least as many tables as shards, shard Index owns the
// contiguous part workload.Shard.Range gives it of the tables: it creates and loads them,
// builds their index, and its threads pick among them only. With fewer tables than shards, the
// shards share every table: shard 0 creates them, each shard loads its contiguous part of each
// table's ids (whole load batches of 1000 rows, so the rows are those of one process's load),
// shard 0 builds the indexes, and every thread picks among all tables and ids as the threads of
// one process do.
func (w *Workload) SetShard(s workload.Shard) error {
	share := s.Count > w.Cfg.Tables
	if batches := (w.Cfg.TableSize + loadBatch - 1) / loadBatch; share && int64(s.Count) > batches {
		return fmt.Errorf("--shard %s: the shards share the %d tables and each loads whole batches of %d rows of each: --table-size %d has only %d", s, w.Cfg.Tables, loadBatch, w.Cfg.TableSize, batches)
	}
	w.shareTables = share
	return w.Base.SetShard(s)
}

// ShardPart implements workload.Sharder ("" in an unsplit run).
func (w *Workload) ShardPart() string {
	if w.Shard.Count <= 1 {
		return ""
	}
	threads := fmt.Sprintf("threads %d..%d of %d", w.firstThread()+1, w.firstThread()+w.Cfg.Threads, w.Cfg.Threads*w.Shard.Count)
	if w.shareTables {
		lo, hi := w.idRange()
		return fmt.Sprintf("ids %d..%d of each of the %d shared tables, %s", lo, hi, w.Cfg.Tables, threads)
	}
	lo, hi := w.Shard.Range(int64(w.Cfg.Tables))
	return fmt.Sprintf("tables sbtest%d..sbtest%d of %d, %s", lo+1, hi, w.Cfg.Tables, threads)
}

// idRange is the ids [lo, hi] this process loads into each of its tables: all of them, or with
// shared tables the shard's part of the load batches.
func (w *Workload) idRange() (lo, hi int64) {
	if !w.shareTables {
		return 1, w.Cfg.TableSize
	}
	a, b := w.Shard.Range((w.Cfg.TableSize + loadBatch - 1) / loadBatch)
	return a*loadBatch + 1, min(b*loadBatch, w.Cfg.TableSize)
}

// firstTable is the global index (0-based) of this process's first table.
func (w *Workload) firstTable() int64 {
	if w.shareTables {
		return 0
	}
	lo, _ := w.Shard.Range(int64(w.Cfg.Tables))
	return lo
}

// SharesTables implements workload.SharedTables: with fewer tables than shards.
func (w *Workload) SharesTables() bool { return w.shareTables }

// Attach implements workload.SharedTables: the tables shard 0 created, without their index yet.
func (w *Workload) Attach(ctx context.Context, eng table.Engine, k table.Keeper) (workload.Run, error) {
	r := w.newRun(eng)
	for _, n := range w.tableNos() {
		t := newTable(n)
		ok, _, err := k.AttachTable(ctx, t)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("table %s is missing: shard 0 did not create it", t.Name)
		}
		r.tables = append(r.tables, newStmts(t, w.Cfg.Prepared))
	}
	return r, nil
}

// tableNos are the numbers (1-based: sbtest<n>) of the tables this process loads (all of them
// when the shards share the tables).
func (w *Workload) tableNos() []int {
	lo, hi := w.Shard.Range(int64(w.Cfg.Tables))
	if w.shareTables {
		lo, hi = 0, int64(w.Cfg.Tables)
	}
	var out []int
	for n := lo + 1; n <= hi; n++ {
		out = append(out, int(n))
	}
	return out
}

// firstThread is the number (0-based) of this process's first thread among all shards'.
func (w *Workload) firstThread() int { return w.Shard.Index * w.Cfg.Threads }

// allThreads is the number of threads of all shards.
func (w *Workload) allThreads() int { return w.Cfg.Threads * max(w.Shard.Count, 1) }
