package tpcc

import (
	"context"
	"testing"

	"github.com/rumbench/rumbench/internal/workload/worktest"
)

// BenchmarkTransaction is one transaction of each type on pebble (no sync) holding a tiny
// TPC-C: the client's draws and statements and the engine's work; allocs/op are the engine's
// and the workload's together.
func BenchmarkTransaction(b *testing.B) {
	ctx := context.Background()
	w := tiny(b, 1)
	eng, dir := worktest.Engine(b, "pebble", false, nil)
	run := worktest.Steps(b, eng, dir, w, nil).(*Run)
	sess, err := eng.NewSession(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	c := newTerminal(run, sess, 0)
	for tx := range numTx {
		b.Run(txKinds[tx].Name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if _, _, err := c.do(ctx, tx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
