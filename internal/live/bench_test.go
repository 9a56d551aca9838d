package live

import (
	"io"
	"testing"

	"github.com/rumbench/rumbench/internal/results"
)

// BenchmarkScrape measures one scrape of a run of 2 targets × 10 steps of one kind (9 finished,
// one running each): the exposition made and written. It runs on the HTTP server's goroutine,
// not the observer's, and so counts in the client's CPU.
func BenchmarkScrape(b *testing.B) {
	r := NewRegistry(Run{ID: "20261121T120000Z-insert", Label: "insert", Workload: "insert"})
	for _, tg := range []string{"pebble", "postgres"} {
		for i := range 10 {
			s := sample("st"+string(rune('a'+i)), int64(i), 1000, i < 9)
			s.Target = tg
			r.Observe(s)
			if i < 9 {
				r.StepDone(&results.Step{Target: tg, Step: s.Step, Status: results.StatusOK})
			}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		r.Write(io.Discard)
	}
}
