package sysstat

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestSamplerWrite8MiB(t *testing.T) {
	dir := t.TempDir()
	s, err := NewSampler(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var before, after Sample
	if err := s.Sample(&before); err != nil {
		t.Fatal(err)
	}
	const size = 8 << 20
	f, err := os.Create(filepath.Join(dir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	buf := bytes.Repeat([]byte{0x5a, 0xa5, 0x3c, 0xc3}, size/4) // not zeros: no sparse tricks
	if _, err := f.Write(buf); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Sample(&after); err != nil {
		t.Fatal(err)
	}

	if !after.Time.After(before.Time) {
		t.Errorf("time did not advance: %v → %v", before.Time, after.Time)
	}
	if !before.DirOK || !after.DirOK {
		t.Fatalf("DirOK = %v, %v", before.DirOK, after.DirOK)
	}
	if after.DirAllocated < size || after.DirApparent < size {
		t.Errorf("dir size after write: allocated %d, apparent %d, want ≥ %d",
			after.DirAllocated, after.DirApparent, size)
	}
	if b, a := before.Self.UTime+before.Self.STime, after.Self.UTime+after.Self.STime; a < b {
		t.Errorf("self utime+stime decreased: %d → %d", b, a)
	}
	if after.CPU.Ctxt < before.CPU.Ctxt || after.CPU.BusyTicks() < before.CPU.BusyTicks() {
		t.Errorf("system counters decreased: %+v → %+v", before.CPU, after.CPU)
	}
	if after.SelfRSSBytes <= 0 || after.SelfHWMBytes < after.SelfRSSBytes {
		t.Errorf("RSS %d, HWM %d", after.SelfRSSBytes, after.SelfHWMBytes)
	}
	if after.Self.NumThreads < 1 {
		t.Errorf("NumThreads = %d", after.Self.NumThreads)
	}

	if err := s.DiskError(); err != nil {
		if !errors.Is(err, ErrNoBlockDevice) {
			t.Fatalf("disk sampling disabled for an unexpected reason: %v", err)
		}
		if before.DiskOK || after.DiskOK {
			t.Error("DiskOK set although disk sampling is disabled")
		}
		t.Skipf("skipping the disk assertions: %v", err)
	}
	if !before.DiskOK || !after.DiskOK {
		t.Fatalf("DiskOK = %v, %v", before.DiskOK, after.DiskOK)
	}
	dw := after.Disk.WriteSectors - before.Disk.WriteSectors
	t.Logf("device %s: wrote %d sectors (%.2f MiB), %d write IOs, %d flushes",
		s.Device().Name, dw, float64(dw*SectorSize)/(1<<20),
		after.Disk.WriteIOs-before.Disk.WriteIOs, after.Disk.FlushIOs-before.Disk.FlushIOs)
	if dw < size/SectorSize {
		t.Errorf("WriteSectors delta = %d, want ≥ %d", dw, size/SectorSize)
	}
}

func TestSamplerMissingDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "later")
	s, err := NewSampler(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var smp Sample
	if err := s.Sample(&smp); err != nil {
		t.Fatal(err)
	}
	if smp.DirOK {
		t.Error("DirOK for a directory that does not exist")
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := s.Sample(&smp); err != nil || !smp.DirOK || smp.DirAllocated <= 0 {
		t.Errorf("after mkdir: DirOK=%v allocated=%d err=%v", smp.DirOK, smp.DirAllocated, err)
	}
}

func TestSamplerNoBlockDevice(t *testing.T) {
	s, err := NewSampler("/proc/self/fdinfo")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !errors.Is(s.DiskError(), ErrNoBlockDevice) {
		t.Fatalf("DiskError = %v, want ErrNoBlockDevice", s.DiskError())
	}
	var smp Sample
	if err := s.SampleCounters(&smp); err != nil || smp.DiskOK || smp.CPU.Ctxt == 0 {
		t.Errorf("SampleCounters: %+v, %v", smp, err)
	}
}

func TestSampleCountersDoesNotAllocate(t *testing.T) {
	s, err := NewSampler(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var smp Sample
	s.SampleCounters(&smp) // let buffers settle
	if n := testing.AllocsPerRun(50, func() { s.SampleCounters(&smp) }); n != 0 {
		t.Errorf("SampleCounters allocates %.1f times per call", n)
	}
}

func TestDirSizeHardLinksAndVanishing(t *testing.T) {
	dir := t.TempDir()
	data := make([]byte, 10000)
	if err := os.WriteFile(filepath.Join(dir, "a"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	alloc1, app1, err := DirSize(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(dir, "a"), filepath.Join(dir, "b")); err != nil {
		t.Fatal(err)
	}
	alloc2, app2, err := DirSize(dir)
	if err != nil {
		t.Fatal(err)
	}
	if alloc1 != alloc2 || app1 != app2 {
		t.Errorf("hard link counted twice: %d/%d → %d/%d", alloc1, app1, alloc2, app2)
	}
	if app1 < 10000 {
		t.Errorf("apparent = %d, want ≥ 10000", app1)
	}
	if _, _, err := DirSize(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing dir: err = %v", err)
	}

	// Files and directories deleted while the walk runs (as compactions do) are not errors.
	churn := filepath.Join(dir, "churn")
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			sub := filepath.Join(churn, "d")
			os.MkdirAll(sub, 0o755)
			for j := 0; j < 20; j++ {
				os.WriteFile(filepath.Join(sub, "f"+string(rune('a'+j))), data[:100], 0o644)
			}
			os.RemoveAll(churn)
		}
	}()
	for i := 0; i < 300; i++ {
		if _, _, err := DirSize(dir); err != nil {
			t.Errorf("DirSize during churn: %v", err)
			break
		}
	}
	close(stop)
	<-done
}
