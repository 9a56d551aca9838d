package sqlfam

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rumbench/rumbench/internal/hist"
	"github.com/rumbench/rumbench/internal/table"
)

// Endpoint is one server of a cluster as the sessions see it: its connector and what was sent
// to it.
type Endpoint struct {
	// Name and Role are table.EndpointSample's.
	Name, Role string
	// Connector opens connections to it.
	Connector Connector
	latency   hist.Histogram // statements' response times, ns
	stmts     atomic.Int64
	errors    atomic.Int64
}

// Cluster is a Connector over several endpoints. Each connection it opens goes to the next
// writer endpoint in turn (round robin; when one refuses, the next), and, when there are
// reader endpoints, a second connection to the next reader: read-only statements sent outside
// a transaction go there (a SELECT without FOR UPDATE/SHARE), everything else to the writer.
// Route changes the endpoints of the connections opened from then on (a failover): a session
// whose connection breaks reconnects through it.
type Cluster struct {
	eps             []*Endpoint
	writers, reader atomic.Pointer[[]*Endpoint]
	next            atomic.Uint64
	causal          []string
}

// NewCluster returns a cluster connector over eps (at least one; they share one connector
// kind), writing to writers and reading from readers (nil or empty: the writers).
func NewCluster(eps, writers, readers []*Endpoint) *Cluster {
	c := &Cluster{eps: eps}
	c.Route(writers, readers)
	return c
}

// ListRoutes returns the writers and readers of a --dsn list of endpoints (each of role "node"):
// every endpoint writes and reads; with toReplicas, the first writes (role "primary") and the
// others take the reads (role "replica").
func ListRoutes(eps []*Endpoint, toReplicas bool) (writers, readers []*Endpoint) {
	if !toReplicas || len(eps) < 2 {
		return eps, nil
	}
	eps[0].Role = "primary"
	for _, ep := range eps[1:] {
		ep.Role = "replica"
	}
	return eps[:1], eps[1:]
}

// Route makes the connections opened from now on write to writers and read from readers.
func (c *Cluster) Route(writers, readers []*Endpoint) {
	w, r := append([]*Endpoint(nil), writers...), append([]*Endpoint(nil), readers...)
	c.writers.Store(&w)
	c.reader.Store(&r)
}

// Endpoints returns the cluster's endpoints, as given to NewCluster.
func (c *Cluster) Endpoints() []*Endpoint { return c.eps }

// LocksThread implements Connector.
func (c *Cluster) LocksThread() bool { return c.eps[0].Connector.LocksThread() }

// HoldsP implements Connector.
func (c *Cluster) HoldsP() bool { return c.eps[0].Connector.HoldsP() }

// Connect implements Connector.
func (c *Cluster) Connect(ctx context.Context) (Conn, error) {
	i := int(c.next.Add(1) - 1)
	w, wep, err := dialFirst(ctx, *c.writers.Load(), i, nil)
	if err != nil {
		return nil, err
	}
	rc := &routeConn{w: w, wep: wep}
	if rs := *c.reader.Load(); len(rs) > 0 {
		// Reads fall back to the writer when no reader answers.
		if r, rep, err := dialFirst(ctx, rs, i, nil); err == nil {
			rc.r, rc.rep = r, rep
		}
	}
	return rc, nil
}

// SetCausal sets the statements a check session's connection runs first, so that its reads see
// every write the cluster acknowledged before them (MariaDB Galera: SET SESSION
// wsrep_sync_wait = 1, as a node applies the others' writes after their commit). Call it before
// sessions are opened.
func (c *Cluster) SetCausal(stmts ...string) { c.causal = stmts }

// checkConnector connects a check session (Engine.NewCheckSession) to one of the cluster's
// writers, never a reader (a standby replays the writer's log later), and runs the cluster's
// causal statements on it.
type checkConnector struct{ c *Cluster }

// LocksThread implements Connector.
func (k checkConnector) LocksThread() bool { return k.c.LocksThread() }

// HoldsP implements Connector.
func (k checkConnector) HoldsP() bool { return k.c.HoldsP() }

// Connect implements Connector.
func (k checkConnector) Connect(ctx context.Context) (Conn, error) {
	w, wep, err := dialFirst(ctx, *k.c.writers.Load(), int(k.c.next.Add(1)-1), k.c.causal)
	if err != nil {
		return nil, err
	}
	return &routeConn{w: w, wep: wep}, nil
}

