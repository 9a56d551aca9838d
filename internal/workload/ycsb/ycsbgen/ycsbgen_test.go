package ycsbgen

import (
	"math"
	"strconv"
	"testing"

	"github.com/rumbench/rumbench/internal/gen"
)

// must returns v, panicking on a constructor error (the arguments in these tests are valid).
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Every generator stays inside its range.
func TestGeneratorsStayInRange(t *testing.T) {
	counter := gen.NewAckCounter(500)
	for _, tc := range []struct {
		name   string
		g      KeyGenerator
		lo, hi int64
	}{
		{"uniform", must(NewUniform(10, 20)), 10, 20},
		{"uniform one", must(NewUniform(-5, -5)), -5, -5},
		{"zipfian", must(NewZipfian(100, 1099, ZipfianConstant)), 100, 1099},
		{"zipfian one", must(NewZipfian(3, 3, ZipfianConstant)), 3, 3},
		{"zipfian two", must(NewZipfian(3, 4, ZipfianConstant)), 3, 4},
		{"scrambled", must(NewScrambledZipfian(1000, 1999)), 1000, 1999},
		{"scrambled one", must(NewScrambledZipfian(0, 0)), 0, 0},
		{"skewed latest", NewSkewedLatest(counter), 0, 499},
		{"hotspot", must(NewHotspot(0, 999, 0.2, 0.8)), 0, 999},
		{"hotspot all hot", must(NewHotspot(0, 9, 1, 0.5)), 0, 9},
		{"hotspot none hot", must(NewHotspot(0, 9, 0, 0.5)), 0, 9},
		{"exponential", must(NewExponential(ExponentialPercentile, 1000, ExponentialFrac)), 0, math.MaxInt64},
		{"sequential", must(NewSequential(5, 9)), 5, 9},
		{"field constant", must(NewFieldLength(FieldLengthConstant, 1, 100)), 100, 100},
		{"field uniform", must(NewFieldLength(FieldLengthUniform, 10, 100)), 10, 100},
		{"field zipfian", must(NewFieldLength(FieldLengthZipfian, 1, 100)), 1, 100},
	} {
		r := gen.NewRand(1)
		seen := map[int64]bool{}
		for i := 0; i < 50000; i++ {
			v := tc.g.Next(&r)
			if v < tc.lo || v > tc.hi {
				t.Fatalf("%s: draw %d outside [%d, %d]", tc.name, v, tc.lo, tc.hi)
			}
			seen[v] = true
		}
		if span := tc.hi - tc.lo + 1; span > 0 && span <= 20 && int64(len(seen)) != span {
			t.Errorf("%s: drew %d of the %d values", tc.name, len(seen), span)
		}
	}
}

