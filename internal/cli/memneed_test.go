package cli

import (
	"strings"
	"testing"
)

// TestMemNeed: sizes whose estimated memory is above the budget (here --memory-limit 256M on an
// embedded engine: its worker's Go heap, a quarter of the cap), or a usertable wider than an
// engine's column limit, are refused with exit 2 and one line before anything runs; the
// defaults pass the check (the refusal is then a later flag's).
func TestMemNeed(t *testing.T) {
	_, _, d := dirs(t)
	capped := append([]string{"--memory-limit", "256M", "--engine", "pebble"}, d...)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--workload", "ycsb", "-p", "fieldcount=100000000"},
			"rumbench: ycsb: fieldcount=100000000 × fieldlength=100 needs about 13 TiB (9.3 GiB a record × 1000 records the final check's scan holds), more than the 64 MiB an engine worker's Go heap has under --memory-limit (a quarter of the cap); valid: settings whose estimate is under 64 MiB"},
		{[]string{"run", "--workload", "ycsb", "--workload-letter", "e", "-p", "maxscanlength=1000000", "--threads", "8"},
			"rumbench: ycsb: fieldcount=10 × fieldlength=100 × maxscanlength=1000000 needs about 14 GiB (1023 B a record × 1000000 records a scan holds × 8 threads)"},
		{[]string{"run", "--workload", "linkbench", "--requesters", "4096"},
			"rumbench: linkbench: requesters=4096 needs about 22 GiB"},
		{[]string{"run", "--workload", "insert", "--clients", "1024", "--rows-per-commit", "100000"},
			"rumbench: insert: clients=1024 × rows-per-commit=100000 needs about 47 GiB"},
		{[]string{"run", "--workload", "sysbench", "--threads", "4096"},
			"rumbench: sysbench: threads=4096 needs about 24 GiB"},
		{[]string{"prepare", "--workload", "ycsb", "-p", "fieldlength=2000000000"},
			"rumbench: ycsb: fieldcount=10 × fieldlength=2000000000 needs about 18 TiB"},
	} {
		tr := run(t, nil, append(c.args, capped...)...)
		if tr.code != 2 || !strings.HasPrefix(tr.stderr, c.want) || strings.Count(strings.TrimSpace(tr.stderr), "\n") != 0 || tr.stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q\nwant exit 2 and one line starting %q", c.args, tr.code, tr.stderr, tr.stdout, c.want)
		}
	}
	// The column limit of a SQL engine comes first, whatever the memory.
	tr := run(t, nil, append([]string{"run", "--workload", "ycsb", "--engine", "pebble,sqlite", "-p", "fieldcount=100000000"}, d...)...)
	want := "rumbench: fieldcount=100000000: a usertable of 100000001 columns (the key and the fields) is more than sqlite allows (2000); valid: fieldcount 1..1999 with --engine sqlite\n"
	if tr.code != 2 || tr.stderr != want {
		t.Errorf("fieldcount past sqlite's columns: exit %d, %q\nwant exit 2 and %q", tr.code, tr.stderr, want)
	}
	// Defaults and the quick and small profiles pass: the line is --repeat's, checked after.
	for _, w := range []string{"ycsb", "linkbench", "insert", "sysbench"} {
		for _, p := range []string{"quick", "small"} {
			tr := run(t, nil, append([]string{"run", "--workload", w, "--profile", p, "--repeat", "0"}, capped...)...)
			if tr.code != 2 || tr.stderr != "rumbench: --repeat 0: must be 1..1000\n" {
				t.Errorf("%s %s: exit %d, %q; want only --repeat refused", w, p, tr.code, tr.stderr)
			}
		}
	}
}
