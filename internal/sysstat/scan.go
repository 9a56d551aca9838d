package sysstat

import "errors"

// Sentinel errors returned by the parsers. They are preallocated so that the parsers never
// allocate, even on malformed input.
var (
	errSyntax   = errors.New("sysstat: malformed number")
	errRange    = errors.New("sysstat: number out of range")
	errNoCPU    = errors.New("sysstat: /proc/stat has no aggregate \"cpu \" line")
	errShortCPU = errors.New("sysstat: /proc/stat \"cpu \" line has fewer than 4 fields")
	errNoCtxt   = errors.New("sysstat: /proc/stat has no \"ctxt\" line")
	errNoParen  = errors.New("sysstat: /proc/<pid>/stat has no ')' after the comm field")
	errShortPS  = errors.New("sysstat: /proc/<pid>/stat has too few fields")
	errNoVmRSS  = errors.New("sysstat: /proc/<pid>/status has no VmRSS/VmHWM lines (kernel thread?)")
	errDiskFmt  = errors.New("sysstat: /proc/diskstats line has an unknown field count")
)

// isSpace reports whether c separates tokens within a line.
func isSpace(c byte) bool { return c == ' ' || c == '\t' }

// nextToken returns the next space-separated token of line starting at i, and the index just
// after it. It returns an empty token at the end of the line.
func nextToken(line []byte, i int) (tok []byte, next int) {
	for i < len(line) && isSpace(line[i]) {
		i++
	}
	start := i
	for i < len(line) && !isSpace(line[i]) {
		i++
	}
	return line[start:i], i
}

// nextLine splits data at the first '\n' and returns the line (without the newline) and the
// rest.
func nextLine(data []byte) (line, rest []byte) {
	for i, c := range data {
		if c == '\n' {
			return data[:i], data[i+1:]
		}
	}
	return data, nil
}

// parseUint parses a non-empty run of ASCII decimal digits.
func parseUint(b []byte) (uint64, error) {
	if len(b) == 0 {
		return 0, errSyntax
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, errSyntax
		}
		d := uint64(c - '0')
		if n > (1<<64-1-d)/10 {
			return 0, errRange
		}
		n = n*10 + d
	}
	return n, nil
}

// parseInt parses an optionally '-'-signed decimal number.
func parseInt(b []byte) (int64, error) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	u, err := parseUint(b)
	if err != nil {
		return 0, err
	}
	if neg {
		if u > 1<<63 {
			return 0, errRange
		}
		return -int64(u), nil
	}
	if u > 1<<63-1 {
		return 0, errRange
	}
	return int64(u), nil
}

// hasPrefix is bytes.HasPrefix for a string prefix, without conversion.
func hasPrefix(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && string(b[:len(prefix)]) == prefix
}
