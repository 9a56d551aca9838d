package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/results"
)

// transcript is the outcome of one in-process command.
type transcript struct {
	code           int
	stdout, stderr string
}

// run executes the command line args in-process. ctx, when not nil, is the run's context.
func run(t *testing.T, ctx context.Context, args ...string) transcript {
	t.Helper()
	var out, errb bytes.Buffer
	env := Env{
		Stdout: &out, Stderr: &errb, Args: args, Getenv: func(string) string { return "" },
		Now: func() time.Time { return time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC) },
		Context: func() (context.Context, context.CancelFunc) {
			if ctx != nil {
				return context.WithCancel(ctx)
			}
			return context.WithCancel(context.Background())
		},
	}
	code := Main(env)
	return transcript{code, out.String(), errb.String()}
}

// dirs returns --out and --data-dir flags in fresh temporary directories. The data directory is
// traversable by others (0755 up to /tmp): managed servers run as the postgres and mysql users.
func dirs(t *testing.T) (string, string, []string) {
	out := t.TempDir()
	data, err := os.MkdirTemp("", "rumbench-test-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(data, 0o755)
	t.Cleanup(func() { os.RemoveAll(data) })
	return out, data, []string{"--out", out, "--data-dir", data}
}

func TestUsageErrors(t *testing.T) {
	_, data, d := dirs(t)
	if err := os.MkdirAll(filepath.Join(data, "bbolt"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "bbolt", "leftover"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want string // the whole stderr
	}{
		{"unknown engine", []string{"run", "--engine", "pebble,nosuch"},
			`rumbench: unknown engine "nosuch" (valid: bbolt, lmdb, mongo, myrocks, mysql, null, pebble, postgres, rocksdb, sqlite, wiredtiger)`},
		{"script on a KV engine", []string{"run", "--workload", "script", "--engine", "sqlite,pebble"},
			`rumbench: engine pebble runs no SQL text, which the script workload runs (valid: myrocks, mysql, postgres, sqlite)`},
		{"unknown workload", []string{"run", "--workload", "tpch"},
			`rumbench: unknown workload "tpch" (valid: insert, kv, linkbench, script, sysbench, toy, tpcc, ycsb)`},
		{"sysbench unknown test", []string{"run", "--workload", "sysbench", "--tests", "point-query,range-scan"},
			`rumbench: unknown test "range-scan" in the 32-test set (valid: update-inlist, update-index, update-nonindex, update-one, update-zipf, write-only, read-write_range=10, read-write_range=100, scan, read-only_range=10, read-only_range=100, read-only_range=10000, read-only-simple, read-only-sum, read-only-order, read-only-distinct, read-only-count, point-query, random-points_range=10, random-points_range=100, random-points_range=1000, hot-points, points-covered-pk, points-notcovered-pk, range-covered-pk, range-notcovered-pk, points-covered-si, points-notcovered-si, range-covered-si, range-notcovered-si, delete, insert)`},
		{"sysbench rand type", []string{"run", "--workload", "sysbench", "--rand-type", "pareto"},
			`rumbench: --rand-type "pareto": want one of uniform, zipfian`},
		{"sysbench percentiles", []string{"run", "--workload", "sysbench", "--percentiles", "50,100"},
			`rumbench: --percentiles "50,100": each value must be a number in (0, 100), e.g. 50,99,99.9`},
		{"flag of the other workload", []string{"run", "--workload", "sysbench", "--rows", "5"},
			`rumbench: --rows applies to --workload insert, not sysbench (see rumbench workloads insert)`},
		{"sysbench flag on insert", []string{"run", "--tables", "4"},
			`rumbench: --tables applies to --workload sysbench, not insert (see rumbench workloads sysbench)`},
		{"unknown step", []string{"run", "--steps", "l.i0,q9"},
			`rumbench: --steps: unknown step "q9" (valid: l.i0, l.x, l.i1, l.i2, qr100, qp100, qr500, qp500, qr1000, qp1000)`},
		{"unknown profile", []string{"run", "--profile", "huge"},
			`rumbench: unknown profile "huge" (valid: quick, small, standard, iobound)`},
		{"malformed number", []string{"run", "--rows", "lots"},
			`rumbench: invalid argument "lots" for "--rows" flag: strconv.ParseInt: parsing "lots": invalid syntax (see rumbench run --help)`},
		{"long malformed number", []string{"run", "--rows", strings.Repeat("9", 300)},
			`rumbench: invalid argument "` + strings.Repeat("9", 60) + `…(300 bytes)" for "--rows" flag: strconv.ParseInt: parsing "` + strings.Repeat("9", 60) + `…(300 bytes)": value out of range (see rumbench run --help)`},
		{"bad bool", []string{"run", "--sync=maybe"},
			`rumbench: invalid argument "maybe" for "--sync" flag: strconv.ParseBool: parsing "maybe": invalid syntax (see rumbench run --help)`},
		{"negative clients", []string{"run", "--clients", "0"},
			`rumbench: --clients 0: want 1..1024`},
		{"engine option unknown", []string{"run", "--engine", "pebble", "--engine-opt", "pebble.nope=1"},
			`rumbench: engine pebble has no option "nope" (valid: bloom_bits, compaction_concurrency, compression, l0_compaction_threshold, memtable_mb)`},
		{"engine option malformed", []string{"run", "--engine-opt", "compression"},
			`rumbench: --engine-opt "compression": want key=value or engine.key=value`},
		{"engine option value", []string{"run", "--engine", "pebble", "--engine-opt", "compression=lz9"},
			`rumbench: engine pebble option compression="lz9" is not valid (valid: snappy, zstd, none)`},
		{"empty list item", []string{"run", "--engine", "pebble,,bbolt"},
			`rumbench: --engine "pebble,,bbolt": empty item in the comma-separated list`},
		{"NaN query secs", []string{"run", "--query-secs", "NaN"},
			`rumbench: --query-secs NaN: must be a finite number`},
		{"Inf warm-up", []string{"run", "--warmup-secs", "Inf"},
			`rumbench: --warmup-secs +Inf: must be a finite number`},
		{"negative warm-up", []string{"run", "--warmup-secs", "-2"},
			`rumbench: --warmup-secs -2: must be >= 0 seconds`},
		{"NaN sysbench read secs", []string{"run", "--workload", "sysbench", "--read-secs", "nan"},
			`rumbench: --read-secs NaN: must be a finite number`},
		{"negative cleanup wait", []string{"run", "--cleanup-wait-secs", "-5"},
			`rumbench: --cleanup-wait-secs -5: must be >= 0 seconds`},
		{"negative fsync latency", []string{"run", "--fsync-latency", "-1ms"},
			`rumbench: --fsync-latency -1ms: must be between 0 and 10s`},
		{"memory limit", []string{"run", "--memory-limit", "lots"},
			`rumbench: --memory-limit "lots": want a size such as 512M or 2G, or none`},
		{"tiny memory limit", []string{"run", "--memory-limit", "1M"},
			`rumbench: --memory-limit "1M": must be at least 64M, or none (an engine worker's Go runtime alone holds about 13 MiB, and its Go heap gets a quarter of the cap)`},
		{"negative readahead", []string{"run", "--readahead-kb", "-4"},
			`rumbench: --readahead-kb -4: must be between 0 and 1048576 (0: leave it)`},
		{"sqlite journal mode", []string{"run", "--engine", "sqlite", "--engine-opt", "journal_mode=truncate"},
			`rumbench: engine sqlite option journal_mode="truncate" is not valid (valid: wal, delete)`},
		{"unknown flag", []string{"run", "--rowz", "5"},
			`rumbench: unknown flag: --rowz (see rumbench run --help)`},
		{"unknown command", []string{"fly"},
			`rumbench: unknown command "fly" for "rumbench"`},
		{"zero rows", []string{"run", "--rows", "0"},
			`rumbench: --rows 0: want 1..1099511627776 rows`},
		{"negative writes", []string{"run", "--writes", "-3"},
			`rumbench: --writes -3: want 1..1099511627776 rows`},
		{"zero repeat", []string{"run", "--repeat", "0"},
			`rumbench: --repeat 0: must be 1..1000`},
		{"malformed check", []string{"run", "--check", "ips>>3"},
			`rumbench: --check "ips>>3": ">3" is not a number`},
		{"unknown check figure", []string{"run", "--check", "speed>=3"},
			`rumbench: --check "speed>=3": unknown figure "speed" (a metric of rumbench metrics, a latency with its unit as p99_us, or a workload's rate name)`},
		{"check of a step not run", []string{"run", "--steps", "l.i0,qr100", "--check", "l.i1:ips>=1"},
			`rumbench: --check "l.i1:ips>=1": step "l.i1" is not one this run runs (valid: l.i0, qr100)`},
		{"huge query secs", []string{"run", "--query-secs", "1e300"},
			`rumbench: --query-secs 1e+300: must be at most 604800 seconds (a week)`},
		{"huge cleanup wait", []string{"run", "--cleanup-wait-secs", "1e20"},
			`rumbench: --cleanup-wait-secs 1e+20: must be at most 604800 seconds (a week)`},
		{"huge cache", []string{"run", "--cache-mb", "9223372036854775807"},
			`rumbench: --cache-mb 9223372036854775807: must be 1..16777216 (16 TiB)`},
		{"junit without check", []string{"run", "--junit", "x.xml"},
			`rumbench: --junit x.xml: there is no --check to report`},
		{"malformed postgres dsn", []string{"run", "--engine", "postgres", "--dsn", "postgres://u:secret@host:notaport/db"},
			`rumbench: --dsn postgres://u:****@host:notaport/db: not a PostgreSQL URL or key=value string (want e.g. postgres://user@host:5432/db, or a comma-separated list of them)`},
		{"long malformed postgres dsn", []string{"run", "--engine", "postgres", "--dsn", strings.Repeat("a", 5000)},
			`rumbench: --dsn ` + strings.Repeat("a", 60) + `…(5000 bytes): not a PostgreSQL URL or key=value string (want e.g. postgres://user@host:5432/db, or a comma-separated list of them)`},
		{"malformed mysql dsn", []string{"run", "--engine", "mysql", "--dsn", "localhost:3306"},
			`rumbench: --dsn localhost:3306: not a MySQL DSN (want e.g. user:pass@tcp(host:3306)/db, or a comma-separated list of them): invalid DSN: missing the slash separating the database name`},
		{"server binaries missing", []string{"run", "--engine", "postgres", "--server-bin", "/tmp"},
			`rumbench: postgres server binaries not found in /tmp (missing postgres, initdb): install postgresql or pass the directory that holds postgres, initdb with --server-bin`},
		{"unreadable server config", []string{"run", "--engine", "postgres", "--server-config", "/nonexistent.conf"},
			`rumbench: --server-config "/nonexistent.conf": no such file or directory`},
		{"out is a file", []string{"run", "--out", "/etc/hostname"},
			`rumbench: --out /etc/hostname: is a file, not a directory`},
		{"out not creatable", []string{"run", "--out", "/proc/rumbench-results"},
			`rumbench: --out /proc/rumbench-results: cannot be created: /proc is not writable: no such file or directory`},
		{"metrics on every interface", []string{"run", "--metrics-listen", ":9400"},
			`rumbench: --metrics-listen ":9400" listens beyond this host: add --metrics-listen-any to allow it (the pages carry no secrets, but anyone who reaches the port reads them)`},
		{"metrics address without a port", []string{"run", "--metrics-listen", "127.0.0.1"},
			`rumbench: --metrics-listen "127.0.0.1": want HOST:PORT, e.g. 127.0.0.1:9400 (127.0.0.1:0 picks a free port)`},
		{"metrics any alone", []string{"run", "--metrics-listen-any"},
			`rumbench: --metrics-listen-any goes with --metrics-listen ADDR`},
		{"serve on every interface", []string{"serve", "--listen", ":8080"},
			`rumbench: --listen ":8080" listens beyond this host: add --listen-any to allow it (the pages carry no secrets, but anyone who reaches the port reads them)`},
		{"non-empty data dir", append([]string{"run", "--engine", "bbolt"}, d...),
			`rumbench: data dir ` + filepath.Join(data, "bbolt") + ` is not empty (use --fresh to empty it, or another --data-dir)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := run(t, nil, tc.args...)
			if tr.code != ExitUsage {
				t.Errorf("exit code %d, want %d; stderr %q", tr.code, ExitUsage, tr.stderr)
			}
			if got := strings.TrimSuffix(tr.stderr, "\n"); got != tc.want {
				t.Errorf("stderr\n got %q\nwant %q", got, tc.want)
			}
			if tr.stdout != "" {
				t.Errorf("stdout not empty: %q", tr.stdout)
			}
		})
	}
}

func TestEnginesAndWorkloads(t *testing.T) {
	tr := run(t, nil, "engines")
	if tr.code != 0 {
		t.Fatalf("exit %d: %s", tr.code, tr.stderr)
	}
	for _, want := range []string{"bbolt", "null", "pebble", "sqlite", "--engine-opt pebble.memtable_mb=...", "--engine-opt sqlite.journal_mode=..."} {
		if !strings.Contains(tr.stdout, want) {
			t.Errorf("engines output lacks %q:\n%s", want, tr.stdout)
		}
	}
	tr = run(t, nil, "workloads")
	if text := strings.Join(strings.Fields(tr.stdout), " "); tr.code != 0 || !strings.Contains(text, " insert insert benchmark") ||
		!strings.Contains(text, "; steps l.i0,l.x,l.i1,l.i2,qr100,qp100,qr500,qp500,qr1000,qp1000 kv ") {
		t.Errorf("workloads: exit %d, output:\n%s", tr.code, tr.stdout)
	}
	tr = run(t, nil, "version")
	if tr.code != 0 || !strings.HasPrefix(tr.stdout, "rumbench ") {
		t.Errorf("version: exit %d, output %q", tr.code, tr.stdout)
	}
	for _, flag := range []string{"--version", "-v"} {
		if fl := run(t, nil, flag); fl.code != 0 || fl.stdout != tr.stdout || fl.stderr != "" {
			t.Errorf("%s: exit %d, output %q, stderr %q; want the output of version, %q", flag, fl.code, fl.stdout, fl.stderr, tr.stdout)
		}
	}
}

// readRun reads the only run directory under out (files beside it, such as the results
// store, are skipped).
func readRun(t *testing.T, out string) (string, *results.Manifest, []results.Step) {
	t.Helper()
	all, err := os.ReadDir(out)
	var entries []os.DirEntry
	for _, e := range all {
		if e.IsDir() {
			entries = append(entries, e)
		}
	}
	if err != nil || len(entries) != 1 {
		t.Fatalf("want one run directory in %s, got %v (%v)", out, entries, err)
	}
	dir := filepath.Join(out, entries[0].Name())
	m, err := results.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	steps, err := results.ReadSteps(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, m, steps
}

func TestRunAllStepsTiny(t *testing.T) {
	out, data, d := dirs(t)
	args := append([]string{"run", "--engine", "pebble,sqlite,bbolt,null", "--rows", "3000", "--writes", "1000",
		"--query-secs", "0.5", "--clients", "2", "--delete-per-insert", "--cache-mb", "8", "--quiet"}, d...)
	tr := run(t, nil, args...)
	if tr.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", tr.code, tr.stderr, tr.stdout)
	}
	if tr.stderr != "" {
		t.Errorf("--quiet run wrote to stderr: %q", tr.stderr)
	}
	for _, step := range []string{"== l.i0 ", "== l.x ", "== l.i1 ", "== l.i2 ", "== qr100 ", "== qp1000 "} {
		if !strings.Contains(tr.stdout, step) {
			t.Errorf("output lacks the %s table", step)
		}
	}
	for _, eng := range []string{"pebble", "sqlite", "bbolt"} {
		if !strings.Contains(tr.stdout, "invariants "+eng+": ok: 6200 rows, 18600 index entries") {
			t.Errorf("output lacks the invariant line of %s:\n%s", eng, tr.stdout)
		}
	}
	dir, m, steps := readRun(t, out)
	if !strings.HasSuffix(tr.stdout, "results: "+dir+"\n") {
		t.Errorf("output does not end with the results path %s", dir)
	}
	if m.Status != results.StatusOK || len(m.Targets) != 4 || m.SchemaVersion != results.SchemaVersion {
		t.Errorf("manifest: status %q, %d targets", m.Status, len(m.Targets))
	}
	if len(steps) != 40 {
		t.Fatalf("%d step records, want 4 engines × 10 steps", len(steps))
	}
	for _, s := range steps {
		if s.Status != results.StatusOK {
			t.Errorf("%s %s: status %s %s", s.Target, s.Step, s.Status, s.Error)
		}
		switch s.Step {
		case "l.i0":
			if s.KindUnits("insert") != 6000 || s.Rows != 6000 {
				t.Errorf("%s l.i0: inserted %d, rows %d, want 6000", s.Target, s.KindUnits("insert"), s.Rows)
			}
		case "l.x":
			if s.Ops != 6200 {
				t.Errorf("%s l.x: %d indexed rows, want 6200", s.Target, s.Ops)
			}
		case "l.i1":
			if s.KindUnits("insert") != 1600 || s.KindUnits("delete") != 1600 || s.Rows != 6200 {
				t.Errorf("%s l.i1: inserted %d deleted %d rows %d", s.Target, s.KindUnits("insert"), s.KindUnits("delete"), s.Rows)
			}
		case "qr100":
			if s.QPS == 0 || s.TargetIPS != 200 || s.TargetMet == nil || s.KindUnits("insert") != 100 {
				t.Errorf("%s qr100: qps %g target %g met %v inserted %d", s.Target, s.QPS, s.TargetIPS, s.TargetMet, s.KindUnits("insert"))
			}
		}
	}
	// Every interval line parses and names a known target and step.
	f, err := os.ReadFile(filepath.Join(dir, "intervals.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(f)), "\n")
	if len(lines) < 40 {
		t.Errorf("%d interval lines, want at least one per step", len(lines))
	}
	for _, l := range lines {
		var iv results.Interval
		if err := json.Unmarshal([]byte(l), &iv); err != nil || iv.Target == "" || iv.Step == "" {
			t.Fatalf("bad interval line %q: %v", l, err)
		}
	}
	if entries, _ := os.ReadDir(data); len(entries) != 0 {
		t.Errorf("engine data left behind without --keep-data: %v", entries)
	}
}

func TestInterruptKeepsResults(t *testing.T) {
	out, _, d := dirs(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var cancelled atomic.Int64 // when the run was interrupted (Unix ns)
	go func() {
		// Interrupt once qr100 has an interval (a second of queries), however long the start took.
		for ctx.Err() == nil {
			entries, _ := filepath.Glob(filepath.Join(out, "*", "intervals.jsonl"))
			if len(entries) == 1 {
				if b, _ := os.ReadFile(entries[0]); strings.Contains(string(b), `"step":"qr100"`) {
					cancelled.Store(time.Now().UnixNano())
					cancel()
					return
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	args := append([]string{"run", "--engine", "pebble,bbolt", "--steps", "qr100", "--query-secs", "60", "--quiet"}, d...)
	tr := run(t, ctx, args...)
	if at := cancelled.Load(); at == 0 {
		t.Fatalf("the run ended before its first interval of qr100: exit %d, stderr %s", tr.code, tr.stderr)
	} else if took := time.Since(time.Unix(0, at)); took > 20*time.Second {
		t.Errorf("interrupted run took %v to stop", took)
	}
	if tr.code != ExitInterrupted {
		t.Fatalf("exit %d, want %d; stderr %s", tr.code, ExitInterrupted, tr.stderr)
	}
	if !strings.Contains(tr.stderr, "interrupted; results measured so far are written") {
		t.Errorf("stderr %q", tr.stderr)
	}
	dir, m, steps := readRun(t, out)
	checkRunReport(t, dir, tr.stdout)
	if m.Status != results.StatusInterrupted {
		t.Errorf("manifest status %q", m.Status)
	}
	if len(steps) != 1 || steps[0].Status != results.StatusInterrupted || steps[0].QPS == 0 || steps[0].Secs < 1 {
		t.Errorf("want one interrupted qr100 step with queries, got %+v", steps)
	}
	if !strings.Contains(tr.stdout, "== qr100") {
		t.Errorf("the measured step is not printed:\n%s", tr.stdout)
	}
}

// TestFullDiskStopsCleanly runs out of space mid-load on a 3 MiB tmpfs (needs root to mount):
// the run stops with the engine's error, exit code 1, and the step measured so far is written.
func TestFullDiskStopsCleanly(t *testing.T) {
	small := t.TempDir()
	if err := exec.Command("mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", small).Run(); err != nil {
		t.Skipf("cannot mount a small tmpfs (needs root): %v", err)
	}
	t.Cleanup(func() { exec.Command("umount", small).Run() })
	out := t.TempDir()
	tr := run(t, nil, "run", "--engine", "bbolt,pebble", "--rows", "200000", "--out", out, "--data-dir", small, "--quiet")
	if tr.code != ExitFailure {
		t.Fatalf("exit %d, want %d; stderr %q", tr.code, ExitFailure, tr.stderr)
	}
	want := "rumbench: bbolt: l.i0: writer pi1: write " + filepath.Join(small, "bbolt", "bbolt.db") + ": no space left on device (data dir " + small + ": tmpfs, "
	if !strings.HasPrefix(tr.stderr, want) || !strings.HasSuffix(tr.stderr, " free of 3.0 MiB)\n") || strings.Count(tr.stderr, "\n") != 1 {
		t.Errorf("stderr\n got %q\nwant %q...free of 3.0 MiB)", tr.stderr, want)
	}
	dir, m, steps := readRun(t, out)
	checkRunReport(t, dir, tr.stdout)
	if m.Status != results.StatusFailed || !strings.Contains(m.Error, "no space left on device") {
		t.Errorf("manifest status %q error %q", m.Status, m.Error)
	}
	if len(steps) != 1 || steps[0].Status != results.StatusFailed || steps[0].KindUnits("insert") == 0 || steps[0].Rows != steps[0].KindUnits("insert") {
		t.Errorf("want one failed l.i0 step with the rows inserted before the error, got %+v", steps)
	}
	if !strings.Contains(tr.stdout, "bbolt (failed") { // with ", busy host)" on a host other processes kept busy
		t.Errorf("the failed step is not in the table:\n%s", tr.stdout)
	}
	if entries, _ := os.ReadDir(small); len(entries) != 0 {
		t.Errorf("engine data left on the full disk: %v", entries)
	}
}
