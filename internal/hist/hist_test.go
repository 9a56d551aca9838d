package hist

import (
	"math/rand/v2"
	"sort"
	"testing"
)

func TestBucketBounds(t *testing.T) {
	// Every value lands in a bucket whose upper bound is >= the value and within 1/64 of it.
	prev := -1
	for _, v := range []int64{0, 1, 63, 64, 65, 127, 128, 129, 1000, 4095, 4096, 1 << 20, 123456789, MaxValue} {
		b := bucketOf(v)
		if b < 0 || b >= NumBuckets {
			t.Fatalf("bucketOf(%d) = %d out of range", v, b)
		}
		up := bucketUpper(b)
		if up < v || float64(up-v) > float64(v)/64+1 {
			t.Errorf("value %d: bucket %d upper %d", v, b, up)
		}
		if b < prev {
			t.Errorf("buckets not monotonic at %d", v)
		}
		prev = b
		if b > 0 && bucketUpper(b-1) >= v {
			t.Errorf("value %d also fits bucket %d", v, b-1)
		}
	}
}

func TestQuantilesAgainstSort(t *testing.T) {
	h := New()
	r := rand.New(rand.NewPCG(1, 2))
	vals := make([]int64, 100000)
	for i := range vals {
		vals[i] = int64(r.ExpFloat64() * 1e6) // exponential, mean 1 ms
		h.Record(vals[i])
	}
	sort.Slice(vals, func(i, j int) bool { return vals[i] < vals[j] })
	var s Snapshot
	h.Snapshot(&s)
	if s.Total != int64(len(vals)) || s.Max != vals[len(vals)-1] {
		t.Fatalf("total %d max %d", s.Total, s.Max)
	}
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999} {
		exact := vals[int(q*float64(len(vals)))-1]
		got := s.Quantile(q)
		if got < exact || float64(got-exact) > float64(exact)/64+1 {
			t.Errorf("q%.3f: got %d, exact %d (want within +1/64)", q, got, exact)
		}
	}
	if got := s.Quantile(1); got != s.Max {
		t.Errorf("q1 = %d, want max %d", got, s.Max)
	}
}

func TestIntervalsAndMerge(t *testing.T) {
	a, b := New(), New()
	var c0, c1, tmp, merged, d Snapshot
	a.Record(100)
	a.Record(5000)
	a.Snapshot(&c0)
	if c0.IntervalMax != 5000 || c0.Total != 2 {
		t.Fatalf("first interval: max %d total %d", c0.IntervalMax, c0.Total)
	}
	a.Record(200)
	a.Snapshot(&c1)
	if c1.IntervalMax != 200 || c1.Max != 5000 {
		t.Errorf("second interval max %d (want 200), cumulative max %d (want 5000)", c1.IntervalMax, c1.Max)
	}
	d.Sub(&c1, &c0)
	if d.Total != 1 || d.Sum != 200 || d.Quantile(0.5) < 200 || d.Quantile(0.5) > 203 {
		t.Errorf("difference: total %d sum %d p50 %d", d.Total, d.Sum, d.Quantile(0.5))
	}
	b.Record(7000)
	b.Snapshot(&tmp)
	merged.Add(&c1)
	merged.Add(&tmp)
	if merged.Total != 4 || merged.Max != 7000 || merged.Sum != 12300 {
		t.Errorf("merged total %d max %d sum %d", merged.Total, merged.Max, merged.Sum)
	}
	var empty Snapshot
	if empty.Quantile(0.99) != 0 || empty.Mean() != 0 {
		t.Error("empty snapshot must give 0")
	}
	if n := len(merged.Buckets(nil)); n != 4 {
		t.Errorf("%d buckets, want 4", n)
	}
}

func TestClamp(t *testing.T) {
	h := New()
	h.Record(-5)
	h.Record(MaxValue * 4)
	var s Snapshot
	h.Snapshot(&s)
	if s.Total != 2 || s.Max != MaxValue || s.Quantile(0) != 0 {
		t.Errorf("clamp: total %d max %d min %d", s.Total, s.Max, s.Quantile(0))
	}
}

// TestAddBuckets: histograms rebuilt from their buckets and added equal the histogram of the
// union of their values, bucket by bucket, and give the same quantiles.
func TestAddBuckets(t *testing.T) {
	a, b, all := New(), New(), New()
	for i := int64(1); i <= 5000; i++ {
		v := i * i % 7919 * 1000
		if i%3 == 0 {
			a.Record(v)
		} else {
			b.Record(v * 3)
		}
	}
	var sa, sb, su Snapshot
	a.Snapshot(&sa)
	b.Snapshot(&sb)
	for i := int64(1); i <= 5000; i++ {
		v := i * i % 7919 * 1000
		if i%3 != 0 {
			v *= 3
		}
		all.Record(v)
	}
	all.Snapshot(&su)
	var m Snapshot
	m.AddBuckets(sa.Buckets(nil))
	m.AddBuckets(sb.Buckets(nil))
	m.Max = max(sa.Max, sb.Max)
	if m.Counts != su.Counts || m.Total != su.Total {
		t.Fatalf("merged buckets differ from the union's")
	}
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999} {
		if m.Quantile(q) != su.Quantile(q) {
			t.Errorf("q%g: merged %d, union %d", q, m.Quantile(q), su.Quantile(q))
		}
	}
}

func TestCountsAtMost(t *testing.T) {
	h := New()
	// 10 values of 500 ns, 5 of 1500 ns, 3 of 1 ms, 2 of 20 s (above the last bound).
	for v, n := range map[int64]int{500: 10, 1500: 5, 1_000_000: 3, 20_000_000_000: 2} {
		for range n {
			h.Record(v)
		}
	}
	var s Snapshot
	h.Snapshot(&s)
	bounds := []int64{1000, 2000, 999_000, 1_000_000, 10_000_000_000}
	got := make([]int64, len(bounds))
	s.CountsAtMost(bounds, got)
	// 1 ms is in the bucket [999424, 1007615]: its upper bound is above 1 ms, so its values
	// are counted at the next bound (10 s), one bucket's width late.
	if lo, up := bucketUpper(bucketOf(1_000_000)-1)+1, bucketUpper(bucketOf(1_000_000)); lo != 999424 || up != 1007615 {
		t.Fatalf("1 ms is in bucket [%d, %d]", lo, up)
	}
	want := []int64{10, 15, 15, 15, 18}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("CountsAtMost(%v) = %v, want %v", bounds, got, want)
			break
		}
	}
	var empty Snapshot
	empty.CountsAtMost(bounds, got)
	for _, c := range got {
		if c != 0 {
			t.Errorf("empty snapshot: %v", got)
		}
	}
}
