package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/memcap"
)

// cgroupTree lists the cgroups under this process's own memory cgroup, or skips the test when
// no cgroup can be created here (not root, no delegation).
func cgroupTree(t *testing.T) (memcap.Hierarchy, func() []string) {
	t.Helper()
	h, err := memcap.Detect()
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	if err := h.Check(); err != nil {
		t.Skipf("skipping: cgroups cannot be written here: %v", err)
	}
	return h, func() []string {
		var dirs []string
		filepath.WalkDir(h.Own, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, strings.TrimPrefix(p, h.Own))
			}
			return nil
		})
		return dirs
	}
}

var (
	buildOnce sync.Once
	built     string
	buildErr  error
)

// buildBinary builds rumbench once for the tests of this file.
func buildBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "rumbench-bin")
		if err != nil {
			buildErr = err
			return
		}
		built = filepath.Join(dir, "rumbench")
		if out, err := exec.Command("go", "build", "-o", built, ".").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return built
}

// capped starts a capped run of bin and returns it with its stdout and stderr.
func capped(t *testing.T, bin, dir string, args ...string) (*exec.Cmd, *output, *output) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"run", "--memory-limit", "256M", "--store", "none",
		"--out", filepath.Join(dir, "results"), "--data-dir", filepath.Join(dir, "data")}, args...)...)
	var stdout, stderr output
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &stdout, &stderr
}

// waitWorker waits for the run's engine worker to be in its cgroup and returns its pid and the
// cgroup's directory.
func waitWorker(t *testing.T, h memcap.Hierarchy, coordinator int) (int, string) {
	t.Helper()
	prefix := "rumbench-" + strconv.Itoa(coordinator) + "-"
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); {
		entries, _ := os.ReadDir(h.Own)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), prefix) {
				g := memcap.Open(filepath.Join(h.Own, e.Name()), h.Version, 0)
				if pids, _ := g.Procs(); len(pids) > 0 {
					return pids[0], g.Dir
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("no engine worker appeared in a cgroup within 2 minutes")
	return 0, ""
}

func wait(t *testing.T, cmd *exec.Cmd, d time.Duration) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(d):
		cmd.Process.Kill()
		t.Fatalf("the run did not end within %v", d)
	}
}

func gone(pid int) bool { return syscall.Kill(pid, 0) != nil }

// checkClean checks the cgroup tree is as before, the worker is gone and the data removed. The
// cgroups of other live processes (tests of other packages run at the same time) are not this
// run's: a cgroup new since before is a leftover when its owner's pid is gone.
func checkClean(t *testing.T, before, after []string, worker int, dir string) {
	t.Helper()
	for _, c := range after {
		if slices.Contains(before, c) {
			continue
		}
		owner := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(c, "/"), "rumbench-"), "probe-")
		pidText, _, _ := strings.Cut(owner, "-")
		if pid, err := strconv.Atoi(pidText); err == nil && !gone(pid) {
			continue // another live process's cgroup
		}
		t.Errorf("cgroup %s left behind (before %v, after %v)", c, before, after)
	}
	if worker != 0 && !gone(worker) {
		t.Errorf("engine worker %d is still running", worker)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "data")); len(entries) > 1 { // rumbench.lock may stay
		t.Errorf("data left behind: %v", entries)
	}
}

// steps reads the run's steps.json.
func steps(t *testing.T, dir string) []map[string]any {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "results", "*", "steps.json"))
	if len(files) != 1 {
		t.Fatalf("want one steps.json, got %v", files)
	}
	data, _ := os.ReadFile(files[0])
	var out []map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCappedRunLeavesNoCgroup runs two embedded engines under a cap: each runs in a worker in
// its own cgroup, every step has its memory figures, and the cgroup tree is as before.
func TestCappedRunLeavesNoCgroup(t *testing.T) {
	h, tree := cgroupTree(t)
	bin, dir := buildBinary(t), t.TempDir()
	before := tree()
	cmd, stdout, stderr := capped(t, bin, dir, "--engine", "pebble,bbolt", "--steps", "l.i0,qp100", "--rows", "5000", "--query-secs", "1")
	wait(t, cmd, 2*time.Minute)
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit %d\nstderr: %s", code, stderr)
	}
	checkClean(t, before, tree(), 0, dir)
	ss := steps(t, dir)
	if len(ss) != 4 {
		t.Fatalf("%d steps, want 4", len(ss))
	}
	for _, s := range ss {
		mem, _ := s["memory"].(map[string]any)
		if mem == nil || mem["limit_bytes"].(float64) != 256<<20 || mem["cgroup_version"].(float64) != float64(h.Version) || mem["usage_bytes"].(float64) <= 0 {
			t.Errorf("%v %v: memory %v", s["target"], s["step"], mem)
		}
	}
	for _, want := range []string{"pebble: engine worker pid", "bbolt: engine worker pid", "(cap 256.0 MiB)"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stdout.String(), "invariants bbolt: ok") {
		t.Errorf("stdout: %s", stdout)
	}
}

