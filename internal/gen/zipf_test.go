package gen

import (
	"math"
	"testing"
)

// The frequency of rank 1 and of rank 2 must follow 1/i^theta / zeta(n, theta).
func TestZipfFrequencies(t *testing.T) {
	const n, draws = 1000, 400000
	z := NewZipf(n, 0.8)
	r := NewRand(42)
	counts := make([]int, n+1)
	for i := 0; i < draws; i++ {
		v := z.Next(&r)
		if v < 1 || v > n {
			t.Fatalf("draw %d outside [1, %d]", v, n)
		}
		counts[v]++
	}
	zn := zeta(n, 0.8)
	for _, rank := range []int{1, 2} {
		want := 1 / math.Pow(float64(rank), 0.8) / zn
		got := float64(counts[rank]) / draws
		if math.Abs(got-want) > 0.01 {
			t.Errorf("rank %d: frequency %.4f, want %.4f", rank, got, want)
		}
	}
	// The top 10% of ranks take most of the draws; the tail still gets some.
	top := 0
	for i := 1; i <= n/10; i++ {
		top += counts[i]
	}
	if f := float64(top) / draws; f < 0.5 || f > 0.8 {
		t.Errorf("top 10%% of ranks drew %.2f of the values", f)
	}
	if counts[n/2]+counts[n/2+1]+counts[n] == 0 {
		t.Error("the tail is never drawn")
	}
}

func TestZipfOne(t *testing.T) {
	z := NewZipf(1, 0.8)
	r := NewRand(1)
	for i := 0; i < 100; i++ {
		if v := z.Next(&r); v != 1 {
			t.Fatalf("n=1 drew %d", v)
		}
	}
}
