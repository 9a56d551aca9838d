package cli

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/hist"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/server"
	"github.com/rumbench/rumbench/internal/store"
)

// childMain makes the test binary rumbench itself when set: the shard tests start it as
// separate processes (the same code as cmd/rumbench, whose main is cli.Main(cli.OSEnv())).
const childMain = "RUMBENCH_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(childMain) == "1" {
		os.Exit(Main(OSEnv()))
	}
	os.Exit(m.Run())
}

// proc is a rumbench process the test started.
type proc struct {
	args           []string
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	code           int
}

// startRumbench starts rumbench with args as a separate process; ctx's end kills it.
func startRumbench(t *testing.T, ctx context.Context, args ...string) *proc {
	t.Helper()
	p := &proc{args: args, cmd: exec.CommandContext(ctx, os.Args[0], args...)}
	p.cmd.Env = append(os.Environ(), childMain+"=1")
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	p.cmd.WaitDelay = 5 * time.Second
	// Killed with the test binary, should it die first: no shard outlives the test.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return p
}

// wait waits for every process and records its exit code.
func waitAll(ps ...*proc) {
	var wg sync.WaitGroup
	for _, p := range ps {
		wg.Add(1)
		go func(p *proc) {
			defer wg.Done()
			p.cmd.Wait()
			p.code = p.cmd.ProcessState.ExitCode()
		}(p)
	}
	wg.Wait()
}

// shardServer starts a private PostgreSQL server for the workload and creates a second database
// in it for the results store; it returns the workload's DSN and the store's URL.
func shardServer(t *testing.T, data string) (dsn, storeURL string) {
	t.Helper()
	srv, err := server.Start(context.Background(), server.Config{Kind: server.Postgres, Dir: filepath.Join(data, "srv")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop(context.Background()) })
	db, err := sql.Open("pgx", srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE DATABASE results"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(srv.DSN(), "/rumbench?") {
		t.Fatalf("unexpected DSN form %s", srv.DSN())
	}
	return srv.DSN(), strings.Replace(srv.DSN(), "/rumbench?", "/results?", 1)
}

// unionQuantile is the q-quantile of the values the buckets stand for (each bucket's count of
// its upper bound), capped by maxNs, computed from the expanded, sorted list of values with the
// histogram's rank rule (rank round(q·n), at least 1): the figure one process recording all of
// them would report.
func unionQuantile(buckets []hist.Bucket, q float64, maxNs int64) float64 {
	var vals []int64
	for _, b := range buckets {
		for i := int64(0); i < b.Count; i++ {
			vals = append(vals, b.UpperNs)
		}
	}
	slices.Sort(vals)
	rank := min(max(int64(q*float64(len(vals))+0.5), 1), int64(len(vals)))
	return float64(min(vals[rank-1], maxNs)) / 1e3
}

