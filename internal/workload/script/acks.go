package script

import (
	"context"

	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
)

var _ workload.AckChecker = (*run)(nil)

// historyCounted says whether the run's history rows count its write transactions: only the
// built-in scripts on the tables the init step made (each tpcb-like or simple-update
// transaction inserts one history row).
func (r *run) historyCounted() bool {
	if !r.w.Cfg.Init || !r.inited || r.reopened || !r.eng.Info().Stores {
		return false
	}
	for _, w := range r.w.Cfg.Scripts {
		if w.Builtin == "" {
			return false
		}
	}
	return true
}

// BeforeFaults implements workload.AckChecker: the history rows and the write transactions
// counted before the run step.
func (r *run) BeforeFaults(ctx context.Context, name string) error {
	r.unknownWrites.Store(0)
	r.writes0 = r.writes.Load()
	r.hist = workload.Growth{Unit: "rows of pgbench_history", Read: r.history}
	return r.hist.Begin(ctx, name, name == StepRun && r.historyCounted())
}

// CheckAcknowledged implements workload.AckChecker: pgbench_history grew by at least the
// acknowledged write transactions (one row each) and at most those and the ones of unknown
// outcome; what it lacks is lost, and the final check takes the table as it is.
func (r *run) CheckAcknowledged(ctx context.Context, name string) (results.AckCheck, error) {
	acked := r.writes.Load() - r.writes0
	res, grew, err := r.hist.Check(ctx, name, acked, r.unknownWrites.Load(), true,
		"only the built-in write scripts' history rows are (init run, built-ins only)")
	if res.Checked {
		r.histOff += grew - acked // the unknown ones that committed, less the lost
	}
	return res, err
}

// history counts pgbench_history's rows.
func (r *run) history(ctx context.Context) (int64, error) {
	s, err := workload.CheckSession(ctx, r.eng)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	return oneInt(ctx, s.(table.SQLSession), "SELECT count(*) FROM pgbench_history", table.NewRows(1, 1))
}
