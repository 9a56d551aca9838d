package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/server"
	"github.com/rumbench/rumbench/internal/server/ferrettest"
)

// TestMongoConfigMatrix runs the insert benchmark on the managed FerretDB once per
// --server-config file of client settings (j=true, j=false) and checks what each target recorded.
func TestMongoConfigMatrix(t *testing.T) {
	ferrettest.Helper(t)
	out, data, d := dirs(t)
	cfgs := t.TempDir()
	os.WriteFile(filepath.Join(cfgs, "j_true.conf"), []byte("j = true\n"), 0o644)
	os.WriteFile(filepath.Join(cfgs, "j_false.conf"), []byte("# no journal wait\nj = false\nw = 1\n"), 0o644)
	args := append([]string{"run", "--engine", "mongo", "--server-config", cfgs, "--steps", "l.i0,l.x,l.i1,qr100",
		"--rows", "1000", "--writes", "500", "--query-secs", "2", "--quiet"}, d...)
	tr := run(t, nil, args...)
	if tr.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", tr.code, tr.stderr)
	}
	_, m, steps := readRun(t, out)
	if len(m.Targets) != 2 || m.Targets[0].Label != "mongo:j_false.conf" || m.Targets[1].Label != "mongo:j_true.conf" {
		t.Fatalf("targets %+v", m.Targets)
	}
	for _, tg := range m.Targets {
		want := strings.TrimSuffix(strings.TrimPrefix(tg.Label, "mongo:j_"), ".conf")
		if tg.Engine.Options["j"] != want || tg.Engine.Options["w"] != "1" || tg.Engine.Family != "document" {
			t.Errorf("%s: options %v, family %q", tg.Label, tg.Engine.Options, tg.Engine.Family)
		}
		if !strings.HasPrefix(tg.Engine.Version, "FerretDB v1.24.2 over PostgreSQL 1") || tg.Engine.Options["backend"] != "postgresql" {
			t.Errorf("%s: version %q", tg.Label, tg.Engine.Version)
		}
	}
	if len(steps) != 8 {
		t.Fatalf("%d steps, want 8", len(steps))
	}
	for _, s := range steps {
		if s.Status != "ok" && s.Status != "degraded" {
			t.Errorf("%s %s: status %s %s", s.Target, s.Step, s.Status, s.Error)
		}
		if s.Step == "l.i0" && (s.KindUnits("insert") != 1000 || s.ServerCounters["commands.insert"] < 10) {
			t.Errorf("%s l.i0: inserted %d, server insert commands %d (counters %v)", s.Target, s.KindUnits("insert"), s.ServerCounters["commands.insert"], s.ServerCounters)
		}
	}
	assertNoServerProcess(t, data)
}

// TestMongoDSN runs YCSB and LinkBench through --dsn on a FerretDB the test starts (a server
// rumbench does not manage), and checks that a sysbench test without a MongoDB form is refused
// with one line.
func TestMongoDSN(t *testing.T) {
	ferrettest.Helper(t)
	srv, err := server.Start(context.Background(), server.Config{Kind: server.FerretDB, Dir: filepath.Join(t.TempDir(), "srv")})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(context.Background())
	for _, wl := range [][]string{
		{"--workload", "ycsb", "-p", "recordcount=500", "--run-secs", "2", "--engine-opt", "database=ycsb"},
		{"--workload", "linkbench", "--maxid1", "300", "--loop-secs", "2", "--engine-opt", "database=lb"},
	} {
		out, _, d := dirs(t)
		args := append(append([]string{"run", "--engine", "mongo", "--dsn", srv.DSN(), "--quiet"}, wl...), d...)
		tr := run(t, nil, args...)
		if tr.code != 0 {
			t.Fatalf("%s: exit %d\nstderr: %s", wl[1], tr.code, tr.stderr)
		}
		_, m, steps := readRun(t, out)
		if o := m.Targets[0].Engine.Options; o["txn"] != "per-statement" || o["server"] != "" {
			t.Errorf("%s: target options %v", wl[1], o)
		}
		for _, s := range steps {
			if s.Status != "ok" && s.Status != "degraded" {
				t.Errorf("%s %s: status %s %s", wl[1], s.Step, s.Status, s.Error)
			}
		}
		if !strings.Contains(tr.stdout, "invariants mongo: ok") {
			t.Errorf("%s: no invariant check passed in the output:\n%s", wl[1], tr.stdout)
		}
	}
	_, _, d := dirs(t)
	tr := run(t, nil, append([]string{"run", "--engine", "mongo", "--dsn", srv.DSN(), "--workload", "sysbench", "--tests", "scan",
		"--engine-opt", "database=sb", "--quiet"}, d...)...)
	if tr.code == 0 || !strings.Contains(tr.stderr, "has no MongoDB form") {
		t.Errorf("sysbench scan: exit %d, stderr %q; want a refusal", tr.code, tr.stderr)
	}
	t.Logf("sysbench scan refused with: %s", strings.TrimSpace(tr.stderr))
}
