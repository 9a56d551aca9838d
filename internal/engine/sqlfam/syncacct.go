package sqlfam

import (
	"github.com/rumbench/rumbench/internal/syncacct"
	"github.com/rumbench/rumbench/internal/syncacct/cshim"
)

// AcctSource is a server's sync accounting: the counters of the library preloaded into it.
type AcctSource interface {
	Read(s *syncacct.Sample)
	Close() error
}

// SyncSample implements syncacct.Reporter (zero counters when the accounting is off).
func (e *ServerEngine) SyncSample(s *syncacct.Sample) error {
	*s = syncacct.Sample{}
	if e.Acct != nil {
		e.Acct.Read(s)
	}
	return nil
}

// SyncCoverage implements syncacct.Reporter: AcctCoverage, made incomplete when no server
// process loaded the library. An empty Source means the accounting is off.
func (e *ServerEngine) SyncCoverage() syncacct.Coverage {
	c := e.AcctCoverage
	if e.Acct != nil {
		var s syncacct.Sample
		e.Acct.Read(&s)
		if s.Attached == 0 {
			c.Complete, c.Note = false, "no server process loaded the accounting library (a static binary, or a launcher that clears LD_PRELOAD): nothing counted"
		}
	}
	return c
}

// StartAcct prepares the sync accounting of a server engine with cfg. For a managed server
// (external false) it returns the preload source, its coverage and the environment to start
// the server with (dataDir: the server's data directory, classified by p); note is added to the
// coverage (a path the library cannot see). For an external server nothing can be counted. With
// cfg off it returns nothing.
func StartAcct(cfg syncacct.Config, external bool, dataDir string, p syncacct.Patterns, complete bool, note string) (AcctSource, syncacct.Coverage, []string, error) {
	switch {
	case !cfg.Enabled:
		return nil, syncacct.Coverage{}, nil, nil
	case external:
		return nil, syncacct.Coverage{Source: "none", Note: "external server (--dsn): the accounting library cannot be loaded into it; syncs are not counted"}, nil, nil
	}
	pl, err := cshim.NewPreload(dataDir, p, cfg.Latency)
	if err != nil {
		return nil, syncacct.Coverage{}, nil, err
	}
	return pl, syncacct.Coverage{Source: "preload", Complete: complete, Note: note}, pl.Env(), nil
}
