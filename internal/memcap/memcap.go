// Package memcap caps the memory of an engine with a Linux memory cgroup: the engine's process
// memory and the page cache of the files it reads and writes share one limit, so a database a
// few times larger than the cap leaves memory on any host. It finds the memory controller in
// /proc/self/mountinfo (cgroup v1 memory.limit_in_bytes or v2 memory.max), creates a child of
// this process's own cgroup, moves processes into it, reads its figures (memory.stat, the OOM
// kill count, v2 pressure) and removes it.
package memcap

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Hierarchy is where the memory controller is mounted and where this process sits in it.
type Hierarchy struct {
	// Version is 1 (the v1 memory controller, memory.limit_in_bytes) or 2 (the unified
	// hierarchy, memory.max).
	Version int
	// Mount is the controller's mount point (/sys/fs/cgroup/memory, /sys/fs/cgroup).
	Mount string
	// Own is this process's cgroup in that hierarchy, as a directory under Mount.
	Own string
}

// Detect finds the memory controller: a v1 hierarchy with the memory controller if one is
// mounted (a hybrid host's v2 hierarchy then has no memory controller), else the v2 hierarchy
// when its cgroup.controllers lists memory. It returns an error that says what is missing.
func Detect() (Hierarchy, error) {
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return Hierarchy{}, err
	}
	cg, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return Hierarchy{}, err
	}
	return detect(string(mi), string(cg), func(p string) ([]byte, error) { return os.ReadFile(p) })
}

// detect is Detect over the text of mountinfo and /proc/self/cgroup; read reads a file (the
// v2 root's cgroup.controllers).
func detect(mountinfo, cgroup string, read func(string) ([]byte, error)) (Hierarchy, error) {
	var v1, v2 string
	for _, line := range strings.Split(mountinfo, "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(g) < 3 {
			continue
		}
		switch g[0] {
		case "cgroup":
			for _, o := range strings.Split(g[2], ",") {
				if o == "memory" && v1 == "" {
					v1 = unescape(f[4])
				}
			}
		case "cgroup2":
			if v2 == "" {
				v2 = unescape(f[4])
			}
		}
	}
	// This process's path in each hierarchy: "N:memory:/a/b" (v1), "0::/a/b" (v2).
	var p1, p2 string
	for _, line := range strings.Split(cgroup, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			p2 = parts[2]
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "memory" {
				p1 = parts[2]
			}
		}
	}
	if v1 != "" && p1 != "" {
		return Hierarchy{Version: 1, Mount: v1, Own: filepath.Join(v1, p1)}, nil
	}
	if v2 != "" {
		ctl, err := read(filepath.Join(v2, "cgroup.controllers"))
		if err == nil && hasWord(string(ctl), "memory") {
			return Hierarchy{Version: 2, Mount: v2, Own: filepath.Join(v2, p2)}, nil
		}
	}
	return Hierarchy{}, errors.New("no memory cgroup controller is mounted (neither cgroup v1 memory nor cgroup v2 with memory in cgroup.controllers)")
}

func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}

