package report

import (
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/rumbench/rumbench/internal/check"
	"github.com/rumbench/rumbench/internal/metric"
	"github.com/rumbench/rumbench/internal/results"
)

// KneeGain is the least throughput gain from one count of a sweep to the next (the ratio of
// their rates) that is not "past the knee": below it, the added clients bought less than 10%
// more throughput.
const KneeGain = 1.10

// KneeCost is the rise of CPU per operation (the ratio to the count before) that a count past the
// knee is said to cost: contention shows as cost per operation rising while throughput is flat.
const KneeCost = 1.05

// scalingCosts are the per-operation figures a scaling table shows at each count, in order:
// CPU (host, client, server), context switches, device flushes, and the rate's p99.
var scalingCosts = []string{"cpu_us/op", "ccpu_us/op", "scpu_us/op", "cs/op", "fl/op", "p99_us"}

// SweepPoint is one count of one target of a sweep in one step.
type SweepPoint struct {
	// Clients is the count; Rate the step's headline rate at it (the median of repetitions).
	Clients int
	Rate    float64
	// Speedup is Rate over the rate at the sweep's smallest count, Efficiency the speedup per
	// added client (Speedup × smallest / Clients: 1 is linear scaling).
	Speedup, Efficiency float64
	// Gain is Rate over the rate of the count before (NaN for the first); CPUGain the same for
	// cpu_us/op.
	Gain, CPUGain float64
	// Costs are the scalingCosts figures (NaN: not measured).
	Costs []float64
	// Reps is how many repetitions the figures are the median of (1: a run without repeats).
	Reps int
}

// PastKnee says whether the point is past the knee: the added clients bought less than KneeGain
// more throughput than the count before.
func (p SweepPoint) PastKnee() bool { return !math.IsNaN(p.Gain) && p.Gain < KneeGain }

// SweepLine is a target's points in one step of a sweep, by increasing count.
type SweepLine struct {
	// Label is the target the counts are of ("pebble"; "r2/pebble" among several runs).
	Label  string
	Points []SweepPoint
}

// SweepStep is one step of a sweep: its rate's name and unit, and a line per target.
type SweepStep struct {
	Step, RateName, RateUnit string
	Lines                    []SweepLine
}

// Sweeps returns the scaling of every step of the runs that swept a client count
// (results.Manifest.Sweep), in step order; nil when none did. A step measured at one count only
// (a sweep's load) is left out.
func Sweeps(runs []*results.Run) []SweepStep {
	var out []SweepStep
	index := map[string]int{}
	for ri, r := range runs {
		if r.Manifest.Sweep == nil {
			continue
		}
		for _, ts := range sweepTargets(r.Manifest) {
			label := seriesLabel(len(runs), ri, ts.of)
			for _, step := range reportOrder(r) {
				line := SweepLine{Label: label}
				for _, t := range ts.counts {
					recs := recordsOf(r.Steps, t.Label, step)
					if len(recs) == 0 {
						continue
					}
					rate, n := check.Median("rate", recs, step)
					if n == 0 {
						continue
					}
					p := SweepPoint{Clients: t.Clients, Rate: rate, Gain: math.NaN(), CPUGain: math.NaN(), Reps: n}
					for _, name := range scalingCosts {
						v, n := check.Median(name, recs, step)
						if n == 0 {
							v = math.NaN()
						}
						p.Costs = append(p.Costs, v)
					}
					line.Points = append(line.Points, p)
				}
				if len(line.Points) < 2 {
					continue
				}
				first := line.Points[0]
				for i := range line.Points {
					p := &line.Points[i]
					p.Speedup = check.Ratio(p.Rate, first.Rate)
					p.Efficiency = p.Speedup * float64(first.Clients) / float64(p.Clients)
					if i > 0 {
						prev := line.Points[i-1]
						p.Gain = check.Ratio(p.Rate, prev.Rate)
						if !math.IsNaN(p.Costs[0]) && !math.IsNaN(prev.Costs[0]) {
							p.CPUGain = check.Ratio(p.Costs[0], prev.Costs[0])
						}
					}
				}
				k, ok := index[step]
				if !ok {
					k = len(out)
					index[step] = k
					name, unit := rateNameOf(recordsOf(r.Steps, ts.counts[0].Label, step))
					out = append(out, SweepStep{Step: step, RateName: name, RateUnit: unit})
				}
				out[k].Lines = append(out[k].Lines, line)
			}
		}
	}
	return out
}

// sweptTarget is a target of a sweep and its count targets, by increasing count.
type sweptTarget struct {
	of     string
	counts []results.Target
}

// sweepTargets groups a manifest's count targets by the target they are of, in run order.
func sweepTargets(m *results.Manifest) []sweptTarget {
	var out []sweptTarget
	at := map[string]int{}
	for _, t := range m.Targets {
		if t.Of == "" || t.Clients == 0 {
			continue
		}
		k, ok := at[t.Of]
		if !ok {
			k = len(out)
			at[t.Of] = k
			out = append(out, sweptTarget{of: t.Of})
		}
		out[k].counts = append(out[k].counts, t)
	}
	return out
}

