package check

import (
	"cmp"
	"math"
	"slices"

	"github.com/rumbench/rumbench/internal/metric"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/stats"
)

// Capacity is the figure of a sweep of rates (run --rate 1000,2000,4000 --slo p99<=10ms): the
// highest swept rate at which a target met its latency goal (capacity>=5000).
const Capacity = "capacity"

// RatePoint is one rate of a target's sweep of rates, judged by a latency goal.
type RatePoint struct {
	// Rate is the fixed rate asked for, per second.
	Rate float64
	// Meets says whether every measured step met the goal (the median of the repetitions'
	// percentile at most the limit, and every repetition kept the rate); Known whether any
	// step had the figure.
	Meets, Known bool
}

// RatePoints returns the points of target of in a sweep of rates (the series whose Of is of
// and Rate > 0), by increasing rate, each judged by goal.
func RatePoints(series []Series, of string, goal *results.SLO) []RatePoint {
	var out []RatePoint
	for _, sr := range series {
		if sr.Of != of || sr.Rate <= 0 {
			continue
		}
		p := RatePoint{Rate: sr.Rate, Meets: true}
		for _, step := range stepsOf(sr.Steps) {
			meets, _, ok := MeetsGoal(sr.Steps, step, goal)
			if ok {
				p.Known = true
				p.Meets = p.Meets && meets
			}
		}
		p.Meets = p.Meets && p.Known
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b RatePoint) int { return cmp.Compare(a.Rate, b.Rate) })
	return out
}

// MeetsGoal judges step of the records steps (a target's repetitions at one fixed rate) by
// goal: it meets it when the median of the repetitions' goal percentile (metric.GoalLatency) is
// at most the limit and every repetition kept its rate. us is that median; ok is false when no
// repetition at a fixed rate had the figure.
func MeetsGoal(steps []*results.Step, step string, goal *results.SLO) (meets bool, us float64, ok bool) {
	var xs []float64
	kept := true
	for _, s := range steps {
		if s.Step != step || s.Schedule == nil || s.Status == results.StatusFailed {
			continue
		}
		v, has := metric.GoalLatency(s, goal.Percentile)
		if !has {
			continue
		}
		kept = kept && s.Schedule.Met
		xs = append(xs, v)
	}
	if len(xs) == 0 {
		return false, 0, false
	}
	us = stats.Summarize(xs).Median
	return kept && us <= goal.LimitUs, us, true
}

// CapacityOf is the capacity of target of: the highest rate of its sweep that met goal (0 when
// none did); ok is false when of swept no rate or no point had the goal's figure.
func CapacityOf(series []Series, of string, goal *results.SLO) (float64, bool) {
	pts := RatePoints(series, of, goal)
	known, best := false, 0.0
	for _, p := range pts {
		known = known || p.Known
		if p.Meets {
			best = math.Max(best, p.Rate)
		}
	}
	return best, known
}

// capacityResults evaluates a capacity check on every target that swept rates.
func capacityResults(e Expr, series []Series) []Result {
	var out []Result
	var seen []string
	for _, sr := range series {
		if sr.Rate <= 0 || slices.Contains(seen, sr.Of) {
			continue
		}
		seen = append(seen, sr.Of)
		if sr.SLO == nil {
			out = append(out, Result{Expr: e, Target: sr.Of, Value: math.NaN(), Why: "capacity needs a latency goal: give --slo (e.g. p99<=10ms) with the sweep of rates"})
			continue
		}
		c, ok := CapacityOf(series, sr.Of, sr.SLO)
		if !ok {
			continue
		}
		out = append(out, Result{Expr: e, Target: sr.Of, Value: c, N: 1, Pass: e.pass(c)})
	}
	return out
}
