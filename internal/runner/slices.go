package runner

import (
	"math"
	"time"

	"github.com/rumbench/rumbench/internal/stats"
)

// The step's rate over time, for its noise: every sliceSample the observer reads the rate
// kinds' counts of the measured window (atomic loads only), and at the end the measured time is
// cut into rateSlices equal slices whose rates give the step's coefficient of variation and the
// interval of its mean rate (batch means), so a step of 0.3 s and one of an hour both say how far
// their rate moves.
const (
	sliceSample = 20 * time.Millisecond
	rateSlices  = 10
	// t975 is Student's t quantile 0.975 for rateSlices−1 degrees of freedom.
	t975 = 2.262
	// maxSamples bounds the series: past it, every other sample is dropped and the sampling
	// interval doubles, so an hour-long step keeps at most this many.
	maxSamples = 4096
)

// rateSeries is the cumulative count of the rate kinds' measured operations at instants.
type rateSeries struct {
	t     []time.Time
	n     []int64
	every int // keep one sample of this many
	skip  int
}

// add records count n at t, thinning the series when it is full; a forced sample (the window's
// end) is always kept.
func (s *rateSeries) add(t time.Time, n int64, force bool) {
	if s.every == 0 {
		s.every = 1
	}
	if s.skip++; s.skip < s.every && !force {
		return
	}
	s.skip = 0
	s.t, s.n = append(s.t, t), append(s.n, n)
	if len(s.t) == maxSamples {
		k := 0
		for i := 0; i < len(s.t); i += 2 {
			s.t[k], s.n[k] = s.t[i], s.n[i]
			k++
		}
		s.t, s.n, s.every = s.t[:k], s.n[:k], s.every*2
	}
}

// at returns the cumulative count at t by linear interpolation between the samples.
func (s *rateSeries) at(t time.Time) float64 {
	i := 0
	for i < len(s.t) && !s.t[i].After(t) {
		i++
	}
	switch {
	case i == 0:
		return float64(s.n[0])
	case i == len(s.t):
		return float64(s.n[len(s.n)-1])
	}
	t0, t1 := s.t[i-1], s.t[i]
	f := float64(t.Sub(t0)) / float64(t1.Sub(t0))
	return float64(s.n[i-1]) + f*float64(s.n[i]-s.n[i-1])
}

// rises counts the samples in [from, to] whose count is above the sample before: a count that
// grows as the operations end rises in most; one taken once, at the step's end (an index build's
// rows), in one or two, and has no rate to cut into slices.
func (s *rateSeries) rises(from, to time.Time) int {
	n := 0
	for i := 1; i < len(s.t); i++ {
		if !s.t[i].Before(from) && !s.t[i].After(to) && s.n[i] > s.n[i-1] {
			n++
		}
	}
	return n
}

// noise cuts [from, to] into rateSlices slices and returns the coefficient of variation of
// their rates and the half-width of the 95% interval of the mean rate, both % of the rate, and
// the number of slices (0: too few samples, a count that rose in fewer than three of them, or
// no operations).
func (s *rateSeries) noise(from, to time.Time) (cvPct, noisePct float64, slices int) {
	if len(s.t) < 3 || !to.After(from) || s.rises(from, to) < 3 {
		return 0, 0, 0
	}
	d := to.Sub(from) / rateSlices
	rates := make([]float64, rateSlices)
	prev := s.at(from)
	for i := range rates {
		next := s.at(from.Add(time.Duration(i+1) * d))
		rates[i] = next - prev
		prev = next
	}
	cv, ok := stats.CVPct(rates)
	if !ok {
		return 0, 0, 0
	}
	return cv, t975 * cv / math.Sqrt(rateSlices), rateSlices
}
