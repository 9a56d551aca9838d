package tpcc

import (
	"context"
	"fmt"

	"github.com/rumbench/rumbench/internal/table"
)

// maxProblems bounds the problems a failed check lists.
const maxProblems = 5

// Check implements workload.Run: the specification's consistency conditions 1 to 4 (clause
// 3.3.2), on every warehouse and district:
//
//  1. W_YTD = sum(D_YTD) over the warehouse's districts;
//  2. D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) of the district (max(NO_O_ID) when it has
//     undelivered orders);
//  3. max(NO_O_ID) - min(NO_O_ID) + 1 = the district's new_order rows;
//  4. sum(O_OL_CNT) = the district's order_line rows.
func (r *Run) Check(ctx context.Context) (string, error) {
	if !r.stores {
		return "skipped: the engine keeps no data", nil
	}
	sess, err := r.eng.NewSession(ctx)
	if err != nil {
		return "", err
	}
	defer sess.Close()
	st := r.w.st
	out := table.NewRows(3, Districts)
	args := make([]table.Value, 0, 4)
	var problems []string
	bad := func(format string, a ...any) {
		problems = append(problems, fmt.Sprintf(format, a...))
	}
	// one runs a statement that returns one integer, and says whether it returned one.
	one := func(s *table.Stmt, a ...int64) (int64, bool, error) {
		args = args[:0]
		for _, x := range a {
			args = append(args, iv(x))
		}
		out.Reset(1)
		if _, err := sess.Exec(ctx, s, args, out); err != nil {
			return 0, false, err
		}
		if out.N == 0 {
			return 0, false, nil
		}
		return out.Row(0)[0].I, true, nil
	}
	lo, hi := r.w.ownWarehouses() // a shard checks its own (the others' may still change)
	var districts, newOrders, lines int64
	for w := lo; w <= hi && len(problems) < maxProblems; w++ {
		wYTD, ok, err := one(st.ckWarehouse, w)
		if err != nil {
			return "", err
		}
		if !ok {
			bad("warehouse %d is missing", w)
			continue
		}
		args = append(args[:0], iv(w))
		out.Reset(3)
		if _, err := sess.Exec(ctx, st.ckDistricts, args, out); err != nil {
			return "", err
		}
		if out.N != Districts {
			bad("warehouse %d has %d districts, want %d", w, out.N, Districts)
			continue
		}
		type district struct{ id, ytd, next int64 }
		var ds [Districts]district
		var ytd int64
		for i := range ds {
			row := out.Row(i)
			ds[i] = district{row[0].I, row[1].I, row[2].I}
			ytd += row[1].I
		}
		if wYTD != ytd {
			bad("condition 1: warehouse %d: w_ytd %d, sum of its districts' d_ytd %d", w, wYTD, ytd)
		}
		for _, d := range ds {
			districts++
			maxO, _, err := one(st.ckMaxOrder, w, d.id, 1, 0)
			if err != nil {
				return "", err
			}
			if d.next-1 != maxO {
				bad("condition 2: district (%d, %d): d_next_o_id - 1 = %d, max(o_id) %d", w, d.id, d.next-1, maxO)
			}
			maxNO, has, err := one(st.ckMaxNewOrder, w, d.id, 1, 0)
			if err != nil {
				return "", err
			}
			count, _, err := one(st.ckCountNewOrder, w, d.id)
			if err != nil {
				return "", err
			}
			newOrders += count
			if has {
				if maxNO != d.next-1 {
					bad("condition 2: district (%d, %d): d_next_o_id - 1 = %d, max(no_o_id) %d", w, d.id, d.next-1, maxNO)
				}
				minNO, _, err := one(st.ckMinNewOrder, w, d.id, 1, 0)
				if err != nil {
					return "", err
				}
				if maxNO-minNO+1 != count {
					bad("condition 3: district (%d, %d): max(no_o_id) - min(no_o_id) + 1 = %d, new_order rows %d", w, d.id, maxNO-minNO+1, count)
				}
			} else if count != 0 {
				bad("condition 3: district (%d, %d): %d new_order rows but no largest one", w, d.id, count)
			}
			olCnt, _, err := one(st.ckSumOLCnt, w, d.id)
			if err != nil {
				return "", err
			}
			n, _, err := one(st.ckCountLines, w, d.id)
			if err != nil {
				return "", err
			}
			lines += n
			if olCnt != n {
				bad("condition 4: district (%d, %d): sum(o_ol_cnt) %d, order_line rows %d", w, d.id, olCnt, n)
			}
		}
	}
	if len(problems) > 0 {
		if len(problems) > maxProblems {
			problems = problems[:maxProblems]
		}
		return "", fmt.Errorf("consistency check failed: %v", problems)
	}
	what := fmt.Sprintf("%d warehouses", hi-lo+1)
	if r.w.split() {
		what = fmt.Sprintf("warehouses %d..%d of %d (this shard's)", lo, hi, r.w.Cfg.Warehouses)
	}
	return fmt.Sprintf("consistency conditions 1-4 hold: %s, %d districts, %d new orders, %d order lines", what, districts, newOrders, lines), nil
}
