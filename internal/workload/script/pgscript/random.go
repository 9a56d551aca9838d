package pgscript

import (
	"fmt"
	"math"
	"math/bits"
)

// Parameter bounds of pgbench's random functions.
const (
	// MinGaussian is the least parameter of random_gaussian.
	MinGaussian = 2.0
	// MinZipfian and MaxZipfian bound random_zipfian's parameter.
	MinZipfian = 1.001
	MaxZipfian = 1000.0
)

// checkRange refuses an empty range or one whose size overflows int64, as pgbench does.
func checkRange(lo, hi int64) error {
	if hi < lo {
		return fmt.Errorf("empty range given to random: [%d, %d]", lo, hi)
	}
	if d := hi - lo; d < 0 || d == math.MaxInt64 { // hi - lo + 1 overflows
		return fmt.Errorf("random range is too large: [%d, %d]", lo, hi)
	}
	return nil
}

// Uniform returns random(lo, hi): a uniform integer in [lo, hi].
func Uniform(r *Rand, lo, hi int64) int64 { return lo + int64(r.Range(0, uint64(hi-lo))) }

// Exponential returns random_exponential(lo, hi, param): pgbench's truncated exponential, the
// density at hi being exp(-param) of that at lo (param > 0).
func Exponential(r *Rand, lo, hi int64, param float64) int64 {
	cut := math.Exp(-param)
	u := 1.0 - r.Float64() // (0, 1]
	x := -math.Log(cut+(1.0-cut)*u) / param
	return lo + int64(float64(hi-lo+1)*x)
}

// Gaussian returns random_gaussian(lo, hi, param): a normal draw within ±param standard
// deviations, mapped onto [lo, hi] (param >= MinGaussian).
func Gaussian(r *Rand, lo, hi int64, param float64) int64 {
	var z float64
	for {
		z = r.Normal()
		if z >= -param && z < param {
			break
		}
	}
	x := (z + param) / (param * 2.0)
	return lo + int64(float64(hi-lo+1)*x)
}

// Zipfian returns random_zipfian(lo, hi, s): pgbench's Zipfian draw by Devroye's rejection
// method (Non-Uniform Random Variate Generation, pp. 550-551), s in [MinZipfian, MaxZipfian].
func Zipfian(r *Rand, lo, hi int64, s float64) int64 {
	n := hi - lo + 1
	return lo - 1 + iterativeZipfian(r, n, s)
}

func iterativeZipfian(r *Rand, n int64, s float64) int64 {
	if n <= 1 {
		return 1
	}
	b := math.Pow(2.0, s-1.0)
	for {
		u := r.Float64()
		v := r.Float64()
		x := math.Floor(math.Pow(u, -1.0/(s-1.0)))
		t := math.Pow(1.0+1.0/x, s-1.0)
		if v*x*(t-1.0)/(b-1.0) <= t/b && x <= float64(n) {
			return int64(x)
		}
	}
}

// Constants of pgbench's hash functions.
const (
	fnvPrime       = 0x100000001b3
	fnvOffsetBasis = 0xcbf29ce484222325
	mm2Mul         = 0xc6a4a7935bd1e995
	mm2MulTimes8   = 0x35253c9ade8f4ca8
	mm2Rot         = 47
)

// HashFNV1a is pgbench's hash_fnv1a(v, seed): FNV-1a over v's 8 bytes, least significant first,
// from the offset basis xor seed.
func HashFNV1a(v int64, seed uint64) int64 {
	h := uint64(fnvOffsetBasis) ^ seed
	u := uint64(v)
	for range 8 {
		h ^= u & 0xff
		u >>= 8
		h *= fnvPrime
	}
	return int64(h)
}

// HashMurmur2 is pgbench's hash_murmur2(v, seed) (and hash(v, seed)): MurmurHash64A of v's 8
// bytes.
func HashMurmur2(v int64, seed uint64) int64 {
	h := seed ^ mm2MulTimes8
	k := uint64(v)
	k *= mm2Mul
	k ^= k >> mm2Rot
	k *= mm2Mul
	h ^= k
	h *= mm2Mul
	h ^= h >> mm2Rot
	h *= mm2Mul
	h ^= h >> mm2Rot
	return int64(h)
}

// Permute is pgbench's permute(v, size, seed): v mod size mapped by a pseudo-random
// permutation of [0, size) chosen by seed (0 when size < 2). Same seed, same permutation as
// pgbench's.
func Permute(v, size int64, seed int64) int64 {
	if size < 2 {
		return 0
	}
	var r Rand
	r.Seed(uint64(seed))
	n := uint64(size)
	x := uint64(v) % n
	masklen := uint(63 - bits.LeadingZeros64(n))
	mask := uint64(1)<<masklen - 1
	for range 6 {
		m := r.Uint64()&mask | 1
		rr := r.Uint64() & mask
		if x <= mask {
			x = ((x * m) ^ rr) & mask
			x = ((x << 1) & mask) | (x >> (masklen - 1))
		}
		m = r.Uint64()&mask | 1
		rr = r.Uint64() & mask
		t := n - 1 - x
		if t <= mask {
			t = ((t * m) ^ rr) & mask
			t = ((t << 1) & mask) | (t >> (masklen - 1))
			x = n - 1 - t
		}
		rr = r.Range(0, n-1)
		x = (x + rr) % n
	}
	return int64(x)
}