// TestShardsMerge runs the insert benchmark as three shard processes against one private
// PostgreSQL server, recording into a PostgreSQL store, then merges them: the merged totals are
// the shards' sums, the invariants hold on the combined data (each shard's check, and the
// tables counted on the server), the shards' steps started at the same instant (barriers), and
// the merged p99 of every kind is the p99 of the union of the shards' recorded latencies.
func TestShardsMerge(t *testing.T) {
	out, data, _ := dirs(t)
	dsn, storeURL := shardServer(t, data)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const shards, group = 3, "e2e-merge"
	base := []string{"run", "--workload", "insert", "--engine", "postgres", "--dsn", dsn, "--clients", "1", "--rows", "4000",
		"--writes", "1000", "--query-secs", "2", "--steps", "l.i0,l.x,l.i1,qr100,qp100", "--warmup-secs", "0",
		"--store", storeURL, "--out", out, "--quiet", "--group", group}
	var ps []*proc
	for i := 0; i < shards; i++ {
		args := append(slices.Clone(base), "--shard", fmt.Sprintf("%d/%d", i, shards), "--data-dir", filepath.Join(data, fmt.Sprint("s", i)))
		ps = append(ps, startRumbench(t, ctx, args...))
	}
	waitAll(ps...)
	for i, p := range ps {
		if p.code != ExitOK {
			t.Fatalf("shard %d: exit %d\n%s%s", i, p.code, p.stdout.String(), p.stderr.String())
		}
		if !strings.Contains(p.stdout.String(), "invariants postgres: ok: ") {
			t.Errorf("shard %d: no invariant check:\n%s", i, p.stdout.String())
		}
	}
	// The shards as the store recorded them.
	st, err := store.Open(ctx, storeURL)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ids, n, err := st.GroupRuns(ctx, group)
	if err != nil || n != shards || len(ids) != shards {
		t.Fatalf("group runs %v (%d): %v", ids, n, err)
	}
	var runs []*results.Run
	for _, id := range ids {
		r, err := st.Load(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Manifest.Shard == nil || r.Manifest.Shard.Group != group || !r.Manifest.Shard.Barriers {
			t.Fatalf("run %s: shard %+v", id, r.Manifest.Shard)
		}
		runs = append(runs, r)
	}
	tr := run(t, nil, "merge", "--group", group, "--store", storeURL, "--out", out)
	if tr.code != ExitOK {
		t.Fatalf("merge: exit %d %s%s", tr.code, tr.stdout, tr.stderr)
	}
	mergedDir := strings.TrimSpace(tr.stdout[strings.LastIndex(tr.stdout, "results: ")+len("results: "):])
	merged, err := results.Load(mergedDir)
	if err != nil {
		t.Fatal(err)
	}
	if merged.Manifest.Merged == nil || len(merged.Manifest.Merged.Runs) != shards || merged.Manifest.Status != results.StatusOK {
		t.Fatalf("merged manifest: %+v", merged.Manifest)
	}
	if _, err := st.Get(ctx, merged.Manifest.RunID); err != nil {
		t.Errorf("the merged run is not in the store: %v", err)
	}
	if len(merged.Steps) != 5 {
		t.Fatalf("merged steps: %d, want 5", len(merged.Steps))
	}
	for _, m := range merged.Steps {
		var ops, rows int64
		var starts []time.Time
		for _, r := range runs {
			i := slices.IndexFunc(r.Steps, func(s results.Step) bool { return s.Step == m.Step })
			if i < 0 {
				t.Fatalf("shard %s has no step %s", r.Manifest.RunID, m.Step)
			}
			s := r.Steps[i]
			ops, rows = ops+s.Ops, rows+s.Rows
			starts = append(starts, s.Start)
			for _, k := range m.Kinds {
				var kOps, kUnits int64
				for _, r2 := range runs {
					j := slices.IndexFunc(r2.Steps, func(s results.Step) bool { return s.Step == m.Step })
					kOps, kUnits = kOps+r2.Steps[j].KindOps(k.Name), kUnits+r2.Steps[j].KindUnits(k.Name)
				}
				if k.Ops != kOps || k.Units != kUnits {
					t.Errorf("%s %s: merged %d ops %d units, shards' sums %d and %d", m.Step, k.Name, k.Ops, k.Units, kOps, kUnits)
				}
			}
		}
		if m.Ops != ops || m.Rows != rows {
			t.Errorf("%s: merged ops %d rows %d, shards' sums %d and %d", m.Step, m.Ops, m.Rows, ops, rows)
		}
		sort.Slice(starts, func(i, j int) bool { return starts[i].Before(starts[j]) })
		spread := starts[len(starts)-1].Sub(starts[0])
		if spread > 250*time.Millisecond {
			t.Errorf("%s: the shards started %v apart (barrier)", m.Step, spread)
		}
		t.Logf("%s: the shards started within %v, at %s; ops %d = sum of the shards' (%d), rows %d", m.Step, spread, starts[0].Format("15:04:05.000"), m.Ops, ops, m.Rows)
		for _, l := range m.Latency {
			var all []hist.Bucket
			var count int64
			var counts []int64
			var maxUs float64
			for _, r := range runs {
				j := slices.IndexFunc(r.Steps, func(s results.Step) bool { return s.Step == m.Step })
				for _, sl := range r.Steps[j].Latency {
					if sl.Kind == l.Kind {
						all, count, maxUs = append(all, sl.Buckets...), count+sl.Count, max(maxUs, sl.MaxUs)
						counts = append(counts, sl.Count)
					}
				}
			}
			maxNs := int64(maxUs*1e3 + 0.5)
			if l.Count != count || l.MaxUs != maxUs {
				t.Errorf("%s %s: merged count %d max %v, shards' %d and %v", m.Step, l.Kind, l.Count, l.MaxUs, count, maxUs)
			}
			for _, q := range []struct {
				q   float64
				got float64
			}{{0.50, l.P50Us}, {0.99, l.P99Us}, {0.999, l.P999Us}} {
				if want := unionQuantile(all, q.q, maxNs); q.got != want {
					t.Errorf("%s %s: merged p%g %v µs, the union's %v µs", m.Step, l.Kind, q.q*100, q.got, want)
				}
			}
			t.Logf("%s %s: shards %v operations, merged %d; merged p99 %.1f µs, union p99 %.1f µs", m.Step, l.Kind,
				counts, l.Count, l.P99Us, unionQuantile(all, 0.99, maxNs))
		}
	}
	// The combined data on the server: one table per client of the three shards, holding the
	// rows the merged run counts.
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var tables []string
	var total int64
	rows, err := db.Query("SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE 'pi%' ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		rows.Scan(&name)
		tables = append(tables, name)
	}
	rows.Close()
	for _, tb := range tables {
		var c int64
		if err := db.QueryRow("SELECT count(*) FROM " + tb).Scan(&c); err != nil {
			t.Fatal(err)
		}
		total += c
	}
	last := merged.Steps[len(merged.Steps)-1]
	if fmt.Sprint(tables) != "[pi1 pi2 pi3]" || total != last.Rows {
		t.Errorf("server holds tables %v with %d rows; the merged run counts %d", tables, total, last.Rows)
	}
	if want := int64(shards) * (4000 + 100 + 800 + 2*200); total != want {
		t.Errorf("server holds %d rows, want %d (3 clients: 4000 loaded, 100 by l.x, 800 by l.i1, 200 per query step)", total, want)
	}
	t.Logf("rows on the server %d = merged run's %d", total, last.Rows)
	// The merged run is a run like any: report (text, html), compare against a shard.
	if tr := run(t, nil, "report", mergedDir, "--format", "json"); tr.code != ExitOK || !strings.Contains(tr.stdout, "qr100") {
		t.Errorf("report json: exit %d %s", tr.code, tr.stderr)
	}
	html := filepath.Join(t.TempDir(), "r.html")
	if tr := run(t, nil, "report", mergedDir, "--format", "html", "-o", html); tr.code != ExitOK {
		t.Errorf("report html: exit %d %s", tr.code, tr.stderr)
	}
	if tr := run(t, nil, "compare", runs[0].Manifest.RunID, merged.Manifest.RunID, "--out", out, "--store", storeURL); tr.code != ExitOK || !strings.Contains(tr.stdout, "l.i0") {
		t.Errorf("compare shard 0 with the merged run: exit %d %s%s", tr.code, tr.stdout, tr.stderr)
	}
	// Merging the shards' directories gives the same figures as merging from the store.
	var dirsOf []string
	for _, r := range runs {
		dirsOf = append(dirsOf, r.Dir)
	}
	tr = run(t, nil, append([]string{"merge", "--out", out, "--store", "none", "--label", "again", "--quiet"}, dirsOf...)...)
	if tr.code != ExitOK {
		t.Fatalf("merge of directories: exit %d %s", tr.code, tr.stderr)
	}
	again, err := results.Load(strings.TrimSpace(tr.stdout[strings.LastIndex(tr.stdout, "results: ")+len("results: "):]))
	if err != nil {
		t.Fatal(err)
	}
	for i := range again.Steps {
		a, b := again.Steps[i], merged.Steps[i]
		if a.Ops != b.Ops || a.Latency[0].P99Us != b.Latency[0].P99Us || a.Rate != b.Rate {
			t.Errorf("%s: merge of directories %d ops p99 %v, from the store %d ops p99 %v", a.Step, a.Ops, a.Latency[0].P99Us, b.Ops, b.Latency[0].P99Us)
		}
	}
	// A group id names one split run: running a shard of it again is refused.
	again0 := append(slices.Clone(base), "--shard", "0/3", "--data-dir", filepath.Join(data, "s0"))
	if tr := run(t, nil, again0...); tr.code != ExitUsage || !strings.Contains(tr.stderr, "shard 0 of group e2e-merge has run already") {
		t.Errorf("shard 0 again: exit %d %s", tr.code, tr.stderr)
	}
}

// findRunDir waits up to a minute for the run directory of shard i of group in out whose
// steps.json records step, and returns it.
func findRunDir(t *testing.T, out, group string, i int, step string) string {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		dirs, _ := filepath.Glob(filepath.Join(out, fmt.Sprintf("*-%s-s%d", group, i)))
		for _, d := range dirs {
			if steps, err := results.ReadSteps(d); err == nil && slices.ContainsFunc(steps, func(s results.Step) bool { return s.Step == step }) {
				return d
			}
		}
	}
	t.Errorf("shard %d of %s never recorded step %s", i, group, step)
	return ""
}

