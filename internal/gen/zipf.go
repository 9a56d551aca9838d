package gen

import "math"

// Zipf draws integers in [1, n] with P(i) proportional to 1/i^theta (0 < theta < 1), by the
// method of Gray et al. ("Quickly generating billion-record synthetic databases", 1994), as YCSB
// does. Setup costs O(n) once (the zeta sum); each draw is O(1). Rank 1 is the hottest.
type Zipf struct {
	n                   int64
	theta, alpha, eta   float64
	zetan, halfPowTheta float64
}

// NewZipf returns a generator over [1, n] with exponent theta (sysbench's --rand-zipfian-exp,
// default 0.8). It panics when n < 1 or theta is outside (0, 1).
func NewZipf(n int64, theta float64) *Zipf {
	if n < 1 || theta <= 0 || theta >= 1 {
		panic("gen: zipf needs n >= 1 and 0 < theta < 1")
	}
	z := &Zipf{n: n, theta: theta, alpha: 1 / (1 - theta), zetan: zeta(n, theta), halfPowTheta: math.Pow(0.5, theta)}
	z.eta = (1 - math.Pow(2/float64(n), 1-theta)) / (1 - zeta(2, theta)/z.zetan)
	return z
}

func zeta(n int64, theta float64) float64 {
	s := 0.0
	for i := int64(1); i <= n; i++ {
		s += 1 / math.Pow(float64(i), theta)
	}
	return s
}

// Next draws one value in [1, n] using r.
func (z *Zipf) Next(r *Rand) int64 {
	u := float64(r.Uint64()>>11) / (1 << 53)
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
