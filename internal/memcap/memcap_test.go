package memcap

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Captured on a hybrid host (v1 memory controller, v2 without it) and on a v2-only host.
const (
	hybridMountinfo = `31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
`
	hybridCgroup = `9:name=systemd:/
4:memory:/process_api/972baa
1:cpu:/
0::/
`
	v2Mountinfo = `24 30 0:22 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot
30 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw
`
	v2Cgroup = "0::/user.slice/user-1000.slice/session-3.scope\n"
)

func TestDetect(t *testing.T) {
	ctl := func(s string) func(string) ([]byte, error) {
		return func(string) ([]byte, error) { return []byte(s), nil }
	}
	for _, c := range []struct {
		name, mi, cg, controllers string
		want                      Hierarchy
		err                       bool
	}{
		{"hybrid", hybridMountinfo, hybridCgroup, "hugetlb\n", Hierarchy{1, "/sys/fs/cgroup/memory", "/sys/fs/cgroup/memory/process_api/972baa"}, false},
		{"v2", v2Mountinfo, v2Cgroup, "cpuset cpu io memory pids\n", Hierarchy{2, "/sys/fs/cgroup", "/sys/fs/cgroup/user.slice/user-1000.slice/session-3.scope"}, false},
		{"v2 without memory", v2Mountinfo, v2Cgroup, "cpu io\n", Hierarchy{}, true},
		{"none", "30 1 254:1 / / rw - ext4 /dev/vda1 rw\n", "", "", Hierarchy{}, true},
	} {
		got, err := detect(c.mi, c.cg, ctl(c.controllers))
		if (err != nil) != c.err || got != c.want {
			t.Errorf("%s: got %+v, %v; want %+v (error %v)", c.name, got, err, c.want, c.err)
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"512M": 512 << 20, "2G": 2 << 30, "2g": 2 << 30, "1.5GiB": 3 << 29,
		"64MB": 64 << 20, "none": 0, "NONE": 0, "67108864": 64 << 20, "1t": 1 << 40, "65536k": 64 << 20} {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "abc", "-1G", "0", "1M", "63M", "12X", "NaN", "1e30G"} {
		if _, err := ParseSize(in); err == nil || !strings.HasPrefix(err.Error(), "--memory-limit ") {
			t.Errorf("ParseSize(%q): error %v, want one naming the flag", in, err)
		}
	}
}

func TestParsePressure(t *testing.T) {
	some, full, ok := parsePressure("some avg10=1.50 avg60=0.20 avg300=0.00 total=123\nfull avg10=0.75 avg60=0.00 avg300=0.00 total=45\n")
	if !ok || some != 1.5 || full != 0.75 {
		t.Errorf("got %v %v %v", some, full, ok)
	}
	if _, _, ok := parsePressure(""); ok {
		t.Error("empty pressure file read as measured")
	}
}

// writable returns this host's hierarchy, or skips the test when no cgroup can be created here.
func writable(t *testing.T) Hierarchy {
	t.Helper()
	h, err := Detect()
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	if err := h.Check(); err != nil {
		t.Skipf("skipping: cgroups cannot be written here: %v", err)
	}
	return h
}

// TestGroup creates a real cgroup, places a process that fills the page cache in it, reads
// the figures and removes the cgroup with the process still in it.
func TestGroup(t *testing.T) {
	h := writable(t)
	g, err := h.Create("rumbench-test-"+t.Name(), 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Remove()
	// A file of 32 MiB, written from inside the cgroup: its page cache is charged there.
	file := filepath.Join(t.TempDir(), "f")
	cmd := exec.Command("sh", "-c", "read x; dd if=/dev/zero of="+file+" bs=1M count=32 2>/dev/null; sleep 60")
	stdin, _ := cmd.StdinPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if err := g.Add(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	stdin.Write([]byte("go\n"))
	if !g.Contains(cmd.Process.Pid) {
		t.Fatal("the process is not in the cgroup")
	}
	var s Sample
	for i := 0; i < 100; i++ {
		if s, err = g.Sample(); err != nil {
			t.Fatal(err)
		}
		if s.CacheBytes >= 30<<20 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("sample %+v", s)
	if s.CacheBytes < 30<<20 || s.UsageBytes < s.CacheBytes || s.OOMKills != 0 {
		t.Errorf("sample %+v: want >= 30 MiB of page cache charged", s)
	}
	if err := g.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(g.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cgroup %s still there: %v", g.Dir, err)
	}
	cmd.Wait() // killed by Remove
}

// TestOOMKill caps a process that allocates past the cap: the kernel kills it and the cgroup
// counts the kill.
func TestOOMKill(t *testing.T) {
	h := writable(t)
	g, err := h.Create("rumbench-test-"+t.Name(), 32<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Remove()
	// Allocate 256 MiB of anonymous memory with a shell variable that keeps growing.
	cmd := exec.Command("sh", "-c", "read x; s=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx; while :; do s=$s$s; done")
	stdin, _ := cmd.StdinPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := g.Add(cmd.Process.Pid); err != nil {
		cmd.Process.Kill()
		t.Fatal(err)
	}
	stdin.Write([]byte("go\n"))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		t.Logf("exit: %v", err)
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the process was not killed within 30 s")
	}
	if n := g.OOMKills(); n < 1 {
		t.Errorf("oom kills %d, want >= 1", n)
	}
}

// TestSharesOf: the parts of a cap add up to it, in the documented proportions.
func TestSharesOf(t *testing.T) {
	for _, c := range []struct{ limit, engine, goHeap, reserve int64 }{
		{256 << 20, 128 << 20, 64 << 20, 64 << 20},
		{MinLimit, 32 << 20, 16 << 20, 16 << 20},
		{1<<30 + 3, 1<<29 + 1, 1 << 28, 1<<28 + 2}, // rounded down, the rest in reserve
	} {
		s := SharesOf(c.limit)
		if s.Limit != c.limit || s.Engine != c.engine || s.Go != c.goHeap || s.Reserve != c.reserve {
			t.Errorf("SharesOf(%d) = %+v, want engine %d, go %d, reserve %d", c.limit, s, c.engine, c.goHeap, c.reserve)
		}
		if s.Engine+s.Go+s.Reserve != s.Limit {
			t.Errorf("SharesOf(%d): parts add up to %d", c.limit, s.Engine+s.Go+s.Reserve)
		}
	}
}
