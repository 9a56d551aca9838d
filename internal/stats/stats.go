// Package stats summarizes repeated measurements of one figure: the median with a
// distribution-free confidence interval, and the Mann-Whitney U test that says whether two sets
// of repeats differ. Nothing here assumes the figures are normally distributed: benchmark
// figures rarely are (a slow repeat is more likely than a fast one).
package stats

import (
	"math"
	"slices"
)

// Level is the confidence level asked of every interval, 0.95.
const Level = 0.95

// Summary is a figure measured N times: its median and an interval [Lo, Hi] that holds the true
// median with probability Conf. Conf is the interval's actual coverage: at least Level when the
// sample allows it (N >= 6), else the widest interval a sample of N has ([min, max], coverage
// 1 - 2^(1-N): 0.5, 0.75, 0.875, 0.9375 for N = 2..5), and 0 for N = 1 (no interval).
type Summary struct {
	N        int
	Median   float64
	Lo, Hi   float64
	Conf     float64
	Min, Max float64
}

// Summarize returns the summary of xs (NaN values are left out). It returns N = 0 when nothing
// is left.
func Summarize(xs []float64) Summary {
	s := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) {
			s = append(s, x)
		}
	}
	if len(s) == 0 {
		return Summary{}
	}
	slices.Sort(s)
	n := len(s)
	out := Summary{N: n, Median: median(s), Min: s[0], Max: s[n-1], Lo: s[0], Hi: s[n-1]}
	if n == 1 {
		return out
	}
	// The interval [x(k), x(n+1-k)] (1-based order statistics) holds the median with
	// probability 1 - 2·P(B <= k-1), B ~ Binomial(n, 1/2). Take the narrowest (largest k) whose
	// coverage is at least Level; k = 1 when none is.
	k, conf := 1, 1-2*binomCDF(0, n)
	for j := 2; j <= n/2; j++ {
		c := 1 - 2*binomCDF(j-1, n)
		if c < Level {
			break
		}
		k, conf = j, c
	}
	out.Lo, out.Hi, out.Conf = s[k-1], s[n-k], conf
	return out
}

// HalfWidthPct is the interval's larger distance from the median, in percent of the median
// (the "±x%" of a table cell); NaN when there is no interval or the median is 0.
func (s Summary) HalfWidthPct() float64 {
	if s.N < 2 || s.Median == 0 {
		return math.NaN()
	}
	return 100 * max(s.Hi-s.Median, s.Median-s.Lo) / math.Abs(s.Median)
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// binomCDF is P(B <= k) for B ~ Binomial(n, 1/2).
func binomCDF(k, n int) float64 {
	sum, c := 0.0, 1.0 // c = C(n, i)
	for i := 0; i <= k; i++ {
		if i > 0 {
			c = c * float64(n-i+1) / float64(i)
		}
		sum += c
	}
	return sum / math.Pow(2, float64(n))
}

// MannWhitney returns the two-sided p-value of the Mann-Whitney U test (Wilcoxon rank-sum) of
// samples a and b: the probability, were both drawn from one distribution, of a rank sum at
// least as far from its mean as the one observed. It is exact when neither sample has more than
// 30 values and no value is tied, and when values are tied but the pooled sample has at most
// 200,000 splits (every split's rank sum counted, ties at their mean rank), else the normal
// approximation with tie and continuity corrections. NaN values are left out; it returns 1 when either sample is empty.
func MannWhitney(a, b []float64) float64 {
	a, b = finite(a), finite(b)
	n1, n2 := len(a), len(b)
	if n1 == 0 || n2 == 0 {
		return 1
	}
	type obs struct {
		v     float64
		first bool
	}
	all := make([]obs, 0, n1+n2)
	for _, v := range a {
		all = append(all, obs{v, true})
	}
	for _, v := range b {
		all = append(all, obs{v, false})
	}
	slices.SortFunc(all, func(x, y obs) int {
		switch {
		case x.v < y.v:
			return -1
		case x.v > y.v:
			return 1
		}
		return 0
	})
	// Ranks, ties sharing their mean rank; r1 is a's rank sum, tie the tie correction term.
	var r1, tie float64
	ties := false
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		rank := float64(i+j+1) / 2 // mean of ranks i+1..j
		for k := i; k < j; k++ {
			if all[k].first {
				r1 += rank
			}
		}
		if t := float64(j - i); t > 1 {
			ties = true
			tie += t*t*t - t
		}
		i = j
	}
	u := r1 - float64(n1*(n1+1))/2 // U of a: pairs (x in a, y in b) with x > y, ties half
	mean := float64(n1*n2) / 2
	if ties && binomial(n1+n2, n1) <= maxSplits {
		// Exact with ties: the rank sum over every split of the pooled mid-ranks.
		ranks := make([]float64, len(all))
		for i := 0; i < len(all); {
			j := i
			for j < len(all) && all[j].v == all[i].v {
				j++
			}
			for k := i; k < j; k++ {
				ranks[k] = float64(i+j+1) / 2
			}
			i = j
		}
		return splitsP(ranks, n1, math.Abs(r1-float64(n1)*float64(n1+n2+1)/2))
	}
	if !ties && n1 <= 30 && n2 <= 30 {
		// Exact: the distribution of U is that of the rank sum over all C(n1+n2, n1) splits.
		lo := min(u, float64(n1*n2)-u)
		p := 2 * uCDF(int(math.Round(lo)), n1, n2)
		return min(p, 1)
	}
	n := float64(n1 + n2)
	sd := math.Sqrt(float64(n1*n2) / 12 * ((n + 1) - tie/(n*(n-1))))
	if sd == 0 {
		return 1
	}
	z := (math.Abs(u-mean) - 0.5) / sd
	if z < 0 {
		z = 0
	}
	return min(1, math.Erfc(z/math.Sqrt2))
}

