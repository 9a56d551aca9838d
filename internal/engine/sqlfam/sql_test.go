package sqlfam

import (
	"context"
	"fmt"
	"testing"
)

func TestColsShape(t *testing.T) {
	seen := map[uint64]string{}
	lists := [][]int{{}, {0}, {1}, {0, 1}, {1, 0}, {0, 0}, {3, 0}, {0, 3}, {254}, {0, 1, 2, 3, 4, 5, 6, 7}, {7, 6, 5, 4, 3, 2, 1, 0}}
	for _, cols := range lists {
		shape, ok := colsShape(cols)
		if !ok {
			t.Fatalf("colsShape(%v) does not fit", cols)
		}
		if other, dup := seen[shape]; dup {
			t.Fatalf("colsShape(%v) = colsShape(%s) = %#x: two column lists share a statement", cols, other, shape)
		}
		seen[shape] = fmt.Sprint(cols)
	}
	for _, cols := range [][]int{{0, 1, 2, 3, 4, 5, 6, 7, 8}, {255}, {-1}} {
		if _, ok := colsShape(cols); ok {
			t.Errorf("colsShape(%v) fits, want ok false", cols)
		}
	}
}

// TestStmtCtx: with DetachStatements a session's statements run with the caller's values but
// no cancellation (no Done channel for database/sql and the driver to watch), derived once per
// caller's context; without it they run with the caller's context itself.
func TestStmtCtx(t *testing.T) {
	type key struct{}
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, "v"))
	defer cancel()
	s := &session{e: &Engine{}}
	if got := s.stmtCtx(ctx); got != ctx {
		t.Errorf("without DetachStatements: stmtCtx returned another context")
	}
	s.e.DetachStatements()
	d := s.stmtCtx(ctx)
	if d.Done() != nil || d.Value(key{}) != "v" {
		t.Errorf("detached: Done %v, value %v; want no Done channel and the caller's value", d.Done(), d.Value(key{}))
	}
	if n := testing.AllocsPerRun(100, func() { s.stmtCtx(ctx) }); n != 0 {
		t.Errorf("stmtCtx allocates %v times per statement for the same caller's context, want 0", n)
	}
	cancel()
	if s.stmtCtx(ctx).Err() != nil {
		t.Errorf("detached: the caller's cancellation reached the statement's context")
	}
	other := context.Background()
	if s.stmtCtx(other).Value(key{}) != nil {
		t.Errorf("a new caller's context kept the previous one's values")
	}
}
