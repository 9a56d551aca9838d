package cli

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serverTree returns the pids of the processes whose command line mentions dir (a server's
// main process) and of all their descendants.
func serverTree(dir string) []int {
	parent := map[int]int{}
	var roots []int
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 1 {
			parent[pid], _ = strconv.Atoi(f[1])
		}
		if cmd, err := os.ReadFile(filepath.Join(filepath.Dir(p), "cmdline")); err == nil && strings.Contains(string(cmd), dir) {
			roots = append(roots, pid)
		}
	}
	in := map[int]bool{}
	for _, r := range roots {
		in[r] = true
	}
	for changed := true; changed; {
		changed = false
		for pid, pp := range parent {
			if in[pp] && !in[pid] {
				in[pid], changed = true, true
			}
		}
	}
	var out []int
	for pid := range in {
		out = append(out, pid)
	}
	return out
}

// TestStalledServerInterrupt stops (SIGSTOP) a managed server in the middle of a query step,
// then interrupts the run: it must end within 5 s with exit 130, keep what it measured and
// leave no server process behind.
func TestStalledServerInterrupt(t *testing.T) {
	for _, eng := range []string{"postgres", "mysql"} {
		t.Run(eng, func(t *testing.T) {
			out, data, d := dirs(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var stoppedAt time.Time
			go func() {
				for ctx.Err() == nil {
					entries, _ := filepath.Glob(filepath.Join(out, "*", "intervals.jsonl"))
					if len(entries) == 1 {
						if b, _ := os.ReadFile(entries[0]); strings.Count(string(b), `"step":"qp100"`) >= 1 {
							pids := serverTree(data)
							for _, pid := range pids {
								syscall.Kill(pid, syscall.SIGSTOP)
							}
							time.Sleep(1500 * time.Millisecond) // let the run notice nothing answers
							t.Logf("stopped %d server processes", len(pids))
							stoppedAt = time.Now()
							cancel()
							return
						}
					}
					time.Sleep(100 * time.Millisecond)
				}
			}()
			tr := run(t, ctx, append([]string{"run", "--engine", eng, "--steps", "qp100", "--query-secs", "60", "--quiet"}, d...)...)
			took := time.Since(stoppedAt)
			t.Logf("ended %v after Ctrl-C", took.Round(time.Millisecond))
			if tr.code != ExitInterrupted {
				t.Errorf("exit %d, stderr %q", tr.code, tr.stderr)
			}
			if stoppedAt.IsZero() || took > 5*time.Second {
				t.Errorf("the run ended %v after Ctrl-C, want within 5 s", took)
			}
			if _, m, steps := readRun(t, out); m.Status != "interrupted" || len(steps) != 1 {
				t.Errorf("status %s, %d steps", m.Status, len(steps))
			}
			assertNoServerProcess(t, data)
			if left := serverTree(data); len(left) > 0 {
				t.Errorf("server processes left: %v", left)
			}
		})
	}
}

// TestInterruptDuringServerStart interrupts a run while its server starts: exit 130 (not a
// failure), and no server process left.
func TestInterruptDuringServerStart(t *testing.T) {
	_, data, d := dirs(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(300*time.Millisecond, cancel) // initdb takes longer than that
	tr := run(t, ctx, append([]string{"run", "--engine", "postgres", "--steps", "l.i0", "--quiet"}, d...)...)
	if tr.code != ExitInterrupted || !strings.Contains(tr.stderr, "interrupted") {
		t.Errorf("exit %d, stderr %q", tr.code, tr.stderr)
	}
	assertNoServerProcess(t, data)
}
