package kv

import (
	"context"
	"strings"
	"testing"

	_ "github.com/rumbench/rumbench/internal/engine/all"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/workload"
	"github.com/rumbench/rumbench/internal/workload/worktest"
)

// newKV makes the workload of the quick profile from args.
func newKV(t *testing.T, args ...string) *Workload {
	t.Helper()
	spec, _ := workload.Lookup("kv")
	d := spec.New()
	if err := d.Flags().Parse(args); err != nil {
		t.Fatal(err)
	}
	wl, err := d.Build(workload.Shared{Profile: "quick", Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	return wl.(*Workload)
}

// engines are every engine: kv runs on all of them.
var engines = []string{"pebble", "rocksdb", "wiredtiger", "bbolt", "lmdb", "sqlite", "null", "postgres", "mysql", "myrocks", "mongo"}

// TestKV runs the load and a mixed run on every engine, and
// checks the table holds exactly the keys loaded and written and every read found its keys.
func TestKV(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng, func(t *testing.T) {
			w := newKV(t, "--insert-count", "3000", "--run-secs", "0.5", "--read-percent", "50", "--span-percent", "10",
				"--span-limit", "20", "--batch", "4", "--concurrency", "2", "--max-block-bytes", "64")
			e, dir := worktest.Engine(t, eng, false, nil)
			var loaded, ops int64
			run := worktest.Steps(t, e, dir, w, func(_ workload.Run, step string, res results.Step) {
				switch step {
				case StepLoad:
					loaded = res.Kind("insert").Units
				case StepRun:
					ops = res.Ops
					// Each kind once in the rate; the mix (seeded) runs every kind within 100 operations.
					k := func(n string) int64 { return res.Kind(n).Ops }
					if k("read")+k("write")+k("span") != ops || ops >= 100 && (k("read") == 0 || k("write") == 0 || k("span") == 0) {
						t.Errorf("run: %d operations, kinds %+v", ops, res.Kinds)
					}
				}
			})
			msg, err := run.Check(context.Background())
			if err != nil || loaded != 3000 || ops == 0 {
				t.Fatalf("check %q %v; loaded %d, ops %d", msg, err, loaded, ops)
			}
			if !strings.HasPrefix(msg, "ok: ") && !(eng == "null" && strings.HasPrefix(msg, "skipped")) {
				t.Errorf("check: %s", msg)
			}
		})
	}
}

// TestSettingsRefused: the declared bounds and the rules between settings, one line each.
func TestSettingsRefused(t *testing.T) {
	spec, _ := workload.Lookup("kv")
	for args, want := range map[string]string{
		"--batch 0":                                "--batch 0: want 1..1000 keys",
		"--read-percent 80 --span-percent 30":      "--read-percent 80 and --span-percent 30: want at most 100 together",
		"--min-block-bytes 10 --max-block-bytes 5": "--max-block-bytes 5: want at least --min-block-bytes (10)",
		"--steps load,nap":                         `--steps: unknown step "nap" (valid: load, run)`,
	} {
		d := spec.New()
		if err := d.Flags().Parse(strings.Fields(args)); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Build(workload.Shared{Profile: "quick"}); err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %s", args, err, want)
		}
	}
}