// TestCappedRunInterrupted interrupts a capped run (SIGINT, as Ctrl-C): exit 130, the step
// recorded as interrupted, no worker and no cgroup left.
func TestCappedRunInterrupted(t *testing.T) {
	h, tree := cgroupTree(t)
	bin, dir := buildBinary(t), t.TempDir()
	before := tree()
	cmd, _, stderr := capped(t, bin, dir, "--engine", "pebble", "--steps", "l.i0,qp100", "--rows", "10000", "--query-secs", "60")
	worker, _ := waitWorker(t, h, cmd.Process.Pid)
	stderr.waitTick(t, cmd, "qp100")
	cmd.Process.Signal(syscall.SIGINT)
	wait(t, cmd, 45*time.Second)
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit %d, want 130\nstderr: %s", code, stderr)
	}
	checkClean(t, before, tree(), worker, dir)
	ss := steps(t, dir)
	if last := ss[len(ss)-1]; last["status"] != "interrupted" {
		t.Errorf("last step %v %v", last["step"], last["status"])
	}
}

// TestCappedWorkerKilled kills the engine's worker in the middle of a step: the step fails
// naming the worker's death, the run ends with exit 1, and no cgroup is left.
func TestCappedWorkerKilled(t *testing.T) {
	h, tree := cgroupTree(t)
	bin, dir := buildBinary(t), t.TempDir()
	before := tree()
	cmd, _, stderr := capped(t, bin, dir, "--engine", "pebble", "--steps", "l.i0,qp100", "--rows", "10000", "--query-secs", "60")
	worker, _ := waitWorker(t, h, cmd.Process.Pid)
	stderr.waitTick(t, cmd, "qp100")
	syscall.Kill(worker, syscall.SIGKILL)
	wait(t, cmd, 45*time.Second)
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit %d, want 1\nstderr: %s", code, stderr)
	}
	if want := "rumbench: pebble: qp100: the engine worker (pid " + strconv.Itoa(worker) + ") died: signal: killed"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	checkClean(t, before, tree(), worker, dir)
	ss := steps(t, dir)
	if last := ss[len(ss)-1]; last["step"] != "qp100" || last["status"] != "failed" {
		t.Errorf("last step %v %v", last["step"], last["status"])
	}
}

// TestCappedOOM gives pebble memtables far above its share of the cap (an engine option given
// explicitly wins over the cap's rule): the kernel kills its worker, the step fails naming the
// cap, and the next engine still runs; no cgroup is left.
func TestCappedOOM(t *testing.T) {
	_, tree := cgroupTree(t)
	bin, dir := buildBinary(t), t.TempDir()
	before := tree()
	cmd := exec.Command(bin, "run", "--engine", "pebble,null", "--engine-opt", "pebble.memtable_mb=64", "--cache-mb", "8",
		"--memory-limit", "64M", "--steps", "l.i0", "--rows", "1000000", "--store", "none", "--quiet", "--out", filepath.Join(dir, "results"), "--data-dir", filepath.Join(dir, "data"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	wait(t, cmd, 3*time.Minute)
	want := "rumbench: pebble: l.i0: out of memory under the cap of 64.0 MiB (--memory-limit): the kernel killed the engine\n"
	if code := cmd.ProcessState.ExitCode(); code != 1 || stderr.String() != want {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr.String(), want)
	}
	checkClean(t, before, tree(), 0, dir)
	ss := steps(t, dir)
	if len(ss) != 2 || ss[0]["status"] != "failed" || ss[1]["target"] != "null" || ss[1]["status"] != "ok" {
		t.Errorf("steps: %v", ss)
	}
	if !strings.Contains(stdout.String(), "invariants null:") {
		t.Errorf("the next engine did not run: %s", stdout.String())
	}
}

// TestMemoryLimitRefused runs a capped run as a user who cannot create cgroups: one line
// saying what is needed, exit 2, nothing done.
func TestMemoryLimitRefused(t *testing.T) {
	cgroupTree(t) // a host with a memory controller (and root, to switch users)
	if _, err := exec.LookPath("runuser"); err != nil {
		t.Skip("skipping: no runuser")
	}
	dir, err := os.MkdirTemp("", "rumbench-refused")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o777)
	bin := filepath.Join(dir, "rumbench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	os.Chmod(bin, 0o755)
	cmd := exec.Command("runuser", "-u", "nobody", "--", bin, "run", "--engine", "pebble", "--memory-limit", "256M", "--store", "none",
		"--out", filepath.Join(dir, "results"), "--data-dir", filepath.Join(dir, "data"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 2 || strings.Count(stderr.String(), "\n") != 1 ||
		!strings.HasPrefix(stderr.String(), "rumbench: --memory-limit needs root or a delegated cgroup: cannot create ") {
		t.Errorf("exit %d, stderr %q", cmd.ProcessState.ExitCode(), stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "results")); !os.IsNotExist(err) {
		t.Errorf("the refused run left %s: %v", filepath.Join(dir, "results"), err)
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built != "" {
		os.RemoveAll(filepath.Dir(built))
	}
	os.Exit(code)
}
