package workload

import (
	"context"

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
