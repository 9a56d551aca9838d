package pgscript

import (
	"math"
	"math/bits"
)

// Rand is PostgreSQL's pseudo-random generator (pg_prng: xoroshiro128** seeded by splitmix64),
// so that permute() gives pgbench's permutation for the same seed. It is not safe for concurrent
// use: each client has its own.
type Rand struct{ s0, s1 uint64 }

// NewRand returns a generator seeded as pg_prng_seed seeds it.
func NewRand(seed uint64) *Rand {
	r := &Rand{}
	r.Seed(seed)
	return r
}

// Seed reseeds r as pg_prng_seed does.
func (r *Rand) Seed(seed uint64) {
	r.s0 = splitmix64(&seed)
	r.s1 = splitmix64(&seed)
	if r.s0 == 0 && r.s1 == 0 { // xoroshiro128 must not have an all-zero state
		r.s0 = 0x5851F42D4C957F2D
		r.s1 = 0x14057B7EF767814F
	}
}

func splitmix64(state *uint64) uint64 {
	*state += 0x9E3779B97F4A7C15
	v := *state
	v = (v ^ (v >> 30)) * 0xBF58476D1CE4E5B9
	v = (v ^ (v >> 27)) * 0x94D049BB133111EB
	return v ^ (v >> 31)
}

// Uint64 returns the next 64 random bits.
func (r *Rand) Uint64() uint64 {
	s0 := r.s0
	sx := r.s1 ^ s0
	v := bits.RotateLeft64(s0*5, 7) * 9
	r.s0 = bits.RotateLeft64(s0, 24) ^ sx ^ (sx << 16)
	r.s1 = bits.RotateLeft64(sx, 37)
	return v
}

// Range returns a uniform integer in [lo, hi] (lo when hi <= lo), by pg_prng_uint64_range's
// masked rejection.
func (r *Rand) Range(lo, hi uint64) uint64 {
	if hi <= lo {
		return lo
	}
	span := hi - lo
	shift := uint(bits.LeadingZeros64(span))
	for {
		v := r.Uint64() >> shift
		if v <= span {
			return lo + v
		}
	}
}

// Float64 returns a uniform double in [0, 1) from 52 random bits, as pg_prng_double does.
func (r *Rand) Float64() float64 { return math.Ldexp(float64(r.Uint64()>>12), -52) }

// Normal returns a standard normal double (Box-Muller), as pg_prng_double_normal does.
func (r *Rand) Normal() float64 {
	u1 := 1.0 - r.Float64()
	u2 := 1.0 - r.Float64()
	return math.Sqrt(-2.0*math.Log(u1)) * math.Sin(2.0*math.Pi*u2)
}
