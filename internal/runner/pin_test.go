package runner

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rumbench/rumbench/internal/engine"
	_ "github.com/rumbench/rumbench/internal/engine/null"
	"github.com/rumbench/rumbench/internal/table"
)

// boundEngine is an engine that declares (or not) that its sessions block their thread.
type boundEngine struct {
	table.Engine
	bound bool
}

func (e boundEngine) ThreadBound() bool { return e.bound }

// threadsPerWorker runs a step of 4 workers, each doing 200 operations that yield to the
// scheduler and sleep between them, and returns how many OS threads each worker ran on.
func threadsPerWorker(t *testing.T, bound bool) []int {
	t.Helper()
	spec, _ := engine.Lookup("null")
	eng, err := spec.Open(context.Background(), engine.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	const workers, ops = 4, 200
	var mu sync.Mutex
	tids := make([]map[int]bool, workers)
	st := Step{Name: "s", Kinds: testKinds, RateKinds: []KindID{kIns}}
	for i := range workers {
		tids[i] = map[int]bool{}
		n := 0
		st.Workers = append(st.Workers, Worker{Name: "w", Role: Driver, Op: func(ctx context.Context, m *Meter) (bool, error) {
			mu.Lock()
			tids[i][unix.Gettid()] = true
			mu.Unlock()
			m.Done(kIns, time.Now(), 1)
			runtime.Gosched()
			time.Sleep(50 * time.Microsecond)
			n++
			return n == ops, nil
		}})
	}
	if _, err := Run(context.Background(), Setup{Label: "t", Engine: boundEngine{eng, bound}}, st); err != nil {
		t.Fatal(err)
	}
	var counts []int
	for _, m := range tids {
		counts = append(counts, len(m))
	}
	return counts
}

// TestThreadBoundPinsWorkers: the workers of an engine whose sessions block their thread stay on
// one OS thread for the whole step, however often they pass through the scheduler (a step of
// several workers; a lone worker is left unpinned, see Run).
func TestThreadBoundPinsWorkers(t *testing.T) {
	for i, n := range threadsPerWorker(t, true) {
		if n != 1 {
			t.Errorf("worker %d of a thread-bound engine ran on %d threads, want 1", i, n)
		}
	}
	// The contrast: without the declaration a worker that sleeps is resumed on whichever
	// thread is free (so the check above is not true by accident).
	moved := 0
	for _, n := range threadsPerWorker(t, false) {
		if n > 1 {
			moved++
		}
	}
	if moved == 0 {
		t.Logf("no unpinned worker changed threads this time")
	}
}
