package kv_test

import (
	"context"
	"testing"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/engine/kv"
	_ "github.com/rumbench/rumbench/internal/engine/pebble"
	"github.com/rumbench/rumbench/internal/table"
)

// TestIndexBuildSpills builds two indexes over 5,000 rows with sorted runs of 4 KB, so the
// entries go through temporary files and the merge, and checks every entry and its order.
func TestIndexBuildSpills(t *testing.T) {
	defer kv.SetSortRunBytes(4 << 10)()
	spec, _ := engine.Lookup("pebble")
	ctx := context.Background()
	eng, err := spec.Open(ctx, engine.Options{Dir: t.TempDir(), CacheBytes: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	tb := &table.Table{Name: "t", Columns: []table.Column{
		{Name: "id", Type: table.Int64}, {Name: "a", Type: table.Int64}, {Name: "b", Type: table.Bytes, MaxLen: 16}},
		Indexes: []table.Index{{Name: "a", Columns: []int{1}}, {Name: "ba", Columns: []int{2, 1}}}}
	if err := eng.CreateTable(ctx, tb, false); err != nil {
		t.Fatal(err)
	}
	s, _ := eng.NewSession(ctx)
	defer s.Close()
	const n = 5000
	rows := table.NewRows(3, n)
	for i := int64(0); i < n; i++ {
		row := rows.AppendRaw()
		row[0], row[1], row[2] = table.Value{I: i}, table.Value{I: (i * 7919) % n}, table.Value{B: []byte{byte('a' + i%26)}}
	}
	if err := s.Insert(ctx, tb, rows); err != nil {
		t.Fatal(err)
	}
	if err := eng.CreateIndexes(ctx, tb); err != nil {
		t.Fatal(err)
	}
	for ix := range tb.Indexes {
		if c, err := s.Count(ctx, tb, ix); err != nil || c != n {
			t.Fatalf("index %d: %d entries, %v; want %d", ix, c, err, n)
		}
	}
	out := table.NewRows(1, n)
	if err := s.Scan(ctx, tb, 0, nil, true, n, out); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < out.N; i++ {
		if out.Row(i)[0].I != int64(i) {
			t.Fatalf("entry %d of index a holds %d", i, out.Row(i)[0].I)
		}
	}
}
