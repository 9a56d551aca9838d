package all_test

import (
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/metric"
	"github.com/rumbench/rumbench/internal/workload"
	_ "github.com/rumbench/rumbench/internal/workload/all"
)

// TestSummarySpecs checks every workload's summary declaration: its headline figures are
// catalog metrics, with a direction (the summary marks it ↑ or ↓), scoped to one of its steps
// or groups; its summary columns for its steps are at most workload.MaxSummaryColumns, each a
// step or group name.
func TestSummarySpecs(t *testing.T) {
	for _, name := range workload.Names() {
		spec, _ := workload.Lookup(name)
		scopes := map[string]bool{}
		for _, s := range spec.Steps {
			scopes[s] = true
		}
		for _, g := range spec.Groups {
			scopes[g.Name] = true
		}
		for _, h := range spec.Headline {
			scope, m, _ := strings.Cut(h, ":")
			if m == "" {
				scope, m = "", h
			}
			met, ok := metric.Lookup(m)
			if !ok || met.Better == metric.Neutral {
				t.Errorf("%s: headline %q is not a catalog metric with a direction", name, h)
			}
			if scope != "" && !scopes[scope] {
				t.Errorf("%s: headline %q: %q is no step or group of the workload", name, h, scope)
			}
		}
		cols := workload.SummaryColumns(spec, spec.Steps)
		if len(cols) == 0 || len(cols) > workload.MaxSummaryColumns {
			t.Errorf("%s: %d summary columns %q", name, len(cols), cols)
		}
		for _, c := range cols {
			if !scopes[c] {
				t.Errorf("%s: summary column %q is no step or group", name, c)
			}
		}
	}
}

// TestProfiles: every workload's Build takes each of its Spec.Profiles and refuses any other
// name with the one message Spec.CheckProfile gives (the CLI's).
func TestProfiles(t *testing.T) {
	for _, name := range workload.Names() {
		spec, _ := workload.Lookup(name)
		for _, p := range spec.Profiles {
			if _, err := spec.New().Build(workload.Shared{Profile: p, Seed: 1}); err != nil {
				t.Errorf("%s --profile %s: %v", name, p, err)
			}
		}
		want := spec.CheckProfile("huge")
		if want == nil || !strings.Contains(want.Error(), strings.Join(spec.Profiles, ", ")) {
			t.Fatalf("%s: CheckProfile(huge) = %v", name, want)
		}
		if _, err := spec.New().Build(workload.Shared{Profile: "huge", Seed: 1}); err == nil || err.Error() != want.Error() {
			t.Errorf("%s: Build of profile huge: %v, want %v", name, err, want)
		}
	}
}
