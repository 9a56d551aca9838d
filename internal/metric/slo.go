package metric

import (
	"strings"

	"github.com/rumbench/rumbench/internal/hist"
	"github.com/rumbench/rumbench/internal/results"
)

// GoalLatency returns percentile p (0 < p < 100) of the response time of the step's rate
// kinds together, µs: from each operation's intended start at a fixed rate (their "_intended"
// records), else from its actual start; false when the step has no record of them.
func GoalLatency(s *results.Step, p float64) (float64, bool) {
	var snap hist.Snapshot
	var n int64
	for _, k := range s.RateKinds {
		l := latencyOf(s, k)
		if s.Schedule != nil {
			if in := latencyOf(s, k+"_intended"); in != nil {
				l = in
			}
		}
		if l == nil || len(l.Buckets) == 0 {
			continue
		}
		snap.AddBuckets(l.Buckets)
		snap.Max = max(snap.Max, int64(l.MaxUs*1e3))
		n += l.Count
	}
	if n == 0 {
		return 0, false
	}
	return float64(snap.Quantile(p/100)) / 1e3, true
}

// GoalName names goal g's figure in a table's header: "p99_us" for p99<=10ms.
func GoalName(g *results.SLO) string { return strings.ReplaceAll(g.Name, ".", "_") + "_us" }
