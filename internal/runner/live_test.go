package runner

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/live"
	"github.com/rumbench/rumbench/internal/sysstat"
)

// TestLiveSamples runs a step with a sample receiver and checks what it gets: a first sample at
// the step's start with nothing counted, one per tick, and a last one marked final whose counts
// and histogram are the step record's: every insert (rows as the ops) and every range query,
// the warm-up's counted apart from the measured window's.
func TestLiveSamples(t *testing.T) {
	sampler, err := sysstat.NewSampler(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer sampler.Close()
	var mu sync.Mutex
	var got []*live.Sample
	st := Step{Name: "s", Kinds: testKinds, RateKinds: []KindID{kIns}, Presentation: Presentation{RateName: "ips"}, Warmup: 60 * time.Millisecond,
		Workers: []Worker{{Name: "w", Role: Driver, Rate: 400, Op: counted(80, 5)}, {Name: "q", Role: Driver, Rate: 400, Op: queries(60)}}}
	res, err := Run(context.Background(), Setup{Label: "t", Sampler: sampler, Tick: 50 * time.Millisecond,
		OnSample: func(s *live.Sample) { mu.Lock(); got = append(got, s); mu.Unlock() }}, st)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < 3 {
		t.Fatalf("%d samples, want the start's, the ticks' and the last", len(got))
	}
	first, last := got[0], got[len(got)-1]
	if first.Final || first.Ops != 0 || first.Kinds[kIns].Ops != 0 || first.Kinds[kIns].Count != 0 {
		t.Errorf("first sample %+v: want nothing counted", first)
	}
	for i, s := range got {
		if s.Final != (i == len(got)-1) {
			t.Errorf("sample %d: final %v", i, s.Final)
		}
		if s.Target != "t" || s.Step != "s" || s.RateName != "ips" || len(s.Kinds) != 2 {
			t.Errorf("sample %d names %+v", i, s)
		}
		if i > 0 && s.UnixMs < got[i-1].UnixMs {
			t.Errorf("sample %d is older than the one before", i)
		}
	}
	ins, q := last.Kinds[kIns], last.Kinds[kRange]
	if ins.Ops != 80 || ins.Units != 400 || q.Ops != 60 || q.Units != 600 || last.Ops != 400 {
		t.Errorf("last sample: %d inserts of %d rows, %d queries of %d rows, ops %d; want 80 of 400, 60 of 600, 400",
			ins.Ops, ins.Units, q.Ops, q.Units, last.Ops)
	}
	// The measured window's: the step record's, without the warm-up's (the first paced calls
	// start at the step's start, inside the warm-up).
	if ins.Count != res.KindOps("insert") || q.Count != res.KindOps("range_query") || ins.Count >= ins.Ops || ins.Count == 0 {
		t.Errorf("histogram counts %d inserts, %d queries; the step %d, %d", ins.Count, q.Count, res.KindOps("insert"), res.KindOps("range_query"))
	}
	for i, n := range ins.Buckets {
		if i > 0 && n < ins.Buckets[i-1] || n > ins.Count {
			t.Errorf("insert buckets %v are not cumulative counts of at most %d", ins.Buckets, ins.Count)
			break
		}
	}
	if ins.Buckets[len(ins.Buckets)-1] != ins.Count {
		t.Errorf("insert buckets %v: a test op takes less than 10 s, want all %d at the last bound", ins.Buckets, ins.Count)
	}
	if last.ClientCPUNs <= 0 || last.ObserverCPUNs <= 0 || last.ContextSwitches < 0 || last.ClientRSSBytes <= 0 {
		t.Errorf("last sample's process figures %+v", last)
	}
	if last.ServerCPUNs != -1 || last.ServerRSSBytes != -1 || last.Syncs != -1 || last.StallUs != -1 || last.MemoryPressure != -1 {
		t.Errorf("figures not measured here are not -1: %+v", last)
	}
	if last.Commits != 80 {
		t.Errorf("commits %d, want the 80 insert calls", last.Commits)
	}
}
