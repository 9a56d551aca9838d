package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rumbench/rumbench/internal/check"
	"github.com/rumbench/rumbench/internal/metric"
	"github.com/rumbench/rumbench/internal/results"
)

// rateFigures are the figures a table of a sweep of rates shows at each rate, in order: what
// the clients kept, the response time from the intended start (p50, p99, p99.9), the service
// time, the schedule's lag and skips, the CPU per operation of client and server.
var rateFigures = []string{"achieved", "kept", "p50", "p99", "p99.9", "svc_p99", "lag_ms", "skipped", "ccpu_us/op", "scpu_us/op"}

// RatePointFigures is one rate of one target of a sweep of rates in one step.
type RatePointFigures struct {
	// Rate is the fixed rate asked for, per second; Figures the rateFigures at it (medians of
	// the repetitions; NaN: not measured).
	Rate    float64
	Figures []float64
	// Goal is the latency goal's percentile at it, µs (NaN without --slo or the figure); Meets
	// says whether it met the goal (check.MeetsGoal).
	Goal  float64
	Meets bool
}

// RateLine is a target's rates in one step of a sweep of rates, by increasing rate.
type RateLine struct {
	Label  string
	Points []RatePointFigures
}

// RateStep is one step of a sweep of rates: a line per target.
type RateStep struct {
	Step  string
	Lines []RateLine
	// SLO is the latency goal of the run (nil: none).
	SLO *results.SLO
}

// rateRun is a run's sweep of rates: its series and the targets that swept.
type rateRun struct {
	series []check.Series
	of     []string
	slo    *results.SLO
}

// rateRuns returns, for every run that swept rates, its series labelled as Compare labels them.
func rateRuns(runs []*results.Run) []rateRun {
	var out []rateRun
	for ri, r := range runs {
		if r.Manifest == nil || r.Manifest.Sweep == nil || r.Manifest.Sweep.Rates == nil {
			continue
		}
		rr := rateRun{slo: r.Manifest.SLO}
		rr.series = check.SeriesOf(r, func(t string) string { return seriesLabel(len(runs), ri, t) })
		for _, s := range rr.series {
			if s.Rate > 0 && !slices.Contains(rr.of, s.Of) {
				rr.of = append(rr.of, s.Of)
			}
		}
		out = append(out, rr)
	}
	return out
}

// RateSweeps returns every step of the runs' sweeps of rates (run --rate 1000,2000,4000), in
// step order; nil when none swept rates.
func RateSweeps(runs []*results.Run) []RateStep { return rateSweeps(rateRuns(runs)) }

// rateSweeps is RateSweeps of the runs' sweeps rrs.
func rateSweeps(rrs []rateRun) []RateStep {
	var out []RateStep
	index := map[string]int{}
	for _, rr := range rrs {
		for _, of := range rr.of {
			var steps []string
			for _, s := range rr.series {
				if s.Of == of && s.Rate > 0 {
					for _, st := range s.Steps {
						if !slices.Contains(steps, st.Step) {
							steps = append(steps, st.Step)
						}
					}
				}
			}
			for _, step := range steps {
				line := RateLine{Label: of}
				for _, s := range rr.series {
					if s.Of != of || s.Rate <= 0 {
						continue
					}
					p := RatePointFigures{Rate: s.Rate, Goal: math.NaN()}
					for _, name := range rateFigures {
						v, n := check.Median(name, s.Steps, step)
						if n == 0 {
							v = math.NaN()
						}
						p.Figures = append(p.Figures, v)
					}
					if rr.slo != nil {
						if meets, us, ok := check.MeetsGoal(s.Steps, step, rr.slo); ok {
							p.Goal, p.Meets = us, meets
						}
					}
					line.Points = append(line.Points, p)
				}
				slices.SortFunc(line.Points, func(a, b RatePointFigures) int { return cmp.Compare(a.Rate, b.Rate) })
				k, ok := index[step]
				if !ok {
					k = len(out)
					index[step] = k
					out = append(out, RateStep{Step: step, SLO: rr.slo})
				}
				out[k].Lines = append(out[k].Lines, line)
			}
		}
	}
	return out
}

// rateText renders a rate as given: 2000, 0.5.
func rateText(r float64) string { return strconv.FormatFloat(r, 'f', -1, 64) }

