package memcap

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Sample is the cgroup's memory figures at one instant. Counters (MajorFaults, Refaults,
// OOMKills) are cumulative since the cgroup was created: a step's figure is a difference.
type Sample struct {
	// UsageBytes is the memory charged to the cgroup (v1 memory.usage_in_bytes, v2
	// memory.current): process memory plus page cache plus kernel memory.
	UsageBytes int64
	// CacheBytes is the page cache charged to the cgroup (v1 total_cache, v2 file), bytes.
	CacheBytes int64
	// AnonBytes is anonymous memory: heaps, stacks, engine caches (v1 total_rss, v2 anon), bytes.
	AnonBytes int64
	// MajorFaults are page faults that read from storage (pgmajfault).
	MajorFaults int64
	// Refaults are page-cache pages read back soon after the cap evicted them
	// (workingset_refault, file and anon).
	Refaults int64
	// OOMKills is the processes the kernel killed because the cgroup hit its cap.
	OOMKills int64
	// PSIOK says whether the pressure figures were read (cgroup v2 with PSI only).
	PSIOK bool
	// PSISomeAvg10 and PSIFullAvg10 are memory.pressure's "some" and "full" avg10: the percent
	// of the last 10 s in which some (all) of the cgroup's tasks stalled on memory.
	PSISomeAvg10, PSIFullAvg10 float64
}

// Sample reads the cgroup's figures.
func (g *Group) Sample() (Sample, error) {
	st, err := readKV(filepath.Join(g.Dir, "memory.stat"))
	if err != nil {
		return Sample{}, err
	}
	var s Sample
	if g.Version == 1 {
		s.UsageBytes = readInt(filepath.Join(g.Dir, "memory.usage_in_bytes"))
		s.CacheBytes, s.AnonBytes = st["total_cache"], st["total_rss"]
		s.MajorFaults = st["total_pgmajfault"]
		s.Refaults = st["total_workingset_refault"] + st["total_workingset_refault_file"] + st["total_workingset_refault_anon"]
		if oc, err := readKV(filepath.Join(g.Dir, "memory.oom_control")); err == nil {
			s.OOMKills = oc["oom_kill"]
		}
		return s, nil
	}
	s.UsageBytes = readInt(filepath.Join(g.Dir, "memory.current"))
	s.CacheBytes, s.AnonBytes = st["file"], st["anon"]
	s.MajorFaults = st["pgmajfault"]
	s.Refaults = st["workingset_refault"] + st["workingset_refault_file"] + st["workingset_refault_anon"]
	if ev, err := readKV(filepath.Join(g.Dir, "memory.events")); err == nil {
		s.OOMKills = ev["oom_kill"]
	}
	if data, err := os.ReadFile(filepath.Join(g.Dir, "memory.pressure")); err == nil {
		s.PSISomeAvg10, s.PSIFullAvg10, s.PSIOK = parsePressure(string(data))
	}
	return s, nil
}

// OOMKills returns the cgroup's OOM kill count, -1 when it cannot be read.
func (g *Group) OOMKills() int64 {
	file, key := "memory.events", "oom_kill"
	if g.Version == 1 {
		file = "memory.oom_control"
	}
	kv, err := readKV(filepath.Join(g.Dir, file))
	if err != nil {
		return -1
	}
	return kv[key]
}

// parsePressure reads the avg10 of the "some" and "full" lines of a PSI file.
func parsePressure(s string) (some, full float64, ok bool) {
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		for _, kv := range f[1:] {
			if v, found := strings.CutPrefix(kv, "avg10="); found {
				x, err := strconv.ParseFloat(v, 64)
				if err != nil {
					continue
				}
				switch f[0] {
				case "some":
					some, ok = x, true
				case "full":
					full = x
				}
			}
		}
	}
	return some, full, ok
}

func readInt(path string) int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	return n
}
