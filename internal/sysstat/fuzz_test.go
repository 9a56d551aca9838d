package sysstat

import "testing"

func FuzzParseDiskstats(f *testing.F) {
	for _, name := range []string{"diskstats.txt", "diskstats_variants.txt"} {
		f.Add(readTestdata(f, name), "vda")
		f.Add(readTestdata(f, name), "sda1")
	}
	f.Add([]byte("8 0 sda 1 2 3"), "sda")
	f.Add([]byte("\n\n  \t\n sda"), "sda")
	f.Fuzz(func(t *testing.T, data []byte, dev string) {
		s, ok, err := ParseDiskstats(data, dev)
		if err != nil && ok {
			t.Fatalf("ok with error %v", err)
		}
		if ok && s.Fields != 4 && s.Fields != 11 && s.Fields != 15 && s.Fields < 17 {
			t.Fatalf("ok with Fields=%d", s.Fields)
		}
		if !ok && s != (DiskStats{}) {
			t.Fatalf("not ok but non-zero result %+v", s)
		}
	})
}

func FuzzParseProcStat(f *testing.F) {
	for _, name := range []string{"self_stat.txt", "busy_stat.txt", "weird_stat.txt", "parens_stat.txt"} {
		f.Add(readTestdata(f, name))
	}
	f.Add([]byte(")"))
	f.Add([]byte("1 (x) S 1 2 3 4 5 6 7 8 9 10 -11 12 13 14 15 16 17 18 19 20 21"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProcStat(data)
		if err != nil && p != (ProcStat{}) {
			t.Fatalf("error %v with non-zero result %+v", err, p)
		}
	})
}

func FuzzParseStat(f *testing.F) {
	f.Add(readTestdata(f, "stat.txt"))
	f.Add([]byte("cpu  1 2 3 4\nctxt 5\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ParseStat(data)
	})
}

func FuzzParseStatusMemory(f *testing.F) {
	f.Add(readTestdata(f, "self_status.txt"))
	f.Add([]byte("VmRSS:\t-1 kB\nVmHWM:"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rss, hwm, err := ParseStatusMemory(data)
		if err == nil && (rss < 0 || hwm < 0) {
			t.Fatalf("negative sizes %d %d", rss, hwm)
		}
	})
}

func FuzzParseMountinfo(f *testing.F) {
	f.Add(readTestdata(f, "mountinfo.txt"), "/tmp")
	f.Add(readTestdata(f, "mountinfo_variants.txt"), "/data/my db")
	f.Add([]byte(`1 2 3:4 / /a\0 rw - x y z`), "/a")
	f.Fuzz(func(t *testing.T, data []byte, path string) {
		ParseMountinfo(data, path)
	})
}
