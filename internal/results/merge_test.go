package results

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/hist"
)

// shardRun is a shard run of group g on host with one step of ops operations whose latencies
// are vals (ns), and two intervals.
func shardRun(g string, i, n int, host string, ops int64, vals []int64) *Run {
	h := hist.New()
	for _, v := range vals {
		h.Record(v)
	}
	var s hist.Snapshot
	h.Snapshot(&s)
	start := time.Date(2026, 1, 1, 0, 0, 10, 0, time.UTC)
	st := Step{Target: "postgres", Step: "l.i0", Status: StatusOK, Start: start, End: start.Add(2 * time.Second), Secs: 2,
		RateKinds: []string{"insert"}, Ops: ops, Rate: float64(ops) / 2, CallsPerSec: float64(ops) / 2, IPS: float64(ops) / 2,
		Kinds: []Kind{{Name: "insert", Role: RoleWrite, Ops: ops, Units: ops, MaxUs: float64(s.Max) / 1e3}},
		Rows:  ops, HostCPUPct: 50, HostCPUUsPerOp: 100 / float64(ops), ClientCPUUsPerOp: 10, ClientRSSMB: 100,
		WriteKBPerOp: 1000 / float64(ops), GBWritten: 1, LogBytesPerOp: 2000 / float64(ops), ServerFsyncsPerOp: -1,
		Latency: []Latency{{Kind: "insert", Count: s.Total, MeanUs: s.Mean() / 1e3, MaxUs: float64(s.Max) / 1e3,
			P99Us: float64(s.Quantile(0.99)) / 1e3, Buckets: s.Buckets(nil)}},
	}
	ivs := []Interval{
		{Target: "postgres", Step: "l.i0", T: 1.0004, Secs: 1, Rate: float64(ops) / 2, HostCPUPct: 50, ClientRSSMB: 100, Kinds: []Kind{{Name: "insert", Ops: ops / 2}}},
		{Target: "postgres", Step: "l.i0", T: 1.9996, Secs: 1, Rate: float64(ops) / 2, HostCPUPct: 50, ClientRSSMB: 100, Kinds: []Kind{{Name: "insert", Ops: ops}}},
	}
	return &Run{Manifest: &Manifest{RunID: "r" + string(rune('0'+i)), Hostname: host, Status: StatusOK, Start: start, End: start.Add(3 * time.Second),
		Targets: []Target{{Label: "postgres", Check: "ok"}}, Shard: &ShardInfo{Group: g, Index: i, Count: n}}, Steps: []Step{st}, Intervals: ivs}
}

