package ycsb

import (
	"context"
	"testing"

	"github.com/rumbench/rumbench/internal/workload/worktest"
	"github.com/rumbench/rumbench/internal/workload/ycsb/ycsbgen"
)

// BenchmarkOperation is the client's cost of one operation of each shipped workload on the null
// engine: the mix draw, the key choice and name, the values, the statement call.
func BenchmarkOperation(b *testing.B) {
	for _, letter := range []string{"a", "b", "c", "d", "e", "f"} {
		b.Run(letter, func(b *testing.B) {
			d := newDefinition()
			d.Flags().Parse([]string{"--workload-letter", letter, "-p", "recordcount=100000", "-p", "operationcount=1"})
			wl, err := d.Build(sharedQuick)
			if err != nil {
				b.Fatal(err)
			}
			w := wl.(*Workload)
			eng, _ := worktest.Engine(b, "null", false, nil)
			ctx := context.Background()
			run, err := w.Open(ctx, eng)
			if err != nil {
				b.Fatal(err)
			}
			r := run.(*Run)
			sess, _ := eng.NewSession(ctx)
			c, err := r.newClient(sess, 0, 1)
			if err != nil {
				b.Fatal(err)
			}
			var choices []ycsbgen.Choice
			for op, f := range w.Cfg.Core.Proportions() {
				if f > 0 {
					choices = append(choices, ycsbgen.Choice{Op: op, Weight: f})
				}
			}
			if err := c.runGenerators(choices); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := c.do(ctx, c.mix.Next(&c.rng)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