func TestConstructorsRefuseBadArguments(t *testing.T) {
	errs := map[string]error{}
	_, errs["uniform empty"] = NewUniform(2, 1)
	_, errs["uniform too wide"] = NewUniform(math.MinInt64, math.MaxInt64)
	_, errs["zipfian theta 1"] = NewZipfian(0, 10, 1)
	_, errs["zipfian theta 0"] = NewZipfian(0, 10, 0)
	_, errs["scrambled empty"] = NewScrambledZipfian(5, 4)
	_, errs["hotspot fraction"] = NewHotspot(0, 10, 1.5, 0.5)
	_, errs["hotspot NaN"] = NewHotspot(0, 10, 0.5, math.NaN())
	_, errs["exponential percentile"] = NewExponential(100, 10, 0.5)
	_, errs["exponential records"] = NewExponential(95, 0, 0.5)
	_, errs["sequential empty"] = NewSequential(1, 0)
	_, errs["chooser none"] = NewDiscreteChooser()
	_, errs["chooser zero"] = NewDiscreteChooser(Choice{0, 0}, Choice{1, 0})
	_, errs["chooser negative"] = NewDiscreteChooser(Choice{0, 1}, Choice{1, -0.1})
	_, errs["chooser NaN"] = NewDiscreteChooser(Choice{0, math.NaN()})
	_, errs["field histogram"] = NewFieldLength("histogram", 1, 100)
	_, errs["field min above max"] = NewFieldLength(FieldLengthUniform, 101, 100)
	_, errs["field zero"] = NewFieldLength(FieldLengthConstant, 1, 0)
	for name, err := range errs {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// The zipfian's most popular item has probability 1/zeta(n, theta) and the second
// 0.5^theta/zeta(n, theta) (exact for the method of Gray et al.); popularity falls with rank.
func TestZipfianFrequencies(t *testing.T) {
	const lo, n, draws = 50, 1000, 400000
	z := must(NewZipfian(lo, lo+n-1, ZipfianConstant))
	r := gen.NewRand(42)
	counts := make([]int, n)
	for i := 0; i < draws; i++ {
		counts[z.Next(&r)-lo]++
	}
	zn := zeta(n)
	for rank, tol := range map[int]float64{0: 0.02, 1: 0.03} {
		want := math.Pow(float64(rank+1), -ZipfianConstant) / zn
		got := float64(counts[rank]) / draws
		if math.Abs(got-want)/want > tol {
			t.Errorf("item lo+%d: frequency %.4f, want %.4f (±%.0f%% relative)", rank, got, want, tol*100)
		}
	}
	if !(counts[0] > counts[1] && counts[1] > counts[10] && counts[10] > counts[500]) {
		t.Errorf("counts of lo, lo+1, lo+10, lo+500 = %d, %d, %d, %d: not decreasing",
			counts[0], counts[1], counts[10], counts[500])
	}
	// The top 10% of items: sum of 1/i^theta over them / zeta.
	top, want := 0, zeta(n/10)/zn
	for _, c := range counts[:n/10] {
		top += c
	}
	if got := float64(top) / draws; math.Abs(got-want) > 0.02 {
		t.Errorf("top 10%% of items drew %.3f, want about %.3f", got, want)
	}
}

// The scrambled zipfian keeps its skew (the top item takes at least the share of zipfian rank 1,
// 1/ScrambledZetan) but puts the hottest item where FNVHash64(0) maps it, not at lo.
func TestScrambledZipfianSpreadsPopularity(t *testing.T) {
	const lo, n, draws = 1000, 1000, 300000
	s := must(NewScrambledZipfian(lo, lo+n-1))
	r := gen.NewRand(7)
	counts := make([]int, n)
	for i := 0; i < draws; i++ {
		counts[s.Next(&r)-lo]++
	}
	best := 0
	for i, c := range counts {
		if c > counts[best] {
			best = i
		}
	}
	if want := int(FNVHash64(0) % n); best != want {
		t.Errorf("hottest item lo+%d, want lo+%d (FNVHash64(0) mod n)", best, want)
	}
	if best == 0 {
		t.Error("hottest item is lo: popularity not scrambled")
	}
	if share, min := float64(counts[best])/draws, 1/ScrambledZetan; share < min {
		t.Errorf("hottest item's share %.4f below the zipfian rank-1 share %.4f", share, min)
	}
	// Popular items are scattered: the lowest and highest tenths of the range each get a fair
	// part of the draws.
	low, high := 0, 0
	for i := 0; i < n/10; i++ {
		low += counts[i]
		high += counts[n-1-i]
	}
	if f, g := float64(low)/draws, float64(high)/draws; f < 0.03 || g < 0.03 {
		t.Errorf("lowest and highest tenths drew %.3f and %.3f of the values", f, g)
	}
}

// fnvReference is FNV-1a over the 8 little-endian bytes of v, written from the definition.
func fnvReference(v int64) int64 {
	var b [8]byte
	for i := range b {
		b[i] = byte(uint64(v) >> (8 * i))
	}
	h := uint64(14695981039346656037)
	for _, c := range b {
		h = (h ^ uint64(c)) * 1099511628211
	}
	if s := int64(h); s >= 0 {
		return s
	} else {
		return -s
	}
}

// FNVHash64 matches values computed once with hash/fnv's FNV-1a over the little-endian bytes
// (6284781860667377211 for 0 is also the first hashed key YCSB loads, "user6284781860667377211").
func TestFNVHash64KnownValues(t *testing.T) {
	for v, want := range map[int64]int64{
		0:     6284781860667377211,
		1:     8517097267634966620,
		12345: 1792800413050876852,
	} {
		if got := FNVHash64(v); got != want {
			t.Errorf("FNVHash64(%d) = %d, want %d", v, got, want)
		}
		if got := fnvReference(v); got != want {
			t.Errorf("reference FNV of %d = %d, want %d", v, got, want)
		}
	}
	for _, v := range []int64{-1, 2, 255, 256, 1 << 40, math.MaxInt64, math.MinInt64} {
		if got, want := FNVHash64(v), fnvReference(v); got != want {
			t.Errorf("FNVHash64(%d) = %d, reference %d", v, got, want)
		}
	}
}

func TestBuildKeyName(t *testing.T) {
	for _, tc := range []struct {
		keynum  int64
		ordered bool
		padding int
		want    string
	}{
		{7, true, 5, "user00007"},
		{7, true, 1, "user7"},
		{12345, true, 3, "user12345"},
		{0, true, 0, "user0"},
		{0, false, 1, "user6284781860667377211"},
		{12345, false, 1, "user" + strconv.FormatInt(FNVHash64(12345), 10)},
		{1, false, 22, "user0008517097267634966620"},
	} {
		if got := string(BuildKeyName(nil, tc.keynum, tc.ordered, tc.padding)); got != tc.want {
			t.Errorf("BuildKeyName(%d, ordered %v, padding %d) = %q, want %q", tc.keynum, tc.ordered, tc.padding, got, tc.want)
		}
	}
	if got := string(BuildKeyName([]byte("x:"), 3, true, 2)); got != "x:user03" {
		t.Errorf("appending to a prefix gave %q", got)
	}
	for _, v := range []int64{0, 9, 10, -1, -10, math.MaxInt64, math.MinInt64} {
		if got, want := decimalLen(v), len(strconv.FormatInt(v, 10)); got != want {
			t.Errorf("decimalLen(%d) = %d, want %d", v, got, want)
		}
	}
}

// The newest key is drawn most; the newest tenth takes most draws; after inserts are
// acknowledged, draws reach the new keys.
func TestSkewedLatest(t *testing.T) {
	const records, draws = 1000, 200000
	counter := gen.NewAckCounter(records)
	s := NewSkewedLatest(counter)
	r := gen.NewRand(3)
	counts := make([]int, records+1000)
	for i := 0; i < draws; i++ {
		counts[s.Next(&r)]++
	}
	if counts[records-1] <= counts[records-2] || counts[records-2] <= counts[records-50] {
		t.Errorf("counts of the newest keys %d, %d, and key newest-49 %d: not decreasing",
			counts[records-1], counts[records-2], counts[records-50])
	}
	newest := 0
	for _, c := range counts[records-records/10 : records] {
		newest += c
	}
	if f := float64(newest) / draws; f < 0.6 {
		t.Errorf("the newest 10%% of keys drew %.3f of the values, want >= 0.6", f)
	}

	for i := 0; i < 1000; i++ {
		if err := counter.Acknowledge(counter.Next()); err != nil {
			t.Fatal(err)
		}
	}
	if counter.Last() != records+999 {
		t.Fatalf("Last = %d after 1000 acknowledged inserts, want %d", counter.Last(), records+999)
	}
	clear(counts)
	for i := 0; i < draws; i++ {
		v := s.Next(&r)
		if v < 0 || v > counter.Last() {
			t.Fatalf("draw %d outside [0, %d]", v, counter.Last())
		}
		counts[v]++
	}
	if counts[records+999] <= counts[records-1] {
		t.Errorf("after growth the newest key drew %d, the old newest %d", counts[records+999], counts[records-1])
	}
	if got, want := s.z.Zeta(), zeta(records+1000); math.Abs(got-want) > 1e-9 {
		t.Errorf("grown zeta %v, from scratch %v", got, want)
	}

	empty := NewSkewedLatest(gen.NewAckCounter(0))
	if v := empty.Next(&r); v >= 0 {
		t.Errorf("with nothing acknowledged Next = %d, want negative", v)
	}
}

// The hot set gets hotOpnFraction of the draws, uniformly, and the cold rest the remainder.
func TestHotspotFractions(t *testing.T) {
	const draws = 100000
	for _, tc := range []struct{ set, opn float64 }{{0.2, 0.8}, {0.01, 0.99}, {0.5, 0.3}} {
		h := must(NewHotspot(100, 10099, tc.set, tc.opn))
		if want := int64(10000 * tc.set); h.HotCount() != want {
			t.Errorf("hot count %d, want %d", h.HotCount(), want)
		}
		r := gen.NewRand(11)
		hot := 0
		for i := 0; i < draws; i++ {
			if h.Next(&r) < 100+h.HotCount() {
				hot++
			}
		}
		if f := float64(hot) / draws; math.Abs(f-tc.opn) > 0.01 {
			t.Errorf("hot set %.2f: %.4f of draws hot, want %.2f ± 0.01", tc.set, f, tc.opn)
		}
	}
}

// percentile percent of the draws fall below recordcount*frac.
func TestExponentialPercentile(t *testing.T) {
	const records, draws = 100000, 100000
	for _, pct := range []float64{ExponentialPercentile, 50, 80} {
		e := must(NewExponential(pct, records, ExponentialFrac))
		r := gen.NewRand(5)
		below := 0
		for i := 0; i < draws; i++ {
			if float64(e.Next(&r)) < records*ExponentialFrac {
				below++
			}
		}
		if f := float64(below) / draws; math.Abs(f-pct/100) > 0.015 {
			t.Errorf("percentile %v: %.4f of draws below recordcount*frac", pct, f)
		}
	}
	e := must(NewExponential(ExponentialPercentile, 100, ExponentialFrac))
	r := gen.NewRand(6)
	newest := 0
	for i := 0; i < 10000; i++ {
		k := e.NextKey(&r, 99)
		if k < 0 || k > 99 {
			t.Fatalf("NextKey drew %d outside [0, 99]", k)
		}
		if k == 99 {
			newest++
		}
	}
	if newest == 0 {
		t.Error("NextKey never drew the newest key")
	}
	if k := e.NextKey(&r, -1); k != -1 {
		t.Errorf("NextKey with no key = %d", k)
	}
}

func TestSequentialWraps(t *testing.T) {
	s := must(NewSequential(5, 7))
	var got []int64
	for i := 0; i < 7; i++ {
		got = append(got, s.Next(nil))
	}
	want := []int64{5, 6, 7, 5, 6, 7, 5}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("sequence %v, want %v", got, want)
		}
	}
}