// TestMerge: sums, the exact merged histogram, per-host figures once per host, intervals
// summed tick by tick, and the shards' own figures kept.
func TestMerge(t *testing.T) {
	a := shardRun("g", 0, 3, "h1", 100, []int64{1000, 2000, 3000, 90_000})
	b := shardRun("g", 1, 3, "h1", 300, []int64{5000, 6000})
	c := shardRun("g", 2, 3, "h2", 200, []int64{7000, 8000, 9000, 10_000, 11_000})
	a.Steps[0].Remarks = []string{"NOPM 10"}
	c.Steps[0].Remarks = []string{"NOPM 20"}
	m, steps, ivs, err := Merge([]*Run{c, a, b}, "merged")
	if err != nil {
		t.Fatal(err)
	}
	// A workload's remarks are its findings on each shard's part: kept, said per shard.
	if got := steps[0].Remarks; !slices.Equal(got, []string{"shard 0: NOPM 10", "shard 2: NOPM 20"}) {
		t.Errorf("remarks %q", got)
	}
	if m.RunID != "merged" || len(m.Merged.Runs) != 3 || m.Merged.Runs[0].RunID != "r0" || m.Shard != nil || m.Status != StatusOK {
		t.Fatalf("manifest: %+v", m)
	}
	if m.Targets[0].Check != "shard 0: ok; shard 1: ok; shard 2: ok" {
		t.Errorf("checks %q", m.Targets[0].Check)
	}
	s := steps[0]
	if s.Ops != 600 || s.Rows != 600 || s.Kinds[0].Ops != 600 || s.Rate != 300 || s.IPS != 300 || len(s.Shards) != 3 {
		t.Errorf("sums: ops %d rows %d kind %d rate %v ips %v shards %d", s.Ops, s.Rows, s.Kinds[0].Ops, s.Rate, s.IPS, len(s.Shards))
	}
	// Process figures summed; host CPU once per host: h1 counted from shard 1 (most ops there).
	if s.ClientRSSMB != 300 || s.ClientCPUUsPerOp != 10 || s.HostCPUPct != 100 || s.GBWritten != 2 {
		t.Errorf("figures: rss %v ccpu %v host%% %v GBw %v", s.ClientRSSMB, s.ClientCPUUsPerOp, s.HostCPUPct, s.GBWritten)
	}
	if want := (100.0 + 100.0) / 600; s.HostCPUUsPerOp != want {
		t.Errorf("host cpu/op %v, want %v", s.HostCPUUsPerOp, want)
	}
	// The server's log: the largest shard's view (2000 bytes) over all operations.
	if want := 2000.0 / 600; s.LogBytesPerOp != want || s.ServerFsyncsPerOp != -1 {
		t.Errorf("log bytes/op %v (want %v), fsyncs %v", s.LogBytesPerOp, want, s.ServerFsyncsPerOp)
	}
	// The merged histogram is that of the union of the values.
	u := hist.New()
	for _, v := range []int64{1000, 2000, 3000, 90_000, 5000, 6000, 7000, 8000, 9000, 10_000, 11_000} {
		u.Record(v)
	}
	var us hist.Snapshot
	u.Snapshot(&us)
	l := s.Latency[0]
	if l.Count != 11 || l.P99Us != float64(us.Quantile(0.99))/1e3 || l.P50Us != float64(us.Quantile(0.5))/1e3 || l.MaxUs != 90 {
		t.Errorf("latency %+v, union p50 %d p99 %d", l, us.Quantile(0.5), us.Quantile(0.99))
	}
	if len(ivs) != 2 || ivs[0].Rate != 300 || ivs[1].Kinds[0].Ops != 600 || ivs[0].HostCPUPct != 100 || ivs[0].ClientRSSMB != 300 {
		t.Errorf("intervals: %+v", ivs)
	}
	if s.RateIntervals != 2 || s.RateP50 != 300 {
		t.Errorf("rate tail: %d intervals, p50 %v", s.RateIntervals, s.RateP50)
	}
	for _, bad := range []struct {
		runs []*Run
		want string
	}{
		{[]*Run{a, b}, "group g has 3 shards, 2 runs given: shard 2 missing"},
		// A shard count or index from run.json is checked before it is used.
		{[]*Run{shardRun("g", 0, 20000000, "h1", 1, []int64{1})}, "run r0: shard 0 of 20000000: want a count of 1 to 10000 and an index of 0 to count-1"},
		{[]*Run{shardRun("g", 0, -5, "h1", 1, []int64{1})}, "shard 0 of -5: want a count of 1 to 10000"},
		{[]*Run{shardRun("g", 3, 2, "h1", 1, []int64{1}), b}, "shard 3 of 2: want"},
		{[]*Run{shardRun("g", 0, 10000, "h1", 1, []int64{1})}, "group g has 10000 shards, 1 runs given: shard 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ... (9999 in all) missing"},
		{[]*Run{a, a, b}, "are both shard 0 of group g"},
		{[]*Run{a, b, shardRun("h", 2, 3, "h2", 1, []int64{1})}, "belong to different groups"},
		{[]*Run{{Manifest: &Manifest{RunID: "x"}}}, "run x is not a shard of a split run"},
	} {
		if _, _, _, err := Merge(bad.runs, "m"); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("want %q, got %v", bad.want, err)
		}
	}
}

// TestMergeSchedule checks the merge of two shards' fixed rates: rates and counts add up over
// the merged time, the mean lag is weighted by the operations started, the largest lag kept.
func TestMergeSchedule(t *testing.T) {
	ps := []shardOf[Step]{
		{v: Step{Secs: 10, Schedule: &Schedule{Rate: 1000, Arrivals: "poisson", Offered: 1000, Achieved: 1000, LagMeanMs: 1, LagMaxSecs: 0.1, Backlog: 1, Skipped: 2}}},
		{v: Step{Secs: 10, Schedule: &Schedule{Rate: 1000, Arrivals: "poisson", Offered: 1000, Achieved: 500, LagMeanMs: 4, LagMaxSecs: 2, Backlog: 3, Skipped: 0}}},
	}
	got := mergeSchedule(ps, 10)
	want := Schedule{Rate: 2000, Arrivals: "poisson", Offered: 2000, Achieved: 1500, LagMeanMs: 2, LagMaxSecs: 2, Backlog: 4, Skipped: 2, Met: false}
	if got == nil || *got != want {
		t.Fatalf("merged schedule %+v, want %+v", got, want)
	}
	if mergeSchedule([]shardOf[Step]{{v: Step{Secs: 1}}}, 1) != nil {
		t.Fatal("shards without a schedule merged into one")
	}
}
