package tpcc

import (
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/workload/worktest"
)

// TestMemNeed: the quick profile fits in 64 MiB; 256 loaders do not fit in 100 MiB, and the
// refusal names the loaders.
func TestMemNeed(t *testing.T) {
	if err := worktest.BuildSized(t, newDefinition(), "quick", 64<<20); err != nil {
		t.Errorf("quick in 64 MiB: %v", err)
	}
	err := worktest.BuildSized(t, newDefinition(), "quick", 100<<20, "--loaders", "256")
	if err == nil || !strings.Contains(err.Error(), "loaders=256") {
		t.Errorf("256 loaders in 100 MiB: %v", err)
	}
}
