package tpcc

import (
	"context"
	"fmt"

	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
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
	sess, err := workload.CheckSession(ctx, r.eng)
	if err != nil {
		return "", err
	}
	defer sess.Close()
	k := &checker{ctx: ctx, sess: sess, st: r.w.st, out: table.NewRows(3, Districts), args: make([]table.Value, 0, 4)}
	lo, hi := r.w.ownWarehouses() // a shard checks its own (the others' may still change)
	for w := lo; w <= hi && len(k.problems) < maxProblems; w++ {
		if err := k.warehouse(w); err != nil {
			return "", err
		}
	}
	if len(k.problems) > 0 {
		return "", fmt.Errorf("consistency check failed: %v", k.problems[:min(len(k.problems), maxProblems)])
	}
	what := fmt.Sprintf("%d warehouses", hi-lo+1)
	if r.w.split() {
		what = fmt.Sprintf("warehouses %d..%d of %d (this shard's)", lo, hi, r.w.Cfg.Warehouses)
	}
	return fmt.Sprintf("consistency conditions 1-4 hold: %s, %d districts, %d new orders, %d order lines", what, k.districts, k.newOrders, k.lines), nil
}

// checker runs the consistency check's statements on one session and keeps the problems found
// and the rows counted.
type checker struct {
	ctx                         context.Context
	sess                        table.Session
	st                          *stmts
	out                         *table.Rows
	args                        []table.Value
	problems                    []string
	districts, newOrders, lines int64
}

// district is what the check reads of a district row.
type district struct{ id, ytd, next int64 }

// bad notes a problem.
func (k *checker) bad(format string, a ...any) {
	k.problems = append(k.problems, fmt.Sprintf(format, a...))
}

// one runs a statement that returns one integer, and says whether it returned one.
func (k *checker) one(s *table.Stmt, a ...int64) (int64, bool, error) {
	k.args = k.args[:0]
	for _, x := range a {
		k.args = append(k.args, iv(x))
	}
	k.out.Reset(1)
	if _, err := k.sess.Exec(k.ctx, s, k.args, k.out); err != nil {
		return 0, false, err
	}
	if k.out.N == 0 {
		return 0, false, nil
	}
	return k.out.Row(0)[0].I, true, nil
}

// warehouse checks condition 1 on warehouse w, then conditions 2 to 4 on its districts.
func (k *checker) warehouse(w int64) error {
	wYTD, ok, err := k.one(k.st.ckWarehouse, w)
	if err != nil {
		return err
	}
	if !ok {
		k.bad("warehouse %d is missing", w)
		return nil
	}
	k.args = append(k.args[:0], iv(w))
	k.out.Reset(3)
	if _, err := k.sess.Exec(k.ctx, k.st.ckDistricts, k.args, k.out); err != nil {
		return err
	}
	if k.out.N != Districts {
		k.bad("warehouse %d has %d districts, want %d", w, k.out.N, Districts)
		return nil
	}
	var ds [Districts]district
	var ytd int64
	for i := range ds {
		row := k.out.Row(i)
		ds[i] = district{row[0].I, row[1].I, row[2].I}
		ytd += row[1].I
	}
	if wYTD != ytd {
		k.bad("condition 1: warehouse %d: w_ytd %d, sum of its districts' d_ytd %d", w, wYTD, ytd)
	}
	for _, d := range ds {
		if err := k.district(w, d); err != nil {
			return err
		}
	}
	return nil
}

// district checks conditions 2 to 4 on district d of warehouse w.
func (k *checker) district(w int64, d district) error {
	k.districts++
	maxO, _, err := k.one(k.st.ckMaxOrder, w, d.id, 1, 0)
	if err != nil {
		return err
	}
	if d.next-1 != maxO {
		k.bad("condition 2: district (%d, %d): d_next_o_id - 1 = %d, max(o_id) %d", w, d.id, d.next-1, maxO)
	}
	maxNO, has, err := k.one(k.st.ckMaxNewOrder, w, d.id, 1, 0)
	if err != nil {
		return err
	}
	count, _, err := k.one(k.st.ckCountNewOrder, w, d.id)
	if err != nil {
		return err
	}
	k.newOrders += count
	if has {
		if maxNO != d.next-1 {
			k.bad("condition 2: district (%d, %d): d_next_o_id - 1 = %d, max(no_o_id) %d", w, d.id, d.next-1, maxNO)
		}
		minNO, _, err := k.one(k.st.ckMinNewOrder, w, d.id, 1, 0)
		if err != nil {
			return err
		}
		if maxNO-minNO+1 != count {
			k.bad("condition 3: district (%d, %d): max(no_o_id) - min(no_o_id) + 1 = %d, new_order rows %d", w, d.id, maxNO-minNO+1, count)
		}
	} else if count != 0 {
		k.bad("condition 3: district (%d, %d): %d new_order rows but no largest one", w, d.id, count)
	}
	olCnt, _, err := k.one(k.st.ckSumOLCnt, w, d.id)
	if err != nil {
		return err
	}
	n, _, err := k.one(k.st.ckCountLines, w, d.id)
	if err != nil {
		return err
	}
	k.lines += n
	if olCnt != n {
		k.bad("condition 4: district (%d, %d): sum(o_ol_cnt) %d, order_line rows %d", w, d.id, olCnt, n)
	}
	return nil
}
