package script

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/rumbench/rumbench/internal/engine/all"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/sysstat"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
	"github.com/rumbench/rumbench/internal/workload/worktest"
)

func build(t *testing.T, args ...string) *Workload {
	t.Helper()
	d := newDefinition()
	if err := d.Flags().Parse(args); err != nil {
		t.Fatal(err)
	}
	w, err := d.Build(workload.Shared{Profile: "quick", Seed: 42})
	if err != nil {
		t.Fatal(err)
	}
	return w.(*Workload)
}

// runBuiltins runs the three built-ins (tpcb-like alone, then all three by weight) on engine
// and checks the transaction and statement counts and the balance invariant.
// With more, each set of flags runs too (after the defaults, so they override them).
func runBuiltins(t *testing.T, engine string, more ...[]string) {
	for _, args := range append([][]string{
		{"--builtin", "tpcb-like"},
		{"--builtin", "tpcb-like@2", "--builtin", "simple-update", "--builtin", "select-only@3"},
	}, more...) {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			w := build(t, append([]string{"--run-secs", "1", "--clients", "2"}, args...)...)
			eng, dir := worktest.Engine(t, engine, false, nil)
			run := worktest.Steps(t, eng, dir, w, func(_ workload.Run, step string, res results.Step) {
				switch step {
				case StepInit:
					if res.Ops != 100_011 {
						t.Errorf("init: %d rows, want 100011", res.Ops)
					}
				case StepRun:
					checkCounts(t, w, res)
				}
			})
			msg, err := run.Check(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(msg, "history deltas") {
				t.Errorf("check: %s", msg)
			}
			t.Logf("%s: %s", engine, msg)
		})
	}
}

// checkCounts checks that each script's statements ran once per transaction of the script.
func checkCounts(t *testing.T, w *Workload, res results.Step) {
	t.Helper()
	if res.Ops == 0 {
		t.Fatal("run: no transaction")
	}
	for _, sc := range w.Cfg.Scripts {
		tx := res.KindOps("tx_" + sc.Label)
		n := 0
		for _, c := range sc.Script.Commands {
			if c.Kind > 3 { // meta-commands
				continue
			}
			n++
			var name string
			for _, k := range res.Kinds {
				if strings.HasPrefix(k.Name, sc.Label+"_") && strings.HasPrefix(k.Name[len(sc.Label)+1:], twoDigits(n)) {
					name = k.Name
				}
			}
			if got := res.KindOps(name); got != tx {
				t.Errorf("%s: statement %d (%s) ran %d times, the script %d", sc.Label, n, name, got, tx)
			}
		}
	}
}

func twoDigits(n int) string { return string([]byte{byte('0' + n/10), byte('0' + n%10), '_'}) }

// jobs runs three clients on two threads: two of them share one (a netblock.Group), the third
// has its own.
var jobs = []string{"--builtin", "tpcb-like", "--builtin", "select-only", "--clients", "3", "--jobs", "2"}

func TestBuiltinsSQLite(t *testing.T)   { runBuiltins(t, "sqlite") }
func TestBuiltinsPostgres(t *testing.T) { runBuiltins(t, "postgres", jobs) }
func TestBuiltinsMySQL(t *testing.T)    { runBuiltins(t, "mysql", jobs) }

// TestWarmup: --warmup-secs runs the clients unmeasured first, as sysbench's warm-up: the run
// step's figures start after it.
func TestWarmup(t *testing.T) {
	secs := 1.0
	d := newDefinition()
	if err := d.Flags().Parse([]string{"--run-secs", "1", "--clients", "2"}); err != nil {
		t.Fatal(err)
	}
	wl, err := d.Build(workload.Shared{Profile: "quick", Seed: 42, WarmupSecs: &secs})
	if err != nil {
		t.Fatal(err)
	}
	w := wl.(*Workload)
	if got := workload.Banner(w.Settings(), w.Steps()); w.Cfg.WarmupSecs != 1 || !strings.Contains(got, "warmup_secs=1") {
		t.Fatalf("warm-up %g, banner %s", w.Cfg.WarmupSecs, got)
	}
	eng, dir := worktest.Engine(t, "sqlite", false, nil)
	worktest.Steps(t, eng, dir, w, func(_ workload.Run, step string, res results.Step) {
		if step != StepRun {
			return
		}
		if res.WarmupSec < 1 {
			t.Errorf("run: measured from %.2f s, want after the 1 s warm-up", res.WarmupSec)
		}
		// A transaction counts when it began in the measured window, its statements with it:
		// each statement ran exactly as often as the transactions.
		tx := res.KindOps("tx_tpcb_like")
		for _, k := range res.Kinds {
			if n := res.KindOps(k.Name); strings.HasPrefix(k.Name, "tpcb_like_") && n != tx {
				t.Errorf("%s ran %d times, the script %d", k.Name, n, tx)
			}
		}
		if tx == 0 {
			t.Error("run: no transaction measured")
		}
	})
}

