package gen

import (
	"context"
	"errors"
	"math"
	"runtime"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestPacerSchedule checks the intended start times of a worker that is behind schedule (start
// in the past): Next returns at once, and operation k's time is start + k/rate.
func TestPacerSchedule(t *testing.T) {
	for _, rate := range []float64{1, 3, 1000, 3000, 7e5, 0.5} {
		start := time.Now().Add(-1000 * time.Hour)
		p := NewPacer(start, rate)
		const ops = 1_000_000
		for k := 0; k < ops; k++ {
			at, _, err := p.Next(context.Background())
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
// future, held or not, at a rate whose waits pass through both the runtime timer and the
// nanosleep of the last timerTail (every 10 ms).
func TestPacerWaits(t *testing.T) {
	for _, held := range []bool{false, true} {
		start := time.Now().Add(20 * time.Millisecond)
		p := NewPacer(start, 100)
		if held {
			p.Hold()
		}
		for k := 0; k < 5; k++ {
			at, _, err := p.Next(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if want := start.Add(time.Duration(k) * 10 * time.Millisecond); !at.Equal(want) {
				t.Fatalf("held %v: operation %d intended at %v, want %v", held, k, at.Sub(start), want.Sub(start))
			}
			if now := time.Now(); now.Before(at) {
				t.Fatalf("held %v: Next returned %v before the intended start of operation %d", held, at.Sub(now), k)
			}
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
	_, _, err := p.Next(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Next with a cancelled context = %v, want context.Canceled", err)
	}
	if d := time.Since(begin); d > 5*time.Second {
		t.Fatalf("Next took %v to notice the cancellation", d)
	}

	ctx, cancel2 := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel2()
	if _, _, err := NewPacer(time.Now().Add(time.Hour), 10).Next(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Next past the context's deadline = %v, want context.DeadlineExceeded", err)
	}
}

// TestPoissonSchedule checks a Poisson schedule: the same seed gives the same intended times, a
// gap's mean is 1/rate and its standard deviation too (the exponential distribution's), and
// Peek says what Next takes.
func TestPoissonSchedule(t *testing.T) {
	start := time.Now().Add(-1000 * time.Hour)
	const rate, n = 2000.0, 200_000
	a, b := NewSchedule(start, rate, Poisson, 7), NewSchedule(start, rate, Poisson, 7)
	var sum, sq float64
	prev := start
	for k := 0; k < n; k++ {
		peek := a.Peek()
		at, _, err := a.Next(context.Background())
		if err != nil || !at.Equal(peek) {
			t.Fatalf("operation %d: Next %v (err %v), Peek said %v", k, at.Sub(start), err, peek.Sub(start))
		}
		bt, _, _ := b.Next(context.Background())
		if !bt.Equal(at) {
			t.Fatalf("operation %d: the same seed gave %v and %v", k, at.Sub(start), bt.Sub(start))
		}
		g := at.Sub(prev).Seconds()
		sum, sq, prev = sum+g, sq+g*g, at
	}
	mean := sum / n
	sd := math.Sqrt(sq/n - mean*mean)
	if math.Abs(mean*rate-1) > 0.01 || math.Abs(sd*rate-1) > 0.02 {
		t.Fatalf("gaps: mean %.4g s, sd %.4g s; want both 1/rate = %.4g s", mean, sd, 1/rate)
	}
	if c := NewSchedule(start, rate, Poisson, 8); c.Peek().Equal(NewSchedule(start, rate, Poisson, 7).Peek()) {
		t.Fatal("seeds 7 and 8 gave the same first arrival")
	}
	if _, err := ParseArrivals("bursty"); err == nil {
		t.Fatal("ParseArrivals took bursty")
	}
}

// TestBefore checks the arrivals a pacer counts before a time without taking them one by one:
// exact for uniform ones (k/rate before t), near rate × time for Poisson ones, and none twice.
func TestBefore(t *testing.T) {
	start := time.Now()
	u := NewPacer(start, 1000)
	if n := u.Before(start.Add(10 * time.Millisecond)); n != 10 {
		t.Fatalf("uniform at 1000/s: %d arrivals in the first 10 ms, want 10", n)
	}
	if n := u.Before(start.Add(10500 * time.Microsecond)); n != 1 {
		t.Fatalf("uniform: %d more arrivals by 10.5 ms, want 1 (the one at 10 ms)", n)
	}
	if n := u.Before(start.Add(10500 * time.Microsecond)); n != 0 {
		t.Fatalf("uniform: %d arrivals counted twice", n)
	}
	for _, secs := range []float64{1, 10000} { // counted one by one, then estimated
		p := NewSchedule(start, 1000, Poisson, 3)
		n := p.Before(start.Add(time.Duration(secs * float64(time.Second))))
		if want := 1000 * secs; math.Abs(float64(n)-want) > 5*math.Sqrt(want) {
			t.Fatalf("poisson at 1000/s over %g s: %d arrivals, want about %g", secs, n, want)
		}
	}
}

// BenchmarkPacerSleep measures what a paced operation's sleep costs, on a thread set up as the
// runner's paced workers' (locked, timer slack 1 ns): cpu-µs/op (the process's
// user and system time per operation, getrusage, less a busy goroutine's own), cs/op (the
// process's context switches per operation) and late-µs/op (how long after its intended start
// Next returned, on average). At 1250 operations per second, 800 µs apart: through Go's
// system-call path, and held (Hold: a raw nanosleep that keeps the processor). At 50 per second,
// 20 ms apart (the insert benchmark's background writer in qp1000: 1,000 rows a second, 50 a
// commit), alone (also held) and beside a goroutine that keeps another processor busy (the query
// client), which is when a sleep in a system call sets the runtime's monitor thread polling.
func BenchmarkPacerSleep(b *testing.B) {
	for _, c := range []struct {
		name       string
		rate       float64
		held, busy bool
	}{
		{"syscall", 1250, false, false},
		{"held", 1250, true, false},
		{"timer", 50, false, false},
		{"timer-held", 50, true, false},
		{"timer-busy", 50, false, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			stop, spun := make(chan struct{}), make(chan int64)
			if c.busy {
				go spin(stop, spun)
			}
			// As the runner's paced workers: locked to a thread whose timer slack is 1 ns.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
			defer unix.Prctl(unix.PR_SET_TIMERSLACK, 0, 0, 0, 0)
			p := NewSchedule(time.Now(), c.rate, Uniform, 1)
			if c.held {
				p.Hold()
			}
			c0, cs0 := usage()
			var late time.Duration
			for range b.N {
				at, now, err := p.Next(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				late += now.Sub(at)
			}
			c1, cs1 := usage()
			close(stop)
			if c.busy {
				c1 -= <-spun
			}
			b.ReportMetric(float64(c1-c0)/1e3/float64(b.N), "cpu-µs/op")
			b.ReportMetric(float64(cs1-cs0)/float64(b.N), "cs/op")
			b.ReportMetric(float64(late.Microseconds())/float64(b.N), "late-µs/op")
		})
	}
}

// spin keeps a processor busy until stop is closed, then sends the CPU time its thread used, ns.
func spin(stop <-chan struct{}, spun chan<- int64) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0 := threadCPUNs()
	for x := uint64(1); ; x = x*6364136223846793005 + 1 {
		select {
		case <-stop:
			spun <- threadCPUNs() - t0
			return
		default:
		}
	}
}

// threadCPUNs is the calling thread's CPU time, ns.
func threadCPUNs() int64 {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return ts.Nano()
}

// usage is this process's user and system CPU time, ns, and its context switches (voluntary and
// involuntary).
func usage() (cpuNs, switches int64) {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano(), ru.Nvcsw + ru.Nivcsw
}