// RateTables renders the runs' sweeps of rates as one table per step: a row per target and
// rate with the rate kept, the response times from the intended start and the service time,
// the schedule's lag and skips, the CPU per operation; then each target's capacity when the run
// gave a latency goal. nil when no run swept rates.
func RateTables(runs []*results.Run) []*Table {
	rrs := rateRuns(runs)
	return rateTables(rateSweeps(rrs), rrs)
}

func rateTables(sweeps []RateStep, rrs []rateRun) []*Table {
	var out []*Table
	for _, s := range sweeps {
		t := &Table{Title: "latency at fixed rates: " + s.Step, Kind: Plain,
			Note:    "p50 to p99.9 from each operation's intended start; svc_p99 from its actual start",
			Columns: []Column{{Name: "target"}, {Name: "rate", Unit: "/s"}}}
		present := make([]bool, len(rateFigures))
		for _, l := range s.Lines {
			for _, p := range l.Points {
				for i, v := range p.Figures {
					present[i] = present[i] || !math.IsNaN(v)
				}
			}
		}
		for i, name := range rateFigures {
			if present[i] {
				m := metric.MustGet(name)
				unit := m.Unit
				if m.Latency {
					unit = "µs"
				}
				t.Columns = append(t.Columns, Column{Name: columnName(m), Unit: unit, Meaning: m.Meaning})
			}
		}
		if s.SLO != nil {
			t.Columns = append(t.Columns, Column{Name: "goal"})
		}
		for _, l := range s.Lines {
			for _, p := range l.Points {
				row := []Cell{TextCell(l.Label), NumCell(p.Rate)}
				for i, v := range p.Figures {
					if !present[i] {
						continue
					}
					switch m := metric.MustGet(rateFigures[i]); {
					case math.IsNaN(v):
						row = append(row, MissingCell())
					case m.YesNo && v == 1:
						row = append(row, TextCell("yes"))
					case m.YesNo:
						row = append(row, TextCell("NO"))
					case m.Integer:
						row = append(row, IntCell(int64(v)))
					default:
						row = append(row, NumCell(v))
					}
				}
				if s.SLO != nil {
					row = append(row, TextCell(goalText(p, s.SLO)))
				}
				t.Rows = append(t.Rows, row)
			}
		}
		t.Footer = capacityLines(rrs)
		out = append(out, t)
	}
	return out
}

// columnName is a figure's column header: a latency with its unit (p99_us).
func columnName(m *metric.Metric) string {
	if m.Latency {
		return strings.ReplaceAll(m.Name, ".", "_") + "_us"
	}
	return m.Name
}

// goalText says whether point p met goal g: "met", or "missed" with the percentile when it
// missed by latency, else because a repetition did not keep its rate; "-" when not measured.
func goalText(p RatePointFigures, g *results.SLO) string {
	switch {
	case math.IsNaN(p.Goal):
		return "-"
	case p.Meets:
		return "met"
	case p.Goal > g.LimitUs:
		return fmt.Sprintf("missed (%s %s)", g.Name, durText(p.Goal))
	}
	return "missed (rate not kept)"
}

// durText renders µs as a short duration: 850µs, 12.5ms, 2.1s.
func durText(us float64) string {
	switch {
	case us >= 1e6:
		return strconv.FormatFloat(us/1e6, 'g', 3, 64) + "s"
	case us >= 1e3:
		return strconv.FormatFloat(us/1e3, 'g', 3, 64) + "ms"
	}
	return strconv.FormatFloat(us, 'g', 3, 64) + "µs"
}

// capacityLines says each target's capacity by its run's goal: a line per run that gave one.
func capacityLines(rrs []rateRun) []string {
	var out []string
	for _, rr := range rrs {
		if rr.slo == nil {
			out = append(out, "capacity: give --slo (e.g. p99<=10ms) to find the highest rate that meets a latency goal")
			continue
		}
		var parts []string
		for _, of := range rr.of {
			c, ok := check.CapacityOf(rr.series, of, rr.slo)
			switch {
			case !ok:
				parts = append(parts, of+" -")
			case c == 0:
				parts = append(parts, of+" none of the rates")
			default:
				parts = append(parts, fmt.Sprintf("%s %s/s", of, rateText(c)))
			}
		}
		out = append(out, fmt.Sprintf("capacity (the highest rate that met %s from the intended start in every step, its rate kept): %s", rr.slo.Text, strings.Join(parts, ", ")))
	}
	return out
}
