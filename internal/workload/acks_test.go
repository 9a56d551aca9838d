package workload

import (
	"context"
	"testing"
)

// TestGrowth: the lost writes are what the growth lacks of the acknowledged ones; a growth
// beyond the writes sent fails a strict check; a step begun unchecked says why.
func TestGrowth(t *testing.T) {
	ctx := context.Background()
	n := int64(100)
	g := Growth{Unit: "rows", Read: func(context.Context) (int64, error) { return n, nil }}
	if err := g.Begin(ctx, "s", true); err != nil {
		t.Fatal(err)
	}
	n = 107 // 10 acknowledged, 2 of unknown outcome: 3 lost at least
	res, grew, err := g.Check(ctx, "s", 10, 2, true, "")
	if err != nil || grew != 7 || !res.Checked || res.Lost != 3 || res.Acknowledged != 10 || res.Unknown != 2 {
		t.Errorf("growth 7 of 10: %+v, grew %d, err %v", res, grew, err)
	}
	n = 120 // 13 more than before: beyond 10 + 2
	if _, _, err := g.Check(ctx, "s", 10, 2, true, ""); err == nil {
		t.Error("a growth beyond the writes sent passed a strict check")
	}
	if err := g.Begin(ctx, "s", false); err != nil {
		t.Fatal(err)
	}
	if res, _, _ := g.Check(ctx, "s", 5, 0, true, "why"); res.Checked || res.How != "not checked: why" {
		t.Errorf("unchecked step: %+v", res)
	}
}
