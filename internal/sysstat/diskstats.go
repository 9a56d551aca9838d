package sysstat

// DiskStats holds one line of /proc/diskstats (equivalently /sys/block/<dev>/stat).
//
// All fields are cumulative since boot except InFlight. Sector fields count 512-byte sectors
// (SectorSize) whatever the device's block size. The *Ms fields and IOTicksMs are 32-bit
// counters in the kernel: take their deltas with Delta32. Discard fields exist since Linux 4.18
// (before that, discards were counted as writes) and flush fields since 5.5; flushes are only
// tracked for whole disks, never partitions.
type DiskStats struct {
	ReadIOs      uint64 // reads completed
	ReadMerges   uint64 // adjacent reads merged before issue
	ReadSectors  uint64 // 512-byte sectors read
	ReadMs       uint64 // ms spent reading, summed over requests (32-bit)
	WriteIOs     uint64 // writes completed
	WriteMerges  uint64 // adjacent writes merged before issue
	WriteSectors uint64 // 512-byte sectors written
	WriteMs      uint64 // ms spent writing, summed over requests (32-bit)
	InFlight     uint64 // requests in flight right now (a gauge, not cumulative)
	IOTicksMs    uint64 // ms during which the device had I/O in flight (32-bit); %util basis
	WeightedMs   uint64 // in-flight × time, ms (32-bit); average queue size basis
	// DiscardIOs, DiscardMerges, DiscardSectors and DiscardMs count TRIM/discard requests
	// like the read fields (Linux 4.18+, Fields >= 15).
	DiscardIOs, DiscardMerges, DiscardSectors, DiscardMs uint64
	// FlushIOs and FlushMs count cache flush requests completed and ms spent on them (Linux
	// 5.5+, Fields >= 17, whole disks only).
	FlushIOs, FlushMs uint64
	// Fields is the number of counter fields present after the device name: 11, 15 or 17
	// (4 for pre-2.6.25 partition lines, which fill only ReadIOs, ReadSectors, WriteIOs and
	// WriteSectors; more than 17 if a future kernel adds fields, of which the first 17 are
	// parsed). Fields that the line does not have are left 0.
	Fields int
}

// ParseDiskstats finds the line of /proc/diskstats content data whose device name equals
// device (e.g. "vda", "nvme0n1", "sda2") and parses it. It returns ok=false and a nil error if
// no line has that name, and an error if the matching line is malformed (lines for other
// devices are not validated). It does not allocate.
func ParseDiskstats(data []byte, device string) (DiskStats, bool, error) {
	for len(data) > 0 {
		var line []byte
		line, data = nextLine(data)
		_, i := nextToken(line, 0) // major
		_, i = nextToken(line, i)  // minor
		name, i := nextToken(line, i)
		if string(name) != device || len(name) == 0 {
			continue
		}
		s, err := parseDiskCounters(line[i:])
		return s, err == nil, err
	}
	return DiskStats{}, false, nil
}

// parseDiskCounters parses the counter fields that follow the device name.
func parseDiskCounters(rest []byte) (DiskStats, error) {
	var v [17]uint64
	n, i := 0, 0
	for {
		tok, next := nextToken(rest, i)
		if len(tok) == 0 {
			break
		}
		i = next
		if n < len(v) {
			x, err := parseUint(tok)
			if err != nil {
				return DiskStats{}, err
			}
			v[n] = x
		}
		n++
	}
	var s DiskStats
	switch {
	case n == 4: // pre-2.6.25 partition line: reads, read sectors, writes, write sectors
		s.ReadIOs, s.ReadSectors, s.WriteIOs, s.WriteSectors = v[0], v[1], v[2], v[3]
	case n == 11 || n == 15 || n >= 17:
		s.ReadIOs, s.ReadMerges, s.ReadSectors, s.ReadMs = v[0], v[1], v[2], v[3]
		s.WriteIOs, s.WriteMerges, s.WriteSectors, s.WriteMs = v[4], v[5], v[6], v[7]
		s.InFlight, s.IOTicksMs, s.WeightedMs = v[8], v[9], v[10]
		s.DiscardIOs, s.DiscardMerges, s.DiscardSectors, s.DiscardMs = v[11], v[12], v[13], v[14]
		s.FlushIOs, s.FlushMs = v[15], v[16]
	default:
		return DiskStats{}, errDiskFmt
	}
	s.Fields = n
	return s, nil
}