// unescape undoes mountinfo's octal escapes (\040 for a space).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ParseSize parses a --memory-limit value: a number of bytes with an optional suffix K, M, G
// or T (powers of 1024; "KiB", "MB", "mb" are taken as the same), or "none" for no cap (0).
// Sizes below MinLimit are refused.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(strings.ToLower(s))
	if t == "none" {
		return 0, nil
	}
	t = strings.TrimSuffix(strings.TrimSuffix(t, "b"), "i")
	mult := int64(1)
	if t != "" {
		switch t[len(t)-1] {
		case 'k':
			mult = 1 << 10
		case 'm':
			mult = 1 << 20
		case 'g':
			mult = 1 << 30
		case 't':
			mult = 1 << 40
		}
		if mult > 1 {
			t = t[:len(t)-1]
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v <= 0 || v*float64(mult) > 1<<60 {
		return 0, fmt.Errorf("--memory-limit %q: want a size such as 512M or 2G, or none", s)
	}
	n := int64(v * float64(mult))
	if n < MinLimit {
		return 0, fmt.Errorf("--memory-limit %q: must be at least 64M, or none (an engine worker's Go runtime alone holds about 13 MiB, and its Go heap gets a quarter of the cap)", s)
	}
	return n, nil
}

// MinLimit is the smallest cap ParseSize accepts, bytes: a quarter of it is 16 MiB, the Go
// heap share of an engine worker whose Go runtime holds about 13 MiB at rest (measured under a
// 32 MiB cap, where the worker's 8 MiB Go limit could not be kept and RocksDB's l.x was killed).
const MinLimit = 64 << 20

// Group is one memory cgroup rumbench created.
type Group struct {
	// Dir is the cgroup's directory.
	Dir string
	// Version is the hierarchy's version (1 or 2).
	Version int
	// Limit is the cap, bytes.
	Limit int64
}

// Check makes sure a cgroup can be created, capped and removed under the own cgroup, by doing
// it once with a probe cgroup. The error says what is needed.
func (h Hierarchy) Check() error {
	g, err := h.Create(fmt.Sprintf("rumbench-probe-%d", os.Getpid()), MinLimit)
	if err != nil {
		return err
	}
	return g.Remove()
}

// Create makes the cgroup name under this process's own cgroup and caps it at limit bytes
// (swap included where the kernel accounts it, so the cap is not escaped by swapping). The
// error names what is needed when permission is missing.
func (h Hierarchy) Create(name string, limit int64) (*Group, error) {
	dir := filepath.Join(h.Own, name)
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		if errors.Is(err, os.ErrPermission) || errors.Is(err, syscall.EROFS) {
			return nil, fmt.Errorf("--memory-limit needs root or a delegated cgroup: cannot create %s (%v)", dir, errors.Unwrap(err))
		}
		return nil, fmt.Errorf("--memory-limit: cannot create cgroup %s: %w", dir, err)
	}
	g := &Group{Dir: dir, Version: h.Version, Limit: limit}
	if err := g.setLimit(); err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("--memory-limit needs a writable memory cgroup: %w", err)
	}
	return g, nil
}

// Open returns the cgroup at dir, created by another rumbench process (a worker reads the
// figures of the cgroup its coordinator created).
func Open(dir string, version int, limit int64) *Group {
	return &Group{Dir: dir, Version: version, Limit: limit}
}

func (g *Group) setLimit() error {
	v := strconv.FormatInt(g.Limit, 10)
	if g.Version == 1 {
		if err := g.write("memory.limit_in_bytes", v); err != nil {
			return err
		}
		// memsw exists only with swap accounting; no swap, nothing to escape to.
		if _, err := os.Stat(filepath.Join(g.Dir, "memory.memsw.limit_in_bytes")); err == nil {
			g.write("memory.memsw.limit_in_bytes", v)
		}
		return nil
	}
	if err := g.write("memory.max", v); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(g.Dir, "memory.swap.max")); err == nil {
		g.write("memory.swap.max", "0")
	}
	return nil
}

func (g *Group) write(file, v string) error {
	return os.WriteFile(filepath.Join(g.Dir, file), []byte(v), 0)
}

// Add moves process pid (all its threads) into the cgroup; processes it starts afterwards are
// born there.
func (g *Group) Add(pid int) error {
	if err := g.write("cgroup.procs", strconv.Itoa(pid)); err != nil {
		return fmt.Errorf("memcap: moving pid %d into %s: %w", pid, g.Dir, err)
	}
	return nil
}

// Procs returns the pids in the cgroup.
func (g *Group) Procs() ([]int, error) {
	data, err := os.ReadFile(filepath.Join(g.Dir, "cgroup.procs"))
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		if n, err := strconv.Atoi(f); err == nil {
			pids = append(pids, n)
		}
	}
	return pids, nil
}

// Remove kills whatever is left in the cgroup (SIGKILL), waits for it to go (up to 10 s) and
// removes the cgroup. Removing a cgroup that is gone is not an error. The page cache charged to
// it moves to the parent.
func (g *Group) Remove() error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := os.Remove(g.Dir)
		if err == nil || errors.Is(err, os.ErrNotExist) {
			return nil
		}
		pids, _ := g.Procs()
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGKILL)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("memcap: cannot remove cgroup %s (%d processes left): %w", g.Dir, len(pids), err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Contains says whether pid is in the cgroup (in its cgroup.procs).
func (g *Group) Contains(pid int) bool {
	pids, _ := g.Procs()
	for _, p := range pids {
		if p == pid {
			return true
		}
	}
	return false
}

// readKV reads a "key value" file (memory.stat, memory.events, memory.oom_control).
func readKV(path string) (map[string]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
			out[k] = n
		}
	}
	return out, sc.Err()
}
