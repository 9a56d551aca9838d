package store

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkRecord records (re-records) a run of 3 targets × 10 steps with 4 latency kinds each and
// 5,400 interval records (30 steps of 180 s), the size of a small-profile insert benchmark run.
func BenchmarkRecord(b *testing.B) {
	run := syntheticRun("20261120T220000Z-bench", "insert", "bench", t0, []string{"pebble", "sqlite", "bbolt"}, 30, 5400)
	for i := range run.Steps {
		run.Steps[i].Latency = append(run.Steps[i].Latency, run.Steps[i].Latency...) // 4 kinds
	}
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			s, err := Open(context.Background(), be.spec(b))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			for b.Loop() {
				if err := s.Record(context.Background(), run); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLoad reads the same run back.
func BenchmarkLoad(b *testing.B) {
	run := syntheticRun("20261120T220000Z-bench", "insert", "bench", t0, []string{"pebble", "sqlite", "bbolt"}, 30, 5400)
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			s, err := Open(context.Background(), be.spec(b))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			if err := s.Record(context.Background(), run); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				got, err := s.Load(context.Background(), run.Manifest.RunID)
				if err != nil || len(got.Intervals) != len(run.Intervals) {
					b.Fatal(err, fmt.Sprint(len(got.Intervals)))
				}
			}
		})
	}
}
