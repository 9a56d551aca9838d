package ycsbgen

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync/atomic"

	"github.com/rumbench/rumbench/internal/gen"
)

// KeyGenerator is what every key chooser here satisfies: Next draws one key number using r.
type KeyGenerator interface {
	Next(r *gen.Rand) int64
}

func checkRange(lo, hi int64) error {
	if hi < lo {
		return fmt.Errorf("ycsbgen: empty range [%d, %d]", lo, hi)
	}
	if hi-lo == math.MaxInt64 || hi-lo < 0 {
		return fmt.Errorf("ycsbgen: range [%d, %d] is wider than MaxInt64 values", lo, hi)
	}
	return nil
}

// Uniform draws key numbers uniformly in [lo, hi] inclusive (YCSB's UniformLongGenerator).
type Uniform struct{ lo, hi int64 }

// NewUniform returns a uniform generator over [lo, hi] inclusive. It fails when hi < lo or the
// range holds more than MaxInt64 values.
func NewUniform(lo, hi int64) (*Uniform, error) {
	if err := checkRange(lo, hi); err != nil {
		return nil, err
	}
	return &Uniform{lo: lo, hi: hi}, nil
}

// Next returns a uniform key number in [lo, hi].
func (u *Uniform) Next(r *gen.Rand) int64 { return r.Range(u.lo, u.hi) }

// ZipfianConstant is YCSB's default zipfian exponent theta (property zipfian constant 0.99).
const ZipfianConstant = 0.99

// Zipfian draws key numbers in [lo, hi] with P(lo+i) proportional to 1/(i+1)^theta: lo is the
// most popular, lo+1 the next, and so on (YCSB's ZipfianGenerator, method of Gray et al.).
// Set-up sums zeta over the whole range once (O(hi−lo)); each draw is O(1).
type Zipfian struct {
	lo int64
	z  *gen.Zipf
}

// NewZipfian returns a zipfian generator over [lo, hi] with exponent theta (use
// ZipfianConstant for YCSB's default). It fails when the range is empty or too wide, or theta is
// outside (0, 1).
func NewZipfian(lo, hi int64, theta float64) (*Zipfian, error) {
	if err := checkRange(lo, hi); err != nil {
		return nil, err
	}
	if !(theta > 0 && theta < 1) {
		return nil, fmt.Errorf("ycsbgen: zipfian theta %v outside (0, 1)", theta)
	}
	return &Zipfian{lo: lo, z: gen.NewZipf(hi-lo+1, theta)}, nil
}

// Next returns a key number in [lo, hi].
func (z *Zipfian) Next(r *gen.Rand) int64 { return z.lo + z.z.Next(r) - 1 }

// ScrambledItemCount is the item count of the zipfian behind ScrambledZipfian (YCSB's
// ScrambledZipfianGenerator.ITEM_COUNT, ten billion), and ScrambledZetan its zeta sum for theta
// ZipfianConstant, which YCSB takes as a constant rather than summing ten billion terms.
const (
	ScrambledItemCount = 10_000_000_000
	ScrambledZetan     = 26.46902820178302
)

// ScrambledZipfian draws key numbers in [lo, hi] whose popularity follows a zipfian (theta 0.99)
// but whose popular items are scattered over the range instead of clustered at lo (YCSB's
// ScrambledZipfianGenerator): it draws from a zipfian over ScrambledItemCount items and returns
// lo + FNVHash64(draw) mod (hi−lo+1). Set-up is O(1).
type ScrambledZipfian struct {
	lo, count int64
	z         *gen.Zipf
}

// NewScrambledZipfian returns a scrambled zipfian generator over [lo, hi]. It fails when the
// range is empty or too wide.
func NewScrambledZipfian(lo, hi int64) (*ScrambledZipfian, error) {
	if err := checkRange(lo, hi); err != nil {
		return nil, err
	}
	return &ScrambledZipfian{lo: lo, count: hi - lo + 1,
		z: gen.NewZipfZeta(ScrambledItemCount, ZipfianConstant, ScrambledZetan)}, nil
}

