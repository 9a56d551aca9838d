package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/results"
)

// smallDisk mounts a tmpfs of size (e.g. "4m") on a new directory, or skips the test when it
// cannot (not root).
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).Run(); err != nil {
		t.Skipf("skipping: cannot mount a small tmpfs (needs root): %v", err)
	}
	// Lazy: a failed pebble keeps its files open until the process ends.
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}

// TestPebbleFullDisk fills pebble's data directory: pebble's fatal path (a commit it cannot
// write) must be an error like any engine's, not a panic: exit 1, one line naming the device
// and the space left, the run recorded, the data removed.
func TestPebbleFullDisk(t *testing.T) {
	small := smallDisk(t, "24m")
	out := t.TempDir()
	tr := run(t, nil, "run", "--engine", "pebble", "--steps", "l.i0", "--rows", "2000000", "--out", out, "--data-dir", small, "--quiet")
	t.Logf("stderr: %s", tr.stderr)
	if tr.code != ExitFailure || strings.Contains(tr.stderr, "goroutine") || strings.Count(tr.stderr, "\n") != 1 {
		t.Fatalf("exit %d, want %d and one line; stderr %q", tr.code, ExitFailure, tr.stderr)
	}
	for _, want := range []string{"rumbench: pebble: l.i0: writer pi1: ", "no space left on device", "(data dir " + small + ": tmpfs, ", " free of 24.0 MiB)"} {
		if !strings.Contains(tr.stderr, want) {
			t.Errorf("stderr lacks %q: %q", want, tr.stderr)
		}
	}
	_, m, steps := readRun(t, out)
	if m.Status != results.StatusFailed || len(steps) != 1 || steps[0].Status != results.StatusFailed || steps[0].KindUnits("insert") == 0 {
		t.Errorf("manifest %s, steps %+v", m.Status, steps)
	}
	if entries, _ := os.ReadDir(small); len(entries) != 0 {
		t.Errorf("engine data left on the full disk: %v", entries)
	}
}

// TestLMDBFullDisk fills LMDB's data directory. LMDB reports the short write of a full file
// system as an input/output error, and a write that finds no space at all as ENOSPC (which of
// the two comes first depends on where the file system fills): either way the run must say
// that no space is left, on which file system, and how much was free when the engine failed.
func TestLMDBFullDisk(t *testing.T) {
	fullDataDisk(t, "lmdb", "mdb_txn_commit: ", "no space left on device")
}

// TestWiredTigerFullDisk fills WiredTiger's data directory, where WiredTiger panics: the run
// must say the failure the panic followed (WiredTiger's own message, which it would print on
// stderr), that no space is left, and how much was free, in one line.
func TestWiredTigerFullDisk(t *testing.T) {
	fullDataDisk(t, "wiredtiger", "wiredtiger: ", "WiredTiger panicked: ", ": handle-write: pwrite: failed to write ", ": no space left on device")
}

// fullDataDisk loads eng on an 8 MiB tmpfs until it fails: exit 1, one line that holds wants,
// names the file system and the space left when the engine failed (less than 1 MiB: read
// before its data was removed), the step measured so far recorded, the data removed.
func fullDataDisk(t *testing.T, eng string, wants ...string) {
	t.Helper()
	if spec, _ := engine.Lookup(eng); spec.Unavailable != "" {
		t.Skipf("engine %s: %s", eng, spec.Unavailable)
	}
	small := smallDisk(t, "8m")
	out := t.TempDir()
	tr := run(t, nil, "run", "--engine", eng, "--steps", "l.i0", "--rows", "2000000", "--out", out, "--data-dir", small, "--quiet")
	t.Logf("stderr: %s", tr.stderr)
	if tr.code != ExitFailure || strings.Count(tr.stderr, "\n") != 1 {
		t.Fatalf("exit %d, want %d and one line; stderr %q", tr.code, ExitFailure, tr.stderr)
	}
	for _, want := range append([]string{"rumbench: " + eng + ": l.i0: writer pi1: "}, wants...) {
		if !strings.Contains(tr.stderr, want) {
			t.Errorf("stderr lacks %q: %q", want, tr.stderr)
		}
	}
	space := regexp.MustCompile(`\(data dir ` + regexp.QuoteMeta(small) + `: tmpfs, [0-9.]+ (B|KiB) free of 8\.0 MiB\)\n$`)
	if !space.MatchString(tr.stderr) {
		t.Errorf("stderr does not end with the space left when %s failed (%s): %q", eng, space, tr.stderr)
	}
	_, m, steps := readRun(t, out)
	if m.Status != results.StatusFailed || !strings.Contains(m.Error, "no space left on device") ||
		len(steps) != 1 || steps[0].Status != results.StatusFailed || steps[0].KindUnits("insert") == 0 {
		t.Errorf("manifest %s (%q), steps %+v", m.Status, m.Error, steps)
	}
	if entries, _ := os.ReadDir(small); len(entries) != 0 {
		t.Errorf("engine data left on the full disk: %v", entries)
	}
}