// YCSB's core workloads' operation mixes come out in proportion within ±1%.
func TestDiscreteChooserWorkloadMixes(t *testing.T) {
	const read, update, insert, scan, rmw = 0, 1, 2, 3, 4
	const draws = 100000
	for _, tc := range []struct {
		name string
		mix  []Choice
	}{
		{"A", []Choice{{read, 0.5}, {update, 0.5}, {scan, 0}, {insert, 0}}},
		{"B", []Choice{{read, 0.95}, {update, 0.05}}},
		{"E", []Choice{{read, 0}, {scan, 0.95}, {insert, 0.05}}},
		{"F", []Choice{{read, 0.5}, {rmw, 0.5}}},
		{"unnormalised", []Choice{{read, 3}, {update, 1}}},
	} {
		d := must(NewDiscreteChooser(tc.mix...))
		r := gen.NewRand(9)
		counts := map[int]int{}
		for i := 0; i < draws; i++ {
			counts[d.Next(&r)]++
		}
		total := 0.0
		for _, c := range tc.mix {
			total += c.Weight
		}
		for _, c := range tc.mix {
			got := float64(counts[c.Op]) / draws
			if c.Weight == 0 && counts[c.Op] != 0 {
				t.Errorf("workload %s: zero-weight op %d drawn %d times", tc.name, c.Op, counts[c.Op])
			}
			if want := c.Weight / total; math.Abs(got-want) > 0.01 {
				t.Errorf("workload %s: op %d drawn %.4f of the time, want %.2f", tc.name, c.Op, got, want)
			}
		}
	}
}

