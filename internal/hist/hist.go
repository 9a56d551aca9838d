// Package hist records response times in HDR-style log-linear histograms.
//
// A Histogram has one writer (a worker) and one reader (the runner's tick). Record is a few atomic
// adds: no lock, no allocation. The reader takes Snapshots; interval views are differences of
// cumulative snapshots, so the histogram never needs resetting and its memory is fixed.
//
// Precision: values are nanoseconds; each power-of-two range is split into 64 linear sub-buckets,
// so a bucket's width is at most 1/64 of its lower bound and a reported quantile is within 1.6%
// of the true value (reported as the bucket's upper bound, never an underestimate). Values up to
// 2^42 ns (73 minutes) are kept; larger ones are clamped to that.
package hist

import (
	"math/bits"
	"sync/atomic"
)

const (
	subBits    = 6
	subBuckets = 1 << subBits // linear sub-buckets per power of two
	maxBits    = 42           // values are clamped below 2^maxBits ns
	// NumBuckets is the number of buckets of a histogram.
	NumBuckets = (maxBits - subBits + 1) * subBuckets
	// MaxValue is the largest value recorded as itself, in nanoseconds.
	MaxValue = int64(1)<<maxBits - 1
)

// bucketOf returns the bucket index of v (0 <= v <= MaxValue).
func bucketOf(v int64) int {
	if v < subBuckets {
		return int(v)
	}
	shift := bits.Len64(uint64(v)) - subBits - 1
	return (shift+1)*subBuckets + int(v>>uint(shift)) - subBuckets
}

// bucketUpper returns the largest value that falls in bucket i.
func bucketUpper(i int) int64 {
	if i < subBuckets {
		return int64(i)
	}
	shift := i/subBuckets - 1
	sub := int64(i%subBuckets + subBuckets)
	return (sub+1)<<uint(shift) - 1
}

// Histogram counts recorded values. The zero value is not usable; call New.
type Histogram struct {
	counts   [NumBuckets]atomic.Int64
	total    atomic.Int64 // count of values
	sum      atomic.Int64 // sum of values, ns
	max      atomic.Int64 // largest value ever
	interval atomic.Int64 // largest value since the last Snapshot
}

// New returns an empty histogram (about 19 KB).
func New() *Histogram { return &Histogram{} }

// Record adds one value in nanoseconds; negative values count as 0, values above MaxValue as
// MaxValue. Safe to call concurrently with Snapshot.
func (h *Histogram) Record(ns int64) {
	if ns < 0 {
		ns = 0
	} else if ns > MaxValue {
		ns = MaxValue
	}
	h.counts[bucketOf(ns)].Add(1)
	h.sum.Add(ns)
	h.total.Add(1)
	if ns > h.max.Load() {
		casMax(&h.max, ns)
	}
	if ns > h.interval.Load() {
		casMax(&h.interval, ns)
	}
}

func casMax(a *atomic.Int64, v int64) {
	for {
		old := a.Load()
		if v <= old || a.CompareAndSwap(old, v) {
			return
		}
	}
}

// Snapshot is a plain copy of a histogram's state (or a sum or difference of such copies).
type Snapshot struct {
	Counts [NumBuckets]int64
	// Total is the number of values, Sum their sum in ns.
	Total, Sum int64
	// Max is the largest value ever recorded (for a difference: in either operand).
	Max int64
	// IntervalMax is the largest value recorded since the previous Snapshot call.
	IntervalMax int64
}

// Snapshot copies the cumulative state into dst and starts a new interval for IntervalMax. Values
// recorded concurrently may be partly included; the next snapshot includes them fully.
func (h *Histogram) Snapshot(dst *Snapshot) {
	dst.IntervalMax = h.interval.Swap(0)
	dst.Total = h.total.Load()
	dst.Sum = h.sum.Load()
	dst.Max = h.max.Load()
	for i := range h.counts {
		dst.Counts[i] = h.counts[i].Load()
	}
}

