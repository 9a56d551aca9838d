package sysstat

// CPUStat holds the system-wide CPU time of the aggregate "cpu " line of /proc/stat, in ticks
// of UserHZ (1/100 s), summed over all CPUs, plus the context-switch count. All fields are
// cumulative since boot.
//
// Guest and GuestNice are already included in User and Nice; IOWait is a kind of idle time.
// Kernels older than 2.6.33 print fewer columns; the missing ones are left 0.
type CPUStat struct {
	User, Nice, System, Idle, IOWait, IRQ, SoftIRQ, Steal, Guest, GuestNice uint64
	// Ctxt is the number of context switches since boot (the "ctxt" line).
	Ctxt uint64
}

// BusyTicks returns the CPU time spent doing work, in UserHZ ticks summed over CPUs:
// User+Nice+System+IRQ+SoftIRQ. Guest time is not added because User and Nice already include
// it; Idle, IOWait and Steal are not work done by this machine.
func (c CPUStat) BusyTicks() uint64 {
	return c.User + c.Nice + c.System + c.IRQ + c.SoftIRQ
}

// ParseStat parses /proc/stat content: the aggregate "cpu " line (at least 4 columns) and the
// "ctxt" line, both required. It does not allocate.
func ParseStat(data []byte) (CPUStat, error) {
	var c CPUStat
	var haveCPU, haveCtxt bool
	for len(data) > 0 && !(haveCPU && haveCtxt) {
		var line []byte
		line, data = nextLine(data)
		switch {
		case hasPrefix(line, "cpu "):
			dst := [...]*uint64{&c.User, &c.Nice, &c.System, &c.Idle, &c.IOWait, &c.IRQ,
				&c.SoftIRQ, &c.Steal, &c.Guest, &c.GuestNice}
			n, i := 0, len("cpu ")
			for n < len(dst) {
				tok, next := nextToken(line, i)
				if len(tok) == 0 {
					break
				}
				i = next
				v, err := parseUint(tok)
				if err != nil {
					return CPUStat{}, err
				}
				*dst[n] = v
				n++
			}
			if n < 4 {
				return CPUStat{}, errShortCPU
			}
			haveCPU = true
		case hasPrefix(line, "ctxt "):
			tok, _ := nextToken(line, len("ctxt "))
			v, err := parseUint(tok)
			if err != nil {
				return CPUStat{}, err
			}
			c.Ctxt = v
			haveCtxt = true
		}
	}
	if !haveCPU {
		return CPUStat{}, errNoCPU
	}
	if !haveCtxt {
		return CPUStat{}, errNoCtxt
	}
	return c, nil
}

// ProcStat holds the fields of /proc/<pid>/stat that the benchmark uses.
type ProcStat struct {
	// UTime and STime are the CPU time the process (all its threads) spent in user and kernel
	// mode, in UserHZ ticks, cumulative since process start.
	UTime, STime uint64
	// CUTime and CSTime are the user and system ticks of waited-for (reaped) children only.
	CUTime, CSTime uint64
	// NumThreads is the current number of threads (a gauge).
	NumThreads int64
	// RSSPages is the resident set size in pages of the system page size (a gauge; see also
	// ParseStatusMemory, which gives bytes).
	RSSPages int64
}

// procStat field positions, counted from field 3 ("state"), the first after the comm.
const (
	psUTime      = 14 - 3
	psSTime      = 15 - 3
	psCUTime     = 16 - 3
	psCSTime     = 17 - 3
	psNumThreads = 20 - 3
	psRSS        = 24 - 3
)

// ParseProcStat parses /proc/<pid>/stat content. The comm field (2) may contain spaces and
// parentheses, so parsing starts after the last ')' of the content. It does not allocate.
func ParseProcStat(data []byte) (ProcStat, error) {
	i := len(data) - 1
	for i >= 0 && data[i] != ')' {
		i--
	}
	if i < 0 {
		return ProcStat{}, errNoParen
	}
	rest, _ := nextLine(data[i+1:])
	var p ProcStat
	j := 0
	for f := 0; f <= psRSS; f++ {
		tok, next := nextToken(rest, j)
		if len(tok) == 0 {
			return ProcStat{}, errShortPS
		}
		j = next
		var err error
		switch f {
		case psUTime:
			p.UTime, err = parseUint(tok)
		case psSTime:
			p.STime, err = parseUint(tok)
		case psCUTime:
			p.CUTime, err = parseUint(tok)
		case psCSTime:
			p.CSTime, err = parseUint(tok)
		case psNumThreads:
			p.NumThreads, err = parseInt(tok)
		case psRSS:
			p.RSSPages, err = parseInt(tok)
		}
		if err != nil {
			return ProcStat{}, err
		}
	}
	return p, nil
}

// ParseStatusMemory parses /proc/<pid>/status content and returns VmRSS (current resident set
// size) and VmHWM (peak resident set size), converted from kB to bytes. Both lines are required
// (kernel threads have neither). It does not allocate.
//
// VmRSS counts shared pages in every process that maps them; summing it over a process tree
// over-counts shared memory (use Pss from smaps_rollup for that).
func ParseStatusMemory(data []byte) (rssBytes, hwmBytes int64, err error) {
	var haveRSS, haveHWM bool
	for len(data) > 0 && !(haveRSS && haveHWM) {
		var line []byte
		line, data = nextLine(data)
		var dst *int64
		switch {
		case hasPrefix(line, "VmRSS:"):
			dst, haveRSS = &rssBytes, true
		case hasPrefix(line, "VmHWM:"):
			dst, haveHWM = &hwmBytes, true
		default:
			continue
		}
		tok, _ := nextToken(line, len("VmRSS:"))
		kb, err := parseInt(tok)
		if err != nil {
			return 0, 0, err
		}
		if kb < 0 || kb > (1<<63-1)/1024 {
			return 0, 0, errRange
		}
		*dst = kb * 1024
	}
	if !haveRSS || !haveHWM {
		return 0, 0, errNoVmRSS
	}
	return rssBytes, hwmBytes, nil
}