// dialFirst connects to eps[i%n] and runs setup on the connection, or when the endpoint refuses
// either (a node down, or up but not yet taking statements) tries the next, in turn.
func dialFirst(ctx context.Context, eps []*Endpoint, i int, setup []string) (Conn, *Endpoint, error) {
	if len(eps) == 0 {
		return nil, nil, errors.New("cluster: no endpoint to connect to")
	}
	var errs []error
	for k := range eps {
		ep := eps[(i+k)%len(eps)]
		c, err := ep.Connector.Connect(ctx)
		if err == nil {
			if err = setUp(ctx, c, setup); err != nil {
				c.Close()
				err = fmt.Errorf("%s: %w", ep.Name, err)
			}
		}
		if err == nil {
			return c, ep, nil
		}
		if ctx.Err() != nil {
			return nil, nil, err
		}
		errs = append(errs, err)
	}
	return nil, nil, errors.Join(errs...)
}

// setUp runs stmts on c, in order.
func setUp(ctx context.Context, c Conn, stmts []string) error {
	for _, q := range stmts {
		if _, err := c.Query(ctx, q, nil, nil, nil); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// EndpointSamples returns the endpoints' statement figures (the process figures are the
// engine's to add).
func (c *Cluster) EndpointSamples(dst []table.EndpointSample) []table.EndpointSample {
	for _, ep := range c.eps {
		s := table.EndpointSample{Name: ep.Name, Role: ep.Role, Stmts: ep.stmts.Load(), Errors: ep.errors.Load()}
		ep.latency.Snapshot(&s.Latency)
		dst = append(dst, s)
	}
	return dst
}

// done records one statement sent to ep that took from t0 to now.
func (ep *Endpoint) done(t0 time.Time, err error) {
	ep.latency.Record(int64(time.Since(t0)))
	ep.stmts.Add(1)
	if err != nil {
		ep.errors.Add(1)
	}
}

// routeConn is a session's connection to a cluster: a writer connection, and a reader one
// (nil: reads go to the writer).
type routeConn struct {
	w, r     Conn
	wep, rep *Endpoint
	inTx     bool
}

// selectOnly says whether text reads only: a SELECT that locks nothing.
func selectOnly(text string) bool {
	t := strings.TrimLeft(text, " \t\r\n(")
	if len(t) < 6 || !strings.EqualFold(t[:6], "select") {
		return false
	}
	for _, w := range lockingWords {
		if containsFold(t, w) {
			return false
		}
	}
	return true
}

// lockingWords mark a SELECT that locks or writes.
var lockingWords = []string{" for update", " for share", "lock in share mode", "nextval(", "setval("}

// containsFold says whether s contains sub, ASCII case folded, without allocating.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// txStart and txEnd recognize the statements that open and close a transaction.
func txStart(text string) bool {
	const start = "START TRANSACTION"
	return strings.EqualFold(text, "BEGIN") || len(text) >= len(start) && strings.EqualFold(text[:len(start)], start)
}
func txEnd(text string) bool {
	return strings.EqualFold(text, "COMMIT") || strings.EqualFold(text, "ROLLBACK")
}

// pick returns the connection and endpoint of a statement: a reader's for a read-only one outside
// a transaction.
func (c *routeConn) pick(read bool) (Conn, *Endpoint) {
	if read && c.r != nil && !c.inTx {
		return c.r, c.rep
	}
	return c.w, c.wep
}

// Prepare implements Conn: a read-only statement is prepared on both connections.
func (c *routeConn) Prepare(ctx context.Context, text string) (Stmt, error) {
	ws, err := c.w.Prepare(ctx, text)
	if err != nil {
		return nil, err
	}
	st := &routeStmt{c: c, w: ws}
	if c.r != nil && selectOnly(text) {
		if st.r, err = c.r.Prepare(ctx, text); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// Query implements Conn.
func (c *routeConn) Query(ctx context.Context, text string, args []Arg, cols []ColKind, out *table.Rows) (Result, error) {
	conn, ep := c.pick(c.r != nil && selectOnly(text))
	t0 := time.Now()
	res, err := conn.Query(ctx, text, args, cols, out)
	ep.done(t0, err)
	switch {
	case txStart(text):
		c.inTx = err == nil
	case txEnd(text):
		c.inTx = false
	}
	return res, err
}

// Interrupt implements Conn.
func (c *routeConn) Interrupt() {
	c.w.Interrupt()
	if c.r != nil {
		c.r.Interrupt()
	}
}

// Close implements Conn.
func (c *routeConn) Close() error {
	err := c.w.Close()
	if c.r != nil {
		err = errors.Join(err, c.r.Close())
	}
	return err
}

// routeStmt is a statement prepared on a route connection (r: also on its reader).
type routeStmt struct {
	c    *routeConn
	w, r Stmt
}

// Query implements Stmt.
func (s *routeStmt) Query(ctx context.Context, args []Arg, cols []ColKind, out *table.Rows) (Result, error) {
	st, ep := s.w, s.c.wep
	if s.r != nil && !s.c.inTx {
		st, ep = s.r, s.c.rep
	}
	t0 := time.Now()
	res, err := st.Query(ctx, args, cols, out)
	ep.done(t0, err)
	return res, err
}
