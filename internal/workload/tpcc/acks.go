package tpcc

import (
	"context"

	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
)

var _ workload.AckChecker = (*Run)(nil)

// BeforeFaults implements workload.AckChecker: the orders of this run's districts before the
// step (the sum of D_NEXT_O_ID - 1), and the New-Order counts from zero.
func (r *Run) BeforeFaults(ctx context.Context, name string) error {
	r.newOrders.Store(0)
	r.unknownNO.Store(0)
	r.orders = workload.Growth{Unit: "districts' orders (d_next_o_id - 1)", Read: r.countOrders}
	return r.orders.Begin(ctx, name, r.stores)
}

// CheckAcknowledged implements workload.AckChecker: the districts' orders grew by at least the
// acknowledged New-Orders and at most those and the New-Orders of unknown outcome (each
// committed New-Order takes the district's next order id); what they lack is lost.
func (r *Run) CheckAcknowledged(ctx context.Context, name string) (results.AckCheck, error) {
	res, _, err := r.orders.Check(ctx, name, r.newOrders.Load(), r.unknownNO.Load(), true, "the engine keeps no data")
	return res, err
}

// countOrders returns the orders of this run's warehouses' districts: the sum of
// D_NEXT_O_ID - 1.
func (r *Run) countOrders(ctx context.Context) (int64, error) {
	sess, err := workload.CheckSession(ctx, r.eng)
	if err != nil {
		return 0, err
	}
	defer sess.Close()
	out := table.NewRows(3, Districts)
	var n int64
	lo, hi := r.w.ownWarehouses()
	for w := lo; w <= hi; w++ {
		out.Reset(3)
		if _, err := sess.Exec(ctx, r.w.st.ckDistricts, []table.Value{iv(w)}, out); err != nil {
			return 0, err
		}
		for i := 0; i < out.N; i++ {
			n += out.Row(i)[2].I - 1
		}
	}
	return n, nil
}
