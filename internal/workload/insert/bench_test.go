package insert

import (
	"context"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/engine/null"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/table"
)

// These benchmarks measure rumbench's own cost per operation: the null engine does nothing, so
// what remains is data generation, batching, timing and recording.

func nullRun(b *testing.B) *Run {
	w, err := New(Config{Clients: 1, Rows: 1, Writes: 1, QuerySecs: 1, Now: func() time.Time { return time.Unix(1_800_000_000, 0) }}, 3221223452)
	if err != nil {
		b.Fatal(err)
	}
	r, err := w.Open(context.Background(), null.Engine{})
	if err != nil {
		b.Fatal(err)
	}
	return r.(*Run)
}

// BenchmarkInsertNull is the l.i0 writer's path on the null engine: generate a batch of 100
// rows, insert it, record it. Reported as rows/s.
func BenchmarkInsertNull(b *testing.B) {
	r := nullRun(b)
	c := r.clients[0]
	st := runner.Step{Name: "l.i0"}
	r.declareKinds(&st)
	w := &writer{r: r, c: c, s: null.Session{}, rows: table.NewRows(numCols, 100), total: 1 << 62, rpc: 100, kind: r.kinds.insert}
	m := runner.NewMeter(len(st.Kinds), false)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := w.op(ctx, m); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*100/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkPointQueryNull is the query thread's point-query path (10 random keys, Get, record) on
// the null engine. Reported as queries/s.
func BenchmarkPointQueryNull(b *testing.B) {
	benchQueryNull(b, true)
}

// BenchmarkRangeQueryNull is the query thread's range-query path on the null engine.
func BenchmarkRangeQueryNull(b *testing.B) {
	benchQueryNull(b, false)
}

func benchQueryNull(b *testing.B, point bool) {
	r := nullRun(b)
	c := r.clients[0]
	c.nextID.Store(1_000_000)
	st := runner.Step{Name: "qr100"}
	if point {
		st.Name = "qp100"
	}
	r.declareKinds(&st)
	q := &querier{c: c, s: null.Session{}, point: point, kind: r.kinds.query, out: table.NewRows(3, rowsPerQuery)}
	m := runner.NewMeter(len(st.Kinds), false)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := q.op(ctx, m); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
}
