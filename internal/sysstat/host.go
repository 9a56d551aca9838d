package sysstat

import (
	"os"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"
)

// Host describes the machine a benchmark runs on, for the report header.
type Host struct {
	// Kernel is the kernel release (uname -r), e.g. "6.1.0-18-amd64".
	Kernel string `json:"kernel"`
	// CPUs is the number of CPUs this process may run on (runtime.NumCPU: affinity-aware).
	CPUs int `json:"cpus"`
	// MemoryBytes is MemTotal of /proc/meminfo in bytes (0 if unknown).
	MemoryBytes int64 `json:"memory_bytes"`
	// Device is the block device holding the data directory (zero if DeviceError is set).
	Device Device `json:"device"`
	// FS is the mount holding the data directory (zero if it could not be determined).
	FS FS `json:"fs"`
	// DeviceError says why Device is empty, e.g. the directory is on tmpfs; "" on success.
	DeviceError string `json:"device_error"`
}

// HostInfo gathers Host for dataDir (which need not exist yet). It never fails: what cannot be
// determined is left zero (DeviceError explains a missing Device).
func HostInfo(dataDir string) Host {
	h := Host{CPUs: runtime.NumCPU()}
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		h.Kernel = unix.ByteSliceToString(u.Release[:])
	} else if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		h.Kernel = strings.TrimSpace(string(b))
	}
	h.MemoryBytes = MemInfo("MemTotal")
	var err error
	if h.Device, err = DeviceForDir(dataDir); err != nil {
		h.DeviceError = err.Error()
	}
	h.FS, _ = FilesystemForDir(dataDir)
	return h
}

// MemInfo returns the field name of /proc/meminfo ("MemTotal", "MemAvailable") in bytes, or 0
// when it cannot be read.
func MemInfo(name string) int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	return parseMemInfo(b, name)
}

// parseMemInfo returns the line "name: N kB" of /proc/meminfo content in bytes, or 0.
func parseMemInfo(data []byte, name string) int64 {
	prefix := name + ":"
	for len(data) > 0 {
		var line []byte
		line, data = nextLine(data)
		if hasPrefix(line, prefix) {
			tok, _ := nextToken(line, len(prefix))
			kb, err := parseInt(tok)
			if err != nil || kb < 0 || kb > (1<<63-1)/1024 {
				return 0
			}
			return kb * 1024
		}
	}
	return 0
}
