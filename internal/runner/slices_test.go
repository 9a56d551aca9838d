package runner

import (
	"math"
	"testing"
	"time"
)

// TestRateNoise: a steady rate has no noise; a rate of 100/s for half the window and 300/s for
// the other half has slices of 100 and 300, a coefficient of variation of 52.7%; a count taken
// only at the end has none.
func TestRateNoise(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var steady, step rateSeries
	n1, n2 := int64(0), int64(0)
	for ms := 0; ms <= 10_000; ms += 20 {
		at := t0.Add(time.Duration(ms) * time.Millisecond)
		steady.add(at, n1, ms == 10_000)
		step.add(at, n2, ms == 10_000)
		n1 += 4 // 200/s
		if ms < 5000 {
			n2 += 2
		} else {
			n2 += 6
		}
	}
	end := t0.Add(10 * time.Second)
	if cv, noise, k := steady.noise(t0, end); cv > 1e-9 || noise > 1e-9 || k != rateSlices {
		t.Errorf("steady: cv %g%%, noise %g%%, %d slices", cv, noise, k)
	}
	cv, noise, _ := step.noise(t0, end)
	if want := 100 * math.Sqrt(10.0/9) / 2; math.Abs(cv-want) > 0.5 {
		t.Errorf("two rates: cv %.2f%%, want %.2f%%", cv, want)
	}
	if want := t975 * cv / math.Sqrt(rateSlices); math.Abs(noise-want) > 1e-9 {
		t.Errorf("noise %.3f%%, want %.3f%%", noise, want)
	}
	if len(steady.t) > maxSamples {
		t.Errorf("%d samples kept", len(steady.t))
	}
	var short rateSeries
	short.add(t0, 0, true)
	short.add(t0.Add(time.Millisecond), 5, true)
	if _, _, k := short.noise(t0, t0.Add(time.Millisecond)); k != 0 {
		t.Errorf("two samples: %d slices, want none", k)
	}
	// A count taken once, at the end (an index build's rows), has no slices to compare.
	var once rateSeries
	for ms := 0; ms <= 1000; ms += 20 {
		n := int64(0)
		if ms == 1000 {
			n = 300_000
		}
		once.add(t0.Add(time.Duration(ms)*time.Millisecond), n, ms == 1000)
	}
	if cv, _, k := once.noise(t0, t0.Add(time.Second)); k != 0 {
		t.Errorf("a count taken at the end: cv %g%% in %d slices, want none", cv, k)
	}
}

// TestSeriesBounded: an hour of 20 ms samples keeps at most maxSamples, the last one included.
func TestSeriesBounded(t *testing.T) {
	var s rateSeries
	t0 := time.Unix(0, 0)
	n := 3600 * 50
	for i := 0; i <= n; i++ {
		s.add(t0.Add(time.Duration(i)*sliceSample), int64(i), i == n)
	}
	if len(s.t) > maxSamples || s.n[len(s.n)-1] != int64(n) {
		t.Errorf("%d samples, last %d", len(s.t), s.n[len(s.n)-1])
	}
}
