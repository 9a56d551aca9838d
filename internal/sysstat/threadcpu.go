package sysstat

import (
	"syscall"
	"unsafe"
)

// clockThreadCPUTime is Linux's CLOCK_THREAD_CPUTIME_ID.
const clockThreadCPUTime = 3

// ThreadCPUNs returns the CPU time (user + system) the calling OS thread has used, in ns; -1
// when the clock cannot be read. It measures one goroutine's work only while that goroutine is
// locked to its thread (runtime.LockOSThread). It does not allocate.
func ThreadCPUNs() int64 {
	var ts syscall.Timespec
	if _, _, errno := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return -1
	}
	return ts.Nano()
}