// maxSplits bounds the exact test with ties: the splits of the pooled sample it enumerates
// (C(20, 10) = 184,756: up to 10 repetitions a side).
const maxSplits = 200000

// binomial is C(n, k), saturating at maxSplits+1.
func binomial(n, k int) int {
	c := 1
	for i := 1; i <= k; i++ {
		c = c * (n - k + i) / i
		if c > maxSplits {
			return maxSplits + 1
		}
	}
	return c
}

// splitsP is the share of the ways to choose n1 of ranks whose sum is at least dev from its
// mean n1·(n+1)/2 (a small tolerance absorbs rounding of the half ranks).
func splitsP(ranks []float64, n1 int, dev float64) float64 {
	n := len(ranks)
	mean := float64(n1) * float64(n+1) / 2
	var hit, total float64
	var walk func(from, left int, sum float64)
	walk = func(from, left int, sum float64) {
		if left == 0 {
			total++
			if math.Abs(sum-mean) >= dev-1e-9 {
				hit++
			}
			return
		}
		for i := from; i <= n-left; i++ {
			walk(i+1, left-1, sum+ranks[i])
		}
	}
	walk(0, n1, 0)
	return hit / total
}

// uCDF is P(U <= u) for the U statistic of samples of n1 and n2 distinct values under the null
// hypothesis: the count of arrangements with U <= u over C(n1+n2, n1).
func uCDF(u, n1, n2 int) float64 {
	if u < 0 {
		return 0
	}
	// f[m][v]: arrangements of i values of the first sample and m of the second with U = v,
	// built up over i (f(i, m, v) = f(i-1, m, v-m) + f(i, m-1, v)).
	maxU := n1 * n2
	prev := make([][]float64, n2+1)
	for m := range prev {
		prev[m] = make([]float64, maxU+1)
		prev[m][0] = 1 // i = 0: one arrangement, U = 0
	}
	for i := 1; i <= n1; i++ {
		cur := make([][]float64, n2+1)
		for m := 0; m <= n2; m++ {
			cur[m] = make([]float64, maxU+1)
			for v := 0; v <= i*m; v++ {
				var x float64
				if v >= m {
					x = prev[m][v-m]
				}
				if m > 0 {
					x += cur[m-1][v]
				}
				cur[m][v] = x
			}
		}
		prev = cur
	}
	var le, total float64
	for v, c := range prev[n2] {
		total += c
		if v <= u {
			le += c
		}
	}
	return le / total
}

func finite(xs []float64) []float64 {
	out := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) {
			out = append(out, x)
		}
	}
	return out
}

// CVPct returns the coefficient of variation of xs, percent: the sample standard deviation
// (n − 1 in the denominator) over the mean. ok is false for fewer than two values or a mean that
// is not positive.
func CVPct(xs []float64) (pct float64, ok bool) {
	if len(xs) < 2 {
		return 0, false
	}
	var mean float64
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if !(mean > 0) {
		return 0, false
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return 100 * math.Sqrt(ss/float64(len(xs)-1)) / mean, true
}
