package sysbench

import (
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/workload/worktest"
)

// TestMemNeed: every profile fits in 256 MiB with 16 threads; threads past the budget are
// refused in one line naming the input, the estimate and the limit, sized by the widest range
// among the tests that run.
func TestMemNeed(t *testing.T) {
	for _, p := range profileNames {
		if err := worktest.BuildSized(t, newDefinition(), p, 256<<20, "--threads", "16", "--tables", "8"); err != nil {
			t.Errorf("profile %s: %v", p, err)
		}
	}
	err := worktest.BuildSized(t, newDefinition(), "quick", 256<<20, "--threads", "4096")
	want := "sysbench: threads=4096 needs about 24 GiB (6.1 MiB a thread: 10000 rows of read-only_range=10000 × 2 copies, and its histograms), more than the 256 MiB --memory-limit allows; valid: settings whose estimate is under 256 MiB"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %q", err, want)
	}
	if err := worktest.BuildSized(t, newDefinition(), "quick", 2<<30, "--threads", "4096", "--tests", "point-query"); err != nil {
		t.Errorf("point queries only: %v", err)
	}
	if err := worktest.BuildSized(t, newDefinition(), "quick", 256<<20, "--threads", "5000"); err == nil || !strings.HasPrefix(err.Error(), "--threads 5000") {
		t.Errorf("--threads 5000: %v, want the count's own message first", err)
	}
}
