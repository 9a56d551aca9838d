//go:build wiredtiger

package wiredtiger

import (
	"strings"
	"testing"
)

// TestCheckpointSecsBound: WiredTiger refuses a checkpoint wait over 100000 seconds when it
// opens; the option is refused before.
func TestCheckpointSecsBound(t *testing.T) {
	for _, v := range []string{"-1", "100001"} {
		if _, err := parse(map[string]string{"checkpoint_secs": v}); err == nil || !strings.Contains(err.Error(), "checkpoint_secs="+v+": must be 0..100000") {
			t.Errorf("checkpoint_secs=%s: %v", v, err)
		}
	}
	if _, err := parse(map[string]string{"checkpoint_secs": "100000"}); err != nil {
		t.Errorf("checkpoint_secs=100000: %v", err)
	}
}
