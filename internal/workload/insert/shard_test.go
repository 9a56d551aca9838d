package insert

import (
	"slices"
	"testing"

	"github.com/rumbench/rumbench/internal/workload"
)

// TestShardsPartitionTables: the tables of shards 0..N-1 with C clients each are, in order, the
// tables of one unsplit run with N×C clients: no overlap, no gap.
func TestShardsPartitionTables(t *testing.T) {
	const clients, shards = 2, 3
	one, err := New(Config{Clients: clients * shards, Rows: 10, Writes: 10, QuerySecs: 1}, 7)
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for _, tb := range one.Tables() {
		want = append(want, tb.Name)
	}
	for i := 0; i < shards; i++ {
		w, err := New(Config{Clients: clients, Rows: 10, Writes: 10, QuerySecs: 1}, 7)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.SetShard(workload.Shard{Index: i, Count: shards}); err != nil {
			t.Fatal(err)
		}
		for _, tb := range w.Tables() {
			got = append(got, tb.Name)
		}
		if i == 1 && w.ShardPart() != "clients 3..4 of 6: tables pi3..pi4" {
			t.Errorf("shard 1: part %q", w.ShardPart())
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("shards' tables %v, want %v", got, want)
	}
}