// Next returns a key number in [lo, hi].
func (s *ScrambledZipfian) Next(r *gen.Rand) int64 {
	m := FNVHash64(s.z.Next(r)-1) % s.count
	if m < 0 { // FNVHash64 is negative only for the one hash whose absolute value overflows
		m += s.count
	}
	return s.lo + m
}

// FNVHash64 returns YCSB's 64-bit FNV-1a hash of v (Utils.fnvhash64): starting from the offset
// basis 0xCBF29CE484222325, each of v's 8 bytes, low byte first, is XORed in and the hash
// multiplied by the prime 1099511628211; the result is the absolute value of the hash read as a
// signed int64. As in Java, the absolute value of MinInt64 is MinInt64, the only negative result.
func FNVHash64(v int64) int64 {
	const offsetBasis, prime = 0xCBF29CE484222325, 1099511628211
	h := uint64(offsetBasis)
	x := uint64(v)
	for range 8 {
		h ^= x & 0xff
		x >>= 8
		h *= prime
	}
	s := int64(h)
	if s < 0 {
		s = -s
	}
	return s
}

// SkewedLatest draws key numbers in [0, Last()] of an AckCounter with the most recently inserted
// keys the most popular (YCSB's SkewedLatestGenerator): with max = Last() at the time of the
// draw, it returns max − d for d drawn from a zipfian (theta 0.99) over [0, max]. (YCSB's zipfian
// there spans max items, so it never returns key 0; this one includes it.) When the bound has
// grown since the previous draw, the zeta sum is extended by the new items only. A SkewedLatest
// is not safe for concurrent use: give each worker goroutine its own, all sharing one AckCounter.
type SkewedLatest struct {
	counter *gen.AckCounter
	z       *gen.Zipf
}

// NewSkewedLatest returns a skewed-latest generator reading its bound from counter; set-up sums
// zeta over the current Last()+1 keys (O(Last)). It panics when counter is nil (a programmer
// error).
func NewSkewedLatest(counter *gen.AckCounter) *SkewedLatest {
	if counter == nil {
		panic("ycsbgen: NewSkewedLatest needs a counter")
	}
	return &SkewedLatest{counter: counter, z: gen.NewZipf(max(counter.Last()+1, 1), ZipfianConstant)}
}

// Next returns a key number in [0, Last()]; when no key is acknowledged yet (Last() < 0) it
// returns Last() unchanged, a negative number the caller must treat as "no key".
func (s *SkewedLatest) Next(r *gen.Rand) int64 {
	last := s.counter.Last()
	if last < 0 {
		return last
	}
	s.z.Grow(last + 1)
	return last - (s.z.Next(r) - 1)
}

// Hotspot draws key numbers in [lo, hi] with a hot set, the first int(count·hotSetFraction) keys
// from lo, drawn with probability hotOpnFraction, uniformly inside the hot set, and the remaining
// cold keys drawn uniformly otherwise (YCSB's HotspotIntegerGenerator, properties
// hotspotdatafraction and hotspotopnfraction).
type Hotspot struct {
	lo, hotCount, coldCount int64
	hotOpnFraction          float64
}

// NewHotspot returns a hotspot generator over [lo, hi]. Both fractions must lie in [0, 1]. When
// the hot set is empty every draw is cold, and when it is the whole range every draw is hot.
func NewHotspot(lo, hi int64, hotSetFraction, hotOpnFraction float64) (*Hotspot, error) {
	if err := checkRange(lo, hi); err != nil {
		return nil, err
	}
	if !(hotSetFraction >= 0 && hotSetFraction <= 1) || !(hotOpnFraction >= 0 && hotOpnFraction <= 1) {
		return nil, fmt.Errorf("ycsbgen: hotspot fractions %v, %v outside [0, 1]", hotSetFraction, hotOpnFraction)
	}
	count := hi - lo + 1
	hot := int64(float64(count) * hotSetFraction)
	return &Hotspot{lo: lo, hotCount: hot, coldCount: count - hot, hotOpnFraction: hotOpnFraction}, nil
}

// HotCount returns the size of the hot set, the keys [lo, lo+HotCount()).
func (h *Hotspot) HotCount() int64 { return h.hotCount }

