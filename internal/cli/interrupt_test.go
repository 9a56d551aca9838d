package cli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/memcap"
	"github.com/rumbench/rumbench/internal/results"
)

// TestQuietInterruptCleansUp interrupts a --quiet run whose engine runs in a worker process
// under a memory cap the way timeout(1) does: SIGINT to rumbench and then to its process group
// (twice at once), and once more while it stops. The run stops cleanly: exit 130 with the
// interrupt line on stderr, the worker gone, its cgroup removed, the engine's data removed,
// and the interrupted step kept in the run directory.
func TestQuietInterruptCleansUp(t *testing.T) {
	h, err := memcap.Detect()
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	if err := h.Check(); err != nil {
		t.Skipf("skipping: cgroups cannot be written here: %v", err)
	}
	out, data, d := dirs(t)
	cmd := exec.Command(os.Args[0], append([]string{"run", "--engine", "sqlite", "--memory-limit", "64M", "--cache-mb", "16", "--rows", "5000000",
		"--steps", "l.i0", "--quiet"}, d...)...)
	cmd.Env = append(os.Environ(), childMain+"=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Its own process group, as under timeout(1); killed with the test binary should it die.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	defer cmd.Process.Kill()
	g := memcap.Open(filepath.Join(h.Own, "rumbench-"+strconv.Itoa(pid)+"-sqlite"), h.Version, 0)

	// Wait until the worker is in its cgroup and the step has recorded an interval.
	var workers []int
	var runDir string
	for i := 0; i < 1200 && (len(workers) == 0 || runDir == ""); i++ {
		time.Sleep(50 * time.Millisecond)
		workers, _ = g.Procs()
		ivs, _ := filepath.Glob(filepath.Join(out, "*", "intervals.jsonl"))
		if len(ivs) == 1 {
			if st, err := os.Stat(ivs[0]); err == nil && st.Size() > 0 {
				runDir = filepath.Dir(ivs[0])
			}
		}
	}
	if len(workers) == 0 || runDir == "" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the step never ran in a worker (workers %v, run dir %q): %s", workers, runDir, stderr.String())
	}
	syscall.Kill(pid, syscall.SIGINT)
	syscall.Kill(-pid, syscall.SIGINT)
	time.Sleep(30 * time.Millisecond) // in the middle of the clean stop
	syscall.Kill(pid, syscall.SIGINT)
	err = cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) && !ee.Exited() {
		t.Errorf("rumbench was killed (%v) instead of stopping cleanly; stderr %q", ee, stderr.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != ExitInterrupted {
		t.Errorf("exit %d, want %d; stderr %q", code, ExitInterrupted, stderr.String())
	}
	if want := "rumbench: interrupted; results measured so far are written\n"; !strings.HasSuffix(stderr.String(), want) {
		t.Errorf("stderr %q does not end with %q", stderr.String(), want)
	}
	for _, w := range workers {
		if err := syscall.Kill(w, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("worker pid %d is still there (%v)", w, err)
		}
	}
	if _, err := os.Stat(g.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cgroup %s left behind (%v)", g.Dir, err)
	}
	if left, _ := filepath.Glob(filepath.Join(h.Own, "rumbench-"+strconv.Itoa(pid)+"-*")); len(left) > 0 {
		t.Errorf("cgroups left behind: %v", left)
	}
	if _, err := os.Stat(filepath.Join(data, "sqlite")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the engine's data dir is still there (%v)", err)
	}
	r, err := results.Load(runDir)
	if err != nil {
		t.Fatal(err)
	}
	if r.Manifest.Status != results.StatusInterrupted {
		t.Errorf("run status %s, want %s", r.Manifest.Status, results.StatusInterrupted)
	}
	if len(r.Steps) != 1 || r.Steps[0].Step != "l.i0" || r.Steps[0].Status != results.StatusInterrupted || r.Steps[0].Ops == 0 {
		t.Errorf("steps kept: %+v", r.Steps)
	}
}

// TestInterruptVersionProbe interrupts rumbench while a --server-bin directory's postgres, which
// never answers and leaves a child holding its output, is asked its version: rumbench stops at
// once, exit 130, and says what it was doing; nothing was run or written, and the program is
// gone.
func TestInterruptVersionProbe(t *testing.T) {
	out, _, d := dirs(t)
	bin := t.TempDir()
	started := filepath.Join(bin, "started")
	script := "#!/bin/sh\nsleep 600 &\necho $$ > " + started + "\nwait\n"
	for _, p := range []string{"postgres", "initdb"} {
		os.WriteFile(filepath.Join(bin, p), []byte(script), 0o755)
	}
	cmd := exec.Command(os.Args[0], append([]string{"run", "--workload", "sysbench", "--engine", "postgres",
		"--server-bin", bin + ",/usr/lib/postgresql/15/bin", "--quiet"}, d...)...)
	cmd.Env = append(os.Environ(), childMain+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var pid []byte
	for i := 0; i < 500 && len(pid) == 0; i++ {
		time.Sleep(20 * time.Millisecond)
		pid, _ = os.ReadFile(started)
	}
	if len(pid) == 0 {
		t.Fatalf("the version probe never started: %s", stderr.String())
	}
	syscall.Kill(cmd.Process.Pid, syscall.SIGINT)
	cmd.Wait()
	want := "rumbench: interrupted while --server-bin " + bin + " was asked its version; nothing was run\n"
	if code := cmd.ProcessState.ExitCode(); code != ExitInterrupted || stderr.String() != want {
		t.Errorf("exit %d, stderr %q; want %d, %q", code, stderr.String(), ExitInterrupted, want)
	}
	if left, _ := os.ReadDir(out); len(left) != 0 {
		t.Errorf("the interrupted run left %v in --out", left)
	}
	if stat, err := os.ReadFile("/proc/" + strings.TrimSpace(string(pid)) + "/stat"); err == nil && !strings.Contains(string(stat), ") Z") {
		t.Errorf("the probed program (pid %s) still runs", strings.TrimSpace(string(pid)))
	}
}
