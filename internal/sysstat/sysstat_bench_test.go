package sysstat

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// benchSampler returns a Sampler on a temporary data directory holding nfiles 4 KiB files.
func benchSampler(b *testing.B, nfiles int) *Sampler {
	dir := b.TempDir()
	for i := 0; i < nfiles; i++ {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%06d.sst", i)), make([]byte, 4096), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	s, err := NewSampler(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	if err := s.DiskError(); err != nil {
		b.Logf("disk sampling disabled: %v", err)
	}
	return s
}

// BenchmarkSample is a full sample: the /proc counters plus the walk of a data directory of
// 10 or 1000 files.
func BenchmarkSample(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			s := benchSampler(b, n)
			var smp Sample
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Sample(&smp); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSampleCounters is a sample without the directory walk.
func BenchmarkSampleCounters(b *testing.B) {
	s := benchSampler(b, 0)
	var smp Sample
	b.ReportAllocs()
	for b.Loop() {
		if err := s.SampleCounters(&smp); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDirSize1000(b *testing.B) {
	s := benchSampler(b, 1000)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := DirSize(s.dataDir); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseDiskstats(b *testing.B) {
	data := readTestdata(b, "diskstats.txt")
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, ok, err := ParseDiskstats(data, "zram0"); !ok || err != nil { // last line
			b.Fatal(ok, err)
		}
	}
}

func BenchmarkParseStat(b *testing.B) {
	data := readTestdata(b, "stat.txt")
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ParseStat(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseProcStat(b *testing.B) {
	data := readTestdata(b, "weird_stat.txt")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseProcStat(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseStatusMemory(b *testing.B) {
	data := readTestdata(b, "self_status.txt")
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := ParseStatusMemory(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadProc compares the ways of reading a /proc file again and again: pread at
// offset 0 on a handle kept open (what Sampler does), os.Open+Read+Close, and raw
// open(2)+read(2)+close(2).
func BenchmarkReadProc(b *testing.B) {
	for _, path := range []string{"/proc/diskstats", "/proc/stat", "/proc/self/stat", "/proc/self/status"} {
		buf := make([]byte, 64<<10)
		b.Run("pread"+path, func(b *testing.B) {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := f.ReadAt(buf, 0); err != io.EOF {
					b.Fatal(err)
				}
			}
		})
		b.Run("osopen"+path, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := f.Read(buf); err != nil {
					b.Fatal(err)
				}
				f.Close()
			}
		})
		b.Run("rawopen"+path, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := unix.Read(fd, buf); err != nil {
					b.Fatal(err)
				}
				unix.Close(fd)
			}
		})
	}
}
