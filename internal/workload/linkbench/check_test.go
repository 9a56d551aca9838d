package linkbench

import (
	"context"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload/worktest"
)

// rangeCounter is a real engine whose Info says it reads whole tables for ranges (as FerretDB
// does) when whole is set, and which counts the range reads (Between selects) its sessions run.
type rangeCounter struct {
	table.Engine
	whole  bool
	ranges *int
}

func (e rangeCounter) Info() table.Info {
	i := e.Engine.Info()
	i.WholeRanges = e.whole
	return i
}

func (e rangeCounter) NewSession(ctx context.Context) (table.Session, error) {
	s, err := e.Engine.NewSession(ctx)
	return rangeSession{s, e.ranges}, err
}

type rangeSession struct {
	table.Session
	ranges *int
}

func (s rangeSession) Exec(ctx context.Context, st *table.Stmt, args []table.Value, out *table.Rows) (int64, error) {
	if st.Match == table.Between {
		*s.ranges++
	}
	return s.Session.Exec(ctx, st, args, out)
}

// TestCheckWholeRanges runs the count check of a 3,000-node graph: in 512-id ranges (6 per
// table) on an engine that reads ranges, in one range per table on one that reads a whole table
// for every range read; both find the same counts.
func TestCheckWholeRanges(t *testing.T) {
	var msgs []string
	for _, c := range []struct {
		whole bool
		want  int
	}{{false, 2 * 6}, {true, 2}} {
		w := build(t, "--maxid1", "3001", "--max-degree", "20", "--loops", "0")
		eng, dir := worktest.Engine(t, "sqlite", false, nil)
		var ranges int
		run := worktest.Steps(t, rangeCounter{eng, c.whole, &ranges}, dir, w, nil)
		ranges = 0
		msg, err := run.Check(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if ranges != c.want {
			t.Errorf("whole ranges %v: %d range reads, want %d", c.whole, ranges, c.want)
		}
		msgs = append(msgs, msg)
	}
	if msgs[0] != msgs[1] || !strings.Contains(msgs[0], "each count row equal") {
		t.Errorf("checks: %q, %q", msgs[0], msgs[1])
	}
}
