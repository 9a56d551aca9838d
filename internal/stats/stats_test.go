package stats

import (
	"math"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestSummarize(t *testing.T) {
	cases := []struct {
		xs             []float64
		med, lo, hi, c float64
	}{
		{[]float64{5}, 5, 5, 5, 0},
		{[]float64{3, 1}, 2, 1, 3, 0.5},
		{[]float64{9, 1, 5, 3, 7}, 5, 1, 9, 1 - 2.0/32},
		{[]float64{6, 1, 5, 3, 4, 2}, 3.5, 1, 6, 1 - 2.0/64},
		// n = 10: [x(2), x(9)], coverage 1 - 2·11/1024; [x(3), x(8)] would be 0.891.
		{[]float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 5.5, 2, 9, 1 - 22.0/1024},
		{[]float64{math.NaN(), 2, 4}, 3, 2, 4, 0.5},
	}
	for _, c := range cases {
		s := Summarize(c.xs)
		if s.Median != c.med || s.Lo != c.lo || s.Hi != c.hi || !near(s.Conf, c.c, 1e-12) {
			t.Errorf("Summarize(%v) = %+v, want median %g [%g, %g] conf %g", c.xs, s, c.med, c.lo, c.hi, c.c)
		}
	}
	if s := Summarize(nil); s.N != 0 {
		t.Errorf("Summarize(nil) = %+v", s)
	}
	// A larger sample reaches the level with an inner interval: n = 20 takes [x(6), x(15)]
	// (coverage 0.9586; [x(7), x(14)] would be 0.8847).
	xs := make([]float64, 20)
	for i := range xs {
		xs[i] = float64(i + 1)
	}
	if s := Summarize(xs); s.Lo != 6 || s.Hi != 15 || !near(s.Conf, 0.958610, 1e-6) {
		t.Errorf("n=20: %+v", s)
	}
	if got := (Summary{N: 5, Median: 100, Lo: 90, Hi: 104}).HalfWidthPct(); got != 10 {
		t.Errorf("HalfWidthPct = %g", got)
	}
}

// The exact p-values are those of the tables of the U distribution (e.g. n1 = n2 = 5, U = 0:
// 2/252).
func TestMannWhitney(t *testing.T) {
	cases := []struct {
		a, b []float64
		p    float64
	}{
		{[]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, 0.007937},
		{[]float64{1, 3, 5, 7, 9}, []float64{2, 4, 6, 8, 10}, 0.690476},
		{[]float64{1, 2, 3}, []float64{4, 5, 6}, 0.1},
		{[]float64{1.1, 2.2, 3.3, 4.4}, []float64{0.5, 2.5, 3.5, 6, 7, 8}, 0.352381},
		// Ties, exact: two values a side, every one of a below b's: 2 of the C(6, 3) = 20 splits
		// are as extreme.
		{[]float64{1, 1, 1}, []float64{2, 2, 2}, 0.1},
	}
	for _, c := range cases {
		if p := MannWhitney(c.a, c.b); !near(p, c.p, 5e-4) {
			t.Errorf("MannWhitney(%v, %v) = %.6f, want %.6f", c.a, c.b, p, c.p)
		}
		if p, q := MannWhitney(c.a, c.b), MannWhitney(c.b, c.a); !near(p, q, 1e-12) {
			t.Errorf("not symmetric: %g vs %g", p, q)
		}
	}
	// Ties in a pooled sample too large to enumerate (C(30, 15)): the normal approximation.
	// a's rank sum is 1+3+3+5.5+7 + (11+...+20) = 174.5, U = 54.5 against a mean of 112.5; the
	// tie term is (27-3)+(8-2) = 30, var = 225/12·(31 - 30/870) = 580.6, z = (58-0.5)/24.096.
	a := []float64{1, 2, 2, 3, 4}
	b := []float64{2, 3, 5, 6, 7}
	for i := 0; i < 10; i++ {
		a, b = append(a, float64(100+i)), append(b, float64(200+i))
	}
	if p := MannWhitney(a, b); !near(p, 0.01702, 2e-4) {
		t.Errorf("normal approximation: p = %g", p)
	}
	if p := MannWhitney([]float64{1, 1}, []float64{1, 1}); p != 1 {
		t.Errorf("identical samples: p = %g", p)
	}
}

// CVPct is the sample standard deviation over the mean, in percent; refused for fewer than two
// values or a mean that is not positive.
func TestCVPct(t *testing.T) {
	// 2, 4, 4, 4, 5, 5, 7, 9: mean 5, squares 32, sample variance 32/7.
	if cv, ok := CVPct([]float64{2, 4, 4, 4, 5, 5, 7, 9}); !ok || math.Abs(cv-100*math.Sqrt(32.0/7)/5) > 1e-12 {
		t.Errorf("CVPct = %v, %v; want %v", cv, ok, 100*math.Sqrt(32.0/7)/5)
	}
	for _, xs := range [][]float64{nil, {3}, {0, 0}, {-1, -3}} {
		if _, ok := CVPct(xs); ok {
			t.Errorf("CVPct(%v) ok", xs)
		}
	}
}
