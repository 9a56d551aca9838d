package sysstat

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the parsers' output")

// goldenCases maps each input file under testdata to the renderer of its parsed content.
var goldenCases = []struct {
	input  string
	render func(data []byte) string
}{
	{"diskstats.txt", renderDiskstats},
	{"diskstats_variants.txt", renderDiskstats},
	{"stat.txt", renderStat},
	{"self_stat.txt", renderProcStat},
	{"busy_stat.txt", renderProcStat},
	{"weird_stat.txt", renderProcStat},
	{"parens_stat.txt", renderProcStat},
	{"self_status.txt", renderStatus},
	{"busy_status.txt", renderStatus},
	{"mountinfo.txt", renderMountinfo},
	{"mountinfo_variants.txt", renderMountinfo},
}

// TestGolden renders every testdata input through its parser and compares the text with
// testdata/<input>.golden. Run `go test ./internal/sysstat -update` to rewrite the golden files
// after an intended change, and review the diff.
func TestGolden(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.input, func(t *testing.T) {
			got := c.render(readTestdata(t, c.input))
			path := filepath.Join("testdata", c.input+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal([]byte(got), want) {
				t.Errorf("%s differs from the parsed output:\n--- got\n%s--- want\n%s", path, got, want)
			}
		})
	}
}

func renderDiskstats(data []byte) string {
	var b strings.Builder
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		s, ok, err := ParseDiskstats(data, f[2])
		fmt.Fprintf(&b, "%s ok=%v err=%v\n", f[2], ok, err)
		if ok {
			fmt.Fprintf(&b, "  fields=%d read: ios=%d merges=%d sectors=%d ms=%d\n",
				s.Fields, s.ReadIOs, s.ReadMerges, s.ReadSectors, s.ReadMs)
			fmt.Fprintf(&b, "  write: ios=%d merges=%d sectors=%d ms=%d\n",
				s.WriteIOs, s.WriteMerges, s.WriteSectors, s.WriteMs)
			fmt.Fprintf(&b, "  in_flight=%d io_ticks_ms=%d weighted_ms=%d\n",
				s.InFlight, s.IOTicksMs, s.WeightedMs)
			fmt.Fprintf(&b, "  discard: ios=%d merges=%d sectors=%d ms=%d\n",
				s.DiscardIOs, s.DiscardMerges, s.DiscardSectors, s.DiscardMs)
			fmt.Fprintf(&b, "  flush: ios=%d ms=%d\n", s.FlushIOs, s.FlushMs)
		}
	}
	_, ok, err := ParseDiskstats(data, "no-such-device")
	fmt.Fprintf(&b, "no-such-device ok=%v err=%v\n", ok, err)
	return b.String()
}

func renderStat(data []byte) string {
	c, err := ParseStat(data)
	return fmt.Sprintf("err=%v\nuser=%d nice=%d system=%d idle=%d iowait=%d irq=%d softirq=%d\n"+
		"steal=%d guest=%d guest_nice=%d ctxt=%d busy_ticks=%d\n",
		err, c.User, c.Nice, c.System, c.Idle, c.IOWait, c.IRQ, c.SoftIRQ,
		c.Steal, c.Guest, c.GuestNice, c.Ctxt, c.BusyTicks())
}

func renderProcStat(data []byte) string {
	p, err := ParseProcStat(data)
	return fmt.Sprintf("err=%v\nutime=%d stime=%d cutime=%d cstime=%d num_threads=%d rss_pages=%d\n",
		err, p.UTime, p.STime, p.CUTime, p.CSTime, p.NumThreads, p.RSSPages)
}

func renderStatus(data []byte) string {
	rss, hwm, err := ParseStatusMemory(data)
	return fmt.Sprintf("err=%v\nrss_bytes=%d hwm_bytes=%d\n", err, rss, hwm)
}

// mountPaths are looked up in every mountinfo input.
var mountPaths = []string{"/", "/tmp/x", "/dev/shm", "/dev/shm/a/b", "/sys/fs/cgroup/cpuacct",
	"/data", "/datafile", "/data/my db/x", "/data/my", "/data2/y", "/databases", "relative"}

func renderMountinfo(data []byte) string {
	var b strings.Builder
	for _, p := range mountPaths {
		f, err := ParseMountinfo(data, p)
		fmt.Fprintf(&b, "%q err=%v\n", p, err)
		if err == nil {
			fmt.Fprintf(&b, "  type=%q mount_point=%q source=%q\n  options=%q super_options=%q\n",
				f.Type, f.MountPoint, f.Source, f.Options, f.SuperOptions)
		}
	}
	return b.String()
}