// Next returns a key number in [lo, hi].
func (h *Hotspot) Next(r *gen.Rand) int64 {
	hot := r.Float64() < h.hotOpnFraction
	if h.coldCount == 0 || (hot && h.hotCount > 0) {
		return h.lo + r.Intn(h.hotCount)
	}
	return h.lo + h.hotCount + r.Intn(h.coldCount)
}

// Default values of YCSB's exponential.percentile (percent) and exponential.frac properties.
const (
	ExponentialPercentile = 95
	ExponentialFrac       = 0.8571428571
)

// Exponential draws non-negative distances from an exponential distribution such that
// percentile percent of the draws fall below recordCount·frac (YCSB's ExponentialGenerator as set
// up by CoreWorkload): gamma = −ln(1 − percentile/100) / (recordCount·frac) and a draw is
// int(−ln(u)/gamma) for u uniform in (0, 1]. The draws are unbounded above; NextKey turns them
// into key numbers as CoreWorkload does.
type Exponential struct{ gamma float64 }

// NewExponential returns an exponential generator. percentile must lie in (0, 100), and
// recordCount and frac must be positive.
func NewExponential(percentile float64, recordCount int64, frac float64) (*Exponential, error) {
	if !(percentile > 0 && percentile < 100) || recordCount <= 0 || !(frac > 0) || math.IsInf(frac, 0) {
		return nil, fmt.Errorf("ycsbgen: exponential needs 0 < percentile < 100, recordcount > 0 and frac > 0 (got %v, %d, %v)",
			percentile, recordCount, frac)
	}
	return &Exponential{gamma: -math.Log(1-percentile/100) / (float64(recordCount) * frac)}, nil
}

// Next returns a distance >= 0 (clamped to MaxInt64).
func (e *Exponential) Next(r *gen.Rand) int64 {
	u := 1 - r.Float64() // (0, 1]
	d := -math.Log(u) / e.gamma
	if d >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(d)
}

// NextKey returns a key number counted back from last, the newest acknowledged key (for
// instance AckCounter.Last()): last − Next(r), drawn again while the result would be negative,
// as YCSB's CoreWorkload does for exponential keys, so key last is the most popular. When last < 0
// there is no key and it returns last unchanged.
func (e *Exponential) NextKey(r *gen.Rand, last int64) int64 {
	if last < 0 {
		return last
	}
	for {
		if k := last - e.Next(r); k >= 0 {
			return k
		}
	}
}

// Sequential returns the key numbers lo, lo+1, …, hi, then lo again, in turn (YCSB's
// SequentialGenerator). Its position is an atomic counter, so it is safe for concurrent use: the
// goroutines sharing one take consecutive numbers between them. The random source is ignored.
type Sequential struct {
	lo    int64
	count uint64
	pos   atomic.Uint64
}

// NewSequential returns a sequential generator over [lo, hi] starting at lo. It fails when the
// range is empty or too wide.
func NewSequential(lo, hi int64) (*Sequential, error) {
	if err := checkRange(lo, hi); err != nil {
		return nil, err
	}
	return &Sequential{lo: lo, count: uint64(hi - lo + 1)}, nil
}

// Next returns the next key number in [lo, hi], wrapping from hi back to lo; r is unused.
func (s *Sequential) Next(_ *gen.Rand) int64 {
	return s.lo + int64((s.pos.Add(1)-1)%s.count)
}

// Choice is one entry of a DiscreteChooser: Op is the caller's number for an operation kind
// (returned by Next), Weight its share in the mix, e.g. YCSB's readproportion 0.95.
type Choice struct {
	Op     int
	Weight float64
}

// DiscreteChooser picks operations in proportion to their weights (YCSB's DiscreteGenerator for
// the operation mix). Weights need not sum to 1; zero-weight entries are never picked.
type DiscreteChooser struct {
	ops        []int
	cumulative []float64 // running sums of the weights
	total      float64
}

// NewDiscreteChooser returns a chooser over choices. It fails when there are none, when a weight
// is negative, NaN or infinite, or when all weights are zero.
func NewDiscreteChooser(choices ...Choice) (*DiscreteChooser, error) {
	d := &DiscreteChooser{}
	for _, c := range choices {
		if !(c.Weight >= 0) || math.IsInf(c.Weight, 0) {
			return nil, fmt.Errorf("ycsbgen: operation %d has weight %v; weights must be finite and >= 0", c.Op, c.Weight)
		}
		if c.Weight == 0 {
			continue
		}
		d.total += c.Weight
		d.ops = append(d.ops, c.Op)
		d.cumulative = append(d.cumulative, d.total)
	}
	if len(d.ops) == 0 {
		return nil, errors.New("ycsbgen: the operation mix has no operation with a positive weight")
	}
	return d, nil
}

