package script

import (
	"context"

	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
)

var _ workload.Reuser = (*Workload)(nil)

// pgbenchTables are pgbench's tables as the keeper finds them (by name: the init step creates
// them with pgbench's DDL, and they have no secondary index).
var pgbenchTables = func() []*table.Table {
	out := make([]*table.Table, len(Tables))
	for i, n := range Tables {
		out[i] = &table.Table{Name: n}
	}
	return out
}()

// Tables implements workload.Reuser: pgbench's four tables when the init step creates them;
// none when the scripts run on tables of the user's.
func (w *Workload) Tables() []*table.Table {
	if !w.Cfg.Init {
		return nil
	}
	return pgbenchTables
}

// Reopen implements workload.Reuser: the run step on pgbench's tables an earlier rumbench
// prepare loaded at the same scale factor. Their rows are the scale's (the built-ins add
// history rows only), which the check after the run counts; the balance invariant is checked
// after a run on freshly loaded tables only (earlier runs' history is not this run's).
func (w *Workload) Reopen(ctx context.Context, eng table.Engine, k table.Keeper) (workload.Run, error) {
	if err := workload.AttachAll(ctx, k, w.Tables(), false); err != nil {
		return nil, err
	}
	r := &run{w: w, eng: eng, reopened: true}
	if _, err := r.sqlSession(ctx); err != nil {
		return nil, err
	}
	if err := r.sessions.Close(); err != nil {
		return nil, err
	}
	if w.Cfg.Init {
		r.loaded.Store(w.Cfg.Scale * (branchesPerScale + tellersPerScale + accountsPerScale))
	}
	return r, nil
}
