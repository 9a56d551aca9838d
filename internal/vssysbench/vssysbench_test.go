package vssysbench

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"
)

func TestCPUAt(t *testing.T) {
	t0 := time.Unix(1000, 0)
	s := []cpuSample{{t0, 1}, {t0.Add(time.Second), 1.5}, {t0.Add(2 * time.Second), 3.5}}
	for _, c := range []struct {
		at   time.Duration
		want float64
	}{{-time.Second, 1}, {0, 1}, {500 * time.Millisecond, 1.25}, {1500 * time.Millisecond, 2.5}, {3 * time.Second, 3.5}} {
		if got := cpuAt(s, t0.Add(c.at)); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("cpuAt(%v) = %v, want %v", c.at, got, c.want)
		}
	}
}

func TestSysbenchOutput(t *testing.T) {
	out := `SQL statistics:
    queries:                             228517 (76000.37 per sec.)
General statistics:
    total time:                          3.0057s
`
	m, mt := sbQueries.FindStringSubmatch(out), sbTime.FindStringSubmatch(out)
	if m == nil || m[1] != "228517" || mt == nil || mt[1] != "3.0057" {
		t.Fatalf("queries %q, time %q", m, mt)
	}
}

// TestProcessCPU runs a process that burns CPU and checks that its CPU, read as a zombie after
// its exit, is counted, and that a mark line records the CPU at the time it was printed.
func TestProcessCPU(t *testing.T) {
	p, err := runProcess(context.Background(), 20*time.Millisecond, []string{"start"}, "sh", "-c",
		`echo start; i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; echo done`)
	if err != nil {
		t.Fatal(err)
	}
	c0, ok := p.marks["start"]
	if !ok {
		t.Fatalf("no mark; output %q", p.Output())
	}
	if p.total()-c0 < 0.05 {
		t.Errorf("CPU after the mark %.3f s, want the loop's (at least 0.05 s)", p.total()-c0)
	}
	last := p.samples[len(p.samples)-1]
	if w := p.window(p.samples[0].at, last.at); math.Abs(w-(last.cpu-p.samples[0].cpu)) > 1e-9 {
		t.Errorf("window over all samples %.3f, want %.3f", w, last.cpu-p.samples[0].cpu)
	}
}

// TestProcessTreeCPU runs a process whose CPU is spent by a child it waits for: runTree counts
// it, runProcess does not.
func TestProcessTreeCPU(t *testing.T) {
	script := `echo start; sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done'; echo done`
	tree, err := runTree(context.Background(), 20*time.Millisecond, []string{"start"}, "sh", "-c", script)
	if err != nil {
		t.Fatal(err)
	}
	own, err := runProcess(context.Background(), 20*time.Millisecond, []string{"start"}, "sh", "-c", script)
	if err != nil {
		t.Fatal(err)
	}
	if c := tree.total() - tree.marks["start"]; c < 0.05 {
		t.Errorf("tree CPU after the mark %.3f s, want the child's loop (at least 0.05 s)", c)
	}
	if c := own.total() - own.marks["start"]; c > 0.03 {
		t.Errorf("the process's own CPU after the mark %.3f s, want about 0 (the loop is its child's)", c)
	}
}

// TestProcessTreeCancel cancels a client whose child would outlive it: the child is killed too.
func TestProcessTreeCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(300 * time.Millisecond)
		cancel()
	}()
	t0 := time.Now()
	p, err := runTree(ctx, 20*time.Millisecond, nil, "sh", "-c", `sleep 30 & echo child $!; wait`)
	if err == nil {
		t.Fatal("no error from a cancelled client")
	}
	if d := time.Since(t0); d > 10*time.Second {
		t.Errorf("runTree returned %v after its start: the child held its output open", d.Round(time.Second))
	}
	var child int
	if _, err := fmt.Sscanf(p.Output(), "child %d", &child); err != nil {
		t.Fatalf("no child pid in %q", p.Output())
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", child))
		if err != nil || strings.Contains(string(data), ") Z ") {
			return // gone, or a zombie waiting for its new parent
		}
		if time.Now().After(deadline) {
			t.Fatalf("child %d still running after the cancellation: %s", child, data)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
