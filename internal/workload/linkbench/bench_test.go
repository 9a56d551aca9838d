package linkbench

import (
	"context"
	"testing"

	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload/worktest"
)

// BenchmarkRequest is the client's cost of one request of the Small Datum mix on the null engine:
// the draw (operation, ids, payload) and the statements of the operation.
func BenchmarkRequest(b *testing.B) {
	w := build(b, "--maxid1", "100001", "--loops", "1")
	eng, _ := worktest.Engine(b, "null", false, nil)
	ctx := context.Background()
	run, err := w.Open(ctx, eng)
	if err != nil {
		b.Fatal(err)
	}
	sess, _ := eng.NewSession(ctx)
	q, _ := w.model.NewRequester(0, 1)
	c := &requester{r: run.(*Run), st: w.st, sess: sess, w: sess, q: q, out: table.NewRows(len(linkCols), 64), rng: gen.NewRand(1)}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		c.q.Next(&c.rng, &c.req)
		if _, err := c.do(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