// reportOrder returns r's step names as its tables are printed: by the workload's group order
// (a step of no group last), in run order within a group.
func reportOrder(r *results.Run) []string {
	group := map[string]int{}
	for _, s := range r.Steps {
		group[s.Step] = len(r.Manifest.Groups)
		for i, g := range r.Manifest.Groups {
			if s.Group == g.Name {
				group[s.Step] = i
			}
		}
	}
	steps := stepOrder([]*results.Run{r}, "", true)
	slices.SortStableFunc(steps, func(a, b string) int { return group[a] - group[b] })
	return steps
}

// recordsOf returns the records of target and step.
func recordsOf(recs []results.Step, target, step string) []*results.Step {
	var out []*results.Step
	for i := range recs {
		if recs[i].Target == target && recs[i].Step == step {
			out = append(out, &recs[i])
		}
	}
	return out
}

// ScalingTables renders the sweeps of runs (Sweeps) as one table per step: a row per target and
// count with the rate, the speedup over the smallest count and the efficiency per client, the
// per-operation costs, and a mark on a count past the knee (PastKnee) with the change in CPU per
// operation. nil when no run swept a count.
func ScalingTables(runs []*results.Run) []*Table { return scalingTables(Sweeps(runs)) }

// scalingTables renders sweeps as ScalingTables does, a table per step, in order.
func scalingTables(sweeps []SweepStep) []*Table {
	var out []*Table
	for _, s := range sweeps {
		first := s.Lines[0].Points[0].Clients
		t := &Table{Title: "scaling: " + s.Step, Kind: Plain,
			Note: fmt.Sprintf("speedup: %s over %s at %d client%s; eff: speedup per client (1.00 is linear)", s.RateName, s.RateName, first, plural(first)),
			Columns: []Column{{Name: "target"}, {Name: "clients"}, {Name: s.RateName, Unit: s.RateUnit, Rate: true},
				{Name: "speedup"}, {Name: "eff"}}}
		present := make([]bool, len(scalingCosts))
		for _, l := range s.Lines {
			for _, p := range l.Points {
				for i, v := range p.Costs {
					present[i] = present[i] || !math.IsNaN(v)
				}
			}
		}
		for i, name := range scalingCosts {
			if present[i] {
				m, _ := metric.Lookup(name)
				t.Columns = append(t.Columns, Column{Name: name, Unit: m.Unit, Meaning: m.Meaning})
			}
		}
		t.Columns = append(t.Columns, Column{Name: "scaling"})
		knees, reps := false, 1
		for _, l := range s.Lines {
			for _, p := range l.Points {
				reps = max(reps, p.Reps)
				row := []Cell{TextCell(l.Label), IntCell(int64(p.Clients)), NumCell(p.Rate), RatioCell(p.Speedup), RatioCell(p.Efficiency)}
				for i, v := range p.Costs {
					if !present[i] {
						continue
					}
					if math.IsNaN(v) {
						row = append(row, MissingCell())
					} else {
						row = append(row, NumCell(v))
					}
				}
				row = append(row, TextCell(kneeText(p)))
				knees = knees || p.PastKnee()
				t.Rows = append(t.Rows, row)
			}
		}
		if knees {
			t.Footer = append(t.Footer, fmt.Sprintf("past knee: less than %.0f%% more %s than the count before (cpu/op: the change in cpu_us/op from it)", 100*(KneeGain-1), s.RateName))
		}
		if reps > 1 {
			t.Footer = append(t.Footer, fmt.Sprintf("each figure: the median of the repetitions (up to %d)", reps))
		}
		out = append(out, t)
	}
	return out
}

// kneeText marks a point past the knee: "past knee" and, when CPU per operation rose by
// KneeCost or more, by how much.
func kneeText(p SweepPoint) string {
	if !p.PastKnee() {
		return ""
	}
	s := "past knee"
	if p.Gain <= 0.995 {
		s += fmt.Sprintf(": rate %+.0f%%", 100*(p.Gain-1))
	}
	if !math.IsNaN(p.CPUGain) && p.CPUGain >= KneeCost {
		s += fmt.Sprintf(", cpu/op %+.0f%%", 100*(p.CPUGain-1))
	}
	return s
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// WriteScaling prints the scaling tables of runs (ScalingTables), the tables of their sweeps
// of rates (RateTables), their faults (FaultTable) and clusters (ClusterTables) as aligned text, each followed by a blank
// line; nothing when no run swept a count or a rate or had a fault.
func WriteScaling(w io.Writer, runs []*results.Run) error {
	tables := append(ScalingTables(runs), RateTables(runs)...)
	if ft := FaultTable(runs); ft != nil {
		tables = append(tables, ft)
	}
	tables = append(tables, ClusterTables(runs)...)
	for _, t := range tables {
		if err := WriteText(w, t); err != nil {
			return err
		}
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
	}
	return nil
}
