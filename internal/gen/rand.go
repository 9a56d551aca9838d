// Package gen provides seeded random sources, value payloads with controlled compressibility, and
// the rate pacer. Everything here is deterministic given its seed.
package gen

import "math/bits"

// Mix returns a well-mixed 64-bit hash of x (the SplitMix64 finalizer). Use it to derive
// independent seeds from a base seed and an index.
func Mix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9
	x = (x ^ (x >> 27)) * 0x94D049BB133111EB
	return x ^ (x >> 31)
}

// Rand is a small, fast pseudo-random source (SplitMix64). It is not safe for concurrent use;
// give each worker its own. The zero value is a valid source with seed 0.
type Rand struct{ s uint64 }

// NewRand returns a source seeded with seed.
func NewRand(seed uint64) Rand { return Rand{s: seed} }

// Seed resets the source to seed.
func (r *Rand) Seed(seed uint64) { r.s = seed }

// Uint64 returns 64 random bits.
func (r *Rand) Uint64() uint64 {
	r.s += 0x9E3779B97F4A7C15
	z := r.s
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// Intn returns a uniform integer in [0, n); n must be > 0. It uses Lemire's multiply-shift (the
// bias is below 2^-32 for the n used here).
func (r *Rand) Intn(n int64) int64 {
	hi, _ := bits.Mul64(r.Uint64(), uint64(n))
	return int64(hi)
}

// Float64 returns a uniform float64 in [0, 1) from 53 random bits.
func (r *Rand) Float64() float64 { return float64(r.Uint64()>>11) / (1 << 53) }

// Range returns a uniform integer in [lo, hi]; hi must be >= lo and hi−lo < MaxInt64.
func (r *Rand) Range(lo, hi int64) int64 { return lo + r.Intn(hi-lo+1) }

// Scale32 maps 32 random bits x to a uniform integer in [0, n) for 0 < n < 2^32 (multiply-shift;
// the bias is below n/2^32, e.g. 2.3e-5 for n = 100,000). Two values can come from one Uint64.
func Scale32(x uint32, n int64) int64 { return int64(uint64(x) * uint64(n) >> 32) }