// Next returns the Op of one choice, picked with probability Weight / (sum of the weights).
func (d *DiscreteChooser) Next(r *gen.Rand) int {
	x := r.Float64() * d.total
	for i, c := range d.cumulative {
		if x < c {
			return d.ops[i]
		}
	}
	return d.ops[len(d.ops)-1] // only reachable by rounding of the running sum
}

// KeyPrefix starts every key name, as in YCSB.
const KeyPrefix = "user"

// BuildKeyName appends the key name of keynum to dst and returns the extended slice, as YCSB's
// CoreWorkload.buildKeyName: unless ordered (insertorder=ordered), keynum is first replaced by
// FNVHash64(keynum) (insertorder=hashed, YCSB's default); the name is "user" followed by keynum in
// decimal, left-padded with zeros to zeroPadding characters (zeropadding; 1, the default, or less
// means no padding). It allocates only when dst lacks capacity.
func BuildKeyName(dst []byte, keynum int64, ordered bool, zeroPadding int) []byte {
	if !ordered {
		keynum = FNVHash64(keynum)
	}
	dst = append(dst, KeyPrefix...)
	for fill := zeroPadding - decimalLen(keynum); fill > 0; fill-- {
		dst = append(dst, '0')
	}
	return strconv.AppendInt(dst, keynum, 10)
}

// decimalLen returns the length of strconv.FormatInt(v, 10), the sign included.
func decimalLen(v int64) int {
	n := 1
	u := uint64(v)
	if v < 0 {
		n++
		u = -u
	}
	for ; u >= 10; u /= 10 {
		n++
	}
	return n
}

// Field length distributions, the values of YCSB's fieldlengthdistribution property.
const (
	FieldLengthConstant = "constant"
	FieldLengthUniform  = "uniform"
	FieldLengthZipfian  = "zipfian"
)

// FieldLength draws value field lengths in bytes (YCSB's field length generator): always
// fieldLength for the constant distribution, uniform in [minLength, fieldLength] for uniform,
// and zipfian (theta 0.99, minLength the most common) in [minLength, fieldLength] for zipfian.
type FieldLength struct {
	length  int64
	uniform *Uniform
	zipfian *Zipfian
}

// NewFieldLength returns a field length generator for distribution, one of FieldLengthConstant,
// FieldLengthUniform and FieldLengthZipfian, the minimum length minLength (minfieldlength; not
// used by the constant distribution) and the maximum (or constant) length fieldLength in bytes,
// 1 <= minLength <= fieldLength. YCSB's histogram distribution is not provided.
func NewFieldLength(distribution string, minLength, fieldLength int64) (*FieldLength, error) {
	if fieldLength < 1 {
		return nil, fmt.Errorf("ycsbgen: fieldlength %d must be >= 1", fieldLength)
	}
	f := &FieldLength{length: fieldLength}
	if distribution != FieldLengthConstant && (minLength < 1 || minLength > fieldLength) {
		return nil, fmt.Errorf("ycsbgen: minfieldlength %d must be in [1, fieldlength %d]", minLength, fieldLength)
	}
	var err error
	switch distribution {
	case FieldLengthConstant:
	case FieldLengthUniform:
		f.uniform, err = NewUniform(minLength, fieldLength)
	case FieldLengthZipfian:
		f.zipfian, err = NewZipfian(minLength, fieldLength, ZipfianConstant)
	default:
		return nil, fmt.Errorf("ycsbgen: unknown fieldlengthdistribution %q (want constant, uniform or zipfian)", distribution)
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Next returns a field length in bytes, in [minLength, fieldLength].
func (f *FieldLength) Next(r *gen.Rand) int64 {
	switch {
	case f.uniform != nil:
		return f.uniform.Next(r)
	case f.zipfian != nil:
		return f.zipfian.Next(r)
	}
	return f.length
}
