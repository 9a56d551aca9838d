package workload

import (
	"context"

	"github.com/rumbench/rumbench/internal/table"
)

// CountRows returns the rows each of tables holds on eng (table.Session.Count over its primary
// key), in order, read on a check session of its own (CheckSession): the counts a Reuser's Reopen
// reads back and a Growth's RowCount.
func CountRows(ctx context.Context, eng table.Engine, tables ...*table.Table) ([]int64, error) {
	sess, err := CheckSession(ctx, eng)
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

// CheckSession opens the session a check reads through: one whose reads see every write
// acknowledged before them (table.CheckSessioner), or, on an engine that does not need one, a
// session as any other.
func CheckSession(ctx context.Context, eng table.Engine) (table.Session, error) {
	if c, ok := eng.(table.CheckSessioner); ok {
		return c.NewCheckSession(ctx)
	}
	return eng.NewSession(ctx)
}
