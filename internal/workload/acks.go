package workload

import (
	"context"
	"fmt"

	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/table"
)

// Growth is a figure a step's acknowledged writes grow by one each (a table's rows, the sum of a
// column, the orders of the districts), read before and after a step with faults: what an
// AckChecker compares with the writes its clients were told committed.
type Growth struct {
	// Read reads the figure now.
	Read func(ctx context.Context) (int64, error)
	// Unit names what one write adds, for How ("records", "rows").
	Unit   string
	before int64
	on     bool
}

// Begin reads the figure before step name; with on false the step goes unchecked.
func (g *Growth) Begin(ctx context.Context, name string, on bool) error {
	g.on = false
	if !on {
		return nil
	}
	n, err := g.Read(ctx)
	if err != nil {
		return fmt.Errorf("%s before %s: %w", g.Unit, name, err)
	}
	g.before, g.on = n, true
	return nil
}

// Check reads the figure after step name and checks acked writes, and unknown ones of unknown
// outcome, against its growth: lost is what the growth lacks of acked. With strict, a growth
// beyond acked + unknown is an error (more than was sent). why says why a step Begin left
// unchecked was not checked. It returns the check and the growth.
func (g *Growth) Check(ctx context.Context, name string, acked, unknown int64, strict bool, why string) (results.AckCheck, int64, error) {
	res := results.AckCheck{Acknowledged: acked, Unknown: unknown}
	if !g.on {
		res.How = "not checked: " + why
		return res, 0, nil
	}
	n, err := g.Read(ctx)
	if err != nil {
		return res, 0, fmt.Errorf("%s after %s: %w", g.Unit, name, err)
	}
	grew := n - g.before
	if strict && grew > acked+unknown {
		return res, grew, fmt.Errorf("%s: the %s grew by %d, more than the %d writes sent (%d acknowledged, %d of unknown outcome)", name, g.Unit, grew, acked+unknown, acked, unknown)
	}
	res.Checked, res.Lost = true, max(0, acked-grew)
	res.How = fmt.Sprintf("the %s grew by %d: %d acknowledged, %d of unknown outcome", g.Unit, grew, acked, unknown)
	return res, grew, nil
}

// RowCount is a Growth's Read of table t's rows on eng (CountRows).
func RowCount(eng table.Engine, t *table.Table) func(context.Context) (int64, error) {
	return func(ctx context.Context) (int64, error) {
		n, err := CountRows(ctx, eng, t)
		if err != nil {
			return 0, err
		}
		return n[0], nil
	}
}
