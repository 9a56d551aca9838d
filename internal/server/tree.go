package server

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rumbench/rumbench/internal/sysstat"
)

// TreeStats is a snapshot of a server's process tree: the main process and its descendants,
// found through the ppid links of /proc/*/stat. CPU is cumulative (take deltas between two
// snapshots); Pids, RSS and PSS are gauges.
type TreeStats struct {
	// Pids is the number of processes in the tree now (threads are not counted).
	Pids int
	// CPUTicks is the user+system CPU time of the tree, in sysstat.UserHZ ticks: the sum over
	// the tree of utime+stime+cutime+cstime, so it includes the children the server already
	// reaped (PostgreSQL backends of closed connections) and never decreases while the main
	// process lives.
	CPUTicks uint64
	// UserTicks is the user-mode part of CPUTicks (utime+cutime over the tree), in
	// sysstat.UserHZ ticks.
	UserTicks uint64
	// RSSBytes is the sum of the resident set over the tree (stat's rss pages, as VmRSS), in
	// bytes (shared memory counted once per process that maps it).
	RSSBytes int64
	// PSSBytes is the sum of Pss from /proc/<pid>/smaps_rollup over the tree, in bytes (shared
	// pages divided among the processes that map them, so shared buffers count once); 0 when
	// not asked for.
	PSSBytes int64
}

// ErrNotRunning is returned by Stats when the server process is gone (stopped or died).
var ErrNotRunning = errors.New("server is not running")

// Stats returns the server's process tree now, found from the main process down (see
// treeWalker: a stat file per process and a children file per thread, nothing else of /proc).
// With pss it also sums PSSBytes, reading each process's smaps_rollup, which walks its page
// tables: ask for it at a step's start and end, not on every tick. For FerretDB over PostgreSQL
// the figures are the sums over both trees, the helper's and the backend's.
func (s *Server) Stats(pss bool) (TreeStats, error) {
	if s.exited() {
		return TreeStats{}, fmt.Errorf("server: %s (pid %d): %w", s.kind, s.pid, ErrNotRunning)
	}
	st, err := s.walker.stats(s.pid, pss)
	if err != nil || s.backend == nil {
		return st, err
	}
	b, err := s.backend.Stats(pss)
	if err != nil {
		return st, fmt.Errorf("server: ferretdb's postgresql backend: %w", err)
	}
	st.Pids += b.Pids
	st.CPUTicks += b.CPUTicks
	st.UserTicks += b.UserTicks
	st.RSSBytes += b.RSSBytes
	st.PSSBytes += b.PSSBytes
	return st, nil
}

// procEntry is what the tree walk needs from /proc/<pid>/stat.
type procEntry struct {
	pid, ppid, pgrp int
	state           byte
	comm            string // the executable's name, at most 15 bytes
	stat            sysstat.ProcStat
}

// readProcs parses /proc/<pid>/stat of every process; processes that vanish are skipped.
func readProcs() ([]procEntry, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, err
	}
	buf := make([]byte, 4096)
	procs := make([]procEntry, 0, len(names))
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		data, err := readSmall("/proc/"+name+"/stat", buf)
		if err != nil {
			continue
		}
		e, err := parseStatHead(data)
		if err != nil {
			continue
		}
		e.pid = pid
		if e.stat, err = sysstat.ParseProcStat(data); err != nil {
			continue
		}
		procs = append(procs, e)
	}
	return procs, nil
}

// parseStatHead reads the comm, state, ppid and pgrp fields (2 to 5) of /proc/<pid>/stat.
func parseStatHead(data []byte) (procEntry, error) {
	i := bytes.LastIndexByte(data, ')')
	j := bytes.IndexByte(data, '(')
	if i < 0 || j < 0 || j > i {
		return procEntry{}, errors.New("no (comm) in stat")
	}
	f := bytes.Fields(data[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return procEntry{}, errors.New("short stat")
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	pgrp, err2 := strconv.Atoi(string(f[2]))
	if err1 != nil || err2 != nil {
		return procEntry{}, errors.New("bad ppid or pgrp in stat")
	}
	return procEntry{comm: string(data[j+1 : i]), state: f[0][0], ppid: ppid, pgrp: pgrp}, nil
}

// parsePss returns the "Pss:" line of smaps_rollup in bytes (0 if absent).
func parsePss(data []byte) int64 {
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if !bytes.HasPrefix(line, []byte("Pss:")) {
			continue
		}
		f := bytes.Fields(line[len("Pss:"):])
		if len(f) == 0 {
			return 0
		}
		kb, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil {
			return 0
		}
		return kb * 1024
	}
	return 0
}

// instanceProcs lists the live (not zombie) processes of the instance: those in the server's
// process group (set-up programs, mariadbd), the descendants of the main process, and
// processes named like the server binary whose working directory is in the data directory.
// The last finds PostgreSQL children after a postmaster died: each child calls setsid(), so
// it is in no group of ours, and an orphan's ppid is 1.
func (s *Server) instanceProcs() []int {
	procs, err := readProcs()
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, p := range procs {
		children[p.ppid] = append(children[p.ppid], p.pid)
	}
	inTree := map[int]bool{}
	for queue := []int{s.pid}; len(queue) > 0; queue = queue[1:] {
		inTree[queue[0]] = true
		queue = append(queue, children[queue[0]]...)
	}
	comm := filepath.Base(s.bins.server)
	if len(comm) > 15 {
		comm = comm[:15]
	}
	var live []int
	for _, p := range procs {
		if p.state == 'Z' || p.state == 'X' {
			continue
		}
		if p.pgrp == s.pid || inTree[p.pid] || (p.comm == comm && s.cwdInData(p.pid)) {
			live = append(live, p.pid)
		}
	}
	return live
}

// cwdInData reports whether the working directory of pid is the data directory or below.
func (s *Server) cwdInData(pid int) bool {
	cwd, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd")
	return err == nil && (cwd == s.dataDir || strings.HasPrefix(cwd, s.dataDir+"/"))
}

// readSmall reads a /proc file into buf (grown if needed) and returns its content.
func readSmall(path string, buf []byte) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	n := 0
	for {
		m, err := f.Read(buf[n:])
		n += m
		if err != nil || m == 0 {
			if n > 0 || err == nil {
				return buf[:n], nil
			}
			return nil, err
		}
		if n == len(buf) {
			return os.ReadFile(path)
		}
	}
}
