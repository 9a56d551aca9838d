package runner

import (
	"context"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/sysstat"
	"github.com/rumbench/rumbench/internal/table"
)

// TestOtherCPUPct: other processes' CPU is the host's user and nice time less this process's
// user time and a managed server tree's, in percent of all the host's ticks; the kernel's time
// (system, irq, softirq: its threads write back the target's files) is not counted; a --dsn
// server's processes cannot be told apart.
func TestOtherCPUPct(t *testing.T) {
	// Two CPUs over 2 s: 400 ticks.
	at := func(user, nice, system, idle, softirq uint64, ownUserMs int64, srv *table.ServerSample) *snapshot {
		s := &snapshot{sysOK: true, userNs: ownUserMs * 1e6}
		s.sys.CPU = sysstat.CPUStat{User: user, Nice: nice, System: system, Idle: idle, SoftIRQ: softirq}
		if srv != nil {
			s.srv, s.srvOK = *srv, true
		}
		return s
	}
	for _, c := range []struct {
		name string
		a, b *snapshot
		want float64
		ok   bool
	}{
		// 300 user ticks (3 s of CPU), this process 1.2 s: others 1.8 s of 4 s = 45%; the 60
		// system and 20 softirq ticks, the kernel's work, are not counted.
		{"embedded", at(1000, 0, 500, 2000, 10, 500, nil), at(1280, 20, 560, 2020, 30, 1700, nil), 45, true},
		// A managed server's tree ran 120 user ticks of the 300: others 60 ticks, 15%.
		{"managed", at(1000, 0, 500, 2000, 0, 0, &table.ServerSample{Managed: true, UserTicks: 50}),
			at(1300, 0, 500, 2100, 0, 1200, &table.ServerSample{Managed: true, UserTicks: 170}), 15, true},
		// The process measured more than the host's ticks counted: 0, not less.
		{"ticks", at(1000, 0, 0, 0, 0, 0, nil), at(1100, 0, 0, 300, 0, 1050, nil), 0, true},
		// A --dsn server: not measured.
		{"dsn", at(0, 0, 0, 0, 0, 0, &table.ServerSample{}), at(300, 0, 0, 100, 0, 1000, &table.ServerSample{}), 0, false},
		// No system sample at the end.
		{"no sample", at(0, 0, 0, 0, 0, 0, nil), &snapshot{}, 0, false},
	} {
		got, ok := otherCPUPct(c.a, c.b)
		if ok != c.ok || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: other%% %g %v, want %g %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

// A step sampled with a system sampler records other processes' CPU; without one (no host
// figures) it records none.
func TestOtherCPURecorded(t *testing.T) {
	s, err := sysstat.NewSampler(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// 100 inserts over 100 ms or more: the host's ticks (10 ms) move.
	var calls atomic.Int64
	slow := func(ctx context.Context, m *Meter) (bool, error) {
		time.Sleep(time.Millisecond)
		m.Done(kIns, time.Now(), 1)
		return calls.Add(1) >= MinOps, nil
	}
	st := Step{Name: "s", Kinds: testKinds, RateKinds: []KindID{kIns}, Workers: []Worker{{Name: "w", Op: slow}}}
	res, err := Run(context.Background(), Setup{Label: "t", Sampler: s}, st)
	if err != nil || res.OtherCPUPct == nil || *res.OtherCPUPct < 0 || *res.OtherCPUPct > 100 {
		t.Errorf("with a sampler: err %v, other_cpu_pct %v", err, res.OtherCPUPct)
	}
	st.Workers = []Worker{{Name: "w", Op: counted(MinOps, 1)}}
	if res, _ := Run(context.Background(), Setup{Label: "t"}, st); res.OtherCPUPct != nil {
		t.Errorf("without a sampler: other_cpu_pct %v", *res.OtherCPUPct)
	}
}
