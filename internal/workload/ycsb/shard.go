package ycsb

import (
	"context"
	"fmt"
	"github.com/rumbench/rumbench/internal/gen"

	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
	"github.com/rumbench/rumbench/internal/workload/ycsb/ycsbgen"
)

var (
	_ workload.Sharder      = (*Workload)(nil)
	_ workload.SharedTables = (*Workload)(nil)
)

// checkShard refuses a split with fewer records than shards. The shards share the usertable and together run
// Count × Threads client threads (and Count × Loaders loaders):
//   - the load: shard Index loads its contiguous part of the records insertstart ..
//     insertstart+insertcount−1 (workload.Shard.Range of insertcount), as YCSB's own
//     insertstart/insertcount split a load among client hosts;
//   - the run: reads, updates and scans choose among all the loaded records (every shard has
//     finished its load when the run starts: the shards meet before each step) and this
//     shard's own inserts; the run's k-th insert of shard Index takes key number recordcount +
//     k·Count + Index, so the shards' inserts interleave with no overlap and no gap;
//   - the threads are numbered among all shards' (their random streams, their share of
//     operationcount and of the target rate are those of the same threads of one process).
func checkShard(b *workload.Base[Config], s workload.Shard) error {
	if c := &b.Cfg.Core; c.InsertCount < int64(s.Count) {
		return fmt.Errorf("--shard %s: insertcount=%d: each shard loads some records, so there must be as many as shards", s, c.InsertCount)
	}
	return nil
}

// shardPart says what this shard of a split run loads, inserts and runs.
func shardPart(b *workload.Base[Config]) string {
	w := &Workload{Base: b}
	lo, hi := w.loadRange()
	c := &b.Cfg
	return fmt.Sprintf("loads records %d..%d of %d..%d; run inserts recordcount+k*%d+%d; threads %d..%d of %d",
		lo, hi-1, c.Core.InsertStart, c.Core.InsertStart+c.Core.InsertCount-1, b.Shard.Count, b.Shard.Index,
		w.firstThread()+1, w.firstThread()+c.Threads, w.allThreads())
}

// loadRange is the key numbers [lo, hi) this shard loads.
func (w *Workload) loadRange() (lo, hi int64) {
	c := &w.Cfg.Core
	a, b := w.Shard.Range(c.InsertCount)
	return c.InsertStart + a, c.InsertStart + b
}

// globalKey maps a key number of this shard's own sequence to the run's: the loaded records
// keep theirs, and the shard's inserts (from recordcount on) interleave with the other shards'.
func (w *Workload) globalKey(keynum int64) int64 {
	rc := w.Cfg.Core.RecordCount
	if w.Shard.Count <= 1 || keynum < rc {
		return keynum
	}
	return rc + (keynum-rc)*int64(w.Shard.Count) + int64(w.Shard.Index)
}

// firstThread is the number (0-based) of this process's first client thread among all shards'.
func (w *Workload) firstThread() int { return w.Shard.Index * w.Cfg.Threads }

// allThreads is the number of client threads of all shards.
func (w *Workload) allThreads() int { return w.Cfg.Threads * max(w.Shard.Count, 1) }

// SharesTables implements workload.SharedTables: the shards share the usertable.
func (w *Workload) SharesTables() bool { return true }

// Attach implements workload.SharedTables: the usertable shard 0 created, empty of this shard's
// records.
func (w *Workload) Attach(ctx context.Context, eng table.Engine, k table.Keeper) (workload.Run, error) {
	ok, _, err := k.AttachTable(ctx, w.stmts.t)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("table %s is missing: shard 0 did not create it", w.stmts.t.Name)
	}
	return w.newRun(eng)
}

// newRun is the state of a run on eng whose table exists and holds none of this shard's
// records yet.
func (w *Workload) newRun(eng table.Engine) (*Run, error) {
	c := &w.Cfg.Core
	r := &Run{w: w, eng: eng, stores: eng.Info().Stores, ack: gen.NewAckCounter(c.RecordCount)}
	if c.RequestDistribution == "sequential" {
		var err error
		if r.seq, err = ycsbgen.NewSequential(c.InsertStart, c.InsertStart+c.InsertCount-1); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// checkOwn verifies, for a shard, that every record it loaded or inserted is there, whole, by
// reading each back (the usertable holds the other shards' records too, so its count says
// nothing of this shard's).
func (r *Run) checkOwn(ctx context.Context, c *client) (string, error) {
	lo, _ := r.w.loadRange()
	loaded := r.loaded.Load()
	inserted := max(r.ack.Last()+1-r.w.Cfg.Core.RecordCount, 0)
	missing := int64(0)
	read := func(keynum int64) error {
		n, err := c.readRecord(ctx, keynum, true, true)
		if n != 1 {
			missing++
		}
		return err
	}
	for k := lo; k < lo+loaded; k++ {
		if err := read(k); err != nil {
			return "", err
		}
	}
	for k := r.w.Cfg.Core.RecordCount; k < r.w.Cfg.Core.RecordCount+inserted; k++ {
		if err := read(k); err != nil {
			return "", err
		}
	}
	if missing > 0 {
		return "", fmt.Errorf("%d of this shard's %d records (%d loaded + %d inserted) are missing", missing, loaded+inserted, loaded, inserted)
	}
	if n := r.badValues.Load(); n > 0 {
		return "", fmt.Errorf("%d fields are not values the load or an update wrote", n)
	}
	return fmt.Sprintf("ok: this shard's %d records (%d loaded + %d inserted) read back one by one, every field whole", loaded+inserted, loaded, inserted), nil
}
