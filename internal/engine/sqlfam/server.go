package sqlfam

import (
	"context"
	"time"

	"github.com/rumbench/rumbench/internal/server"
	"github.com/rumbench/rumbench/internal/syncacct"
	"github.com/rumbench/rumbench/internal/table"
)

// ServerEngine is a SQL engine on a database server, with the private instance rumbench started
// for it (nil for a server the user runs). Close stops that instance.
type ServerEngine struct {
	*Engine
	Srv *server.Server
	// Acct is the managed server's sync accounting (nil: off); AcctCoverage says what it sees
	// (an empty Source: accounting off). Close closes Acct after stopping the server.
	Acct         AcctSource
	AcctCoverage syncacct.Coverage
}

// Close closes the pool and stops the managed server.
func (e *ServerEngine) Close() error { return e.CloseContext(context.Background()) }

// CloseContext implements table.ContextCloser: a done ctx (an interrupted run) kills the
// managed server instead of waiting for its clean shutdown.
func (e *ServerEngine) CloseContext(ctx context.Context) error {
	err := e.Engine.Close()
	if e.Srv != nil {
		if serr := e.Srv.Stop(ctx); serr != nil && err == nil {
			err = serr
		}
	}
	if e.Acct != nil {
		if aerr := e.Acct.Close(); aerr != nil && err == nil {
			err = aerr
		}
	}
	return err
}

// Fault implements table.Faulter on the managed server (a sever also on a server the user
// runs): see server.Inject.
func (e *ServerEngine) Fault(ctx context.Context, kind string, d time.Duration) (float64, error) {
	return server.Inject(ctx, e.Srv, kind, d)
}

// Servers are the servers of a cluster rumbench started, in order (the primary or node1 first).
type Servers []*server.Server

// Stop stops every server, the last first, and returns the first error.
func (ss Servers) Stop(ctx context.Context) error {
	var first error
	for i := len(ss) - 1; i >= 0; i-- {
		if err := ss[i].Stop(ctx); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Names returns the servers' names (a fault's :NODE).
func (ss Servers) Names() []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Name()
	}
	return out
}

// Named returns the server called name, nil when none is.
func (ss Servers) Named(name string) *server.Server {
	for _, s := range ss {
		if s.Name() == name {
			return s
		}
	}
	return nil
}

// WithTrees sets s's process figures to the sums over the trees of the servers that run (one
// that was killed is left out).
func (ss Servers) WithTrees(s table.ServerSample, pss bool) table.ServerSample {
	s.Managed, s.CPUTicks, s.UserTicks, s.RSSBytes, s.PSSBytes = true, 0, 0, 0, 0
	for _, srv := range ss {
		st, err := srv.Stats(pss)
		if err != nil {
			continue
		}
		s.CPUTicks += st.CPUTicks
		s.UserTicks += st.UserTicks
		s.RSSBytes += st.RSSBytes
		s.PSSBytes += st.PSSBytes
	}
	return s
}

// WithTree adds the managed server's process-tree figures to s (nothing for an external
// server); PSS only with pss (see table.ServerReporter).
func (e *ServerEngine) WithTree(s table.ServerSample, pss bool) (table.ServerSample, error) {
	if e.Srv == nil {
		return s, nil
	}
	st, err := e.Srv.Stats(pss)
	if err != nil {
		return s, err
	}
	s.Managed, s.CPUTicks, s.UserTicks, s.RSSBytes, s.PSSBytes = true, st.CPUTicks, st.UserTicks, st.RSSBytes, st.PSSBytes
	return s, nil
}