// TestShardFailureStopsGroup: a shard that fails marks its group failed in the store and the
// others stop, cleanly and keeping what they measured: at a barrier (a shard that cannot open
// the server) and in the middle of a step (a shard whose table is dropped under it).
func TestShardFailureStopsGroup(t *testing.T) {
	out, data, _ := dirs(t)
	dsn, storeURL := shardServer(t, data)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	args := func(group, shard, dsn string, querySecs int) []string {
		return []string{"run", "--workload", "insert", "--engine", "postgres", "--dsn", dsn, "--clients", "1", "--rows", "2000",
			"--steps", "l.i0,qr100", "--query-secs", fmt.Sprint(querySecs), "--warmup-secs", "0", "--store", storeURL, "--out", out,
			"--quiet", "--group", group, "--shard", shard, "--data-dir", filepath.Join(data, group+shard[:1])}
	}
	// At a barrier: shards 0 and 1 wait for shard 2, which cannot reach its database.
	bad := strings.Replace(dsn, "/rumbench?", "/nosuchdb?", 1)
	p0 := startRumbench(t, ctx, args("e2e-fail", "0/3", dsn, 1)...)
	p1 := startRumbench(t, ctx, args("e2e-fail", "1/3", dsn, 1)...)
	time.Sleep(500 * time.Millisecond)
	p2 := startRumbench(t, ctx, args("e2e-fail", "2/3", bad, 1)...)
	waitAll(p0, p1, p2)
	if p2.code != ExitFailure || !strings.Contains(p2.stderr.String(), "nosuchdb") {
		t.Errorf("shard 2: exit %d %s", p2.code, p2.stderr.String())
	}
	for i, p := range []*proc{p0, p1} {
		if p.code != ExitFailure || !strings.Contains(p.stderr.String(), "group e2e-fail failed: shard 2: ") {
			t.Errorf("shard %d: exit %d %s", i, p.code, p.stderr.String())
		}
	}
	// In a step: shard 1's table is dropped while both run qr100; shard 1 fails, shard 0 stops
	// within seconds instead of running its 60 s, keeping its load step.
	start := time.Now()
	// (--fresh: each shard drops its own tables, those the first group left.)
	q0 := startRumbench(t, ctx, append(args("e2e-stop", "0/2", dsn, 60), "--fresh")...)
	q1 := startRumbench(t, ctx, append(args("e2e-stop", "1/2", dsn, 60), "--fresh")...)
	if findRunDir(t, out, "e2e-stop", 1, "l.i0") == "" {
		cancel()
		waitAll(q0, q1)
		t.Fatalf("shard 0: %s\nshard 1: %s", q0.stderr.String(), q1.stderr.String())
	}
	time.Sleep(2 * time.Second)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "DROP TABLE pi2"); err != nil {
		t.Fatal(err)
	}
	waitAll(q0, q1)
	if q1.code != ExitFailure || !strings.Contains(q1.stderr.String(), "pi2") {
		t.Errorf("shard 1: exit %d %s", q1.code, q1.stderr.String())
	}
	if q0.code != ExitFailure || !strings.Contains(q0.stderr.String(), "group e2e-stop failed: shard 1: ") || !strings.Contains(q0.stderr.String(), "stopping this shard") {
		t.Errorf("shard 0: exit %d %s", q0.code, q0.stderr.String())
	}
	if d := time.Since(start); d > 45*time.Second {
		t.Errorf("shard 0 ran %v: it did not stop when shard 1 failed", d)
	}
	r0, err := results.Load(findRunDir(t, out, "e2e-stop", 0, "l.i0"))
	if err != nil {
		t.Fatal(err)
	}
	if r0.Manifest.Status != results.StatusInterrupted || !strings.Contains(r0.Manifest.Error, "group e2e-stop failed: shard 1: ") {
		t.Errorf("shard 0's manifest: status %s, error %q", r0.Manifest.Status, r0.Manifest.Error)
	}
	if len(r0.Steps) != 2 || r0.Steps[0].Status != results.StatusOK || r0.Steps[0].Ops != 2000 || r0.Steps[1].Status != results.StatusInterrupted || r0.Steps[1].Ops == 0 {
		t.Errorf("shard 0 kept: %+v", r0.Steps)
	}
}

