package tpcc

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

// checkShard refuses a split of the warehouses the configuration cannot take. The shards share
// the nine tables and split the warehouses: shard Index owns the contiguous part
// workload.Shard.Range of the W warehouses, loads them (shard 0 loads the items too), runs
// --terminals terminals bound to them (so a terminal's warehouse belongs to one shard; its
// remote payments and supplies reach every warehouse, as in one process) and checks them. The
// terminals' random streams are numbered among all shards'. Unlike the other workloads' splits,
// the terminals of Count shards are not those of one process with Count × --terminals: there,
// terminal t would be bound to warehouse t mod W + 1, which may belong to another shard.
func checkShard(b *workload.Base[Config], s workload.Shard) error {
	if b.Cfg.Warehouses < s.Count {
		return fmt.Errorf("--shard %s: --warehouses %d: each shard owns some warehouses, so there must be at least as many as shards", s, b.Cfg.Warehouses)
	}
	lo, hi := ownWarehouses(b.Cfg.Warehouses, s)
	if most := (hi - lo + 1) * Districts; int64(b.Cfg.Terminals) > most {
		return fmt.Errorf("--shard %s: --terminals %d: this shard owns warehouses %d..%d, which take at most %d terminals (10 per warehouse)", s, b.Cfg.Terminals, lo, hi, most)
	}
	return nil
}

// split says whether the run is split among shards.
func (w *Workload) split() bool { return w.Shard.Count > 1 }

// ownWarehouses returns the warehouses lo..hi (1-based, inclusive) this shard loads, runs and
// checks: all of them in an unsplit run.
func (w *Workload) ownWarehouses() (lo, hi int64) { return ownWarehouses(w.Cfg.Warehouses, w.Shard) }

// ownWarehouses returns shard s's warehouses lo..hi (1-based, inclusive) of n.
func ownWarehouses(n int, s workload.Shard) (lo, hi int64) {
	a, b := s.Range(int64(n))
	return a + 1, b
}

// shardPart says what this shard of a split run loads and runs.
func shardPart(b *workload.Base[Config]) string {
	c := &b.Cfg
	lo, hi := ownWarehouses(c.Warehouses, b.Shard)
	items := ""
	if b.Shard.Index == 0 {
		items = "the items and "
	}
	first := b.Shard.Index * c.Terminals
	return fmt.Sprintf("loads %swarehouses %d..%d of %d; terminals %d..%d of %d, bound to them", items, lo, hi, c.Warehouses,
		first+1, first+c.Terminals, c.Terminals*b.Shard.Count)
}

// SharesTables implements workload.SharedTables: a split run's shards share the nine tables.
func (w *Workload) SharesTables() bool { return w.split() }

// Attach implements workload.SharedTables: the nine tables shard 0 created.
func (w *Workload) Attach(ctx context.Context, eng table.Engine, k table.Keeper) (workload.Run, error) {
	if err := transactional(eng.Info()); err != nil {
		return nil, err
	}
	for _, t := range tables {
		ok, _, err := k.AttachTable(ctx, t)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("table %s is missing: shard 0 did not create it", t.Name)
		}
	}
	return &Run{w: w, eng: eng, stores: eng.Info().Stores}, nil
}

// transactionShare is this shard's part of --transactions: all of them unsplit, else an equal
// share, the first shards taking one more of the remainder.
func (w *Workload) transactionShare() int64 {
	n := w.Cfg.Transactions
	if !w.split() {
		return n
	}
	c, i := int64(w.Shard.Count), int64(w.Shard.Index)
	share := n / c
	if i < n%c {
		share++
	}
	return share
}
