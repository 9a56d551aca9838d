package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// editRun copies the run directory src to dst and applies edit to its run.json and steps.json,
// decoded as generic JSON (nil steps: steps.json removed).
func editRun(t *testing.T, src, dst string, edit func(m map[string]any, steps []any) []any) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	var steps []any
	for name, v := range map[string]any{"run.json": &m, "steps.json": &steps} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err == nil {
			err = json.Unmarshal(data, v)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	ivs, _ := os.ReadFile(filepath.Join(src, "intervals.jsonl"))
	os.WriteFile(filepath.Join(dst, "intervals.jsonl"), ivs, 0o644)
	steps = edit(m, steps)
	data, _ := json.Marshal(m)
	os.WriteFile(filepath.Join(dst, "run.json"), data, 0o644)
	if steps != nil {
		data, _ = json.Marshal(steps)
		os.WriteFile(filepath.Join(dst, "steps.json"), data, 0o644)
	}
}

// TestHostileRunDirectories reads run directories edited as someone handing them over might:
// a target label with terminal escapes is printed escaped by every text format, gobench and
// runs (never raw); a step of a target run.json does not list, a missing steps.json of a
// finished run and a shard record with an impossible count are refused in one line naming the
// file, exit 2.
func TestHostileRunDirectories(t *testing.T) {
	out, _, d := dirs(t)
	if tr := run(t, nil, append([]string{"run", "--engine", "sqlite", "--steps", "l.i0", "--rows", "500", "--quiet", "--store", "none"}, d...)...); tr.code != 0 {
		t.Fatalf("run: exit %d\n%s", tr.code, tr.stderr)
	}
	src, _, _ := readRun(t, out)
	edits := t.TempDir()
	const evil = "sq\x1b[2J\x1b]0;owned\x07\u009b31mlite"
	esc := filepath.Join(edits, "esc")
	editRun(t, src, esc, func(m map[string]any, steps []any) []any {
		m["targets"].([]any)[0].(map[string]any)["label"] = evil
		for _, s := range steps {
			s.(map[string]any)["target"] = evil
		}
		return steps
	})
	for _, format := range []string{"text", "md", "csv", "tsv", "gobench"} {
		tr := run(t, nil, "report", esc, "--format", format, "--store", "none")
		if tr.code != 0 || strings.ContainsAny(tr.stdout, "\x1b\x07\u009b") || !strings.Contains(tr.stdout, `sq\x1b[2J\x1b]0;owned\x07\u009b31mlite`) {
			t.Errorf("report --format %s: exit %d, a raw escape or no escaped label in:\n%q", format, tr.code, tr.stdout)
		}
	}
	store := filepath.Join(edits, "store.db")
	if tr := run(t, nil, "runs", "import", esc, "--store", store); tr.code != 0 {
		t.Fatalf("runs import: exit %d %s", tr.code, tr.stderr)
	}
	if tr := run(t, nil, "runs", "--store", store); tr.code != 0 || strings.ContainsAny(tr.stdout, "\x1b\x07\u009b") || !strings.Contains(tr.stdout, `sq\x1b[2J`) {
		t.Errorf("runs: exit %d, %q", tr.code, tr.stdout)
	}

	ghost := filepath.Join(edits, "ghost")
	editRun(t, src, ghost, func(m map[string]any, steps []any) []any {
		steps[0].(map[string]any)["target"] = "ghost"
		return steps
	})
	nosteps := filepath.Join(edits, "nosteps")
	editRun(t, src, nosteps, func(map[string]any, []any) []any { return nil })
	shard := func(name string, count int) string {
		dir := filepath.Join(edits, name)
		editRun(t, src, dir, func(m map[string]any, steps []any) []any {
			m["shard"] = map[string]any{"group": "g", "index": 0, "count": count}
			return steps
		})
		return dir
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", ghost}, ghost + `/steps.json: record 1: target "ghost" is not one of the run's targets in run.json`},
		{[]string{"report", nosteps}, nosteps + "/steps.json: missing, and run.json says the run ended (ok): a run that ends writes one"},
		{[]string{"merge", shard("huge", 20000000)}, "/huge/run.json: shard 0 of 20000000: want a count of 1 to 10000 and an index of 0 to count-1"},
		{[]string{"merge", shard("negative", -5)}, "/negative/run.json: shard 0 of -5: want a count of 1 to 10000 and an index of 0 to count-1"},
		{[]string{"merge", shard("three", 3)}, "group g has 3 shards, 1 runs given: shard 1, 2 missing"},
	} {
		tr := run(t, nil, append(c.args, "--store", "none", "--out", edits)...)
		if tr.code != ExitUsage || !strings.Contains(tr.stderr, c.want) || strings.Count(tr.stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want %d and one line with %q", c.args, tr.code, tr.stderr, ExitUsage, c.want)
		}
	}
}