// TestShardUsage: bad --shard input gets one line and exit 2, before anything runs.
func TestShardUsage(t *testing.T) {
	_, _, d := dirs(t)
	dsn := "postgres://u@127.0.0.1:1/db"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "3/2", "--engine", "postgres", "--dsn", dsn}, `--shard "3/2": want I/N with 0 <= I < N`},
		{[]string{"--shard", "0/2", "--engine", "pebble"}, "--shard needs a server every shard shares, given with --dsn: pebble is not one (an embedded engine keeps its data in this process's data directory)"},
		{[]string{"--shard", "0/2", "--engine", "postgres"}, "postgres is not one (a server rumbench starts is private to one process)"},
		{[]string{"--group", "g1", "--engine", "pebble"}, "--group g1 goes with --shard I/N"},
		{[]string{"--shard", "0/2", "--group", "Bad_Group", "--engine", "postgres", "--dsn", dsn}, `--group "Bad_Group": want 1 to 48 lower-case letters`},
		{[]string{"--shard", "1/3", "--workload", "sysbench", "--tables", "2", "--table-size", "1500", "--engine", "postgres", "--dsn", dsn}, "--shard 1/3: the shards share the 2 tables and each loads whole batches of 1000 rows of each: --table-size 1500 has only 2"},
		{[]string{"--shard", "0/2", "--workload", "ycsb", "--store", "none", "--engine", "postgres", "--dsn", dsn}, "--shard: workload ycsb shares its tables among the shards: they must meet at barriers in a PostgreSQL --store"},
		{[]string{"--shard", "0/2", "--workload", "linkbench", "--store", "none", "--engine", "postgres", "--dsn", dsn}, "--shard: workload linkbench shares its tables among the shards: they must meet at barriers in a PostgreSQL --store"},
		{[]string{"--shard", "0/2", "--repeat", "2", "--engine", "postgres", "--dsn", dsn}, "--shard does not go with prepare, --reuse or --repeat"},
	} {
		tr := run(t, nil, append(append([]string{"run"}, c.args...), d...)...)
		if tr.code != ExitUsage || !strings.Contains(tr.stderr, c.want) || strings.Count(strings.TrimSpace(tr.stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q", c.args, tr.code, tr.stderr)
		}
	}
}

