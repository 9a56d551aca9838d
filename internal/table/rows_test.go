package table

import (
	"bytes"
	"fmt"
	"testing"
)

func TestRowsAppendGrows(t *testing.T) {
	r := NewRows(3, 2)
	if r.Cols != 3 || r.N != 0 || len(r.Vals) != 0 || cap(r.Vals) != 6 {
		t.Fatalf("NewRows(3, 2) = Cols %d N %d len %d cap %d", r.Cols, r.N, len(r.Vals), cap(r.Vals))
	}
	const n = 1000 // many times the initial capacity
	for i := 0; i < n; i++ {
		row := r.Append()
		if len(row) != 3 {
			t.Fatalf("Append returned %d values, want 3", len(row))
		}
		row[0].I, row[1].I, row[2].B = int64(i), int64(-i), []byte(fmt.Sprint(i))
		if r.N != i+1 || len(r.Vals) != 3*(i+1) {
			t.Fatalf("after %d appends N = %d, len(Vals) = %d", i+1, r.N, len(r.Vals))
		}
	}
	for i := 0; i < n; i++ {
		row := r.Row(i)
		if len(row) != 3 || row[0].I != int64(i) || row[1].I != int64(-i) || string(row[2].B) != fmt.Sprint(i) {
			t.Fatalf("Row(%d) = %v after growth", i, row)
		}
	}
}

func TestRowsCopyBytesStaysValid(t *testing.T) {
	r := NewRows(1, 0)
	src := make([]byte, 0, 64)
	var copies [][]byte
	var want []string
	// Enough data to replace the arena several times, with one value larger than any arena.
	for i := 0; i < 3000; i++ {
		src = fmt.Appendf(src[:0], "value-%d-", i)
		if i == 1500 {
			src = append(src, bytes.Repeat([]byte{'x'}, 20000)...)
		}
		c := r.CopyBytes(src)
		if !bytes.Equal(c, src) {
			t.Fatalf("CopyBytes(%q) = %q", src, c)
		}
		src[0] = '!' // the copy must not alias the caller's memory
		if c[0] != 'v' {
			t.Fatalf("copy %d aliases the source", i)
		}
		if cap(c) != len(c) {
			t.Fatalf("copy %d has cap %d > len %d: appending to it would clobber the next copy", i, cap(c), len(c))
		}
		copies = append(copies, c)
		want = append(want, string(c))
	}
	for i, c := range copies {
		if string(c) != want[i] {
			t.Fatalf("copy %d changed after the arena grew: %q", i, c)
		}
	}
}

func TestRowsCopyBytesEmptyIsNotNull(t *testing.T) {
	// A nil Bytes value is SQL NULL, so the copy of an empty non-nil value must stay non-nil,
	// whatever the state of the arena.
	r := NewRows(1, 1)
	if c := r.CopyBytes([]byte{}); c == nil || len(c) != 0 {
		t.Fatalf("CopyBytes(empty) on a new block = %#v, want an empty non-nil slice", c)
	}
	r.CopyBytes([]byte("x"))
	if c := r.CopyBytes([]byte{}); c == nil || len(c) != 0 {
		t.Fatalf("CopyBytes(empty) = %#v, want an empty non-nil slice", c)
	}
	if c := r.CopyBytes(nil); len(c) != 0 {
		t.Fatalf("CopyBytes(nil) = %#v, want empty", c)
	}
}

func TestRowsReset(t *testing.T) {
	r := NewRows(2, 4)
	for i := 0; i < 10; i++ {
		row := r.Append()
		row[0].I = 7
		row[1].B = r.CopyBytes([]byte("stale"))
	}
	vcap, acap := cap(r.Vals), cap(r.Arena)
	r.Reset(3)
	if r.Cols != 3 || r.N != 0 || len(r.Vals) != 0 || len(r.Arena) != 0 {
		t.Fatalf("after Reset(3): Cols %d N %d len(Vals) %d len(Arena) %d", r.Cols, r.N, len(r.Vals), len(r.Arena))
	}
	if cap(r.Vals) != vcap || cap(r.Arena) != acap {
		t.Fatalf("Reset dropped memory: cap(Vals) %d→%d, cap(Arena) %d→%d", vcap, cap(r.Vals), acap, cap(r.Arena))
	}
	for i := 0; i < 6; i++ {
		row := r.Append()
		if len(row) != 3 {
			t.Fatalf("Append after Reset(3) returned %d values", len(row))
		}
		for c, v := range row {
			if v.I != 0 || v.B != nil {
				t.Fatalf("row %d col %d = %+v after Reset: not zeroed", i, c, v)
			}
		}
		row[2].I = int64(i)
	}
	if r.N != 6 || r.Row(5)[2].I != 5 {
		t.Fatalf("after Reset and 6 appends: N %d, Row(5) %v", r.N, r.Row(5))
	}
}
