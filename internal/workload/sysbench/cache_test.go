package sysbench

import (
	"testing"

	"github.com/rumbench/rumbench/internal/workload"
)

// TestCacheMB: the caches hold tables × table size rows; engines without a rule keep the run's.
func TestCacheMB(t *testing.T) {
	for _, c := range []struct {
		profile, engine string
		args            []string
		want            int64
		ok              bool
	}{
		{"quick", "mysql", nil, 128, true},  // 1.25 × 758 B × 100,000
		{"small", "mysql", nil, 1024, true}, // × 1,000,000
		{"small", "myrocks", nil, 2048, true},
		{"small", "mysql", []string{"--tables", "4"}, 4096, true},
		{"quick", "sqlite", nil, 0, false},
	} {
		d := newDefinition()
		if err := d.Flags().Parse(c.args); err != nil {
			t.Fatal(err)
		}
		w, err := d.Build(workload.Shared{Profile: c.profile, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		p := w.(workload.CachePlanner)
		if mb, ok := p.CacheMB(c.engine, 0); mb != c.want || ok != c.ok || p.Regime() != workload.RegimeCached {
			t.Errorf("%s %s %v: %d MiB %v, want %d %v", c.profile, c.engine, c.args, mb, ok, c.want, c.ok)
		}
	}
}
