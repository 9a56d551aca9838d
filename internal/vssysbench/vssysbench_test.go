package vssysbench

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/server"
)

func TestCPUAt(t *testing.T) {
	t0 := time.Unix(1000, 0)
	s := []cpuSample{{t0, 1}, {t0.Add(time.Second), 1.5}, {t0.Add(2 * time.Second), 3.5}}
	for _, c := range []struct {
		at   time.Duration
		want float64
	}{{-time.Second, 1}, {0, 1}, {500 * time.Millisecond, 1.25}, {1500 * time.Millisecond, 2.5}, {3 * time.Second, 3.5}} {
		if got := cpuAt(s, t0.Add(c.at)); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("cpuAt(%v) = %v, want %v", c.at, got, c.want)
		}
	}
}

func TestSysbenchOutput(t *testing.T) {
	out := `SQL statistics:
    queries:                             228517 (76000.37 per sec.)
General statistics:
    total time:                          3.0057s
`
	m, mt := sbQueries.FindStringSubmatch(out), sbTime.FindStringSubmatch(out)
	if m == nil || m[1] != "228517" || mt == nil || mt[1] != "3.0057" {
		t.Fatalf("queries %q, time %q", m, mt)
	}
}

// TestProcessCPU runs a process that burns CPU and checks that its CPU, read as a zombie after
// its exit, is counted, and that a mark line records the CPU at the time it was printed.
func TestProcessCPU(t *testing.T) {
	p, err := runProcess(context.Background(), 20*time.Millisecond, []string{"start"}, "sh", "-c",
		`echo start; i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; echo done`)
	if err != nil {
		t.Fatal(err)
	}
	c0, ok := p.marks["start"]
	if !ok {
		t.Fatalf("no mark; output %q", p.Output())
	}
	if p.total()-c0 < 0.05 {
		t.Errorf("CPU after the mark %.3f s, want the loop's (at least 0.05 s)", p.total()-c0)
	}
	last := p.samples[len(p.samples)-1]
	if w := p.window(p.samples[0].at, last.at); math.Abs(w-(last.cpu-p.samples[0].cpu)) > 1e-9 {
		t.Errorf("window over all samples %.3f, want %.3f", w, last.cpu-p.samples[0].cpu)
	}
}

func TestPyLoadOutput(t *testing.T) {
	out := "iiload: inserting 300000 rows, 100 per commit, into pyload_pi1\n" +
		"iiload: rows 300000 secs 5.123 rows/s 58559 max_stmt_us 41000\n"
	rows, secs, err := parsePyLoad(out)
	if err != nil || rows != 300000 || secs != 5.123 {
		t.Fatalf("parsePyLoad = %d, %v, %v; want 300000, 5.123, nil", rows, secs, err)
	}
	if !strings.Contains(out, pyStarted) {
		t.Errorf("the start line does not contain the mark %q", pyStarted)
	}
	for _, bad := range []string{"", "iiload: inserting 10 rows\n", "iiload: rows x secs 1\n"} {
		if _, _, err := parsePyLoad(bad); err == nil {
			t.Errorf("parsePyLoad(%q): no error", bad)
		}
	}
}

// TestProcessTreeCPU runs a process whose CPU is spent by a child it waits for: runTree counts
// it, runProcess does not.
func TestProcessTreeCPU(t *testing.T) {
	script := `echo start; sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done'; echo done`
	tree, err := runTree(context.Background(), 20*time.Millisecond, []string{"start"}, "sh", "-c", script)
	if err != nil {
		t.Fatal(err)
	}
	own, err := runProcess(context.Background(), 20*time.Millisecond, []string{"start"}, "sh", "-c", script)
	if err != nil {
		t.Fatal(err)
	}
	if c := tree.total() - tree.marks["start"]; c < 0.05 {
		t.Errorf("tree CPU after the mark %.3f s, want the child's loop (at least 0.05 s)", c)
	}
	if c := own.total() - own.marks["start"]; c > 0.03 {
		t.Errorf("the process's own CPU after the mark %.3f s, want about 0 (the loop is its child's)", c)
	}
}

