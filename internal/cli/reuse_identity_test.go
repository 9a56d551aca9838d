package cli

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/workload"
)

// Every setting of a workload's reuse identity (Reuser.DataConfig) that a flag sets is compared
// by run --reuse: data prepared on sqlite at a tiny scale, then a run that gives one of those
// flags another value is refused before anything starts, in one line that names the setting,
// the two values and the flag to leave out. A run with the prepared settings runs.
func TestReuseRefusesEveryDataSetting(t *testing.T) {
	for _, c := range []struct {
		workload string
		prepare  []string // the flags of the preparation (and of the runs)
		run      []string // the steps of the runs
		other    map[string]string
	}{
		{"insert", []string{"--rows", "300"}, []string{"--steps", "l.i1", "--writes", "50"},
			map[string]string{"clients": "2", "rows": "400", "seed": "5"}},
		{"sysbench", []string{"--table-size", "300"}, []string{"--tests", "point-query", "--read-secs", "0.2"},
			map[string]string{"tables": "2", "table_size": "400", "seed": "5"}},
		{"kv", []string{"--insert-count", "300", "--max-block-bytes", "4"}, []string{"--steps", "run", "--run-secs", "0.2"},
			map[string]string{"insert_count": "400", "min_block_bytes": "2", "max_block_bytes": "8", "sequential": "true", "seed": "5"}},
	} {
		t.Run(c.workload, func(t *testing.T) {
			_, _, d := dirs(t)
			args := append([]string{"--workload", c.workload, "--engine", "sqlite", "--quiet"}, append(c.prepare, d...)...)
			keys := dataSettings(t, c.workload, c.prepare)
			if got := slices.Sorted(maps.Keys(c.other)); !slices.Equal(got, keys) {
				t.Fatalf("the settings of %s's reuse identity that flags set are %v; the test changes %v", c.workload, keys, got)
			}
			if tr := run(t, nil, append([]string{"prepare"}, args...)...); tr.code != ExitOK {
				t.Fatalf("prepare: exit %d %s", tr.code, tr.stderr)
			}
			if tr := run(t, nil, append(append([]string{"run", "--reuse"}, args...), c.run...)...); tr.code != ExitOK {
				t.Fatalf("run --reuse with the prepared settings: exit %d %s", tr.code, tr.stderr)
			}
			for _, k := range keys {
				flag := strings.ReplaceAll(k, "_", "-")
				tr := run(t, nil, append(append([]string{"run", "--reuse"}, args...), append(c.run, "--"+flag+"="+c.other[k])...)...)
				want := regexp.MustCompile(`^rumbench: sqlite: --reuse: the data was prepared by run \S+ with ` + k + ` = \S+, not ` +
					c.other[k] + `: leave out --` + flag + ` \(the data's is taken\), or prepare again\n$`)
				if tr.code != ExitUsage || !want.MatchString(tr.stderr) || tr.stdout != "" {
					t.Errorf("--%s %s on prepared data: exit %d, stdout %q, stderr %q", flag, c.other[k], tr.code, tr.stdout, tr.stderr)
				}
			}
		})
	}
}

// dataSettings returns the keys of the reuse identity of workload w, built with args, that a
// flag of the run command sets (the workload's own, or --seed), sorted; the others are the
// workload's derived constants (column lengths, index names).
func dataSettings(t *testing.T, w string, args []string) []string {
	t.Helper()
	spec, _ := workload.Lookup(w)
	def := spec.New()
	if err := def.Flags().Parse(args); err != nil {
		t.Fatal(err)
	}
	wl, err := def.Build(workload.Shared{Profile: "quick", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range wl.(workload.Reuser).DataConfig() {
		if k == "seed" || def.Flags().Lookup(strings.ReplaceAll(k, "_", "-")) != nil {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}