// TestSysbenchShards: two sysbench shards split three tables (sbtest1 to shard 0, sbtest2 and
// sbtest3 to shard 1) on one server and merge into the events of both.
func TestSysbenchShards(t *testing.T) {
	out, data, _ := dirs(t)
	dsn, storeURL := shardServer(t, data)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var ps []*proc
	for i := 0; i < 2; i++ {
		ps = append(ps, startRumbench(t, ctx, "run", "--workload", "sysbench", "--engine", "postgres", "--dsn", dsn, "--tables", "3",
			"--table-size", "2000", "--tests", "point-query,update-index", "--read-secs", "1", "--write-secs", "1",
			"--store", storeURL, "--out", out, "--quiet", "--group", "sb", "--shard", fmt.Sprintf("%d/2", i),
			"--data-dir", filepath.Join(data, fmt.Sprint("sb", i))))
	}
	waitAll(ps...)
	for i, want := range []string{"ok: 2000 rows, 2000 index entries", "ok: 4000 rows, 4000 index entries"} {
		if ps[i].code != ExitOK || !strings.Contains(ps[i].stdout.String(), want) {
			t.Fatalf("shard %d: exit %d %s%s", i, ps[i].code, ps[i].stdout.String(), ps[i].stderr.String())
		}
	}
	tr := run(t, nil, "merge", "--group", "sb", "--store", storeURL, "--out", out)
	if tr.code != ExitOK {
		t.Fatalf("merge: exit %d %s", tr.code, tr.stderr)
	}
	merged, err := results.Load(strings.TrimSpace(tr.stdout[strings.LastIndex(tr.stdout, "results: ")+len("results: "):]))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range merged.Steps {
		if len(m.Shards) != 2 || m.Ops != m.Shards[0].Ops+m.Shards[1].Ops || m.Ops == 0 {
			t.Errorf("%s: merged %d ops from %+v", m.Step, m.Ops, m.Shards)
		}
	}
	if load := merged.Steps[0]; load.Step != "load" || load.Ops != 6000 || load.Rows != 6000 {
		t.Errorf("merged load: %s %d ops %d rows", load.Step, load.Ops, load.Rows)
	}

	// One table for two shards: they share it, each loading half of its ids.
	ps = nil
	for i := 0; i < 2; i++ {
		ps = append(ps, startRumbench(t, ctx, "run", "--workload", "sysbench", "--engine", "postgres", "--dsn", dsn, "--tables", "1",
			"--table-size", "4000", "--tests", "point-query,update-index", "--read-secs", "1", "--write-secs", "1",
			"--store", storeURL, "--out", out, "--quiet", "--group", "sbshared", "--shard", fmt.Sprintf("%d/2", i), "--fresh",
			"--data-dir", filepath.Join(data, fmt.Sprint("sbs", i))))
	}
	waitAll(ps...)
	for i := range ps {
		if ps[i].code != ExitOK || !strings.Contains(ps[i].stdout.String(), "not compared: 4000 rows, 4000 index entries in the 1 tables the shards share") {
			t.Fatalf("shared shard %d: exit %d %s%s", i, ps[i].code, ps[i].stdout.String(), ps[i].stderr.String())
		}
	}
	tr = run(t, nil, "merge", "--group", "sbshared", "--store", storeURL, "--out", out)
	if tr.code != ExitOK {
		t.Fatalf("merge: exit %d %s", tr.code, tr.stderr)
	}
	merged, err = results.Load(strings.TrimSpace(tr.stdout[strings.LastIndex(tr.stdout, "results: ")+len("results: "):]))
	if err != nil {
		t.Fatal(err)
	}
	if load := merged.Steps[0]; load.Step != "load" || load.Ops != 4000 || len(load.Shards) != 2 || load.Shards[0].Ops != 2000 {
		t.Errorf("merged shared load: %s %d ops from %+v", load.Step, load.Ops, load.Shards)
	}
}

