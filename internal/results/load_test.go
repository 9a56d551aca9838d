package results

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/table"
)

// testManifest is a manifest with the fields Validate requires, of one target (pebble).
func testManifest(id string) *Manifest {
	return &Manifest{SchemaVersion: SchemaVersion, RunID: id, Version: "dev", Workload: "insert",
		Start: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC), Status: StatusOK,
		Targets: []Target{{Label: "pebble", Engine: table.Info{Name: "pebble"}}}}
}

// writeTestRun writes a run directory of one target, two steps and two intervals under out.
func writeTestRun(t *testing.T, out string) string {
	t.Helper()
	w, err := Create(out, "20261121T120000Z-insert", false)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Manifest(testManifest(w.RunID())); err != nil {
		t.Fatal(err)
	}
	for _, step := range []string{"l.i0", "l.x"} {
		if err := w.Interval(&Interval{Target: "pebble", Step: step, T: 1, Secs: 1}); err != nil {
			t.Fatal(err)
		}
		if err := w.Step(Step{Target: "pebble", Engine: "pebble", Step: step, Status: StatusOK}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.Dir()
}

// TestLoadReadsOldRuns: the version-1 run directories of testdata are read and upgraded.
func TestLoadReadsOldRuns(t *testing.T) {
	for id, workload := range map[string]string{"20261124T032916Z-v1insert": "insert", "20261124T032920Z-v1sysbench": "sysbench"} {
		r, err := Load(filepath.Join("testdata", "v1", id))
		if err != nil {
			t.Errorf("%s: %v", id, err)
			continue
		}
		if r.Manifest.Workload != workload || len(r.Manifest.Targets) == 0 || len(r.Steps) == 0 || len(r.Intervals) == 0 {
			t.Errorf("%s: workload %s, %d targets, %d steps, %d intervals", id, r.Manifest.Workload, len(r.Manifest.Targets), len(r.Steps), len(r.Intervals))
		}
	}
}

// TestLoadRefusesBadRunDirectories: a run directory whose files are not what a run writes is
// refused with one line naming the file and what is wrong; a run that stopped early (no
// steps.json while run.json says it runs, a torn last interval line) is read as far as it got.
func TestLoadRefusesBadRunDirectories(t *testing.T) {
	manifest := func(edit func(m map[string]any)) func(dir string) error {
		return func(dir string) error {
			var m map[string]any
			data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
			if err == nil {
				err = json.Unmarshal(data, &m)
			}
			if err != nil {
				return err
			}
			edit(m)
			if data, err = json.Marshal(m); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, ManifestFile), data, 0o644)
		}
	}
	write := func(file, data string) func(dir string) error {
		return func(dir string) error { return os.WriteFile(filepath.Join(dir, file), []byte(data), 0o644) }
	}
	both := func(a, b func(dir string) error) func(dir string) error {
		return func(dir string) error {
			if err := a(dir); err != nil {
				return err
			}
			return b(dir)
		}
	}
	cut := func(file string, keep int) func(dir string) error {
		return func(dir string) error {
			data, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, file), data[:keep], 0o644)
		}
	}
	for _, tc := range []struct {
		name   string
		change func(dir string) error
		want   string // the error after "DIR/", "" for none
		steps  int    // records read when there is no error
		ivs    int
	}{
		{"intact", func(string) error { return nil }, "", 2, 2},
		{"empty manifest", write(ManifestFile, "{}"),
			"run.json: not a run manifest: missing schema_version, run_id, rumbench_version, workload, start, status (required: schema_version, run_id, rumbench_version, workload, start, status)", 0, 0},
		{"manifest without workload", manifest(func(m map[string]any) { delete(m, "workload") }),
			"run.json: not a run manifest: missing workload (required: schema_version, run_id, rumbench_version, workload, start, status)", 0, 0},
		{"truncated manifest", cut(ManifestFile, 40), "run.json: unexpected end of JSON input (truncated?)", 0, 0},
		{"empty manifest file", write(ManifestFile, ""), "run.json: empty file (truncated?)", 0, 0},
		{"manifest not JSON", write(ManifestFile, "{\n  x"), "run.json: invalid character 'x' looking for beginning of object key string at byte 5", 0, 0},
		{"manifest of a wrong type", manifest(func(m map[string]any) { m["run_id"] = 7 }),
			"run.json: cannot unmarshal number into Go struct field Manifest.run_id of type string", 0, 0},
		{"newer schema", manifest(func(m map[string]any) { m["schema_version"] = 99 }),
			"run.json: schema_version 99: this rumbench reads 1 to 3 (a newer rumbench wrote it?)", 0, 0},
		{"complete run without targets", manifest(func(m map[string]any) { m["targets"] = []any{} }),
			"run.json: status ok but no targets: a completed run lists the engines it ran", 0, 0},
		{"failed run without targets", both(manifest(func(m map[string]any) { m["targets"], m["status"] = []any{}, StatusFailed }), write(StepsFile, "[]")), "", 0, 2},
		{"step of a target run.json lacks", write(StepsFile, `[{"target":"pebble","step":"l.i0"},{"target":"ghost\u001b[2J","step":"l.i0"}]`),
			"steps.json: record 2: target \"ghost\\x1b[2J\" is not one of the run's targets in run.json", 0, 0},
		{"target without label", manifest(func(m map[string]any) {
			m["targets"] = []any{map[string]any{"engine": map[string]any{"name": "pebble"}}}
		}),
			"run.json: targets[0]: no label", 0, 0},
		{"no manifest", func(dir string) error { return os.Remove(filepath.Join(dir, ManifestFile)) }, "", 0, 0},
		{"manifest a directory", func(dir string) error {
			if err := os.Remove(filepath.Join(dir, ManifestFile)); err != nil {
				return err
			}
			return os.Mkdir(filepath.Join(dir, ManifestFile), 0o755)
		}, "run.json: not a regular file (a directory)", 0, 0},
		{"truncated steps", cut(StepsFile, 100), "steps.json: unexpected end of JSON input (truncated?)", 0, 0},
		{"step without target", write(StepsFile, `[{"target":"pebble","step":"l.i0"},{"step":"l.x"}]`), "steps.json: record 2: step l.x: no target", 0, 0},
		{"step without names", write(StepsFile, `[{}]`), "steps.json: record 1: no target and no step", 0, 0},
		{"no steps file", func(dir string) error { return os.Remove(filepath.Join(dir, StepsFile)) },
			"steps.json: missing, and run.json says the run ended (ok): a run that ends writes one", 0, 0},
		{"no steps file yet", both(manifest(func(m map[string]any) { m["status"] = StatusRunning }), func(dir string) error { return os.Remove(filepath.Join(dir, StepsFile)) }), "", 0, 2},
		{"shard count", manifest(func(m map[string]any) { m["shard"] = map[string]any{"group": "g", "index": 0, "count": 20000000} }),
			"run.json: shard 0 of 20000000: want a count of 1 to 10000 and an index of 0 to count-1", 0, 0},
		{"torn last interval", func(dir string) error {
			f, err := os.OpenFile(filepath.Join(dir, IntervalsFile), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			_, err = f.WriteString(`{"target":"pebble","st`)
			f.Close()
			return err
		}, "", 2, 2},
		{"bad interval line", write(IntervalsFile, "{\"target\":\"pebble\",\"step\":\"l.i0\"}\n{\"target\"\n{\"target\":\"pebble\",\"step\":\"l.x\"}\n"),
			"intervals.jsonl: line 2: unexpected end of JSON input (truncated?)", 0, 0},
		{"interval without step", write(IntervalsFile, "{\"target\":\"pebble\"}\n"), "intervals.jsonl: line 1: target pebble: no step", 0, 0},
		{"interval line too long", write(IntervalsFile, `{"target":"`+strings.Repeat("x", maxIntervalLine)+"\"}\n"),
			"intervals.jsonl: line 1: longer than 16 MiB: not an interval record", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeTestRun(t, t.TempDir())
			if err := tc.change(dir); err != nil {
				t.Fatal(err)
			}
			r, err := Load(dir)
			switch {
			case tc.name == "no manifest":
				if !os.IsNotExist(err) || err.Error() != "open "+dir+"/run.json: no such file or directory" {
					t.Errorf("error %v, want one os.IsNotExist recognizes", err)
				}
			case tc.want == "" && err != nil:
				t.Errorf("error %v", err)
			case tc.want == "" && (len(r.Steps) != tc.steps || len(r.Intervals) != tc.ivs):
				t.Errorf("%d steps, %d intervals; want %d, %d", len(r.Steps), len(r.Intervals), tc.steps, tc.ivs)
			case tc.want != "" && (err == nil || err.Error() != dir+"/"+tc.want):
				t.Errorf("error %v\nwant %s/%s", err, dir, tc.want)
			}
		})
	}
}
