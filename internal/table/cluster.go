package table

import (
	"context"
	"time"

	"github.com/rumbench/rumbench/internal/hist"
)

// EndpointSample is one server of a cluster as the engine's sessions used it, cumulative since
// the engine opened: what a step's figures per endpoint are the differences of.
type EndpointSample struct {
	// Name is the endpoint's name ("primary", "replica1", "node2", or host:port of a --dsn
	// list) and Role its part: "primary", "replica" or "node" (a Galera node, a --dsn list's).
	Name, Role string
	// Stmts is the statements the sessions sent it and Errors those that failed; Latency their
	// response times, ns.
	Stmts, Errors int64
	Latency       hist.Snapshot
	// Managed is true for a server rumbench started: Up says whether it runs, CPUTicks
	// (user+system, USER_HZ ticks) and RSSBytes are its process tree's.
	Managed, Up bool
	CPUTicks    uint64
	RSSBytes    int64
}

// EndpointReporter is implemented by an engine whose sessions spread over several servers.
type EndpointReporter interface {
	// EndpointSamples appends the endpoints' samples to dst, in a stable order, and returns it.
	EndpointSamples(dst []EndpointSample) []EndpointSample
}

// Replication is a cluster's replication state at one reading (ServerSample.Repl).
type Replication struct {
	// Galera says the figures are a Galera cluster's (flow control, certification), else
	// streaming standbys' (lag).
	Galera bool
	// LagBytes is how far the replica furthest behind has replayed the primary's WAL, bytes;
	// LagSecs its replay delay, seconds (PostgreSQL's replay_lag: 0 when idle). -1: not known.
	LagBytes int64
	LagSecs  float64
	// Replicas is the replicas (or Galera nodes besides the one read) streaming now.
	Replicas int
	// FlowPausedNs is Galera's flow control: the time replication was paused, summed over the
	// nodes, cumulative ns (-1: not Galera). CertFailures and BFAborts are its certification
	// failures and the transactions they aborted, summed over the nodes, cumulative (-1: none).
	FlowPausedNs, CertFailures, BFAborts int64
	// RecvQueue is the largest queue of write sets a Galera node has received and not yet
	// applied (-1: not Galera).
	RecvQueue int64
}

// NewReplication returns a replication state with every figure unknown (-1), for an engine to
// fill what its servers report.
func NewReplication() *Replication {
	return &Replication{LagBytes: -1, LagSecs: -1, FlowPausedNs: -1, CertFailures: -1, BFAborts: -1, RecvQueue: -1}
}

// FaultTarget is implemented by a Faulter that can aim a fault at one of its servers (a
// cluster's node) and fail over: kinds "kill-primary" (the primary killed and left down, a
// replica promoted, the clients pointed at it) besides Faulter's.
type FaultTarget interface {
	// FaultNode injects fault kind into the server named node ("" = the primary or first
	// node) and returns as Faulter.Fault does; for kill-primary, the seconds from the kill to
	// the promoted replica accepting writes.
	FaultNode(ctx context.Context, kind, node string, d time.Duration) (readySecs float64, err error)
	// Nodes names the servers a fault may aim at.
	Nodes() []string
}