// Add adds o into s: the counts of two histograms merged.
func (s *Snapshot) Add(o *Snapshot) {
	for i := range s.Counts {
		s.Counts[i] += o.Counts[i]
	}
	s.Total += o.Total
	s.Sum += o.Sum
	s.Max = max(s.Max, o.Max)
	s.IntervalMax = max(s.IntervalMax, o.IntervalMax)
}

// Sub sets s to cur − prev: the values recorded between two cumulative snapshots of the same
// histograms. s.Max is the upper bound of the highest non-empty bucket of the difference, capped
// by cur.Max (exact when the largest value is in the difference); s.IntervalMax is cur's.
func (s *Snapshot) Sub(cur, prev *Snapshot) {
	top := -1
	for i := range s.Counts {
		s.Counts[i] = cur.Counts[i] - prev.Counts[i]
		if s.Counts[i] != 0 {
			top = i
		}
	}
	s.Total = cur.Total - prev.Total
	s.Sum = cur.Sum - prev.Sum
	s.IntervalMax = cur.IntervalMax
	s.Max = 0
	if top >= 0 {
		s.Max = min(bucketUpper(top), cur.Max)
	}
}

// Reset empties s.
func (s *Snapshot) Reset() { *s = Snapshot{} }

// Quantile returns the value at quantile q (0..1) in ns: the upper bound of the bucket that holds
// the q-th value, capped by Max. It returns 0 for an empty snapshot.
func (s *Snapshot) Quantile(q float64) int64 {
	if s.Total <= 0 {
		return 0
	}
	rank := int64(q*float64(s.Total) + 0.5)
	if rank < 1 {
		rank = 1
	}
	if rank > s.Total {
		rank = s.Total
	}
	var seen int64
	for i, c := range s.Counts {
		seen += c
		if seen >= rank {
			if u := bucketUpper(i); s.Max <= 0 || u < s.Max {
				return u
			}
			return s.Max
		}
	}
	return s.Max
}

// Mean returns the mean value in ns, 0 for an empty snapshot.
func (s *Snapshot) Mean() float64 {
	if s.Total <= 0 {
		return 0
	}
	return float64(s.Sum) / float64(s.Total)
}

// Bucket is one non-empty bucket of a snapshot: Count values at most UpperNs.
type Bucket struct {
	UpperNs int64 `json:"le_ns"`
	Count   int64 `json:"n"`
}

// Buckets appends the non-empty buckets of s, in increasing order, to dst.
func (s *Snapshot) Buckets(dst []Bucket) []Bucket {
	for i, c := range s.Counts {
		if c != 0 {
			dst = append(dst, Bucket{UpperNs: bucketUpper(i), Count: c})
		}
	}
	return dst
}

// AddBuckets adds the buckets b (as Buckets returns them) into s: the exact merge of the counts
// of the histograms they came from. Total grows by their counts; Sum and Max are left to the
// caller, which knows them (a mean and a maximum recorded beside the buckets). An upper bound
// that is not a bucket's is counted in the bucket that holds it.
func (s *Snapshot) AddBuckets(b []Bucket) {
	for _, x := range b {
		v := min(max(x.UpperNs, 0), MaxValue)
		s.Counts[bucketOf(v)] += x.Count
		s.Total += x.Count
	}
}

// CountsAtMost sets dst[i] to the number of values of s at most bounds[i] ns, for bounds in
// increasing order: the cumulative counts of a histogram with those upper bounds (a
// Prometheus classic histogram's buckets). A bucket of s is counted at the first bound at
// least its upper bound, so a value up to one bucket's width (1/64 of it) below a bound may be
// counted at the next bound; values above the last bound are in none of dst (the caller's
// +Inf bucket is Total). dst must be as long as bounds.
func (s *Snapshot) CountsAtMost(bounds []int64, dst []int64) {
	j := 0
	var seen int64
	for i, c := range s.Counts {
		if c == 0 {
			continue
		}
		up := bucketUpper(i)
		for j < len(bounds) && bounds[j] < up {
			dst[j] = seen
			j++
		}
		if j == len(bounds) {
			return
		}
		seen += c
	}
	for ; j < len(bounds); j++ {
		dst[j] = seen
	}
}
