package vssysbench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rumbench/rumbench/internal/sysstat"
)

// userHZ is the unit of utime and stime in /proc/<pid>/stat (USER_HZ, 100 on Linux).
const userHZ = 100

// cpuSample is one reading of a process's CPU: utime+stime in seconds at a wall-clock time.
type cpuSample struct {
	at  time.Time
	cpu float64
}

// readCPU returns utime+stime of pid in seconds, from /proc/<pid>/stat (a zombie's too); with
// children, also cutime+cstime: the CPU of the children pid has reaped.
func readCPU(pid int, children bool) (float64, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	ps, err := sysstat.ParseProcStat(data)
	if err != nil {
		return 0, err
	}
	t := ps.UTime + ps.STime
	if children {
		t += ps.CUTime + ps.CSTime
	}
	return float64(t) / userHZ, nil
}

// cpuAt interpolates the CPU seconds of a sample series at time t (clamped to the series).
func cpuAt(s []cpuSample, t time.Time) float64 {
	if len(s) == 0 {
		return 0
	}
	if !t.After(s[0].at) {
		return s[0].cpu
	}
	for i := 1; i < len(s); i++ {
		if !t.After(s[i].at) {
			a, b := s[i-1], s[i]
			f := float64(t.Sub(a.at)) / float64(b.at.Sub(a.at))
			return a.cpu + f*(b.cpu-a.cpu)
		}
	}
	return s[len(s)-1].cpu
}

// process is a client run from outside: its CPU is sampled every period until it exits, and
// read a last time as a zombie before it is reaped.
type process struct {
	cmd      *exec.Cmd
	children bool // count the CPU of the children it reaps (a client of several processes)
	mu       sync.Mutex
	samples  []cpuSample
	marks    map[string]float64 // CPU seconds when a line containing the key was printed
	out      strings.Builder
}

// runProcess runs name with args, samples its CPU every period and records the CPU at the first
// output line containing each of marks. It returns when the process has exited.
func runProcess(ctx context.Context, period time.Duration, marks []string, name string, args ...string) (*process, error) {
	return run(ctx, false, period, marks, name, args...)
}

// runTree is runProcess for a client that forks processes of its own and reaps them before it
// exits: its samples and marks add the CPU of the children it has reaped (cutime+cstime), so
// that its final figure is that of the whole tree. A child still running is not counted until
// it is reaped.
func runTree(ctx context.Context, period time.Duration, marks []string, name string, args ...string) (*process, error) {
	return run(ctx, true, period, marks, name, args...)
}

func run(ctx context.Context, children bool, period time.Duration, marks []string, name string, args ...string) (*process, error) {
	p := &process{cmd: exec.CommandContext(ctx, name, args...), children: children, marks: map[string]float64{}}
	if children {
		// The client and its children are a process group: a cancellation kills them all.
		p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		p.cmd.Cancel = func() error { return syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL) }
	}
	p.cmd.Stderr = &lockedWriter{p: p}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	pid := p.cmd.Process.Pid
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				p.sample(pid)
			}
		}
	}()
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		p.mu.Lock()
		p.out.WriteString(line + "\n")
		p.mu.Unlock()
		for _, m := range marks {
			if _, seen := p.marks[m]; !seen && strings.Contains(line, m) {
				if c, err := readCPU(pid, p.children); err == nil {
					p.mu.Lock()
					p.marks[m] = c
					p.mu.Unlock()
				}
			}
		}
	}
	// The process has closed its output: wait for its exit without reaping it, read its CPU as a
	// zombie (its final figure), then reap it.
	var info unix.Siginfo
	werr := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
	close(done)
	if werr == nil {
		p.sample(pid)
	}
	err = p.cmd.Wait()
	if err != nil {
		return p, fmt.Errorf("%s: %w\n%s", name, err, tail(p.Output(), 20))
	}
	return p, nil
}

func (p *process) sample(pid int) {
	c, err := readCPU(pid, p.children)
	if err != nil {
		return
	}
	p.mu.Lock()
	p.samples = append(p.samples, cpuSample{at: time.Now(), cpu: c})
	p.mu.Unlock()
}

// Output returns what the process printed (standard output and error).
func (p *process) Output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// total returns the process's CPU seconds at its exit.
func (p *process) total() float64 {
	if len(p.samples) == 0 {
		return 0
	}
	return p.samples[len(p.samples)-1].cpu
}

// window returns the CPU seconds the process spent between from and to.
func (p *process) window(from, to time.Time) float64 {
	return cpuAt(p.samples, to) - cpuAt(p.samples, from)
}

type lockedWriter struct{ p *process }

func (w *lockedWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	return w.p.out.Write(b)
}

var _ io.Writer = (*lockedWriter)(nil)

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
