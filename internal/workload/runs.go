package workload

import (
	"context"
	"fmt"

	"github.com/rumbench/rumbench/internal/table"
)

// CountRows returns the rows each of tables holds on eng (table.Session.Count over its primary
// key), in order, read on a session of its own: the counts a Reuser's Reopen reads back.
func CountRows(ctx context.Context, eng table.Engine, tables ...*table.Table) ([]int64, error) {
	sess, err := eng.NewSession(ctx)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	out := make([]int64, len(tables))
	for i, t := range tables {
		if out[i], err = sess.Count(ctx, t, -1); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// CheckLoad runs a workload's invariant check on the data its load left, in Run.Prepare before
// the first step that follows the load, and says so: "load checked: ..." (the check's summary);
// its error says it was found after the load.
func CheckLoad(ctx context.Context, check func(context.Context) (string, error)) (string, error) {
	what, err := check(ctx)
	if err != nil {
		return "", fmt.Errorf("after the load: %w", err)
	}
	return "load checked: " + what, nil
}
