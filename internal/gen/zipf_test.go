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
	zn := zetaSum(0, n, 0.8, 0)
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

// Growing the item count step by step gives the zeta sum and eta of a generator made at the
// final size, and draws reach the new items.
func TestZipfGrow(t *testing.T) {
	z := NewZipf(100, 0.99)
	z.Grow(150)
	z.Grow(150)
	z.Grow(120) // below N: no change
	z.Grow(1000)
	fresh := NewZipf(1000, 0.99)
	if z.N() != 1000 || math.Abs(z.Zeta()-fresh.Zeta()) > 1e-9 || math.Abs(z.eta-fresh.eta) > 1e-9 {
		t.Errorf("grown n %d zeta %v eta %v, fresh zeta %v eta %v", z.N(), z.Zeta(), z.eta, fresh.Zeta(), fresh.eta)
	}
	r := NewRand(3)
	beyond := 0
	for i := 0; i < 100000; i++ {
		if v := z.Next(&r); v > 150 {
			beyond++
		} else if v < 1 {
			t.Fatalf("draw %d below 1", v)
		}
	}
	if beyond == 0 {
		t.Error("no draw reached the items added by Grow")
	}
}
