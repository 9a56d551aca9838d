package tpcc

import (
	"context"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload/worktest"
)

// TestCheckCatches plants inconsistencies after a run and sees the check name them: a
// warehouse's w_ytd off by a cent (condition 1), then a new_order row past the district's next
// order id (conditions 2 and 3).
func TestCheckCatches(t *testing.T) {
	for _, name := range []string{"pebble", "sqlite"} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			w := tiny(t, 50)
			eng, dir := worktest.Engine(t, name, false, nil)
			run := worktest.Steps(t, eng, dir, w, nil)
			if _, err := run.Check(ctx); err != nil {
				t.Fatal(err)
			}
			sess, err := eng.NewSession(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			exec := func(st *table.Stmt, args ...int64) {
				t.Helper()
				vals := make([]table.Value, len(args))
				for i, a := range args {
					vals[i] = iv(a)
				}
				if n, err := sess.Exec(ctx, st, vals, table.NewRows(1, 1)); err != nil || n != 1 {
					t.Fatalf("%s: %d rows, %v", st.SQL, n, err)
				}
			}
			exec(w.st.plantYTD, 1, 2)
			_, err = run.Check(ctx)
			if err == nil || !strings.Contains(err.Error(), "condition 1: warehouse 2") {
				t.Fatalf("check after w_ytd + 1: %v", err)
			}
			exec(w.st.plantYTD, -1, 2)
			if _, err := run.Check(ctx); err != nil {
				t.Fatalf("check after the repair: %v", err)
			}
			exec(w.st.noInsNewOrder, 1_000_000, 3, 1) // no_o_id, no_d_id, no_w_id
			_, err = run.Check(ctx)
			if err == nil || !strings.Contains(err.Error(), "condition 2: district (1, 3)") || !strings.Contains(err.Error(), "condition 3: district (1, 3)") {
				t.Fatalf("check after a new_order row past d_next_o_id: %v", err)
			}
		})
	}
}
