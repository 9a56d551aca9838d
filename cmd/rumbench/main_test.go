package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// output is a command's stdout or stderr, safe to read while the command writes it.
type output struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.Write(p)
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

// waitTick waits until the run's progress (on stderr, without --quiet) has a line of step's:
// the step is running. Two minutes are a guard against a hang only; a loaded host just takes
// longer to get there.
func (o *output) waitTick(t *testing.T, cmd *exec.Cmd, step string) {
	t.Helper()
	tick := regexp.MustCompile(`(?m)^\S+ +` + regexp.QuoteMeta(step) + ` +\d+s `)
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if tick.MatchString(o.String()) {
			return
		}
	}
	cmd.Process.Kill()
	t.Fatalf("no progress line of %s within 2 minutes:\n%s", step, o)
}

// TestSIGINT builds the binary, interrupts a run with SIGINT and checks the clean stop: exit
// code 130, the results written, the message on stderr.
func TestSIGINT(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "rumbench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "run", "--engine", "sqlite", "--steps", "qp100", "--query-secs", "60",
		"--out", filepath.Join(dir, "results"), "--data-dir", filepath.Join(dir, "data"))
	var stdout, stderr output
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stderr.waitTick(t, cmd, "qp100")
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the run did not stop within 30 s of SIGINT")
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit code %d, want 130\nstderr: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "rumbench: interrupted; results measured so far are written") {
		t.Errorf("stderr: %s", stderr.String())
	}
	runs, _ := filepath.Glob(filepath.Join(dir, "results", "*", "steps.json"))
	if len(runs) != 1 {
		t.Fatalf("want one steps.json, got %v", runs)
	}
	data, _ := os.ReadFile(runs[0])
	if !strings.Contains(string(data), `"status": "interrupted"`) || !strings.Contains(stdout.String(), "== qp100") {
		t.Errorf("steps.json or stdout lacks the interrupted step:\n%s\n%s", data, stdout.String())
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "data")); len(entries) != 0 {
		t.Errorf("data left behind: %v", entries)
	}
}

// TestKilledRun runs rumbench, starts a second run on its data directory (refused, naming the
// holder), kills the first with SIGKILL, and checks what is left: the store shows the run as
// abandoned, and a new run takes the dead run's lock over with a warning.
func TestKilledRun(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "rumbench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	out, data := filepath.Join(dir, "results"), filepath.Join(dir, "data")
	first := exec.Command(bin, "run", "--engine", "sqlite", "--steps", "qp100", "--query-secs", "60", "--out", out, "--data-dir", data)
	var progress output
	first.Stderr = &progress
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer first.Process.Kill()
	progress.waitTick(t, first, "qp100") // the data directory is locked by now

	second := exec.Command(bin, "run", "--engine", "pebble", "--steps", "l.i0", "--rows", "1000", "--out", out, "--data-dir", data)
	msg, _ := second.CombinedOutput()
	want := "is in use by another rumbench run (pid " + strconv.Itoa(first.Process.Pid)
	if second.ProcessState.ExitCode() != 2 || !strings.Contains(string(msg), want) || strings.Count(string(msg), "\n") != 1 {
		t.Errorf("second run on the same data dir: exit %d, output %q; want exit 2 and one line with %q", second.ProcessState.ExitCode(), msg, want)
	}

	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	first.Wait()
	runs, err := exec.Command(bin, "runs", "--out", out).CombinedOutput()
	if err != nil || !strings.Contains(string(runs), "abandoned") {
		t.Errorf("runs after the kill: %v\n%s", err, runs)
	}

	third := exec.Command(bin, "run", "--engine", "sqlite", "--steps", "l.i0", "--rows", "1000", "--fresh", "--out", out, "--data-dir", data)
	msg, err = third.CombinedOutput()
	if err != nil || !strings.Contains(string(msg), "was locked by a run that is gone (pid "+strconv.Itoa(first.Process.Pid)) {
		t.Errorf("run after the kill: %v\n%s", err, msg)
	}
	if entries, _ := os.ReadDir(data); len(entries) != 0 {
		t.Errorf("left in the data dir: %v", entries)
	}
}
