package insert

import (
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/workload/worktest"
)

// TestMemNeed: every profile fits in 256 MiB with 8 clients; clients × rows-per-commit past the
// budget are refused in one line naming the inputs, the estimate and the limit.
func TestMemNeed(t *testing.T) {
	for _, p := range profileNames {
		if err := worktest.BuildSized(t, newDefinition(), p, 256<<20, "--clients", "8"); err != nil {
			t.Errorf("profile %s: %v", p, err)
		}
	}
	err := worktest.BuildSized(t, newDefinition(), "quick", 256<<20, "--clients", "1024", "--rows-per-commit", "100000")
	want := "insert: clients=1024 × rows-per-commit=100000 needs about 47 GiB (47 MiB a client: a batch of 100000 rows × 2 copies, and its writer's and query thread's histograms), more than the 256 MiB --memory-limit allows; valid: settings whose estimate is under 256 MiB"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %q", err, want)
	}
	if err := worktest.BuildSized(t, newDefinition(), "quick", 256<<20, "--clients", "0"); err == nil || !strings.HasPrefix(err.Error(), "--clients 0") {
		t.Errorf("--clients 0: %v, want the count's own message first", err)
	}
}
