package gen

import "math"

// Zipf draws integers in [1, n] with P(i) proportional to 1/i^theta (0 < theta < 1), by the
// method of Gray et al. ("Quickly generating billion-record synthetic databases", 1994), as YCSB
// does. Setup costs O(n) once (the zeta sum); each draw is O(1). Rank 1 is the hottest. Not safe
// for concurrent use (Grow changes it).
type Zipf struct {
	n                 int64
	theta, alpha, eta float64
	zeta2, zetan      float64
	halfPowTheta      float64
}

// NewZipf returns a generator over [1, n] with exponent theta (sysbench's --rand-zipfian-exp,
// default 0.8). It panics when n < 1 or theta is outside (0, 1).
func NewZipf(n int64, theta float64) *Zipf {
	checkZipf(n, theta)
	return NewZipfZeta(n, theta, zetaSum(0, n, theta, 0))
}

// NewZipfZeta is NewZipf with zetan, the sum of 1/i^theta for i in [1, n], given instead of
// summed: YCSB's scrambled zipfian draws over ten billion items with that sum as a constant.
// It panics as NewZipf does.
func NewZipfZeta(n int64, theta, zetan float64) *Zipf {
	checkZipf(n, theta)
	z := &Zipf{n: n, theta: theta, alpha: 1 / (1 - theta), halfPowTheta: math.Pow(0.5, theta),
		zeta2: zetaSum(0, 2, theta, 0), zetan: zetan}
	z.setEta()
	return z
}

func checkZipf(n int64, theta float64) {
	if n < 1 || !(theta > 0 && theta < 1) {
		panic("gen: zipf needs n >= 1 and 0 < theta < 1")
	}
}

// zetaSum returns initial plus the sum of 1/i^theta for i in (from, to].
func zetaSum(from, to int64, theta, initial float64) float64 {
	s := initial
	for i := from + 1; i <= to; i++ {
		s += 1 / math.Pow(float64(i), theta)
	}
	return s
}

func (z *Zipf) setEta() {
	z.eta = (1 - math.Pow(2/float64(z.n), 1-z.theta)) / (1 - z.zeta2/z.zetan)
}

// Grow extends the range to [1, n], adding only the new items' terms to the zeta sum
// (O(n − N())), as YCSB's zipfian does when its item count grows. An n at or below N() changes
// nothing.
func (z *Zipf) Grow(n int64) {
	if n <= z.n {
		return
	}
	z.zetan = zetaSum(z.n, n, z.theta, z.zetan)
	z.n = n
	z.setEta()
}

// N returns the item count: draws are in [1, N()].
func (z *Zipf) N() int64 { return z.n }

// Zeta returns the zeta sum the draws use: the sum of 1/i^theta for i in [1, N()] (or the value
// given to NewZipfZeta, grown).
func (z *Zipf) Zeta() float64 { return z.zetan }

// Next draws one value in [1, n] using r.
func (z *Zipf) Next(r *Rand) int64 {
	u := r.Float64()
	uz := u * z.zetan
	if uz < 1 || z.n == 1 {
		return 1
	}
	if uz < 1+z.halfPowTheta {
		return 2
	}
	v := 1 + int64(float64(z.n)*math.Pow(z.eta*u-z.eta+1, z.alpha))
	return min(max(v, 1), z.n)
}
