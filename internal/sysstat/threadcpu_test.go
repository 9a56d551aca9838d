package sysstat

import (
	"runtime"
	"testing"
)

// TestThreadCPUNs burns CPU on a locked thread and checks that its clock moves by about as
// much, and that another thread's work does not show on it.
func TestThreadCPUNs(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	spin := func(n int) (x uint64) {
		for i := 0; i < n; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
		return x
	}
	t0 := ThreadCPUNs()
	spin(50_000_000)
	used := ThreadCPUNs() - t0
	if t0 < 0 || used < 1_000_000 {
		t.Fatalf("thread clock %d, moved %d ns over a busy loop", t0, used)
	}
	done := make(chan struct{})
	go func() { spin(50_000_000); close(done) }() // another thread
	t1 := ThreadCPUNs()
	<-done
	if idle := ThreadCPUNs() - t1; idle > used/4 {
		t.Errorf("the locked thread's clock moved %d ns while another thread worked (%d ns for our own loop)", idle, used)
	}
	if n := testing.AllocsPerRun(100, func() { ThreadCPUNs() }); n != 0 {
		t.Errorf("%g allocations per call", n)
	}
}
