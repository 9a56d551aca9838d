package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/results"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -update rewrites it)\n got:\n%s\nwant:\n%s", path, got, want)
	}
}

// Presentations of the insert benchmark's steps, as the workload declares them.
var (
	loadStep  = results.Step{RateName: "ips", RateUnit: "rows/s", PerOp: "inserted row", Note: "per-op figures per inserted row"}
	queryStep = results.Step{RateName: "qps", RateUnit: "queries/s", PerOp: "query", Note: "per-op figures per query, wKB/i per background insert"}
)

// kind returns a kind record.
func kind(name, role string, ops, units int64, maxUs float64) results.Kind {
	return results.Kind{Name: name, Role: role, Unit: "rows", Ops: ops, Units: units, MaxUs: maxUs}
}

func sampleSteps() []results.Step {
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	met, missed := true, false
	steps := []results.Step{
		{Target: "pebble", Engine: "pebble", Step: "l.i0", Status: "ok", Start: t0, Secs: 1.19, RateKinds: []string{"insert"},
			Ops: 200000, Rate: 167564, CallsPerSec: 1675.6, IPS: 167564, Rows: 200000, DBBytes: 442 << 20, EngineDBBytes: 4 << 20,
			Kinds:       []results.Kind{kind("insert", results.RoleWrite, 2000, 200000, 4660)},
			BytesPerRow: 2215.3, Device: "vda", ReadMBPerSec: 0.016, WriteMBPerSec: 20.4, GBWritten: 0.024, ReadKBPerOp: 0.0001,
			WriteKBPerInsert: 0.124, WriteKBPerOp: 0.124, FlushesPerOp: 0.01, HostCPUUsPerOp: 3.65, ClientCPUUsPerOp: 3.75, CSPerOp: 0.154,
			ClientRSSMB: 47, RateP50: 167716, RateP99: 167716, RateIntervals: 1,
			Latency: []results.Latency{{Kind: "insert", Count: 2000, P50Us: 451, P90Us: 696, P99Us: 2950, P999Us: 4260, MaxUs: 4660}}},
		{Target: "sqlite", Engine: "sqlite", Step: "l.i0", Status: "ok", Secs: 1.48, RateKinds: []string{"insert"}, Ops: 200000,
			Kinds: []results.Kind{kind("insert", results.RoleWrite, 2000, 200000, 9160)},
			IPS:   135360, Rate: 135360, Rows: 200000, DBBytes: 12 << 20, BytesPerRow: 62.1, HostCPUUsPerOp: 4.8, ClientCPUUsPerOp: 5.23,
			Latency: []results.Latency{{Kind: "insert", Count: 2000, P50Us: 549, P90Us: 1050, P99Us: 3240, P999Us: 6680, MaxUs: 9160}}},
		{Target: "pebble", Engine: "pebble", Step: "qr100", Status: "ok", Secs: 5, RateKinds: []string{"range_query"},
			Kinds: []results.Kind{kind("insert", results.RoleWrite, 10, 500, 800), kind("range_query", results.RoleRead, 177824, 1778240, 9500)},
			QPS:   35562, Rate: 35562, IPS: 100, TargetIPS: 100, TargetMet: &met, Device: "vda", Rows: 250600, RateIntervals: 5,
			RateP50: 35600, RateP99: 35100,
			Latency: []results.Latency{{Kind: "range_query", Count: 177824, P50Us: 26, P90Us: 34, P99Us: 95, P999Us: 299, MaxUs: 9500}}},
		{Target: "bbolt", Engine: "bbolt", Step: "qr100", Status: "failed", Error: "writer pi1: disk full", Secs: 2,
			Kinds:     []results.Kind{kind("insert", results.RoleWrite, 1, 40, 1200), kind("range_query", results.RoleRead, 10, 100, 50)},
			RateKinds: []string{"range_query"}, QPS: 5, Rate: 5, IPS: 20, TargetIPS: 100, TargetMet: &missed},
	}
	for i := range steps {
		p := loadStep
		if steps[i].Step[0] == 'q' {
			p = queryStep
		}
		steps[i].RateName, steps[i].RateUnit, steps[i].PerOp, steps[i].Note = p.RateName, p.RateUnit, p.PerOp, p.Note
	}
	return steps
}

func TestTextGolden(t *testing.T) {
	for view, file := range map[View]string{Wide: "text.golden", Brief: "text-brief.golden"} {
		var b bytes.Buffer
		if err := Text(&b, sampleSteps(), view); err != nil {
			t.Fatal(err)
		}
		golden(t, file, b.Bytes())
	}
}

func TestNum(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{{0, "0"}, {167564.4, "167564"}, {12.34, "12.3"}, {1.234, "1.23"}, {0.0123, "0.012"}, {0.00012, "0.00012"}, {0.00006, "0.000060"},
		{-3.5, "-3.50"},
		// The decimals of the rounded figure: a paced rate of 99.96 beside 499.
		{99.96, "100"}, {9.996, "10.0"}, {0.9996, "1.00"}, {0.009996, "0.010"},
		// No scientific notation: below MinShown a bound.
		{0.0000057, "0.0000057"}, {5.7e-08, "<0.000001"}, {-5.7e-08, ">-0.000001"}} {
		if got := num(tc.v); got != tc.want {
			t.Errorf("num(%g) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

// sampleRun is a run of the insert benchmark on three targets, as Load returns it.
func sampleRun() *results.Run {
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	return &results.Run{Dir: "results/20261121T120000Z-insert", Manifest: &results.Manifest{
		SchemaVersion: 2, RunID: "20261121T120000Z-insert", Workload: "insert",
		WorkloadConfig: map[string]any{"clients": 1, "rows": 200000},
		Targets:        []results.Target{{Label: "pebble", Check: "ok"}, {Label: "sqlite"}, {Label: "bbolt"}},
		Start:          t0, End: t0.Add(time.Minute), Status: "failed", Error: "bbolt: writer pi1: disk full",
	}, Steps: sampleSteps()}
}

func TestFormatsGolden(t *testing.T) {
	doc := RunsDocument([]*results.Run{sampleRun()}, Wide)
	for _, f := range Formats {
		var b bytes.Buffer
		if err := Render(&b, f, doc); err != nil {
			t.Fatal(err)
		}
		golden(t, "report."+f, b.Bytes())
	}
}

func TestGoBenchGolden(t *testing.T) {
	var b bytes.Buffer
	if err := GoBench(&b, []*results.Run{sampleRun()}); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.gobench", b.Bytes())
	checkBenchFormat(t, b.String())
}
