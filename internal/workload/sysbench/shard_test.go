package sysbench

import (
	"slices"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/workload"
)

// TestShardsPartitionTables: the shards' tables are, in order, the tables of one unsplit run,
// each once; fewer tables than shards are refused.
func TestShardsPartitionTables(t *testing.T) {
	cfg := Default()
	cfg.Tables, cfg.Threads = 7, 2
	one, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for _, tb := range one.Tables() {
		want = append(want, tb.Name)
	}
	for i := 0; i < 3; i++ {
		w, _ := New(cfg)
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
	w, _ := New(cfg)
	if err := w.SetShard(workload.Shard{Index: 0, Count: 8}); err == nil || !strings.Contains(err.Error(), "--tables 7 is fewer than the 8 shards") {
		t.Errorf("8 shards of 7 tables: %v", err)
	}
}
