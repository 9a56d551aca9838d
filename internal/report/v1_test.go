package report

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/rumbench/rumbench/internal/results"
)

// v1Runs are two runs written by rumbench with result schema version 1 (an insert benchmark
// and a sysbench run on pebble and sqlite), checked in as they were written.
var v1Runs = []string{"20261124T032916Z-v1insert", "20261124T032920Z-v1sysbench"}

func loadV1(t *testing.T, id string) *results.Run {
	t.Helper()
	r, err := results.Load(filepath.Join("..", "results", "testdata", "v1", id))
	if err != nil {
		t.Fatal(err)
	}
	if r.Manifest.SchemaVersion != 1 {
		t.Fatalf("%s: schema version %d, want 1", id, r.Manifest.SchemaVersion)
	}
	return r
}

// TestVersion1Golden renders version-1 runs through every output: the step and group
// tables, comparisons, benchmark lines and the HTML report.
func TestVersion1Golden(t *testing.T) {
	for _, id := range v1Runs {
		r := loadV1(t, id)
		var b bytes.Buffer
		if err := Render(&b, "text", RunsDocument([]*results.Run{r}, Wide)); err != nil {
			t.Fatal(err)
		}
		c, err := Compare([]*results.Run{r}, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := Render(&b, "text", c.Document(false)); err != nil {
			t.Fatal(err)
		}
		if err := GoBench(&b, []*results.Run{r}); err != nil {
			t.Fatal(err)
		}
		golden(t, "v1-"+r.Manifest.Label+".text", b.Bytes())
		var page bytes.Buffer
		if err := HTML(&page, []*results.Run{r}, HTMLOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestVersion1Upgrade checks what the upgrade derives from a version-1 record: kinds with
// their roles and counts, the presentation, the sysbench groups.
func TestVersion1Upgrade(t *testing.T) {
	r := loadV1(t, v1Runs[0])
	for _, s := range r.Steps {
		switch s.Step {
		case "l.i0":
			if s.RateName != "ips" || s.KindUnits("insert") != 5000 || s.KindOps("insert") != 50 || s.Kind("insert").Role != results.RoleWrite {
				t.Errorf("%s l.i0: %+v", s.Target, s)
			}
		case "l.x":
			if s.RateName != "rate" || s.KindOps("create_index") != 1 || s.KindUnits("create_index") != s.Ops {
				t.Errorf("%s l.x: rate %s kinds %+v ops %d", s.Target, s.RateName, s.Kinds, s.Ops)
			}
		case "qp100":
			if s.RateName != "qps" || s.KindOps("point_query") == 0 || s.QPS <= 0 || s.KindUnits("insert") != 100 {
				t.Errorf("%s qp100: rate %s kinds %+v qps %g", s.Target, s.RateName, s.Kinds, s.QPS)
			}
		}
	}
	sb := loadV1(t, v1Runs[1])
	if len(sb.Manifest.Groups) != 4 || sb.Manifest.Groups[0].Name != "point" {
		t.Errorf("sysbench groups %+v", sb.Manifest.Groups)
	}
	for _, s := range sb.Steps {
		if s.Group != "" && (s.KindOps("event") == 0 || s.KindUnits("event") != s.Ops && s.Step != "scan" || s.CallsPerSec <= 0) {
			t.Errorf("%s %s: kinds %+v ops %d calls/s %g", s.Target, s.Step, s.Kinds, s.Ops, s.CallsPerSec)
		}
		if s.Step == "scan" && s.RateName != "Krps" {
			t.Errorf("%s scan: rate %s", s.Target, s.RateName)
		}
	}
	if len(r.Intervals) == 0 || len(r.Intervals[0].Kinds) == 0 {
		t.Errorf("intervals: %+v", r.Intervals)
	}
}
