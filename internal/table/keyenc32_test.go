package table

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
)

func TestInt32Order(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	vals := []int64{math.MinInt32, -1, 0, 1, math.MaxInt32}
	for i := 0; i < 1000; i++ {
		vals = append(vals, int64(int32(r.Uint32())))
	}
	for _, a := range vals {
		ea := AppendValue(nil, Int32, Value{I: a})
		if len(ea) != 4 {
			t.Fatalf("%d encodes to %d bytes", a, len(ea))
		}
		got, rest, err := DecodeValue(Int32, append(ea, 7))
		if err != nil || got != a || len(rest) != 1 {
			t.Fatalf("round trip of %d: %d %v %v", a, got, rest, err)
		}
		for _, b := range vals[:20] {
			eb := AppendInt32(nil, b)
			if c := bytes.Compare(ea, eb); (c < 0) != (a < b) || (c == 0) != (a == b) {
				t.Fatalf("order of %d and %d: compare %d", a, b, c)
			}
		}
	}
	if _, _, err := DecodeInt32([]byte{1, 2}); err == nil {
		t.Error("short input decoded")
	}
}
