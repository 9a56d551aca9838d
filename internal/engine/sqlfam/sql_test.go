package sqlfam

import (
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