// TestJobsNeedRawSockets: clients share a thread only over raw sockets; SQLite's, in the
// process, are refused when the workload opens, before the init step loads.
func TestJobsNeedRawSockets(t *testing.T) {
	w := build(t, "--clients", "2", "--jobs", "1", "--run-secs", "1")
	eng, _ := worktest.Engine(t, "sqlite", false, nil)
	if _, err := w.Open(context.Background(), eng); err == nil || !strings.Contains(err.Error(), "share a thread over raw sockets only") {
		t.Errorf("sqlite --jobs 1: %v", err)
	}
}

// userScript uses \set with random_zipfian, \if/\elif/\else, \gset and a declared check.
const userScript = `-- rumbench check: SELECT count(*) FROM pgbench_accounts WHERE abalance <> 0 AND aid > 100000 -> 0
\set aid random_zipfian(1, 100000 * :scale, 1.1)
\set hot :aid <= 10
SELECT abalance AS bal, bid FROM pgbench_accounts WHERE aid = :aid \gset acct_
\if :hot
  UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;
\elif :acct_bid = 1
  SELECT :acct_bal + 0 AS b;
\else
  SELECT 1;
\endif
`

func TestUserScriptSQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "zipf.sql")
	if err := os.WriteFile(path, []byte(userScript), 0o644); err != nil {
		t.Fatal(err)
	}
	w := build(t, "--script", path, "--init", "--run-secs", "1")
	if w.Cfg.Scripts[0].Label != "zipf" || len(w.Steps()) != 2 {
		t.Fatalf("label %q steps %v", w.Cfg.Scripts[0].Label, w.Steps())
	}
	eng, dir := worktest.Engine(t, "sqlite", false, nil)
	run := worktest.Steps(t, eng, dir, w, func(_ workload.Run, step string, res results.Step) {
		if step != StepRun {
			return
		}
		tx := res.KindOps("tx_zipf")
		sel, upd, other := res.KindOps("zipf_01_select"), res.KindOps("zipf_02_update"), res.KindOps("zipf_03_select")
		if tx == 0 || sel != tx || upd+other+res.KindOps("zipf_04_select") != tx || upd == 0 {
			t.Errorf("tx %d, gset selects %d, updates %d, selects %d + %d", tx, sel, upd, other, res.KindOps("zipf_04_select"))
		}
	})
	msg, err := run.Check(context.Background())
	if err != nil || !strings.Contains(msg, "1 script checks") {
		t.Fatalf("check: %q %v", msg, err)
	}
}

