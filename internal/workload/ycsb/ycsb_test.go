package ycsb

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/engine"
	_ "github.com/rumbench/rumbench/internal/engine/all"
	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
	"github.com/rumbench/rumbench/internal/workload/worktest"
	"github.com/rumbench/rumbench/internal/workload/ycsb/ycsbgen"
)

// sharedQuick are the shared settings of the tests.
var sharedQuick = workload.Shared{Profile: "quick", Seed: 42}

// build makes the workload from command-line arguments, as the run command does.
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

// TestLetterProportions runs 100,000 operations of each shipped workload on the null engine and
// checks that every operation's share is its proportion within one percentage point.
func TestLetterProportions(t *testing.T) {
	for _, letter := range []string{"a", "b", "c", "d", "e", "f"} {
		t.Run(letter, func(t *testing.T) {
			w := build(t, "--workload-letter", letter, "-p", "recordcount=1000", "-p", "operationcount=100000",
				"-p", "maxscanlength=10")
			eng, dir := worktest.Engine(t, "null", false, nil)
			worktest.Steps(t, eng, dir, w, func(_ workload.Run, step string, res results.Step) {
				if step != StepRun {
					return
				}
				if res.Ops != 100_000 {
					t.Errorf("run: %d operations, want 100000", res.Ops)
				}
				props := w.Cfg.Core.Proportions()
				var sum float64
				for _, f := range props {
					sum += f
				}
				for op, f := range props {
					got := float64(res.KindOps(opKinds[op].Name)) / float64(res.Ops)
					if math.Abs(got-f/sum) > 0.01 {
						t.Errorf("%s: share %.4f, want %.4f ± 0.01", opNames[op], got, f/sum)
					}
				}
			})
		})
	}
}

// TestPropertyFileFlags checks -P (a shipped file by its name), -p overrides, the profile's sizes
// and the refusals of malformed values.
func TestPropertyFileFlags(t *testing.T) {
	w := build(t, "-P", "workloads/workloade", "-p", "maxscanlength=50", "-p", "requestdistribution=latest")
	c := w.Cfg.Core
	if c.ScanProportion != 0.95 || c.InsertProportion != 0.05 || c.MaxScanLength != 50 || c.RequestDistribution != "latest" {
		t.Errorf("workloade with overrides: %+v", c)
	}
	if c.RecordCount != profiles["quick"].records || w.Cfg.RunSecs != profiles["quick"].runSecs || c.OperationCount != 0 {
		t.Errorf("the profile sizes the run: recordcount %d, run_secs %g, operationcount %d", c.RecordCount, w.Cfg.RunSecs, c.OperationCount)
	}
	w = build(t, "--workload-letter", "c", "-p", "recordcount=300", "-p", "operationcount=900", "-p", "nosuchproperty=1")
	if w.Cfg.Core.RecordCount != 300 || w.Cfg.Core.OperationCount != 900 || w.Cfg.RunSecs != 0 {
		t.Errorf("-p sizes: %+v run_secs %g", w.Cfg.Core, w.Cfg.RunSecs)
	}
	if got := strings.Join(w.Warnings(), ""); !strings.Contains(got, "nosuchproperty") {
		t.Errorf("warnings %q do not name the unknown property", got)
	}
	// Many unknown properties, one of them long: the warning names the first 20, each cut.
	args := []string{"-p", strings.Repeat("k", 300) + "=1"}
	for i := range 30 {
		args = append(args, "-p", fmt.Sprintf("made.up.%02d=1", i))
	}
	w = build(t, args...)
	if got := strings.Join(w.Warnings(), ""); !strings.Contains(got, input.Short(strings.Repeat("k", 300))) ||
		!strings.Contains(got, "made.up.18, and 11 more") || len(got) > 500 {
		t.Errorf("warnings %q: want the first 20 names, each cut, and 11 more", got)
	}
	for _, bad := range [][]string{
		{"-p", "readproportion=abc"},
		{"-p", "requestdistribution=pareto"},
		{"--workload-letter", "g"},
		{"-P", "/no/such/file"},
		{"--threads", "0"},
		{"--steps", "run"},
		{"-p", "noequals"},
	} {
		d := newDefinition()
		if err := d.Flags().Parse(bad); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Build(workload.Shared{Profile: "quick", Seed: 1}); err == nil {
			t.Errorf("%v: accepted", bad)
		}
	}
}

