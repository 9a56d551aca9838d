package script

import (
	"context"
	"fmt"

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
// counted before the step.
func (r *run) BeforeFaults(ctx context.Context, name string) error {
	r.unknownWrites.Store(0)
	r.writes0, r.hist0 = r.writes.Load(), -1
	if !historyStep(name) || !r.historyCounted() {
		return nil
	}
	n, err := r.history(ctx)
	if err != nil {
		return fmt.Errorf("history rows before %s: %w", name, err)
	}
	r.hist0 = n
	return nil
}

// historyStep says whether step name runs the scripts (not the init).
func historyStep(name string) bool { return name == StepRun }

// CheckAcknowledged implements workload.AckChecker: pgbench_history grew by at least the
// acknowledged write transactions (one row each) and at most those and the ones of unknown
// outcome; what it lacks is lost, and the final check takes the table as it is.
func (r *run) CheckAcknowledged(ctx context.Context, name string) (results.AckCheck, error) {
	acked, unknown := r.writes.Load()-r.writes0, r.unknownWrites.Load()
	res := results.AckCheck{Acknowledged: acked, Unknown: unknown}
	if r.hist0 < 0 {
		res.How = "not checked: only the built-in write scripts' history rows are (init run, built-ins only)"
		return res, nil
	}
	n, err := r.history(ctx)
	if err != nil {
		return res, fmt.Errorf("history rows after %s: %w", name, err)
	}
	grew := n - r.hist0
	if grew > acked+unknown {
		return res, fmt.Errorf("%s: pgbench_history grew by %d rows, more than the %d write transactions sent (%d acknowledged, %d of unknown outcome)", name, grew, acked+unknown, acked, unknown)
	}
	r.histOff += grew - acked // the unknown ones that committed, less the lost
	res.Checked, res.Lost = true, max(0, acked-grew)
	res.How = fmt.Sprintf("pgbench_history grew by %d rows: %d acknowledged write transactions, %d of unknown outcome", grew, acked, unknown)
	return res, nil
}

// history counts pgbench_history's rows.
func (r *run) history(ctx context.Context) (int64, error) {
	s, err := r.eng.NewSession(ctx)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	return oneInt(ctx, s.(table.SQLSession), "SELECT count(*) FROM pgbench_history", table.NewRows(1, 1))
}
