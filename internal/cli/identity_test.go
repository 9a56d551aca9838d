package cli

import (
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/workload"
)

// identityCase is a workload whose reuse identity a test walks: data prepared on sqlite with
// prepare (the run's flags) and workloadArgs (its own), then run --reuse with each identity
// setting changed.
type identityCase struct {
	workload     string
	prepare      []string
	workloadArgs []string
	// change gives, for each identity key, the arguments that change it and the way out the
	// refusal must name ("--warehouses", "--property fieldcount=...").
	change map[string][2][]string
	// fixed are the identity keys no flag sets (the workload derives them), with the reason.
	fixed map[string]string
}

// checkIdentity prepares c's data, then for every key of the workload's reuse identity
// (DataConfig) checks that run --reuse with that setting changed is refused in one line, exit
// 2, naming the key and the flag to leave out, before anything starts.
func checkIdentity(t *testing.T, c identityCase) {
	t.Helper()
	spec, _ := workload.Lookup(c.workload)
	def := spec.New()
	if err := def.Flags().Parse(c.workloadArgs); err != nil {
		t.Fatal(err)
	}
	wl, err := def.Build(workload.Shared{Profile: "quick", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	keys := slices.Sorted(maps.Keys(wl.(workload.Reuser).DataConfig()))
	out, _, d := dirs(t)
	cmd := func(name string, extra ...string) transcript {
		args := append([]string{name, "--workload", c.workload, "--engine", "sqlite", "--quiet"}, d...)
		args = append(append(args, c.prepare...), c.workloadArgs...)
		return run(t, nil, append(args, extra...)...)
	}
	if tr := cmd("prepare"); tr.code != ExitOK {
		t.Fatalf("prepare %s: exit %d %s", c.workload, tr.code, tr.stderr)
	}
	runs := func() int { e, _ := os.ReadDir(out); return len(e) }
	before := runs()
	for _, k := range keys {
		if why, ok := c.fixed[k]; ok {
			t.Logf("%s: %s", k, why)
			continue
		}
		ch, ok := c.change[k]
		if !ok {
			t.Errorf("%s: reuse identity key %s has no case: add how to change it", c.workload, k)
			continue
		}
		tr := cmd("run", append([]string{"--reuse"}, ch[0]...)...)
		want := "leave out " + strings.Join(ch[1], " ") + " (the data's is taken), or prepare again"
		if tr.code != ExitUsage || strings.Count(tr.stderr, "\n") != 1 || !strings.Contains(tr.stderr, " with "+k+" = ") ||
			!strings.Contains(tr.stderr, want) {
			t.Errorf("%s: run --reuse %v: exit %d, stderr %q; want exit 2 and one line naming %s and %q", c.workload, ch[0], tr.code, tr.stderr, k, want)
		}
	}
	if runs() != before {
		t.Errorf("%s: a refused run --reuse left a run directory", c.workload)
	}
}

// TestReuseIdentityTPCC: every setting of TPC-C's data, changed on run --reuse, is refused.
func TestReuseIdentityTPCC(t *testing.T) {
	checkIdentity(t, identityCase{workload: "tpcc", prepare: []string{"--run-secs", "1"},
		change: map[string][2][]string{
			"warehouses": {{"--warehouses", "2"}, {"--warehouses"}},
			"seed":       {{"--seed", "7"}, {"--seed"}},
		},
		fixed: map[string]string{"items": "the specification's scale, no flag", "customers_per_district": "the specification's scale, no flag"}})
}

// TestReuseIdentityYCSB: every property of YCSB's data, changed on run --reuse with -p, and the
// seed, are refused.
func TestReuseIdentityYCSB(t *testing.T) {
	prop := func(kv string) [2][]string {
		k, _, _ := strings.Cut(kv, "=")
		return [2][]string{{"-p", kv}, {"--property", k + "=..."}}
	}
	change := map[string][2][]string{"seed": {{"--seed", "7"}, {"--seed"}}}
	for _, kv := range []string{"table=othertable", "recordcount=400", "insertstart=10", "insertcount=100", "fieldcount=4",
		"fieldlength=50", "minfieldlength=5", "fieldlengthdistribution=uniform", "fieldnameprefix=col", "zeropadding=5",
		"insertorder=ordered"} {
		k, _, _ := strings.Cut(kv, "=")
		change[k] = prop(kv)
	}
	checkIdentity(t, identityCase{workload: "ycsb", prepare: []string{"--run-secs", "1"},
		workloadArgs: []string{"-p", "recordcount=300", "-p", "insertcount=200"}, change: change})
}
