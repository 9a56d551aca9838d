package cli

import (
	"testing"

	"github.com/rumbench/rumbench/internal/workload"
)

// TestEngineCachesUnderLimit: under --memory-limit a profile's cache takes at most half the cap.
func TestEngineCachesUnderLimit(t *testing.T) {
	spec, ok := workload.Lookup("linkbench")
	if !ok {
		t.Fatal("no linkbench workload")
	}
	wl, err := spec.New().Build(workload.Shared{Profile: "quick", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		limit, want int64
	}{{512 << 20, 256 << 20}, {64 << 20, 64 << 20}} { // the rule's 1024 MiB, under caps that bind on any host
		caches, regime := engineCaches(&runFlags{}, []string{"mysql", "sqlite"}, wl, c.limit)
		if caches["mysql"] != c.want || regime != workload.RegimeCached {
			t.Errorf("limit %d: mysql %d, regime %q, want %d cached", c.limit, caches["mysql"], regime, c.want)
		}
		if _, ok := caches["sqlite"]; ok {
			t.Errorf("limit %d: sqlite got a planned cache", c.limit)
		}
	}
	if caches, _ := engineCaches(&runFlags{}, []string{"mysql"}, wl, 0); caches["mysql"] < 256<<20 || caches["mysql"] > 1024<<20 {
		t.Errorf("no limit: mysql %d, want the rule's 1024 MiB or the host's ceiling", caches["mysql"])
	}
}
