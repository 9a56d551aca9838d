package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/memcap"
	"github.com/rumbench/rumbench/internal/results"
)

// TestIOBoundProfile checks the cache and cap the iobound profile sets, and that --memory-limit
// none and --cache-mb win over it.
func TestIOBoundProfile(t *testing.T) {
	for _, c := range []struct {
		args         []string
		limit, cache int64
	}{
		{[]string{"--profile", "iobound"}, 256 << 20, 32 << 20},
		{[]string{"--profile", "iobound", "--memory-limit", "none"}, 0, 32 << 20},
		{[]string{"--profile", "iobound", "--memory-limit", "1G", "--cache-mb", "8"}, 1 << 30, 8 << 20},
		{[]string{"--profile", "quick"}, 0, 64 << 20},
	} {
		env := &Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Args: c.args, Now: time.Now, Getenv: func(string) string { return "" }}
		cmd, f := newRunFlags(env, "", false)
		if err := cmd.ParseFlags(c.args); err != nil {
			t.Fatal(err)
		}
		cfg, err := buildConfig(context.Background(), cmd, env, f)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if cfg.MemoryLimit != c.limit || cfg.CacheMB<<20 != c.cache {
			t.Errorf("%v: cap %d, cache %d; want %d, %d", c.args, cfg.MemoryLimit, cfg.CacheMB<<20, c.limit, c.cache)
		}
	}
}

// TestServerCapped runs PostgreSQL under a cap: its processes are in the cgroup, rumbench is
// not, the steps carry the cgroup's figures and the cgroup is gone afterwards.
func TestServerCapped(t *testing.T) {
	h, err := memcap.Detect()
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	if err := h.Check(); err != nil {
		t.Skipf("skipping: cgroups cannot be written here: %v", err)
	}
	out, _, d := dirs(t)
	done := make(chan transcript, 1)
	go func() {
		done <- run(t, nil, append([]string{"run", "--engine", "postgres", "--rows", "2000", "--steps", "l.i0,qp100",
			"--query-secs", "3", "--memory-limit", "256M", "--quiet"}, d...)...)
	}()
	name := "rumbench-" + strconv.Itoa(os.Getpid()) + "-postgres"
	var seen []int
	for i := 0; i < 600 && len(seen) == 0; i++ {
		g := memcap.Open(filepath.Join(h.Own, name), h.Version, 0)
		if pids, _ := g.Procs(); len(pids) > 1 {
			time.Sleep(time.Second) // in qp100 by now
			seen, _ = g.Procs()
		}
		time.Sleep(50 * time.Millisecond)
	}
	tr := <-done
	if tr.code != 0 {
		t.Fatalf("exit %d: %s", tr.code, tr.stderr)
	}
	if len(seen) == 0 {
		t.Fatal("no process was seen in the cgroup")
	}
	for _, pid := range seen {
		comm, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
		if pid == os.Getpid() || (len(comm) > 0 && strings.TrimSpace(string(comm)) != "postgres") {
			t.Errorf("pid %d (%s) is in the server's cgroup", pid, strings.TrimSpace(string(comm)))
		}
	}
	t.Logf("%d processes in the cgroup", len(seen))
	_, _, steps := readRun(t, out)
	for _, s := range steps {
		if s.Memory == nil || s.Memory.LimitBytes != 256<<20 || s.Memory.CacheBytes+s.Memory.AnonBytes <= 0 {
			t.Errorf("%s: memory %+v", s.Step, s.Memory)
		}
	}
	// Only this process's cgroups: other packages' tests may run capped at the same time.
	after, _ := os.ReadDir(h.Own)
	for _, e := range after {
		if strings.HasPrefix(e.Name(), "rumbench-"+strconv.Itoa(os.Getpid())+"-") || e.Name() == "rumbench-probe-"+strconv.Itoa(os.Getpid()) {
			t.Errorf("cgroup %s left behind", e.Name())
		}
	}
}

// TestIOBoundUnderCap runs the iobound profile's whole sequence (every step, then the invariant
// check, then the close) on each embedded engine under a cap, at a small scale that keeps what
// the profile does to memory: a 64 MiB cap and an 8 MiB cache (the profile's eighth of the cap),
// the B-trees' data a few times the cap, the engines' memtables, sort runs and check scans
// sized from the cap. Every target must end ok with its check run, within the shares of the
// cap the manifest records.
func TestIOBoundUnderCap(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: runs six engines under a cap for minutes")
	}
	h, err := memcap.Detect()
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	if err := h.Check(); err != nil {
		t.Skipf("skipping: cgroups cannot be written here: %v", err)
	}
	var engines []string
	for _, e := range []string{"pebble", "rocksdb", "wiredtiger", "bbolt", "lmdb", "sqlite"} {
		if s, ok := engine.Lookup(e); ok && s.Unavailable == "" {
			engines = append(engines, e)
		}
	}
	out, _, d := dirs(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	p := startRumbench(t, ctx, append([]string{"run", "--profile", "iobound", "--engine", strings.Join(engines, ","),
		"--memory-limit", "64M", "--cache-mb", "8", "--rows", "300000", "--writes", "40000", "--query-secs", "1",
		"--quiet", "--store", "none"}, d...)...)
	waitAll(p)
	if p.code != 0 {
		t.Fatalf("exit %d: %s", p.code, p.stderr.String())
	}
	_, m, steps := readRun(t, out)
	if m.Memory == nil || m.Memory.LimitBytes != 64<<20 || m.Memory.EngineBytes != 32<<20 || m.Memory.GoLimitBytes != 16<<20 {
		t.Errorf("manifest memory %+v: want the cap 64 MiB, the engine's share 32, the Go heap's 16", m.Memory)
	}
	if len(m.Targets) != len(engines) {
		t.Fatalf("%d targets recorded, want %d (%v)", len(m.Targets), len(engines), engines)
	}
	for _, tg := range m.Targets {
		if !strings.HasPrefix(tg.Check, "ok: ") {
			t.Errorf("%s: invariant check %q, want ok", tg.Label, tg.Check)
		}
		if mt, ok := tg.Engine.Options["memtable_mb"]; ok && mt != "12" {
			t.Errorf("%s: memtable_mb %s, want 12 (the share less the cache, two ways)", tg.Label, mt)
		}
		n := 0
		for _, s := range steps {
			if s.Target == tg.Label {
				n++
				// Degraded is allowed: a 1 s query step under a cap may measure too few queries.
				if s.Status == results.StatusFailed || s.Memory == nil || s.Memory.OOMKills != 0 {
					t.Errorf("%s %s: status %s, memory %+v", s.Target, s.Step, s.Status, s.Memory)
				}
			}
		}
		if n != 10 {
			t.Errorf("%s: %d steps recorded, want the profile's 10", tg.Label, n)
		}
	}
}
