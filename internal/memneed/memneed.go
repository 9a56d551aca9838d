// Package memneed checks, before a run starts, that the sizes it was given fit the memory it may
// use: each workload estimates the peak its client side holds (buffers per worker, statements,
// per-id lists) and Budget.Check refuses an estimate above the budget with one line naming the
// inputs, the estimate and the limit.
//
// The estimates are of what rumbench itself holds; an engine's caches are sized by --cache-mb
// and capped by --memory-limit, not here.
package memneed

import (
	"fmt"
	"math"

	"github.com/rumbench/rumbench/internal/sysstat"
)

// WorkerBytes is what one worker holds besides its workload's buffers, bytes: the pages its
// histograms touch, its goroutine, its session's structures on the engine's client side.
// Measured as RSS over thread counts: about 40 KiB a YCSB thread on the null engine, 220 KiB
// on pebble.
const WorkerBytes = 256 << 10

// ValueBytes is the size of one table.Value cell, bytes (an int64 and a slice header).
const ValueBytes = 32

// Budget is the memory a run may plan to use.
type Budget struct {
	// Bytes is the limit, bytes; 0 means unknown: nothing is checked.
	Bytes int64
	// From says where the limit comes from, worded to follow it ("this host has available",
	// "--memory-limit allows").
	From string
}

// HostBudget returns the smaller of MemAvailable (from /proc/meminfo) and limit (bytes, the
// --memory-limit; 0: none). It is the zero Budget when neither is known.
func HostBudget(limit int64) Budget {
	return hostOr(Budget{Bytes: limit, From: "--memory-limit allows"})
}

// WorkerBudget returns the smaller of MemAvailable and goLimit, bytes: the budget of a run whose
// workload buffers are held by an engine worker under a cap, whose Go memory limit is goLimit
// (memcap.Shares.Go).
func WorkerBudget(goLimit int64) Budget {
	return hostOr(Budget{Bytes: goLimit, From: "an engine worker's Go heap has under --memory-limit (a quarter of the cap)"})
}

// hostOr returns b, or the host's MemAvailable when that is smaller or b is 0.
func hostOr(b Budget) Budget {
	if avail, ok := Available(); ok && (b.Bytes <= 0 || avail < b.Bytes) {
		return Budget{Bytes: avail, From: "this host has available"}
	}
	if b.Bytes <= 0 {
		return Budget{}
	}
	return b
}

// Available returns MemAvailable from /proc/meminfo, bytes; false when it cannot be read.
func Available() (int64, bool) {
	n := sysstat.MemInfo("MemAvailable")
	return n, n > 0
}

// Part is one component of a run's memory.
type Part struct {
	// Bytes is its size, bytes (a float: products of sizes may pass what an int64 holds).
	Bytes float64
	// Inputs names the settings that drive it, as the user gives them
	// ("fieldcount=1000 × fieldlength=100").
	Inputs string
	// Detail says how they add up ("98 KiB a record × 1000 records a check scan holds").
	Detail string
}

// Peak returns the estimate of a run that holds every fixed part throughout and its phases (its
// steps, its final check) one at a time: the fixed parts plus the largest phase. Its Inputs and
// Detail are those of its largest single part.
func Peak(fixed, phases []Part) Part {
	var total float64
	var big, phase Part
	for _, p := range fixed {
		total += p.Bytes
		if p.Bytes > big.Bytes {
			big = p
		}
	}
	for _, p := range phases {
		if p.Bytes > phase.Bytes {
			phase = p
		}
	}
	if phase.Bytes > big.Bytes {
		big = phase
	}
	big.Bytes = total + phase.Bytes
	return big
}

// Check returns nil when need fits the budget (or the budget is unknown), else one line:
// "<workload>: <inputs> needs about <need> (<detail>), more than the <limit> <from>; valid: ...".
func (b Budget) Check(workload string, need Part) error {
	if b.Bytes <= 0 || need.Bytes <= float64(b.Bytes) {
		return nil
	}
	limit := Size(float64(b.Bytes))
	return fmt.Errorf("%s: %s needs about %s (%s), more than the %s %s; valid: settings whose estimate is under %s",
		workload, need.Inputs, Size(need.Bytes), need.Detail, limit, b.From, limit)
}

// Size renders bytes in binary units, two or three significant digits ("9.3 GiB", "512 KiB",
// "100 B"; past EiB in exponent form).
func Size(bytes float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for bytes >= 1024 && i < len(units)-1 {
		bytes /= 1024
		i++
	}
	switch {
	case math.IsInf(bytes, 0) || math.IsNaN(bytes):
		return "more than a float counts"
	case bytes >= 1024:
		return fmt.Sprintf("%.3g %s", bytes, units[i])
	case i == 0 || bytes >= 10:
		return fmt.Sprintf("%.0f %s", bytes, units[i])
	}
	return fmt.Sprintf("%.1f %s", bytes, units[i])
}