// TestResultsDirFullAtStart gives the run a results directory on a file system with no space
// left: the run cannot write its run.json and ends before it starts, in one line that says so
// (not a follow-on failure to read the run directory, nor the store's), with the space left;
// nothing is left in the results directory.
func TestResultsDirFullAtStart(t *testing.T) {
	disk := smallDisk(t, "512k")
	fill, err := os.Create(filepath.Join(disk, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	for chunk := make([]byte, 64<<10); err == nil; {
		_, err = fill.Write(chunk)
	}
	fill.Close()
	res := filepath.Join(disk, "res")
	_, _, d := dirs(t)
	tr := run(t, nil, append([]string{"run", "--engine", "null", "--steps", "l.i0", "--rows", "1000", "--quiet", "--out", res}, d[2:]...)...)
	want := "rumbench: could not write run.json: write " + filepath.Join(res, "20261121T120000Z-insert", "run.json.tmp") +
		": no space left on device (results dir " + res + ": tmpfs, 0 B free of 512.0 KiB)\n"
	if tr.code != ExitFailure || tr.stderr != want {
		t.Errorf("exit %d (want %d), stderr\n got %q\nwant %q", tr.code, ExitFailure, tr.stderr, want)
	}
	if strings.Contains(tr.stdout, "results:") {
		t.Errorf("stdout names a run directory: %q", tr.stdout)
	}
	if entries, _ := os.ReadDir(res); len(entries) != 0 {
		t.Errorf("left in the results directory: %v", entries)
	}
}

// TestFullResultsDir gives the run a results directory with room for its records but not for
// report.html: exit 1, a line saying what could not be written and the space left, and no
// truncated report.html left behind.
func TestFullResultsDir(t *testing.T) {
	out := smallDisk(t, "512k")
	_, _, d := dirs(t)
	tr := run(t, nil, append([]string{"run", "--engine", "null", "--steps", "l.i0", "--rows", "1000", "--quiet", "--store", "none", "--out", out}, d[2:]...)...)
	if tr.code != ExitFailure {
		t.Fatalf("exit %d, stderr %q", tr.code, tr.stderr)
	}
	dir, m, steps := readRun(t, out)
	want := "rumbench: could not write " + filepath.Join(dir, "report.html") + ": write " + filepath.Join(dir, "report.html") + ": no space left on device (tmpfs, "
	if !strings.HasPrefix(tr.stderr, want) || strings.Count(tr.stderr, "\n") != 1 {
		t.Errorf("stderr\n got %q\nwant %q...", tr.stderr, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); !os.IsNotExist(err) {
		t.Errorf("a truncated report.html is left: %v", err)
	}
	if m.Status != results.StatusOK || len(steps) != 1 {
		t.Errorf("the run's records: status %s, %d steps", m.Status, len(steps))
	}
}

// TestManyThreadsDegraded runs sysbench with far more client threads than the host has CPUs on
// the null engine: the test's figures cannot be trusted, and the step says so (status
// degraded, the reason in steps.json and under the table).
func TestManyThreadsDegraded(t *testing.T) {
	out, _, d := dirs(t)
	threads := max(500, 64*runtime.NumCPU()+1)
	tr := run(t, nil, append([]string{"run", "--workload", "sysbench", "--engine", "null", "--tests", "point-query",
		"--threads", strconv.Itoa(threads), "--read-secs", "1", "--warmup-secs", "0.5", "--quiet"}, d...)...)
	if tr.code != 0 {
		t.Fatalf("exit %d: %s", tr.code, tr.stderr)
	}
	_, _, steps := readRun(t, out)
	var test *results.Step
	for i := range steps {
		if steps[i].Step == "point-query" {
			test = &steps[i]
		}
	}
	if test == nil || test.Status != results.StatusDegraded || len(test.Degraded) == 0 {
		t.Fatalf("point-query: %+v", test)
	}
	if !strings.Contains(strings.Join(test.Degraded, "; "), strconv.Itoa(threads)+" client workers") {
		t.Errorf("reasons %q lack the thread count", test.Degraded)
	}
	// "null (degraded)", or "null (degraded, busy host)" when other processes took more than
	// 10% of the host's CPUs.
	for _, want := range []string{"null (degraded", "point-query null degraded: " + strconv.Itoa(threads) + " client workers"} {
		if !strings.Contains(tr.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, tr.stdout)
		}
	}
}

// TestEngineCounters checks that the embedded engines with statistics of their own record them
// per step (engine_counters): RocksDB's WAL bytes, WiredTiger's journal and block-manager
// bytes, pebble's WAL and flush bytes, bbolt's allocated page bytes, each moving in a load (which
// settles: the flush and the checkpoint are in it).
func TestEngineCounters(t *testing.T) {
	want := map[string][]string{"rocksdb": {"rocksdb.wal.bytes"}, "wiredtiger": {"log_bytes_written", "block_bytes_written"},
		"pebble": {"wal_bytes_written", "flush_bytes_written"}, "bbolt": {"page_alloc_bytes"}}
	for eng, counters := range want {
		t.Run(eng, func(t *testing.T) {
			if spec, _ := engine.Lookup(eng); spec.Unavailable != "" {
				t.Skipf("engine %s: %s", eng, spec.Unavailable)
			}
			out, _, d := dirs(t)
			tr := run(t, nil, append([]string{"run", "--engine", eng, "--steps", "l.i0", "--rows", "20000", "--quiet"}, d...)...)
			if tr.code != 0 {
				t.Fatalf("exit %d: %s", tr.code, tr.stderr)
			}
			_, _, steps := readRun(t, out)
			if len(steps) != 1 {
				t.Fatalf("%d steps, want l.i0", len(steps))
			}
			for _, counter := range counters {
				if steps[0].EngineCounters[counter] < 20000*50 {
					t.Errorf("%s l.i0: engine counters %v, want %s of at least 50 bytes per row", eng, steps[0].EngineCounters, counter)
				}
			}
		})
	}
}
