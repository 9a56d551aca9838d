package hostnoise

import (
	"math"
	"slices"

	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/stats"
)

// Goal is the spread between three runs that a figure must stay within to count as reproduced
// (docs/reproducibility.md: 1.10 on an idle host).
const Goal = 1.10

// Draws is how many sets of three windows Summarize draws.
const Draws = 4000

// MinWindows is the fewest windows Summarize draws from: from three, every draw would take the
// same three.
const MinWindows = 6

// Floor is what a probe's movement leaves of a rate measured over windows of Window seconds in
// three runs: how far three such windows drawn at random from the probe's series spread (the
// largest over the smallest), and how far the ratio of two of them does (a summary ratio divides
// one target's rate by another's, measured at other times).
type Floor struct {
	// Window is the window's length, seconds; Windows how many whole windows the series held.
	Window, Windows int
	// CVPct is the coefficient of variation of the windows' rates, percent (stats.CVPct).
	CVPct float64
	// Spread and Spread90 are the median and 90th percentile of max/min over three windows.
	Spread, Spread90 float64
	// RatioSpread and RatioSpread90 are the median and 90th percentile of max/min over three
	// ratios, each of two windows.
	RatioSpread, RatioSpread90 float64
	// WithinGoalPct is the percentage of the three-ratio draws whose spread is within Goal.
	WithinGoalPct float64
}

// Summarize cuts rates (one per second) into consecutive windows of w seconds (a partial last
// window is dropped), averages each, and draws Draws sets of three windows (and of three pairs)
// without replacement, from seed: the same rates and seed give the same Floor. ok is false when
// fewer than MinWindows windows fit or a window's rate is not positive.
func Summarize(rates []float64, w int, seed uint64) (f Floor, ok bool) {
	if w < 1 {
		return Floor{}, false
	}
	var wins []float64
	for i := 0; i+w <= len(rates); i += w {
		var sum float64
		for _, r := range rates[i : i+w] {
			sum += r
		}
		if sum <= 0 {
			return Floor{}, false
		}
		wins = append(wins, sum/float64(w))
	}
	if len(wins) < MinWindows {
		return Floor{}, false
	}
	cv, _ := stats.CVPct(wins) // every window's rate is positive
	f = Floor{Window: w, Windows: len(wins), CVPct: cv}
	rnd := gen.NewRand(gen.Mix(seed))
	spreads := make([]float64, Draws)
	ratios := make([]float64, Draws)
	var within int
	for d := range Draws {
		a := three(&rnd, len(wins))
		b := three(&rnd, len(wins))
		spreads[d] = spread(wins[a[0]], wins[a[1]], wins[a[2]])
		ratios[d] = spread(wins[a[0]]/wins[b[0]], wins[a[1]]/wins[b[1]], wins[a[2]]/wins[b[2]])
		if ratios[d] <= Goal {
			within++
		}
	}
	slices.Sort(spreads)
	slices.Sort(ratios)
	f.Spread, f.Spread90 = quantile(spreads, 0.5), quantile(spreads, 0.9)
	f.RatioSpread, f.RatioSpread90 = quantile(ratios, 0.5), quantile(ratios, 0.9)
	f.WithinGoalPct = 100 * float64(within) / Draws
	return f, true
}

// three draws three distinct indexes below n (n >= 3).
func three(r *gen.Rand, n int) [3]int {
	x := [3]int{-1, -1, -1}
	for i := range x {
		for {
			v := int(r.Intn(int64(n)))
			if v != x[0] && v != x[1] {
				x[i] = v
				break
			}
		}
	}
	return x
}

// spread is the largest of a, b, c over the smallest.
func spread(a, b, c float64) float64 { return max(a, b, c) / min(a, b, c) }

// quantile is the q-quantile of sorted (nearest rank).
func quantile(sorted []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(i, 0)]
}
