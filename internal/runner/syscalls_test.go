package runner

import (
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/hist"
	"github.com/rumbench/rumbench/internal/results"
)

func TestDisagreements(t *testing.T) {
	cases := []struct {
		name                   string
		syncs, server, flushes float64
		want                   []string // substrings, one per expected entry
	}{
		{"agree", 1.0, 1.0, 1.1, nil},
		{"server within tolerance", 0.8, 1.0, -1, nil},
		{"hooks above server (binlog)", 2.0, 1.0, 2.1, nil},
		{"server shortfall", 0.5, 1.0, -1, []string{"server reports 1 fsyncs/commit, hooks saw 0.5"}},
		{"device flushes from a file system journal", 1.0, -1, 2.3, nil},
		{"device only, hooks blind", 0, -1, 1.0, []string{"device flushed 1 times/commit, hooks saw 0 syncs"}},
		{"device idle", 0, -1, 0.2, nil},
		{"both", 0.05, 1.0, 1.0, []string{"server", "device"}},
	}
	for _, c := range cases {
		sc := &results.Syscalls{Source: "preload", Commits: 100, SyncsPerCommit: c.syncs,
			ServerFsyncsPerCommit: c.server, DeviceFlushesPerCommit: c.flushes}
		got := disagreements(sc)
		if len(got) != len(c.want) {
			t.Errorf("%s: %q, want %d entries", c.name, got, len(c.want))
			continue
		}
		for i, w := range c.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: entry %q, want it to contain %q", c.name, got[i], w)
			}
		}
	}
	if got := disagreements(&results.Syscalls{Source: "none", Commits: 10, DeviceFlushesPerCommit: 1}); got != nil {
		t.Errorf("source none: %q, want nothing (it is not counted at all)", got)
	}
}

func TestCommitCount(t *testing.T) {
	kinds := append(Kinds{{Name: "delete", Role: results.RoleDelete, Unit: "rows", CountUnits: true}}, testKinds...)
	c := newCollector(Setup{}, Step{Kinds: kinds})
	a, b := newSnapshot(len(kinds)), newSnapshot(len(kinds))
	b.kinds[0].ops, b.kinds[1].ops, b.kinds[2].ops = 20, 30, 1000 // delete, insert, range_query
	if got := c.commitCount(a, b); got != 50 {
		t.Errorf("without Meter.Commit: %d commits, want insert+delete statements = 50", got)
	}
	m := NewMeter(len(kinds), false)
	m.Commit(7)
	m.Commit(5)
	b.take([]*Meter{m}, nil, b.t, new(hist.Snapshot))
	if got := c.commitCount(a, b); got != 12 {
		t.Errorf("with Meter.Commit: %d commits, want 12", got)
	}
}
