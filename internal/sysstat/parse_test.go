package sysstat

import (
	"os"
	"path/filepath"
	"testing"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseDiskstats(t *testing.T) {
	tests := []struct {
		file, dev string
		ok        bool
		wantErr   bool
		want      DiskStats
	}{
		// Captured on the development VM (kernel 6.18, 17 counters).
		{file: "diskstats.txt", dev: "vda", ok: true, want: DiskStats{
			ReadIOs: 34098, ReadMerges: 7054, ReadSectors: 1820370, ReadMs: 18690,
			WriteIOs: 7217, WriteMerges: 20662, WriteSectors: 2329784, WriteMs: 16046,
			InFlight: 0, IOTicksMs: 10452, WeightedMs: 35263,
			DiscardIOs: 3483, DiscardMerges: 46, DiscardSectors: 271280, DiscardMs: 499,
			FlushIOs: 238, FlushMs: 26, Fields: 17}},
		{file: "diskstats.txt", dev: "loop7", ok: true, want: DiskStats{Fields: 17}},
		{file: "diskstats.txt", dev: "sda"},
		{file: "diskstats.txt", dev: "vd"},
		{file: "diskstats.txt", dev: ""},
		// 14 tokens: 11 counters (before 4.18).
		{file: "diskstats_variants.txt", dev: "sda", ok: true, want: DiskStats{
			ReadIOs: 101, ReadMerges: 102, ReadSectors: 103, ReadMs: 104,
			WriteIOs: 105, WriteMerges: 106, WriteSectors: 107, WriteMs: 108,
			InFlight: 109, IOTicksMs: 110, WeightedMs: 111, Fields: 11}},
		// 7 tokens: pre-2.6.25 partition line.
		{file: "diskstats_variants.txt", dev: "sda1", ok: true, want: DiskStats{
			ReadIOs: 201, ReadSectors: 202, WriteIOs: 203, WriteSectors: 204, Fields: 4}},
		// 18 tokens: 15 counters (4.18 to 5.4).
		{file: "diskstats_variants.txt", dev: "sdb", ok: true, want: DiskStats{
			ReadIOs: 301, ReadMerges: 302, ReadSectors: 303, ReadMs: 304,
			WriteIOs: 305, WriteMerges: 306, WriteSectors: 307, WriteMs: 308,
			InFlight: 309, IOTicksMs: 310, WeightedMs: 311,
			DiscardIOs: 312, DiscardMerges: 313, DiscardSectors: 314, DiscardMs: 315,
			Fields: 15}},
		// 20 tokens: 17 counters (5.5+).
		{file: "diskstats_variants.txt", dev: "nvme0n1", ok: true, want: DiskStats{
			ReadIOs: 401, ReadMerges: 402, ReadSectors: 403, ReadMs: 404,
			WriteIOs: 405, WriteMerges: 406, WriteSectors: 407, WriteMs: 408,
			InFlight: 409, IOTicksMs: 410, WeightedMs: 411,
			DiscardIOs: 412, DiscardMerges: 413, DiscardSectors: 414, DiscardMs: 415,
			FlushIOs: 416, FlushMs: 417, Fields: 17}},
		{file: "diskstats_variants.txt", dev: "dm-0", ok: true, want: DiskStats{
			ReadIOs: 1<<64 - 1, ReadMs: 1<<32 - 1, WriteMs: 1<<32 - 1,
			IOTicksMs: 1<<32 - 1, WeightedMs: 1<<32 - 1, Fields: 17}},
		// A future kernel with 19 counters: the first 17 are parsed.
		{file: "diskstats_variants.txt", dev: "future0", ok: true, want: DiskStats{
			ReadIOs: 1, ReadMerges: 2, ReadSectors: 3, ReadMs: 4, WriteIOs: 5, WriteMerges: 6,
			WriteSectors: 7, WriteMs: 8, InFlight: 9, IOTicksMs: 10, WeightedMs: 11,
			DiscardIOs: 12, DiscardMerges: 13, DiscardSectors: 14, DiscardMs: 15,
			FlushIOs: 16, FlushMs: 17, Fields: 19}},
		{file: "diskstats_variants.txt", dev: "tabbed", ok: true, want: DiskStats{
			ReadIOs: 1, ReadMerges: 2, ReadSectors: 3, ReadMs: 4, WriteIOs: 5, WriteMerges: 6,
			WriteSectors: 7, WriteMs: 8, InFlight: 9, IOTicksMs: 10, WeightedMs: 11,
			Fields: 11}},
		{file: "diskstats_variants.txt", dev: "sdc", wantErr: true}, // 12 counters
		{file: "diskstats_variants.txt", dev: "sdd", wantErr: true}, // not a number
		{file: "diskstats_variants.txt", dev: "sde", wantErr: true}, // overflows uint64
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.dev, func(t *testing.T) {
			got, ok, err := ParseDiskstats(readTestdata(t, tt.file), tt.dev)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseStat(t *testing.T) {
	got, err := ParseStat(readTestdata(t, "stat.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := CPUStat{User: 23191, System: 5063, Idle: 29090, IOWait: 526, SoftIRQ: 188,
		Steal: 1150, Ctxt: 490397}
	if got != want {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if b := got.BusyTicks(); b != 23191+5063+188 {
		t.Errorf("BusyTicks = %d", b)
	}
	bad := []string{
		"",
		"ctxt 5\n",
		"cpu  1 2 3 4\n",
		"cpu  1 2 3\nctxt 5\n",
		"cpu  1 2 x 4\nctxt 5\n",
		"cpu  1 2 3 4\nctxt\n",
		"cpu0 1 2 3 4\nctxt 5\n",
	}
	for _, in := range bad {
		if _, err := ParseStat([]byte(in)); err == nil {
			t.Errorf("ParseStat(%q): no error", in)
		}
	}
	// An old kernel with 7 columns; the per-CPU lines must not be taken for the aggregate.
	got, err = ParseStat([]byte("cpu0 9 9 9 9\ncpu  1 2 3 4 5 6 7\nintr 1 2\nctxt 8"))
	want = CPUStat{User: 1, Nice: 2, System: 3, Idle: 4, IOWait: 5, IRQ: 6, SoftIRQ: 7, Ctxt: 8}
	if err != nil || got != want {
		t.Errorf("old format: got %+v, %v; want %+v", got, err, want)
	}
}

func TestParseProcStat(t *testing.T) {
	tests := []struct {
		file string
		want ProcStat
	}{
		{"self_stat.txt", ProcStat{NumThreads: 1, RSSPages: 358}},
		{"busy_stat.txt", ProcStat{UTime: 71, NumThreads: 1, RSSPages: 348}},
		{"weird_stat.txt", ProcStat{UTime: 12345, STime: 6789, CUTime: 11, CSTime: 22,
			NumThreads: 7, RSSPages: 2560}},
		{"parens_stat.txt", ProcStat{UTime: 3, STime: 4, NumThreads: 2, RSSPages: 99}},
	}
	for _, tt := range tests {
		got, err := ParseProcStat(readTestdata(t, tt.file))
		if err != nil || got != tt.want {
			t.Errorf("%s: got %+v, %v; want %+v", tt.file, got, err, tt.want)
		}
	}
	bad := []string{
		"",
		"1 (x S 1 2 3",
		"1 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20",
		"1 (x) S 1 2 3 4 5 6 7 8 9 10 -11 12 13 14 15 16 17 18 19 20 21",
		"1 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20\n21",
	}
	for _, in := range bad {
		if _, err := ParseProcStat([]byte(in)); err == nil {
			t.Errorf("ParseProcStat(%q): no error", in)
		}
	}
}

func TestParseStatusMemory(t *testing.T) {
	tests := []struct {
		in       string
		rss, hwm int64
		wantErr  bool
	}{
		{in: string(readTestdata(t, "self_status.txt")), rss: 1716 * 1024, hwm: 1716 * 1024},
		{in: "Name:\tx\nVmHWM:\t   20 kB\nVmRSS:\t 10 kB\n", rss: 10240, hwm: 20480},
		{in: "Name:\tkthreadd\nThreads:\t1\n", wantErr: true},
		{in: "VmRSS:\t10 kB\n", wantErr: true},
		{in: "VmRSS:\t kB\nVmHWM:\t1 kB\n", wantErr: true},
		{in: "VmRSS:\t99999999999999999 kB\nVmHWM:\t1 kB\n", wantErr: true},
	}
	for _, tt := range tests {
		rss, hwm, err := ParseStatusMemory([]byte(tt.in))
		if (err != nil) != tt.wantErr || rss != tt.rss || hwm != tt.hwm {
			t.Errorf("ParseStatusMemory(%.40q) = %d, %d, %v; want %d, %d, err %v",
				tt.in, rss, hwm, err, tt.rss, tt.hwm, tt.wantErr)
		}
	}
}

func TestDelta32(t *testing.T) {
	if d := Delta32(1<<32-10, 5); d != 15 {
		t.Errorf("Delta32 across wrap = %d, want 15", d)
	}
	if d := Delta32(100, 250); d != 150 {
		t.Errorf("Delta32 = %d, want 150", d)
	}
}

func TestParseMemInfo(t *testing.T) {
	in := []byte("MemTotal:       24684092 kB\nMemFree: 1 kB\nMemAvailable:    3250000 kB\n")
	if got := parseMemInfo(in, "MemTotal"); got != 24684092*1024 {
		t.Errorf("MemTotal = %d", got)
	}
	if got := parseMemInfo(in, "MemAvailable"); got != 3250000*1024 {
		t.Errorf("MemAvailable = %d", got)
	}
	if got := parseMemInfo([]byte("MemFree: 1 kB\n"), "MemTotal"); got != 0 {
		t.Errorf("MemTotal missing = %d", got)
	}
	if got := parseMemInfo([]byte("MemAvailable:    x kB\n"), "MemAvailable"); got != 0 {
		t.Errorf("MemAvailable not a number = %d", got)
	}
	if got := MemInfo("MemTotal"); got <= 0 {
		t.Errorf("this host's MemTotal = %d", got)
	}
}

func TestParsersDoNotAllocate(t *testing.T) {
	disk := readTestdata(t, "diskstats.txt")
	stat := readTestdata(t, "stat.txt")
	ps := readTestdata(t, "weird_stat.txt")
	status := readTestdata(t, "self_status.txt")
	n := testing.AllocsPerRun(100, func() {
		ParseDiskstats(disk, "vda")
		ParseStat(stat)
		ParseProcStat(ps)
		ParseStatusMemory(status)
		ParseDiskstats(disk, "absent")
		ParseStat(nil)
		ParseProcStat(nil)
	})
	if n != 0 {
		t.Errorf("parsers allocate %.1f times per run", n)
	}
}
