package gen

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestPacerSchedule checks the intended start times of a worker that is behind schedule (start
// in the past): Next returns at once, and operation k's time is start + k/rate.
func TestPacerSchedule(t *testing.T) {
	for _, rate := range []float64{1, 3, 1000, 3000, 7e5, 0.5} {
		start := time.Now().Add(-1000 * time.Hour)
		p := NewPacer(start, rate)
		const ops = 1_000_000
		for k := 0; k < ops; k++ {
			at, err := p.Next(context.Background())
			if err != nil {
				t.Fatalf("rate %g: Next: %v", rate, err)
			}
			if k%1000 != 0 && k != ops-1 {
				continue
			}
			want := start.Add(time.Duration(float64(k) * float64(time.Second) / rate))
			if d := at.Sub(want); d < -time.Microsecond || d > time.Microsecond {
				t.Fatalf("rate %g: operation %d intended at start+%v, want start+%v (off by %v)",
					rate, k, at.Sub(start), want.Sub(start), d)
			}
		}
	}
}

// TestPacerWaits checks that Next does not return before the intended start when it is in the
// future.
func TestPacerWaits(t *testing.T) {
	start := time.Now().Add(20 * time.Millisecond)
	p := NewPacer(start, 200) // every 5 ms
	for k := 0; k < 5; k++ {
		at, err := p.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if want := start.Add(time.Duration(k) * 5 * time.Millisecond); !at.Equal(want) {
			t.Fatalf("operation %d intended at %v, want %v", k, at.Sub(start), want.Sub(start))
		}
		if now := time.Now(); now.Before(at) {
			t.Fatalf("Next returned %v before the intended start of operation %d", at.Sub(now), k)
		}
	}
}

// TestPacerCancel checks that a cancelled context ends the wait for a far intended start with the
// context's error. The bound is generous: it only tells a prompt return from a wait of an hour.
func TestPacerCancel(t *testing.T) {
	p := NewPacer(time.Now().Add(time.Hour), 1)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(10*time.Millisecond, cancel)
	begin := time.Now()
	_, err := p.Next(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Next with a cancelled context = %v, want context.Canceled", err)
	}
	if d := time.Since(begin); d > 5*time.Second {
		t.Fatalf("Next took %v to notice the cancellation", d)
	}

	ctx, cancel2 := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel2()
	if _, err := NewPacer(time.Now().Add(time.Hour), 10).Next(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Next past the context's deadline = %v, want context.DeadlineExceeded", err)
	}
}