func TestNoAllocationsPerDraw(t *testing.T) {
	r := gen.NewRand(1)
	z := must(NewZipfian(0, 999, ZipfianConstant))
	s := must(NewScrambledZipfian(0, 999999))
	h := must(NewHotspot(0, 999, 0.2, 0.8))
	d := must(NewDiscreteChooser(Choice{0, 0.95}, Choice{1, 0.05}))
	l := NewSkewedLatest(gen.NewAckCounter(1000))
	buf := make([]byte, 0, 64)
	for name, f := range map[string]func(){
		"Zipfian":          func() { z.Next(&r) },
		"ScrambledZipfian": func() { s.Next(&r) },
		"Hotspot":          func() { h.Next(&r) },
		"DiscreteChooser":  func() { d.Next(&r) },
		"SkewedLatest":     func() { l.Next(&r) },
		"BuildKeyName":     func() { buf = BuildKeyName(buf[:0], r.Intn(1e9), false, 1) },
	} {
		if a := testing.AllocsPerRun(1000, f); a != 0 {
			t.Errorf("%s: %.1f allocations per draw", name, a)
		}
	}
}

func BenchmarkScrambledZipfian(b *testing.B) {
	s := must(NewScrambledZipfian(0, 9999999))
	r := gen.NewRand(1)
	var sink int64
	b.ReportAllocs()
	for b.Loop() {
		sink += s.Next(&r)
	}
	_ = sink
}

func BenchmarkBuildKeyName(b *testing.B) {
	buf := make([]byte, 0, 64)
	var k int64
	b.ReportAllocs()
	for b.Loop() {
		buf = BuildKeyName(buf[:0], k, false, 1)
		k++
	}
}

// zeta is the sum of 1/i^ZipfianConstant for i in [1, n], summed here independently of gen.
func zeta(n int64) float64 {
	s := 0.0
	for i := int64(1); i <= n; i++ {
		s += math.Pow(float64(i), -ZipfianConstant)
	}
	return s
}
