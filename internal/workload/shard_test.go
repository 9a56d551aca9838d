package workload

import "testing"

// TestShardRange: the parts of every shard cover [0, n) in order with no overlap and no gap,
// and their sizes differ by at most one.
func TestShardRange(t *testing.T) {
	for _, n := range []int64{0, 1, 2, 7, 100, 1001} {
		for count := 1; count <= 9; count++ {
			next, small, big := int64(0), n, int64(0)
			for i := 0; i < count; i++ {
				lo, hi := Shard{Index: i, Count: count}.Range(n)
				if lo != next || hi < lo {
					t.Fatalf("n=%d shard %d/%d: [%d,%d) after %d", n, i, count, lo, hi, next)
				}
				next, small, big = hi, min(small, hi-lo), max(big, hi-lo)
			}
			if next != n || big-small > 1 {
				t.Errorf("n=%d count=%d: covered [0,%d), sizes %d..%d", n, count, next, small, big)
			}
		}
	}
}

// TestParseShard: valid and invalid --shard values.
func TestParseShard(t *testing.T) {
	if s, err := ParseShard("2/3"); err != nil || s != (Shard{2, 3}) {
		t.Errorf("2/3: %v %v", s, err)
	}
	for _, v := range []string{"3/2", "3/3", "-1/2", "1", "a/b", "0/0", "1/2/3"} {
		if _, err := ParseShard(v); err == nil {
			t.Errorf("%q accepted", v)
		}
	}
}
