package results

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// Abandoned says whether m is a run left "running" by a process that is gone: on this host, no
// process with its pid runs, or the one that does started after the run (the pid was reused).
// A run of another host is never judged abandoned here.
func (m *Manifest) Abandoned() bool {
	if m.Status != StatusRunning || m.PID <= 0 {
		return false
	}
	if host, _ := os.Hostname(); m.Hostname != host {
		return false
	}
	started, ok := processStart(m.PID)
	return !ok || started.After(m.Start.Add(time.Second))
}

// processStart returns when process pid started, false when there is no such process.
func processStart(pid int) (time.Time, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return time.Time{}, false
	}
	s := string(b)
	// Fields after "(comm)": state is field 3, starttime field 22 (clock ticks since boot).
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 20 {
		return time.Time{}, true
	}
	ticks, err1 := strconv.ParseInt(f[19], 10, 64)
	boot, err2 := bootTime()
	if err1 != nil || err2 != nil {
		return time.Time{}, true // alive, start unknown: not abandoned
	}
	return boot.Add(time.Duration(ticks) * time.Second / 100), true
}

// bootTime reads btime from /proc/stat.
func bootTime() (time.Time, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "btime "); ok {
			sec, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return time.Unix(sec, 0), err
		}
	}
	return time.Time{}, os.ErrNotExist
}
