package workload

import (
	"context"
	"errors"
	"fmt"

	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/table"
)

// RunBase is the part of a workload's run in the framework's shape that the framework gives it:
// the engine, the sessions of the current step and the loader, with Run's Prepare (nothing),
// Close and the dispatch of a step. A run embeds a RunBase and adds its own steps and Check.
type RunBase struct {
	Eng      table.Engine
	Sessions Sessions
	Load     Loader
}

// Prepare implements Run: nothing precedes a step.
func (r *RunBase) Prepare(context.Context, string) (string, error) { return "", nil }

// Close implements Run: it closes the current step's sessions.
func (r *RunBase) Close() error { return r.Sessions.Close() }

// StepOf closes the sessions of the step before, then returns the load step when load is set,
// else the step build makes.
func (r *RunBase) StepOf(ctx context.Context, name string, load bool, build func(context.Context) (runner.Step, error)) (runner.Step, error) {
	if err := r.Sessions.Close(); err != nil {
		return runner.Step{}, err
	}
	if load {
		return r.Load.Step(ctx, name, r.Eng, &r.Sessions)
	}
	return build(ctx)
}

// InTx runs each(i) for i in [0, n) in one transaction of sess, a lone statement (n = 1) in
// autocommit; an error rolls the transaction back and is returned.
func InTx(ctx context.Context, sess table.Session, n int, each func(i int) error) error {
	if n > 1 {
		if err := sess.Begin(ctx); err != nil {
			return err
		}
	}
	for i := 0; i < n; i++ {
		if err := each(i); err != nil {
			if n > 1 {
				sess.Rollback(context.WithoutCancel(ctx))
			}
			return err
		}
	}
	if n > 1 {
		return sess.Commit(ctx)
	}
	return nil
}

// RetryConflicts runs f until it succeeds, is not refused for a lock conflict
// (table.ErrConflict: f's transaction was rolled back), or has been tried tries times; each
// conflict is counted on m (Meter.Retry), as sysbench's "ignored errors".
func RetryConflicts(m *runner.Meter, tries int, f func() error) error {
	for try := 1; ; try++ {
		err := f()
		if err == nil || !errors.Is(err, table.ErrConflict) || try >= tries {
			return err
		}
		m.Retry()
	}
}

// ReadBack counts how many of n rows a statement finds, row i read by its args(i): a check that
// every row a shard wrote is there, where counting the shared table says nothing of a shard's.
func ReadBack(ctx context.Context, sess table.Session, st *table.Stmt, n int64, args func(i int64) []table.Value) (int64, error) {
	out := table.NewRows(max(len(st.Cols), 1), 1)
	var found int64
	for i := int64(0); i < n; i++ {
		out.Reset(max(len(st.Cols), 1))
		got, err := sess.Exec(ctx, st, args(i), out)
		if err != nil {
			return found, err
		}
		found += got
	}
	return found, nil
}

// Clients makes n workers of a step, each on a session of its own (closed with the step's),
// named "client N" (N from first+1: a shard's clients are numbered among all shards') and
// running the operation op returns for it.
func (r *RunBase) Clients(ctx context.Context, first, n int, op func(no int, sess table.Session) runner.OpFunc) ([]runner.Worker, error) {
	var out []runner.Worker
	for i := 0; i < n; i++ {
		sess, err := r.Sessions.Open(ctx, r.Eng)
		if err != nil {
			return out, err
		}
		out = append(out, runner.Worker{Name: fmt.Sprintf("client %d", first+i+1), Op: op(first+i, sess)})
	}
	return out, nil
}
