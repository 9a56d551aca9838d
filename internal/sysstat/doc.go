// Package sysstat samples Linux OS counters (block device, CPU, process and data-directory
// usage) so that a benchmark can normalize them per operation.
//
// The package has three layers:
//
//   - Pure parsers (ParseDiskstats, ParseStat, ParseProcStat, ParseStatusMemory,
//     ParseMountinfo) that take file contents and do no I/O. The per-sample parsers do not
//     allocate.
//   - Discovery (DeviceForDir, FilesystemForDir, HostInfo), done once per run.
//   - A Sampler that reads the counters with reused buffers, cheap enough to call every second.
//
// All counters are cumulative since boot (or process start) except where noted; callers take
// deltas between two samples. The millisecond fields of DiskStats are 32-bit in the kernel and
// wrap, so their deltas must be taken modulo 2^32 (see Delta32).
//
// Everything here is Linux-specific and reads /proc and /sys.
package sysstat

// UserHZ is the unit of the tick counters in /proc/stat and /proc/<pid>/stat: ticks per
// second (USER_HZ, also reported by `getconf CLK_TCK`).
//
// USER_HZ is part of the kernel ABI and is fixed at 100 on every mainstream architecture
// (x86, x86-64, arm, arm64, riscv, ppc, s390, mips), independently of the kernel's internal
// CONFIG_HZ (250 on the machine this was written on). Only alpha and ia64 used 1024, and both
// are gone from current kernels, so the value is a constant rather than a sysconf query.
const UserHZ = 100

// SectorSize is the unit of the sector fields of /proc/diskstats, in bytes. It is always 512,
// whatever the device's logical block size.
const SectorSize = 512

// Delta32 returns cur-prev for a counter the kernel keeps as a 32-bit unsigned int (the
// millisecond fields of DiskStats: ReadMs, WriteMs, IOTicksMs, WeightedMs, DiscardMs,
// FlushMs), so that a single wrap-around between the two samples gives the right answer.
func Delta32(prev, cur uint64) uint64 {
	return uint64(uint32(cur) - uint32(prev))
}
