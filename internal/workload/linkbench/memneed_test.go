package linkbench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/workload/worktest"
)

// TestMemNeed: every profile of both references fits in 256 MiB with 8 requesters; payloads,
// clients and link types past the budget are refused in one line naming the input, the
// estimate and the limit.
func TestMemNeed(t *testing.T) {
	for _, p := range profileNames {
		for _, ref := range []string{"smalldatum", "upstream"} {
			if err := worktest.BuildSized(t, newDefinition(), p, 256<<20, "--reference", ref, "--requesters", "8", "--loaders", "8"); err != nil {
				t.Errorf("profile %s, reference %s: %v", p, ref, err)
			}
		}
	}
	props := func(body string) string {
		f := filepath.Join(t.TempDir(), "lb.properties")
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--properties", props("node_datasize = 10000000\n"), "--loaders", "64"},
			"linkbench: node_datasize=1e+07 × loaders=64 needs about 128 GiB (1.0 MiB a payload × 1024 rows a batch × 2 copies × 64 loaders), more than the 256 MiB --memory-limit allows; valid: settings whose estimate is under 256 MiB"},
		{[]string{"--requesters", "4096"},
			"linkbench: requesters=4096 needs about 22 GiB (2.5 MiB a get-links-list result of 10000 links × 2 copies × 4096 requesters)"},
		{[]string{"--properties", props("link_type_count = 1000000\n")},
			"linkbench: maxid1=100001 × link_type_count=1000000 needs about 9.5 TiB (every node's 1000000 links loaded in 1000000 slices)"},
		{[]string{"--properties", props("link_type_count = 50000\n")},
			"linkbench: link_type_count=50000 needs about 5.3 GiB (512 nodes' 25600000 links and 25600000 (id1, link_type) pairs the check holds)"},
	} {
		err := worktest.BuildSized(t, newDefinition(), "quick", 256<<20, c.args...)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v\nwant one line starting %q", c.args, err, c.want)
		}
	}
}
