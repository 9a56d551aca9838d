package script

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
)

// Check implements workload.Run: with pgbench's tables loaded and only built-in scripts run,
// the row counts and the tpcb-like balance invariant (the sum of the account balances equals
// the sum of the history's deltas, and so do the branch and teller sums when simple-update did
// not run); on tables an earlier prepare loaded, the row counts; then every check the scripts
// declare. Every query runs read-only
// (table.SQLSession.QueryReadOnly).
func (r *run) Check(ctx context.Context) (string, error) {
	if !r.eng.Info().Stores {
		return "not checked (engine stores nothing)", nil
	}
	s, err := workload.CheckSession(ctx, r.eng)
	if err != nil {
		return "", err
	}
	defer s.Close()
	sq := s.(table.SQLSession)
	var done []string
	if r.w.Cfg.Init && (r.inited || r.reopened) {
		msg, err := r.checkBuiltins(ctx, sq)
		if err != nil {
			return "", err
		}
		done = append(done, msg)
	}
	out := table.NewRows(1, 1)
	n := 0
	for _, w := range r.w.Cfg.Scripts {
		for _, c := range w.Script.Checks {
			got, err := one(ctx, sq, c.Query, out)
			if err != nil {
				return "", fmt.Errorf("check of %s line %d: %w", w.Script.Name, c.Line, err)
			}
			if !sameValue(got, c.Want) {
				return "", fmt.Errorf("check of %s line %d: %s gives %q, want %q", w.Script.Name, c.Line, input.Short(c.Query), input.Short(got), input.Short(c.Want))
			}
			n++
		}
	}
	if n > 0 {
		done = append(done, fmt.Sprintf("%d script checks", n))
	}
	if f := r.failed.Load(); f > 0 {
		done = append(done, fmt.Sprintf("%d transactions failed after %d tries", f, r.w.Cfg.MaxTries))
	}
	if len(done) == 0 {
		return "nothing to check (no pgbench tables loaded, no script checks)", nil
	}
	return "ok: " + strings.Join(done, "; "), nil
}

func (r *run) checkBuiltins(ctx context.Context, sq table.SQLSession) (string, error) {
	cfg := &r.w.Cfg
	out := table.NewRows(1, 1)
	counts := []struct {
		tbl  string
		want int64
	}{
		{"pgbench_branches", cfg.Scale * branchesPerScale},
		{"pgbench_tellers", cfg.Scale * tellersPerScale},
		{"pgbench_accounts", cfg.Scale * accountsPerScale},
	}
	for _, c := range counts {
		n, err := oneInt(ctx, sq, "SELECT count(*) FROM "+c.tbl, out)
		if err != nil {
			return "", err
		}
		if n != c.want {
			return "", fmt.Errorf("%s holds %d rows, want %d", c.tbl, n, c.want)
		}
	}
	onlyBuiltins, simpleUpdate := true, false
	for _, w := range cfg.Scripts {
		onlyBuiltins = onlyBuiltins && w.Builtin != ""
		simpleUpdate = simpleUpdate || w.Builtin == "simple-update" && w.Weight > 0
	}
	if !onlyBuiltins || r.reopened {
		return "row counts", nil
	}
	hist, err := oneInt(ctx, sq, "SELECT count(*) FROM pgbench_history", out)
	if err != nil {
		return "", err
	}
	// Transactions of unknown outcome (a connection lost in flight) may have committed.
	if want, unknown := r.writes.Load()+r.histOff, r.unknownWrites.Load(); hist < want || hist > want+unknown {
		return "", fmt.Errorf("pgbench_history holds %d rows, want %d (one per committed write transaction, %d more of unknown outcome)", hist, want, unknown)
	}
	sums := map[string]int64{}
	for _, q := range []string{
		"SELECT sum(delta) FROM pgbench_history", "SELECT sum(abalance) FROM pgbench_accounts",
		"SELECT sum(bbalance) FROM pgbench_branches", "SELECT sum(tbalance) FROM pgbench_tellers",
	} {
		if sums[q], err = oneInt(ctx, sq, q, out); err != nil {
			return "", err
		}
	}
	delta := sums["SELECT sum(delta) FROM pgbench_history"]
	a := sums["SELECT sum(abalance) FROM pgbench_accounts"]
	b := sums["SELECT sum(bbalance) FROM pgbench_branches"]
	t := sums["SELECT sum(tbalance) FROM pgbench_tellers"]
	if a != delta {
		return "", fmt.Errorf("balance invariant: sum of account balances %d, sum of history deltas %d", a, delta)
	}
	if simpleUpdate {
		return fmt.Sprintf("row counts, %d history rows, account balances = history deltas = %d", hist, delta), nil
	}
	if b != delta || t != delta {
		return "", fmt.Errorf("balance invariant: branches %d, tellers %d, accounts %d, history deltas %d: want all equal", b, t, a, delta)
	}
	return fmt.Sprintf("row counts, %d history rows, balances: accounts = branches = tellers = history deltas = %d", hist, delta), nil
}

// one runs a query that must return one row of one column, read-only (a script's check is
// text pgbench ignores: it must not change anything), and returns its text ("" for NULL).
func one(ctx context.Context, sq table.SQLSession, q string, out *table.Rows) (string, error) {
	n, err := sq.QueryReadOnly(ctx, q, out)
	if err != nil {
		return "", err
	}
	if n != 1 || out.Cols != 1 {
		return "", fmt.Errorf("%s: %d rows of %d columns, want one row of one column", q, n, out.Cols)
	}
	return string(out.Row(0)[0].B), nil
}

// oneInt runs a query that returns one integer (NULL is 0: a sum over no rows).
func oneInt(ctx context.Context, sq table.SQLSession, q string, out *table.Rows) (int64, error) {
	s, err := one(ctx, sq, q, out)
	if err != nil || s == "" {
		return 0, err
	}
	s = strings.TrimSuffix(s, ".0") // SQLite's and MySQL's sums may be decimals
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is no integer", q, s)
	}
	return n, nil
}

// sameValue compares a check's result with its expected text: equal texts, or equal numbers.
func sameValue(got, want string) bool {
	if got == want {
		return true
	}
	g, err1 := strconv.ParseFloat(strings.TrimSpace(got), 64)
	w, err2 := strconv.ParseFloat(strings.TrimSpace(want), 64)
	return err1 == nil && err2 == nil && g == w
}