// TestPyLoadPostgres runs the Python loader as a comparison does, on a private PostgreSQL
// server: its rows are in its table, with the three secondary indexes, and its CPU is counted.
func TestPyLoadPostgres(t *testing.T) {
	const python = "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import psycopg2").Run(); err != nil {
		if os.Getenv("CI") == "" {
			t.Skipf("skipping: %s cannot import psycopg2 (make test installs python3-psycopg2): %v", python, err)
		}
		t.Fatalf("%s cannot import psycopg2: %v", python, err)
	}
	base := t.TempDir()
	for _, d := range []string{filepath.Dir(base), base} {
		os.Chmod(d, 0o755) // the server runs as the postgres user when we are root
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	kind, settings, _ := serverSettings("postgres")
	srv, err := server.Start(ctx, server.Config{Kind: kind, Dir: filepath.Join(base, "pg"), Settings: settings})
	if errors.Is(err, server.ErrBinaryNotFound) {
		t.Skipf("skipping: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(context.Background())
	cfg := Config{InsertRows: 2000, Python: python, PyLoad: "../../tools/pyload/iiload.py", Dir: base}
	r, err := runPyLoad(ctx, cfg, srv, "postgres", 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d rows in %.3f s, %.2f µs/row", r.Statements, r.Secs, r.UsPerStatement())
	if r.Statements != 2000 || r.Secs <= 0 || r.CPUSecs < 0 {
		t.Errorf("result %+v, want 2000 rows, some seconds", r)
	}
	// The loader's commits were synced, and the server (track_wal_io_timing on) timed the syncs.
	// walSyncs waits for the loader's backend to publish its counters as it exits.
	syncs, us, err := walSyncs(ctx, srv, true)
	if err != nil || syncs < 2000/InsertRowsPerCommit || us <= 0 {
		t.Errorf("pg_stat_wal after the load: %d syncs, %d µs (%v); want a sync per commit or more, some time", syncs, us, err)
	}
	db, err := sql.Open("pgx", srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var rows, ids, indexes int
	var minLen, maxLen int
	if err := db.QueryRowContext(ctx, "SELECT count(*), count(DISTINCT transactionid), min(length(data)), max(length(data)) FROM "+pyTable).
		Scan(&rows, &ids, &minLen, &maxLen); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM pg_indexes WHERE tablename = $1", pyTable).Scan(&indexes); err != nil {
		t.Fatal(err)
	}
	if rows != 2000 || ids != 2000 || minLen < 10 || maxLen > 20 || indexes != 4 {
		t.Errorf("table %s: %d rows, %d ids, data length %d..%d, %d indexes; want 2000, 2000, within 10..20, 4 (primary key and 3)",
			pyTable, rows, ids, minLen, maxLen, indexes)
	}
}

// TestProcessTreeCancel cancels a client whose child would outlive it: the child is killed too.
func TestProcessTreeCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(300 * time.Millisecond)
		cancel()
	}()
	t0 := time.Now()
	p, err := runTree(ctx, 20*time.Millisecond, nil, "sh", "-c", `sleep 30 & echo child $!; wait`)
	if err == nil {
		t.Fatal("no error from a cancelled client")
	}
	if d := time.Since(t0); d > 10*time.Second {
		t.Errorf("runTree returned %v after its start: the child held its output open", d.Round(time.Second))
	}
	var child int
	if _, err := fmt.Sscanf(p.Output(), "child %d", &child); err != nil {
		t.Fatalf("no child pid in %q", p.Output())
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", child))
		if err != nil || strings.Contains(string(data), ") Z ") {
			return // gone, or a zombie waiting for its new parent
		}
		if time.Now().After(deadline) {
			t.Fatalf("child %d still running after the cancellation: %s", child, data)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestEqualSyncQPSRatio: the QPS ratio with rumbench's window's fsync latency brought to
// sysbench's.
func TestEqualSyncQPSRatio(t *testing.T) {
	r := Result{Statements: 10000, Secs: 10, WALSyncs: 5000, WALSyncUs: 750000} // 1000 qps, 150 µs/sync
	s := Result{Statements: 11000, Secs: 10, WALSyncs: 5500, WALSyncUs: 742500} // 1100 qps, 135 µs/sync
	if got, want := EqualSyncQPSRatio(r, s), 1000.0/1100*150/135; math.Abs(got-want) > 1e-12 {
		t.Errorf("EqualSyncQPSRatio = %v, want %v", got, want)
	}
	if !walMeasured(r) || walMeasured(Result{Statements: 10000, WALSyncs: 99, WALSyncUs: 9900}) || walMeasured(Result{}) ||
		walMeasured(Result{Statements: 10000, WALSyncs: 5000}) {
		t.Errorf("walMeasured: a sync per 100 statements or more, their time known")
	}
}
