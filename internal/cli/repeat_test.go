package cli

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A repeated run on two real engines: every target runs N times interleaved, the manifest lists
// each target once, the tables print medians with intervals, compare marks significance, and
// checks gate the exit code with a JUnit file that names the failing check.
func TestRepeatChecksJUnit(t *testing.T) {
	out, _, d := dirs(t)
	junit := filepath.Join(t.TempDir(), "checks.xml")
	args := append([]string{"run", "--engine", "pebble,bbolt", "--steps", "l.i0,l.i1", "--rows", "2000", "--writes", "6000",
		"--repeat", "5", "--quiet", "--check", "ips>=1", "--check", "l.i1:ratio(ips)>=0.01", "--junit", junit}, d...)
	tr := run(t, nil, args...)
	if tr.code != ExitOK {
		t.Fatalf("exit %d\n%s%s", tr.code, tr.stdout, tr.stderr)
	}
	dir, m, steps := readRun(t, out)
	if len(m.Targets) != 2 || m.Config["repeat"] != float64(5) {
		t.Errorf("manifest: %d targets (want 2, each once), repeat %v", len(m.Targets), m.Config["repeat"])
	}
	// Interleaved: pebble and bbolt of repetition 1, then of 2, ...
	var order []string
	for _, s := range steps {
		if s.Step == "l.i0" {
			order = append(order, s.Target+string(rune('0'+s.Rep)))
		}
	}
	if got := strings.Join(order, ","); got != "pebble1,bbolt1,pebble2,bbolt2,pebble3,bbolt3,pebble4,bbolt4,pebble5,bbolt5" {
		t.Errorf("l.i0 records in order %s", got)
	}
	if !strings.Contains(tr.stdout, "±: median of 5 repetitions and the interval [min, max], of 93.8% confidence") {
		t.Errorf("no interval footer in the tables:\n%s", tr.stdout)
	}
	if !strings.Contains(tr.stdout, "== checks") || strings.Contains(tr.stdout, "FAIL") {
		t.Errorf("checks table missing or failing:\n%s", tr.stdout)
	}

	// compare: 5 against 5 in l.i1, where pebble inserts several times faster than bbolt
	// (bbolt rewrites pages per commit): significant (up to two inversions of the 25 pairs keep p
	// below 0.05).
	tr = run(t, nil, "compare", dir, "--format", "csv")
	if tr.code != ExitOK {
		t.Fatalf("compare: exit %d %s", tr.code, tr.stderr)
	}
	found := false
	for _, l := range strings.Split(tr.stdout, "\n") {
		if strings.HasPrefix(l, "comparison l.i1 (relative to pebble),ips,") {
			found = true
			f := strings.Split(l, ",")
			// metric, bbolt, lo, hi, n, p
			if len(f) != 7 || f[6] == "" || f[6] > "0.05" {
				t.Errorf("l.i1 ips relative row %q: want a p-value below 0.05", l)
			}
		}
	}
	if !found {
		t.Errorf("compare has no l.i1 ips row:\n%s", tr.stdout)
	}

	// A failing check: exit 1, and the JUnit file names it.
	tr = run(t, nil, "compare", dir, "--check", "l.i1:ratio(ips)>=0.95", "--junit", junit)
	if tr.code != ExitFailure || !strings.Contains(tr.stderr, "1 of 1 checks failed (l.i1 bbolt l.i1:ratio(ips)>=0.95)") {
		t.Fatalf("failing check: exit %d, stderr %q", tr.code, tr.stderr)
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Failures int `xml:"failures,attr"`
		Cases    []struct {
			Name    string    `xml:"name,attr"`
			Failure *struct{} `xml:"failure"`
		} `xml:"testsuite>testcase"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil || doc.Failures != 1 || len(doc.Cases) != 1 ||
		doc.Cases[0].Name != "l.i1 bbolt: l.i1:ratio(ips)>=0.95" || doc.Cases[0].Failure == nil {
		t.Errorf("junit (%v):\n%s", err, data)
	}
}
