package gen

import (
	"sync"
	"testing"
)

// Several goroutines take numbers and acknowledge them out of order; Last never passes an
// unacknowledged number and ends at the last one.
func TestAckCounterConcurrent(t *testing.T) {
	const start, workers, perWorker = 100, 8, 20000
	c := NewAckCounter(start)
	if c.Last() != start-1 {
		t.Fatalf("initial Last = %d, want %d", c.Last(), start-1)
	}
	var wg sync.WaitGroup
	var acked sync.Map // numbers acknowledged so far
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			r := NewRand(seed)
			held := make([]int64, 0, 64)
			flush := func() {
				// Acknowledge the held numbers in a shuffled order.
				for i := len(held) - 1; i > 0; i-- {
					j := r.Intn(int64(i + 1))
					held[i], held[j] = held[j], held[i]
				}
				for _, v := range held {
					acked.Store(v, true)
					if err := c.Acknowledge(v); err != nil {
						t.Error(err)
						return
					}
					// Every number up to Last has been acknowledged.
					if last := c.Last(); last >= start {
						if _, ok := acked.Load(last); !ok {
							t.Errorf("Last = %d, which is not acknowledged", last)
						}
					}
				}
				held = held[:0]
			}
			for i := 0; i < perWorker; i++ {
				held = append(held, c.Next())
				if len(held) == cap(held) || r.Intn(8) == 0 {
					flush()
				}
			}
			flush()
		}(uint64(w))
	}
	wg.Wait()
	if want := int64(start + workers*perWorker - 1); c.Last() != want {
		t.Errorf("final Last = %d, want %d", c.Last(), want)
	}
	if err := c.Acknowledge(start); err == nil {
		t.Error("acknowledging a number twice gave no error")
	}
}

func TestAckCounterRefusals(t *testing.T) {
	c := NewAckCounter(0)
	if err := c.Acknowledge(AckWindow); err != ErrAckWindow {
		t.Errorf("acknowledging AckWindow ahead: %v, want ErrAckWindow", err)
	}
	if err := c.Acknowledge(5); err != nil {
		t.Fatal(err)
	}
	if err := c.Acknowledge(5); err == nil {
		t.Error("acknowledging 5 twice gave no error")
	}
	if c.Last() != -1 {
		t.Errorf("Last = %d with 0 unacknowledged", c.Last())
	}
	for v := int64(0); v < 5; v++ {
		if err := c.Acknowledge(v); err != nil {
			t.Fatal(err)
		}
	}
	if c.Last() != 5 {
		t.Errorf("Last = %d after 0..5 acknowledged", c.Last())
	}
}
