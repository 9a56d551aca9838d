package ycsb

import (
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/memneed"
	"github.com/rumbench/rumbench/internal/workload"
)

// buildSized builds the workload from args under budget and cols.
func buildSized(t *testing.T, profile string, budget int64, cols workload.ColumnLimit, args ...string) error {
	t.Helper()
	d := newDefinition()
	if err := d.Flags().Parse(args); err != nil {
		t.Fatal(err)
	}
	_, err := d.Build(workload.Shared{Profile: profile, Seed: 1, Columns: cols,
		Memory: memneed.Budget{Bytes: budget, From: "--memory-limit allows"}})
	return err
}

// TestMemNeed: the shipped workloads at every profile fit in 256 MiB; sizes past the budget or
// an engine's column limit are refused in one line naming the input, the estimate and the limit.
func TestMemNeed(t *testing.T) {
	for _, p := range profileNames {
		for _, l := range []string{"a", "b", "c", "d", "e", "f"} {
			if err := buildSized(t, p, 256<<20, workload.ColumnLimit{Max: 1017, Engine: "mysql"}, "--workload-letter", l, "--threads", "8"); err != nil {
				t.Errorf("profile %s, workload %s: %v", p, l, err)
			}
		}
	}
	for _, c := range []struct {
		args []string
		cols workload.ColumnLimit
		want string
	}{
		{[]string{"-p", "fieldcount=100000000"}, workload.ColumnLimit{},
			"ycsb: fieldcount=100000000 × fieldlength=100 needs about 13 TiB (9.3 GiB a record × 1000 records the final check's scan holds), more than the 256 MiB --memory-limit allows; valid: settings whose estimate is under 256 MiB"},
		{[]string{"-p", "fieldcount=1000000"}, workload.ColumnLimit{},
			"ycsb: fieldcount=1000000 × fieldlength=100 needs about 131 GiB (95 MiB a record × 1000 records the final check's scan holds)"},
		{[]string{"-p", "fieldlength=1000000", "--load-batch", "1000"}, workload.ColumnLimit{},
			"ycsb: fieldcount=10 × fieldlength=1000000 needs about 19 GiB (9.5 MiB a record × load-batch 1000 × 2 copies × 1 loaders)"},
		{[]string{"--workload-letter", "e", "-p", "fieldlength=10000", "-p", "maxscanlength=100000", "--threads", "4"}, workload.ColumnLimit{},
			"ycsb: fieldcount=10 × fieldlength=10000 × maxscanlength=100000 needs about 38 GiB (98 KiB a record × 100000 records a scan holds × 4 threads)"},
		{[]string{"-p", "fieldcount=1600"}, workload.ColumnLimit{Max: 1600, Engine: "postgres"},
			"fieldcount=1600: a usertable of 1601 columns (the key and the fields) is more than postgres allows (1600); valid: fieldcount 1..1599 with --engine postgres"},
	} {
		err := buildSized(t, "quick", 256<<20, c.cols, c.args...)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v\nwant one line starting %q", c.args, err, c.want)
		}
	}
	// At the limit itself the column check passes, and no budget checks nothing.
	if err := buildSized(t, "quick", 0, workload.ColumnLimit{Max: 1600, Engine: "postgres"}, "-p", "fieldcount=1599"); err != nil {
		t.Errorf("fieldcount=1599 on postgres: %v", err)
	}
}
