// Package hostnoise measures how far this host's CPU, device flushes and shared cache move over
// time, second by second, and what that movement leaves of a rate measured in three runs
// (Summarize): the floor under which no benchmark on the host reproduces a figure.
package hostnoise

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"runtime"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/rumbench/rumbench/internal/gen"
)

// Probe names one measurement.
type Probe string

// The probes, each on one thread.
const (
	// CPU hashes 16 KiB with SHA-256 in a loop: compute that fits in the core's own caches.
	CPU Probe = "cpu"
	// Device writes 4 KiB with pwrite and flushes it with fdatasync, in a file of Config.Dir:
	// what a commit that syncs waits for.
	Device Probe = "device"
	// Cache follows a random cycle through every cache line of Config.CacheMB MiB (each load's
	// address comes from the one before) on huge pages: the memory a query step's working set
	// of that size reads, from the CPU caches shared with the host's other tenants or from memory.
	Cache Probe = "cache"
)

// Probes lists the probes in the order Run takes them.
var Probes = []Probe{CPU, Device, Cache}

// Unit is what a probe's rate counts, per second.
func (p Probe) Unit() string {
	switch p {
	case CPU:
		return "hashes/s"
	case Device:
		return "syncs/s"
	}
	return "loads/s"
}

// Limits of Config.
const (
	MinSecs, MaxSecs       = MinWindows, 3600
	MinCacheMB, MaxCacheMB = 1, 1024
)

// Config says what Run measures.
type Config struct {
	Probes []Probe
	// Secs is how long each probe runs, in windows of one second (MinSecs..MaxSecs).
	Secs int
	// Dir is where the device probe writes its file (removed at the end); an existing directory.
	Dir string
	// CacheMB is the cache probe's working set, MiB (MinCacheMB..MaxCacheMB).
	CacheMB int
}

// Validate reports the first setting out of its range, as one line.
func (c Config) Validate() error {
	if len(c.Probes) == 0 {
		return fmt.Errorf("--probes: none given: valid are cpu, device, cache")
	}
	if c.Secs < MinSecs || c.Secs > MaxSecs {
		return fmt.Errorf("--secs %d: valid are %d to %d (seconds per probe)", c.Secs, MinSecs, MaxSecs)
	}
	if c.CacheMB < MinCacheMB || c.CacheMB > MaxCacheMB {
		return fmt.Errorf("--cache-mb %d: valid are %d to %d", c.CacheMB, MinCacheMB, MaxCacheMB)
	}
	for _, p := range c.Probes {
		if p == Device {
			if st, err := os.Stat(c.Dir); err != nil || !st.IsDir() {
				return fmt.Errorf("--data-dir %q: not an existing directory (the device probe writes a file in it)", c.Dir)
			}
		}
	}
	return nil
}

// ParseProbe reads a probe's name.
func ParseProbe(s string) (Probe, error) {
	for _, p := range Probes {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("--probes: unknown probe %q: valid are cpu, device, cache", s)
}

// Run runs each of cfg's probes in turn for cfg.Secs seconds and returns each one's rate per
// one-second window. It stops with ctx's error when ctx ends, or a probe's; the windows measured
// until then are returned with the error.
func Run(ctx context.Context, cfg Config) (map[Probe][]float64, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	out := map[Probe][]float64{}
	for _, p := range cfg.Probes {
		rates, err := runProbe(ctx, cfg, p)
		if len(rates) > 0 {
			out[p] = rates
		}
		if err != nil {
			return out, fmt.Errorf("%s probe: %w", p, err)
		}
	}
	return out, nil
}

// runProbe runs one probe on a thread of its own: step does a unit of the probe's work and
// returns how many operations it did.
func runProbe(ctx context.Context, cfg Config, p Probe) ([]float64, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var step func() (int64, error)
	switch p {
	case CPU:
		buf := make([]byte, 16<<10)
		step = func() (int64, error) {
			for range 8 {
				sum := sha256.Sum256(buf)
				buf[0] ^= sum[0]
			}
			return 8, nil
		}
	case Device:
		f, err := os.CreateTemp(cfg.Dir, "rumbench-host-noise-*")
		if err != nil {
			return nil, err
		}
		defer os.Remove(f.Name())
		defer f.Close()
		page := make([]byte, 4096)
		var n int64
		step = func() (int64, error) {
			if _, err := f.WriteAt(page, (n%256)*4096); err != nil {
				return 0, err
			}
			n++
			return 1, unix.Fdatasync(int(f.Fd()))
		}
	case Cache:
		next, free, err := cycle(cfg.CacheMB)
		if err != nil {
			return nil, err
		}
		defer free()
		var at uint64
		step = func() (int64, error) {
			for range 4096 {
				at = next[at]
			}
			return 4096, nil
		}
	default:
		return nil, fmt.Errorf("unknown probe %q", p)
	}
	return windows(ctx, cfg.Secs, step)
}

// windows calls step until secs windows of a second have passed and returns the operations per
// second of each.
func windows(ctx context.Context, secs int, step func() (int64, error)) ([]float64, error) {
	rates := make([]float64, 0, secs)
	start := time.Now()
	var ops int64
	for len(rates) < secs {
		if err := ctx.Err(); err != nil {
			return rates, err
		}
		n, err := step()
		if err != nil {
			return rates, err
		}
		ops += n
		if now := time.Now(); now.Sub(start) >= time.Second {
			rates = append(rates, float64(ops)/now.Sub(start).Seconds())
			start, ops = now, 0
		}
	}
	return rates, nil
}

// hugePage is the size of a transparent huge page.
const hugePage = 2 << 20

// cycle maps mb MiB of memory aligned to huge pages, advised for them, and links one word of
// every 64-byte line into a single random cycle (seeded: the same order every run): next[i] is
// the index of the word after word i. free unmaps it.
func cycle(mb int) (next []uint64, free func(), err error) {
	size := mb << 20
	raw, err := unix.Mmap(-1, 0, size+hugePage, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, nil, err
	}
	free = func() { unix.Munmap(raw) }
	off := (hugePage - int(uintptr(unsafe.Pointer(&raw[0]))%hugePage)) % hugePage
	mem := raw[off : off+size]
	unix.Madvise(mem, unix.MADV_HUGEPAGE) // best effort: without huge pages the probe still runs
	next = unsafe.Slice((*uint64)(unsafe.Pointer(&mem[0])), size/8)
	lines := int64(size / 64)
	order := make([]int64, lines)
	for i := range order {
		order[i] = int64(i)
	}
	r := gen.NewRand(gen.Mix(uint64(mb)))
	for i := lines - 1; i > 0; i-- { // Fisher-Yates
		j := r.Intn(i + 1)
		order[i], order[j] = order[j], order[i]
	}
	for i, line := range order {
		next[line*8] = uint64(order[(int64(i)+1)%lines] * 8)
	}
	return next, free, nil
}