// TestYCSBShards: three YCSB shards (workload D: reads of the latest records and inserts)
// share one usertable that shard 0 creates: each loads a third of the records, the run's
// operationcount is split among all six threads, the inserts of the shards interleave without
// colliding, each shard finds all its records, and the table holds the load plus every insert.
func TestYCSBShards(t *testing.T) {
	out, data, _ := dirs(t)
	dsn, storeURL := shardServer(t, data)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var ps []*proc
	for i := 0; i < 3; i++ {
		ps = append(ps, startRumbench(t, ctx, "run", "--workload", "ycsb", "-P", "workloadd", "-p", "recordcount=3000",
			"-p", "operationcount=3000", "--run-secs", "60", "--threads", "2", "--engine", "postgres", "--dsn", dsn,
			"--store", storeURL, "--out", out, "--quiet", "--group", "yc", "--shard", fmt.Sprintf("%d/3", i),
			"--data-dir", filepath.Join(data, fmt.Sprint("yc", i))))
	}
	waitAll(ps...)
	for i, p := range ps {
		if p.code != ExitOK || !strings.Contains(p.stdout.String(), "invariants postgres: ok: this shard's") {
			t.Fatalf("shard %d: exit %d %s%s", i, p.code, p.stdout.String(), p.stderr.String())
		}
	}
	tr := run(t, nil, "merge", "--group", "yc", "--store", storeURL, "--out", out, "--quiet")
	if tr.code != ExitOK {
		t.Fatalf("merge: exit %d %s", tr.code, tr.stderr)
	}
	merged, err := results.Load(strings.TrimSpace(tr.stdout[strings.LastIndex(tr.stdout, "results: ")+len("results: "):]))
	if err != nil {
		t.Fatal(err)
	}
	load, runStep := merged.Steps[0], merged.Steps[1]
	if load.Ops != 3000 || runStep.Ops != 3000 {
		t.Errorf("merged load %d records, run %d operations; want 3000 and 3000", load.Ops, runStep.Ops)
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int64
	if err := db.QueryRow("SELECT count(*) FROM usertable").Scan(&n); err != nil {
		t.Fatal(err)
	}
	inserts := runStep.KindOps("insert")
	if inserts == 0 || n != 3000+inserts {
		t.Errorf("usertable holds %d records; want 3000 loaded + %d inserted", n, inserts)
	}
	t.Logf("usertable: %d records = 3000 loaded + %d inserted by the shards %v", n, inserts, []int64{
		runsKind(t, ps[0]), runsKind(t, ps[1]), runsKind(t, ps[2])})
}

// runsKind is the number of records a YCSB shard says it inserted (its invariant line).
func runsKind(t *testing.T, p *proc) int64 {
	var loaded, inserted, all int64
	s := p.stdout.String()
	i := strings.Index(s, "ok: this shard's ")
	fmt.Sscanf(s[i:], "ok: this shard's %d records (%d loaded + %d inserted)", &all, &loaded, &inserted)
	return inserted
}

// TestLinkBenchShards: two LinkBench shards share the graph's tables: they load the tasks of one
// process between them (the merged load writes exactly the links and nodes of an unsplit load),
// and their requesters, numbered among both shards', run the loop on the whole graph.
func TestLinkBenchShards(t *testing.T) {
	out, data, _ := dirs(t)
	graph := []string{"--workload", "linkbench", "--maxid1", "3001", "--loaders", "2", "--requesters", "1", "--loops", "1", "--loop-secs", "1"}
	// The unsplit load's totals, on the null engine.
	tr := run(t, nil, append([]string{"run", "--engine", "null", "--quiet", "--out", t.TempDir(), "--data-dir", filepath.Join(data, "null")}, graph...)...)
	if tr.code != ExitOK {
		t.Fatalf("unsplit: exit %d %s", tr.code, tr.stderr)
	}
	one, err := results.Load(strings.TrimSpace(tr.stdout[strings.LastIndex(tr.stdout, "results: ")+len("results: "):]))
	if err != nil {
		t.Fatal(err)
	}
	dsn, storeURL := shardServer(t, data)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var ps []*proc
	for i := 0; i < 2; i++ {
		ps = append(ps, startRumbench(t, ctx, append([]string{"run", "--engine", "postgres", "--dsn", dsn, "--store", storeURL, "--out", out, "--quiet",
			"--group", "lb", "--shard", fmt.Sprintf("%d/2", i), "--data-dir", filepath.Join(data, fmt.Sprint("lb", i))}, graph...)...))
	}
	waitAll(ps...)
	for i, p := range ps {
		if p.code != ExitOK || !strings.Contains(p.stdout.String(), "invariants postgres: not compared: the 2 shards share the graph") {
			t.Fatalf("shard %d: exit %d %s%s", i, p.code, p.stdout.String(), p.stderr.String())
		}
	}
	tr = run(t, nil, "merge", "--group", "lb", "--store", storeURL, "--out", out, "--quiet")
	if tr.code != ExitOK {
		t.Fatalf("merge: exit %d %s", tr.code, tr.stderr)
	}
	merged, err := results.Load(strings.TrimSpace(tr.stdout[strings.LastIndex(tr.stdout, "results: ")+len("results: "):]))
	if err != nil {
		t.Fatal(err)
	}
	load, wantLoad := merged.Steps[0], one.Steps[0]
	for _, k := range []string{"link", "node", "count"} {
		if got, want := load.KindUnits(k), wantLoad.KindUnits(k); got != want || want == 0 {
			t.Errorf("merged load: %d %s rows, the unsplit load %d", got, k, want)
		}
	}
	if len(load.Shards) != 2 || load.Shards[0].Ops == 0 || load.Shards[1].Ops == 0 {
		t.Errorf("both shards load: %+v", load.Shards)
	}
	if loop := merged.Steps[1]; loop.Step != "loop1" || loop.Ops == 0 || len(loop.Shards) != 2 {
		t.Errorf("merged loop: %s %d requests from %+v", loop.Step, loop.Ops, loop.Shards)
	}
}

// TestKVShards: kv in the framework's shape splits as the framework splits it: two shards on one
// PostgreSQL share the table, each loads its range of the load's batches and writes its own key
// numbers; each reads its keys back, and the table holds every key loaded and written.
func TestKVShards(t *testing.T) {
	out, data, _ := dirs(t)
	dsn, storeURL := shardServer(t, data)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var ps []*proc
	for i := 0; i < 2; i++ {
		ps = append(ps, startRumbench(t, ctx, "run", "kv", "--insert-count", "5000", "--read-percent", "50", "--run-secs", "1",
			"--concurrency", "2", "--engine", "postgres", "--dsn", dsn, "--store", storeURL, "--out", out, "--quiet",
			"--group", "kv", "--shard", fmt.Sprintf("%d/2", i), "--data-dir", filepath.Join(data, fmt.Sprint("kv", i))))
	}
	waitAll(ps...)
	var written, loads int64
	for i, p := range ps {
		s := p.stdout.String()
		var all, loaded, w int64
		j := strings.Index(s, "invariants postgres: ok: ")
		if p.code != ExitOK || j < 0 {
			t.Fatalf("shard %d: exit %d %s%s", i, p.code, s, p.stderr.String())
		}
		fmt.Sscanf(s[j:], "invariants postgres: ok: %d rows (%d loaded, %d written)", &all, &loaded, &w)
		if loaded != []int64{2000, 3000}[i] || all != loaded+w { // the five batches of 1000 split 2 and 3
			t.Errorf("shard %d: %d rows, %d loaded, %d written", i, all, loaded, w)
		}
		written, loads = written+w, loads+loaded
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int64
	if err := db.QueryRow("SELECT count(*) FROM kv").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 5000+written || loads != 5000 {
		t.Errorf("kv holds %d rows; want 5000 loaded (the shards loaded %d) + %d written by the shards", n, loads, written)
	}
}