// TestFieldValues checks that values verify, and that a changed byte or length does not.
func TestFieldValues(t *testing.T) {
	kh := keyHash([]byte("user123"))
	for _, n := range []int{1, stampLen, stampLen + 1, 100} {
		v := appendField(nil, kh, 3, 0xabcdef123456, n)
		if len(v) != n {
			t.Fatalf("length %d, want %d", len(v), n)
		}
		for _, c := range v {
			if c < ' ' || c > '_' {
				t.Fatalf("byte %q is not one of the 64 printable characters", c)
			}
		}
		if ok, _ := fieldOK(nil, v, kh, 3); !ok {
			t.Errorf("n=%d: a written value does not verify", n)
		}
		if ok, _ := fieldOK(nil, v, kh, 4); ok && n > 0 {
			t.Errorf("n=%d: verifies as another field", n)
		}
		w := slices.Clone(v)
		w[n-1] ^= 1
		if ok, _ := fieldOK(nil, w, kh, 3); ok {
			t.Errorf("n=%d: a changed value verifies", n)
		}
		if ok, _ := fieldOK(nil, v[:n-1], kh, 3); ok && n > 1 {
			t.Errorf("n=%d: a truncated value verifies", n)
		}
	}
}

// TestEngines runs a mix of every operation on every storing engine at tiny scale, with the
// invariant check, and checks that scans return exactly the next records in key order.
func TestEngines(t *testing.T) {
	for _, name := range engine.Names() {
		if name == "null" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			w := build(t, "-p", "recordcount=400", "-p", "operationcount=1500", "-p", "readproportion=0.3",
				"-p", "updateproportion=0.2", "-p", "insertproportion=0.1", "-p", "scanproportion=0.2",
				"-p", "readmodifywriteproportion=0.2", "-p", "maxscanlength=25", "-p", "requestdistribution=zipfian",
				"-p", "fieldlengthdistribution=uniform", "-p", "dataintegrity=false", "--threads", "2", "--loaders", "2",
				"--load-batch", "7")
			eng, dir := worktest.Engine(t, name, false, nil)
			run := worktest.Steps(t, eng, dir, w, func(_ workload.Run, step string, res results.Step) {
				if step == StepRun && res.Ops != 1500 {
					t.Errorf("run: %d operations, want 1500", res.Ops)
				}
			})
			msg, err := run.Check(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(msg, "records") {
				t.Errorf("check: %q", msg)
			}
			checkScans(t, run.(*Run))
		})
	}
}

// checkScans compares scans from random start keys (present or not) with the sorted list of
// every key the table holds: a scan of n returns exactly the next n keys, fewer only at the end.
func checkScans(t *testing.T, r *Run) {
	t.Helper()
	ctx := context.Background()
	core := &r.w.Cfg.Core
	var keys []string
	for k := core.InsertStart; k < core.InsertStart+r.loaded.Load(); k++ {
		keys = append(keys, string(ycsbgen.BuildKeyName(nil, k, false, core.ZeroPadding)))
	}
	for k := core.RecordCount; k <= r.ack.Last(); k++ {
		keys = append(keys, string(ycsbgen.BuildKeyName(nil, k, false, core.ZeroPadding)))
	}
	slices.Sort(keys)
	sess, err := r.eng.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	c, err := r.newClient(sess, 9, 1)
	if err != nil {
		t.Fatal(err)
	}
	rng := gen.NewRand(7)
	for i := 0; i < 60; i++ {
		start := keys[rng.Intn(int64(len(keys)))]
		if i%3 == 1 {
			start = start[:len(start)-1] // a key between two others
		}
		length := 1 + rng.Intn(40)
		if i == 0 {
			start, length = keys[len(keys)-3], 10 // past the end
		}
		from, _ := slices.BinarySearch(keys, start)
		want := keys[from:min(from+int(length), len(keys))]
		c.args = append(c.args[:0], table.Value{B: []byte(start)}, table.Value{I: length})
		c.out.Reset(len(c.st.scan.Cols))
		n, err := sess.Exec(ctx, c.st.scan, c.args, c.out)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for j := 0; j < c.out.N; j++ {
			got = append(got, string(c.out.Row(j)[0].B))
		}
		if int(n) != len(got) || !slices.Equal(got, want) {
			t.Fatalf("scan of %d from %q: got %d %v, want %v", length, start, n, got, want)
		}
	}
}

// TestLoadBatchOfProfiles: the quick profile loads 100 records per transaction; small and
// standard one, as YCSB; --load-batch sets it at any profile.
func TestLoadBatchOfProfiles(t *testing.T) {
	for _, c := range []struct {
		profile string
		args    []string
		want    int
	}{{"quick", nil, 100}, {"small", nil, 1}, {"standard", nil, 1}, {"quick", []string{"--load-batch", "1"}, 1}, {"small", []string{"--load-batch", "50"}, 50}} {
		d := newDefinition()
		if err := d.Flags().Parse(c.args); err != nil {
			t.Fatal(err)
		}
		w, err := d.Build(workload.Shared{Profile: c.profile, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if got := w.(*Workload).Cfg.LoadBatch; got != c.want {
			t.Errorf("--profile %s %v: load batch %d, want %d", c.profile, c.args, got, c.want)
		}
		if b := workload.Banner(w.Settings(), []string{StepLoad}); !strings.Contains(b, fmt.Sprintf("load_batch=%d ", c.want)) {
			t.Errorf("--profile %s %v: banner of the load %q", c.profile, c.args, b)
		}
	}
}
