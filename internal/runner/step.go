// Package runner owns the only loop: it runs a step's workers (closed loop or paced at a target
// rate), stops them on completion, duration limit, error or cancellation, and on a 1-second tick
// merges their histograms and counters and takes a system sample, so every figure of an interval
// and of a step comes from the same instants.
package runner

import (
	"context"
	"time"
)

// Role says how a worker relates to the end of its step.
type Role uint8

const (
	// Driver workers define the step: it ends when every driver has returned done.
	Driver Role = iota
	// Background workers run until the drivers are done (e.g. the query thread).
	Background
)

// OpFunc performs one unit of work and records it on m. It returns done=true when the worker has
// no more work. An error stops the step (and the run). OpFunc must return promptly when ctx ends.
type OpFunc func(ctx context.Context, m *Meter) (done bool, err error)

// Worker is one goroutine of a step.
type Worker struct {
	// Name labels the worker in errors ("writer pi1").
	Name string
	Role Role
	// Rate paces calls of Op at this many per second from the step's start (0: closed loop).
	Rate float64
	Op   OpFunc
}

// Step is one measured phase of a workload.
type Step struct {
	// Name is the step's name ("l.i0", "qr100").
	Name string
	// Workers run concurrently; at least one must be a Driver.
	Workers []Worker
	// RateKinds are the kinds whose units make the step's headline rate and the denominator of
	// its per-operation figures: Insert for load steps, the query kinds for query steps.
	RateKinds []Kind
	// MaxDuration stops the step when it elapses (0: no limit). A step stopped this way is
	// marked as such in its result.
	MaxDuration time.Duration
	// Warmup is how long the step runs before measurement starts (0: from the start).
	Warmup time.Duration
	// TargetInsertRate is the background writers' total target in rows/s for paced steps (0: not
	// paced); the result says whether the achieved rate reached 95% of it.
	TargetInsertRate float64
	// Group is copied to the step's result (sysbench test groups).
	Group string
	// ScanRows, when set, is the rows one Event scans: the step's headline rate is then
	// thousand rows scanned per second, ScanRows / mean event latency in ms (sysbench's scan
	// "Krps").
	ScanRows int64
	// Percentiles are extra response-time percentiles (0 < p < 100) to report per kind.
	Percentiles []float64
}

// Ops says which kinds are query kinds, for rates that count "queries".
func isQuery(k Kind) bool { return k == RangeQuery || k == PointQuery }
