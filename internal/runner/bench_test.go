package runner

import (
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/sysstat"
)

// BenchmarkTick is the runner's per-tick cost for a step of 3 workers: merge every histogram and
// counter, take a system sample (with the walk of a data directory of 10 files), build the
// interval record.
func BenchmarkTick(b *testing.B) {
	dir := b.TempDir()
	s, err := sysstat.NewSampler(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	c := newCollector(Setup{Label: "t", Sampler: s}, Step{Name: "s", Kinds: testKinds, RateKinds: []KindID{kIns}})
	for i := 0; i < 3; i++ {
		m := NewMeter(len(testKinds), i == 0)
		m.Done(kIns, time.Now(), 100)
		c.meters = append(c.meters, m)
	}
	c.begin(time.Now())
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.tick(time.Now(), false)
	}
}
