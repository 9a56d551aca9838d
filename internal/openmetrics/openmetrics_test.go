package openmetrics

import (
	"bytes"
	"math"
	"testing"
)

func TestExposition(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	run := []Label{{"run_id", "20261121T120000Z-x"}, {"target", `a"b\c` + "\nd"}}
	w.Family("demo_ops", Counter, "", `operations "done"`)
	w.Sample("demo_ops_total", run, 1234567)
	w.Family("demo_seconds", Histogram, "seconds", "response time")
	w.Sample("demo_seconds_bucket", run, 3, Label{"le", FormatFloat(1e-06)})
	w.Sample("demo_seconds_bucket", run, 5, Label{"le", FormatFloat(math.Inf(1))})
	w.Sample("demo_seconds_count", run, 5)
	w.Sample("demo_seconds_sum", run, 0.25)
	w.Family("demo_rate", Gauge, "", "per second")
	w.SampleAt("demo_rate", nil, 12.5, 1795000000123)
	w.SampleAt("demo_rate", nil, math.NaN(), 1795000001005)
	if err := w.End(); err != nil {
		t.Fatal(err)
	}
	want := `# TYPE demo_ops counter
# HELP demo_ops operations \"done\"
demo_ops_total{run_id="20261121T120000Z-x",target="a\"b\\c\nd"} 1234567
# TYPE demo_seconds histogram
# UNIT demo_seconds seconds
# HELP demo_seconds response time
demo_seconds_bucket{run_id="20261121T120000Z-x",target="a\"b\\c\nd",le="1e-06"} 3
demo_seconds_bucket{run_id="20261121T120000Z-x",target="a\"b\\c\nd",le="+Inf"} 5
demo_seconds_count{run_id="20261121T120000Z-x",target="a\"b\\c\nd"} 5
demo_seconds_sum{run_id="20261121T120000Z-x",target="a\"b\\c\nd"} 0.25
# TYPE demo_rate gauge
# HELP demo_rate per second
demo_rate 12.5 1795000000.123
demo_rate NaN 1795000001.005
# EOF
`
	if b.String() != want {
		t.Errorf("exposition:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestAppendFloat(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{{0, "0"}, {-3, "-3"}, {1 << 53, "9.007199254740992e+15"}, {0.001, "0.001"}, {2e-06, "2e-06"}, {10, "10"},
		{math.Inf(-1), "-Inf"}} {
		if got := FormatFloat(c.v); got != c.want {
			t.Errorf("FormatFloat(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestUnitSuffix(t *testing.T) {
	w := NewWriter(&bytes.Buffer{})
	w.Family("demo_stall", Counter, "seconds", "x")
	if err := w.End(); err == nil {
		t.Error("a unit that is not the name's suffix was written")
	}
}
