package lmdb

import (
	"context"
	"strings"
	"testing"

	lm "github.com/PowerDNS/lmdb-go/lmdb"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/engine/kv"
)

// TestReadahead: the map is opened without the OS's readahead (MDB_NORDAHEAD) unless
// readahead=on; another value is refused with the valid ones.
func TestReadahead(t *testing.T) {
	if _, err := parse(map[string]string{"readahead": "maybe"}); err == nil || !strings.Contains(err.Error(), "valid: on, off") {
		t.Errorf("readahead=maybe: %v, want the valid values", err)
	}
	for _, c := range []struct {
		extra  map[string]string
		off    bool
		option string
	}{{nil, true, "off (MDB_NORDAHEAD)"}, {map[string]string{"readahead": "on"}, false, "on"}} {
		eng, err := open(context.Background(), engine.Options{Dir: t.TempDir(), Extra: c.extra})
		if err != nil {
			t.Fatal(err)
		}
		flags, err := eng.(*kv.Engine).Store().(*store).env.Flags()
		if err != nil {
			t.Fatal(err)
		}
		if got := flags&lm.NoReadahead != 0; got != c.off || eng.Info().Options["readahead"] != c.option {
			t.Errorf("%v: MDB_NORDAHEAD %v, option %q; want %v, %q", c.extra, got, eng.Info().Options["readahead"], c.off, c.option)
		}
		eng.Close()
	}
}
