package server

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"
	"unsafe"

	"github.com/rumbench/rumbench/internal/sysstat"
)

// treeWalker sums a server's process tree on every tick without scanning /proc: it starts at
// the main process and follows the children lists of each process's threads
// (/proc/PID/task/TID/children), reading one stat file per process. Its buffers are kept
// between walks, and files are opened with raw system calls on NUL-terminated paths in them, so
// a walk allocates nothing once they have grown.
type treeWalker struct {
	mu       sync.Mutex
	path     []byte // the path being built, NUL-terminated when opened
	buf      []byte // a file's content
	dents    []byte // a directory's entries (getdents64)
	queue    []int
	pageSize int64
	// lastCPU and lastUser are the tree's CPU and user-mode CPU at the last walk: a child
	// reaped between reading its parent's stat and its own is missed by one walk (it is in
	// neither), and a cumulative figure must not fall.
	lastCPU, lastUser uint64
	// baseCPU and baseUser are the CPU of the trees of the server's earlier lives (before a
	// fault killed or restarted it), added to every walk: the figures go on from where they
	// were.
	baseCPU, baseUser uint64
}

// rebase makes the walks that follow go on from the last one's figures: the server's tree is
// about to end and a new one to start from zero.
func (w *treeWalker) rebase() {
	w.mu.Lock()
	w.baseCPU, w.baseUser = w.lastCPU, w.lastUser
	w.mu.Unlock()
}

func newTreeWalker() *treeWalker {
	return &treeWalker{path: make([]byte, 0, 64), buf: make([]byte, 4096), dents: make([]byte, 8192),
		queue: make([]int, 0, 64), pageSize: int64(os.Getpagesize())}
}

// stats returns the tree of root; with pss it also reads each process's smaps_rollup (which
// walks the process's page tables under its memory-map lock: only at a step's start and end).
func (w *treeWalker) stats(root int, pss bool) (TreeStats, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	st, err := w.based(root, pss)
	if err == nil && (st.CPUTicks < w.lastCPU || st.UserTicks < w.lastUser) {
		// A child was reaped during the walk: walk again, and never report less than before.
		if st, err = w.based(root, pss); err == nil {
			st.CPUTicks, st.UserTicks = max(st.CPUTicks, w.lastCPU), max(st.UserTicks, w.lastUser)
		}
	}
	if err == nil {
		w.lastCPU, w.lastUser = st.CPUTicks, st.UserTicks
	}
	return st, err
}

// based is walk with the earlier lives' CPU added.
func (w *treeWalker) based(root int, pss bool) (TreeStats, error) {
	st, err := w.walk(root, pss)
	st.CPUTicks += w.baseCPU
	st.UserTicks += w.baseUser
	return st, err
}

// walk sums the tree of root once.
func (w *treeWalker) walk(root int, pss bool) (TreeStats, error) {
	var st TreeStats
	w.queue = append(w.queue[:0], root)
	for i := 0; i < len(w.queue); i++ {
		pid := w.queue[i]
		data, err := w.read(pid, -1, "stat")
		if err != nil {
			if pid == root {
				return TreeStats{}, fmt.Errorf("server: pid %d: %w", root, ErrNotRunning)
			}
			continue // exited since its parent listed it
		}
		ps, err := sysstat.ParseProcStat(data)
		if err != nil {
			continue
		}
		st.Pids++
		st.CPUTicks += ps.UTime + ps.STime + ps.CUTime + ps.CSTime
		st.UserTicks += ps.UTime + ps.CUTime
		st.RSSBytes += ps.RSSPages * w.pageSize
		if pss {
			if data, err := w.read(pid, -1, "smaps_rollup"); err == nil {
				st.PSSBytes += parsePss(data)
			}
		}
		w.addChildren(pid)
	}
	return st, nil
}

// addChildren appends the children of every thread of pid to the queue.
func (w *treeWalker) addChildren(pid int) {
	w.setPath(pid, -1, "task")
	fd, err := openRaw(w.path, syscall.O_RDONLY|syscall.O_DIRECTORY)
	if err != nil {
		return
	}
	defer syscall.Close(fd)
	for {
		n, err := syscall.Getdents(fd, w.dents)
		if err != nil || n <= 0 {
			return
		}
		for off := 0; off < n; {
			// struct linux_dirent64: d_ino u64, d_off i64, d_reclen u16, d_type u8, d_name.
			reclen := int(*(*uint16)(unsafe.Pointer(&w.dents[off+16])))
			name := w.dents[off+19 : off+reclen]
			off += reclen
			tid, ok := atoi(name)
			if !ok {
				continue // ".", ".."
			}
			data, err := w.read(pid, tid, "children")
			if err != nil {
				continue
			}
			for len(data) > 0 {
				j := 0
				for j < len(data) && data[j] != ' ' && data[j] != '\n' {
					j++
				}
				if child, ok := atoi(data[:j]); ok {
					w.queue = append(w.queue, child)
				}
				if j < len(data) {
					j++
				}
				data = data[j:]
			}
		}
	}
}

// setPath builds /proc/PID[/task/TID]/file, NUL-terminated, in w.path.
func (w *treeWalker) setPath(pid, tid int, file string) {
	p := append(w.path[:0], "/proc/"...)
	p = strconv.AppendInt(p, int64(pid), 10)
	if tid >= 0 {
		p = append(p, "/task/"...)
		p = strconv.AppendInt(p, int64(tid), 10)
	}
	p = append(p, '/')
	p = append(p, file...)
	w.path = append(p, 0)
}

// read reads /proc/PID[/task/TID]/file into w.buf (grown when the file is larger).
func (w *treeWalker) read(pid, tid int, file string) ([]byte, error) {
	w.setPath(pid, tid, file)
	fd, err := openRaw(w.path, syscall.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	n := 0
	for {
		if n == len(w.buf) {
			w.buf = append(w.buf, make([]byte, len(w.buf))...)
		}
		m, err := syscall.Read(fd, w.buf[n:])
		if err != nil {
			return nil, err
		}
		if m == 0 {
			return w.buf[:n], nil
		}
		n += m
	}
}

// openRaw opens the NUL-terminated path without allocating.
func openRaw(path []byte, flags int) (int, error) {
	dirfd := atFDCWD
	fd, _, errno := syscall.Syscall6(syscall.SYS_OPENAT, uintptr(dirfd), uintptr(unsafe.Pointer(&path[0])),
		uintptr(flags|syscall.O_CLOEXEC), 0, 0, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}

// atFDCWD is AT_FDCWD: a relative path is resolved against the working directory.
const atFDCWD = -100

// atoi parses a non-negative decimal number; false for anything else (or a NUL-terminated
// name's trailing NULs only).
func atoi(b []byte) (int, bool) {
	for len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	if len(b) == 0 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
