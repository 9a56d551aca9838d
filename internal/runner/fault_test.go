package runner

import (
	"testing"

	"github.com/rumbench/rumbench/internal/table"
)

// TestMonotone: a server's counters that start again from zero after its restart go on from
// their last reading; those it does not report (-1) stay so.
func TestMonotone(t *testing.T) {
	var m monotone
	for _, c := range []struct{ log, fsyncs, n, wantLog, wantN int64 }{
		{100, -1, 5, 100, 5},
		{150, -1, 9, 150, 9},
		{20, -1, 1, 170, 10}, // restarted: 150 + 20, 9 + 1
		{30, -1, 4, 180, 13},
	} {
		s := table.ServerSample{LogBytes: c.log, Fsyncs: c.fsyncs, Counters: map[string]int64{"n": c.n}}
		m.fix(&s)
		if s.LogBytes != c.wantLog || s.Fsyncs != -1 || s.Counters["n"] != c.wantN {
			t.Fatalf("%+v: got log %d fsyncs %d n %d", c, s.LogBytes, s.Fsyncs, s.Counters["n"])
		}
	}
}

// TestOutageFigures: an outage starts at the first worker's failure and ends at the first
// success of an operation started after its worker's own failure; a stop without failures ends
// at the first success after it was over.
func TestOutageFigures(t *testing.T) {
	a, b := &faultWatch{}, &faultWatch{}
	rec := &faultRec{f: Fault{Kind: "kill"}, watches: []*faultWatch{a, b}}
	a.failAt.Store(100)
	b.failAt.Store(120)
	b.okAfterFail.Store(300)
	a.okAfterFail.Store(250)
	if s, e := outageStart(rec), outageEnd(rec); s != 100 || e != 250 {
		t.Errorf("kill: outage %d..%d, want 100..250", s, e)
	}
	stop := &faultRec{f: Fault{Kind: "stop"}, watches: []*faultWatch{{}}}
	stop.watches[0].okAfterOver.Store(900)
	if e := outageEnd(stop); e != 900 {
		t.Errorf("stop: end %d, want 900", e)
	}
	none := &faultRec{f: Fault{Kind: "sever"}, watches: []*faultWatch{{}}}
	if s := outageStart(none); s != 0 {
		t.Errorf("a sever nobody met: start %d, want none", s)
	}
}