func TestRefusals(t *testing.T) {
	d := newDefinition()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.sql")
	os.WriteFile(bad, []byte("\\shell ls\n"), 0o644)
	sleepy := filepath.Join(dir, "sleepy.sql")
	os.WriteFile(sleepy, []byte("SELECT 1;\n\\sleep 1 ms\n"), 0o644)
	unset := filepath.Join(dir, "unset.sql")
	os.WriteFile(unset, []byte("\\set a :scale + 1\nSELECT :a, :b;\n"), 0o644)
	many := filepath.Join(dir, "many.sql")
	os.WriteFile(many, []byte(strings.Repeat("SELECT 1;\n", 100)), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--builtin", "tpcc"}, "valid are tpcb-like, simple-update, select-only"},
		{[]string{"--builtin", "tpcb-like@x"}, "WEIGHT an integer"},
		{[]string{"--builtin", "tpcb-like@0"}, "weights add up to 0"},
		{[]string{"--scale-factor", "0"}, "--scale-factor 0: want 1 to"},
		{[]string{"--clients", "0"}, "--clients 0"},
		{[]string{"--jobs", "-1"}, "--jobs -1: want 0"},
		{[]string{"--jobs", "1", "--clients", "2", "--script", sleepy}, `sleepy.sql line 2: \sleep would stop every client of its thread`},
		{[]string{"--clients", "1024", "--script", many}, "at most 32768 latency histograms"},
		{[]string{"--script", filepath.Join(dir, "none.sql")}, "no such file"},
		{[]string{"--script", dir}, "not a regular file"},
		{[]string{"--script", bad}, `unsupported meta-command \shell`},
		{[]string{"--script", unset}, `script unset.sql line 2: variable :b is never set`},
	}
	for _, c := range cases {
		d = newDefinition()
		if err := d.Flags().Parse(c.args); err != nil {
			t.Fatal(err)
		}
		_, err := d.Build(workload.Shared{Profile: "quick", Seed: 1})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error containing %q", c.args, err, c.want)
		}
	}
	w := build(t)
	eng, _ := worktest.Engine(t, "pebble", false, nil)
	if _, err := w.Open(context.Background(), eng); err == nil || !strings.Contains(err.Error(), "has no SQL") {
		t.Errorf("pebble: %v", err)
	}
}

// TestScriptErrorNamesClientOnce: a script that fails stops the step with one message that
// names the client once, the script and its line.
func TestScriptErrorNamesClientOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "div.sql")
	if err := os.WriteFile(path, []byte("\\set a 1 / 0\nSELECT :a;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := build(t, "--script", path, "--run-secs", "1")
	eng, dir := worktest.Engine(t, "sqlite", false, nil)
	ctx := context.Background()
	run, err := w.Open(ctx, eng)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	st, err := run.Step(ctx, StepRun)
	if err != nil {
		t.Fatal(err)
	}
	sampler, err := sysstat.NewSampler(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer sampler.Close()
	_, err = runner.Run(ctx, runner.Setup{Label: "sqlite", Engine: eng, Sampler: sampler, Tick: 100 * time.Millisecond}, st)
	if err == nil || err.Error() != "client 0: script div.sql line 1: division by zero" {
		t.Errorf("error %v, want client 0: script div.sql line 1: division by zero", err)
	}
}

// TestSleepEndsWithStep: a \sleep longer than the step's time ends at the step's end (pgbench -T
// ends its clients there too). Client 0 sleeps an hour inside a transaction, client 1 runs
// SELECTs: the step ends by itself, status ok (not stopped by its safety net), client 1's
// transactions counted, client 0's insert counted as a statement but its cut transaction not,
// and rolled back.
func TestSleepEndsWithStep(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nap.sql")
	os.WriteFile(path, []byte("\\if :client_id = 0\nBEGIN;\nINSERT INTO naps VALUES (1);\n\\sleep 3600 s\nCOMMIT;\n\\endif\nSELECT 1;\n"), 0o644)
	w := build(t, "--script", path, "--run-secs", "0.3", "--clients", "2")
	eng, dir := worktest.Engine(t, "sqlite", false, nil)
	ctx := context.Background()
	s, err := eng.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sq, out := s.(table.SQLSession), table.NewRows(1, 1)
	if _, err := sq.ExecSQL(ctx, "CREATE TABLE naps (id integer)", nil, out); err != nil {
		t.Fatal(err)
	}
	run := worktest.Steps(t, eng, dir, w, func(_ workload.Run, step string, res results.Step) {
		if step != StepRun {
			return
		}
		tx, ins, sel := res.KindOps("tx_nap"), res.KindOps("nap_02_insert"), res.KindOps("nap_04_select")
		if tx == 0 || sel != tx || ins != 1 {
			t.Errorf("transactions %d, selects %d, inserts %d: want the selects' transactions only, and client 0's one insert", tx, sel, ins)
		}
	})
	if _, err := run.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := sq.ExecSQL(ctx, "SELECT count(*) FROM naps", nil, out); err != nil || n != 1 || string(out.Row(0)[0].B) != "0" {
		t.Errorf("naps holds %s rows (%v): the cut transaction was not rolled back", out.Row(0)[0].B, err)
	}
}
