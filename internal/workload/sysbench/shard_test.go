package sysbench

import (
	"slices"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/workload"
)

// TestShardsPartitionTables: the shards' tables are, in order, the tables of one unsplit run,
// each once; with fewer tables than shards, the shards' id ranges are the table's ids, each
// once, in whole load batches.
func TestShardsPartitionTables(t *testing.T) {
	cfg := Default()
	cfg.Tables, cfg.Threads = 7, 2
	one, err := New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for _, tb := range one.Tables() {
		want = append(want, tb.Name)
	}
	for i := 0; i < 3; i++ {
		w, _ := New(cfg, 1)
		if err := w.SetShard(workload.Shard{Index: i, Count: 3}); err != nil {
			t.Fatal(err)
		}
		for _, tb := range w.Tables() {
			got = append(got, tb.Name)
		}
		if i == 2 && w.ShardPart() != "tables sbtest5..sbtest7 of 7, threads 5..6 of 6" {
			t.Errorf("shard 2: %q", w.ShardPart())
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("shards' tables %v, want %v", got, want)
	}
	// Fewer tables than shards: the shards share every table and split its ids in whole load
	// batches, in order, with no overlap and no gap.
	cfg.Tables, cfg.TableSize = 2, 10500 // 11 batches of 1000 rows, the last of 500
	next := int64(1)
	for i := 0; i < 3; i++ {
		w, _ := New(cfg, 1)
		if err := w.SetShard(workload.Shard{Index: i, Count: 3}); err != nil {
			t.Fatal(err)
		}
		lo, hi := w.idRange()
		if lo != next || (lo-1)%loadBatch != 0 || len(w.tableNos()) != 2 || !w.SharesTables() {
			t.Errorf("shard %d: ids %d..%d, tables %v (next id %d)", i, lo, hi, w.tableNos(), next)
		}
		if (i == 0) != (len(w.Tables()) == 2) {
			t.Errorf("shard %d lists %d tables to drop: only shard 0 owns the shared tables", i, len(w.Tables()))
		}
		next = hi + 1
	}
	if next != cfg.TableSize+1 {
		t.Errorf("the shards' ids end at %d, want %d", next-1, cfg.TableSize)
	}
	cfg.TableSize = 1500 // two batches for three shards
	w, _ := New(cfg, 1)
	if err := w.SetShard(workload.Shard{Index: 0, Count: 3}); err == nil || !strings.Contains(err.Error(), "--table-size 1500 has only 2") {
		t.Errorf("3 shards of 2 batches: %v", err)
	}
}
