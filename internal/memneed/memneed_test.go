package memneed

import "testing"

func TestHostBudget(t *testing.T) {
	b := HostBudget(1 << 30)
	if b.Bytes <= 0 || b.Bytes > 1<<30 || b.From == "" {
		t.Errorf("HostBudget(1 GiB) = %+v: want at most 1 GiB, said where from", b)
	}
	if avail, ok := Available(); ok && avail > 1<<30 && b.From != "--memory-limit allows" {
		t.Errorf("with %d bytes available, the 1 GiB limit should decide: %+v", avail, b)
	}
}

// TestWorkerBudget: under a cap, an engine worker's Go limit is the budget, said as such.
func TestWorkerBudget(t *testing.T) {
	b := WorkerBudget(64 << 20)
	if avail, ok := Available(); ok && avail > 64<<20 &&
		(b.Bytes != 64<<20 || b.From != "an engine worker's Go heap has under --memory-limit (a quarter of the cap)") {
		t.Errorf("WorkerBudget(64 MiB) = %+v with %d bytes available", b, avail)
	}
}

func TestSize(t *testing.T) {
	for in, want := range map[float64]string{100: "100 B", 1536: "1.5 KiB", 512 << 10: "512 KiB",
		9.3 * (1 << 30): "9.3 GiB", 13 * (1 << 40): "13 TiB", 4096 * (1 << 60): "4.1e+03 EiB"} {
		if got := Size(in); got != want {
			t.Errorf("Size(%g) = %q, want %q", in, got, want)
		}
	}
}

func TestPeakAndCheck(t *testing.T) {
	fixed := []Part{{Bytes: 1 << 20, Inputs: "a=1", Detail: "fixed"}}
	phases := []Part{{Bytes: 3 << 30, Inputs: "b=2", Detail: "the big phase"}, {Bytes: 1 << 30, Inputs: "c=3", Detail: "small"}}
	p := Peak(fixed, phases)
	if p.Bytes != 1<<20+3<<30 || p.Inputs != "b=2" || p.Detail != "the big phase" {
		t.Fatalf("Peak = %+v: want fixed + largest phase, described by the largest part", p)
	}
	b := Budget{Bytes: 2 << 30, From: "--memory-limit allows"}
	err := b.Check("w", p)
	want := "w: b=2 needs about 3.0 GiB (the big phase), more than the 2.0 GiB --memory-limit allows; valid: settings whose estimate is under 2.0 GiB"
	if err == nil || err.Error() != want {
		t.Errorf("Check = %v, want %q", err, want)
	}
	if err := (Budget{Bytes: 4 << 30}).Check("w", p); err != nil {
		t.Errorf("under the budget: %v", err)
	}
	if err := (Budget{}).Check("w", p); err != nil {
		t.Errorf("unknown budget: %v", err)
	}
}
