package workload

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

type testConfig struct {
	Rows    int64
	Secs    float64
	Batch   int
	Mode    string
	Deletes bool
}

var testSettings = Params[testConfig]{
	Int(func(c *testConfig) *int64 { return &c.Rows }, Number[int64]{Name: "rows", Help: "rows loaded", Unit: "rows", Steps: []string{"load"},
		Default: 10, Profiles: map[string]int64{"small": 1000}, Min: 1, Max: 1 << 40}),
	Float(func(c *testConfig) *float64 { return &c.Secs }, Number[float64]{Name: "run-secs", Help: "seconds of the run", Unit: "s", Runtime: true,
		Steps: []string{"run"}, Default: 5, Min: 0.001, Max: 604800}),
	Int(func(c *testConfig) *int { return &c.Batch }, Number[int]{Name: "rows-per-commit", Help: "rows per transaction", Zero: "the step's own",
		Min: 1, Max: 100_000}),
	String(func(c *testConfig) *string { return &c.Mode }, Text{Name: "mode", Help: "mode", Default: "a", Valid: []string{"a", "b"}}),
	Bool(func(c *testConfig) *bool { return &c.Deletes }, Switch{Name: "delete-per-insert", Help: "delete"}),
}

func TestSettings(t *testing.T) {
	if err := testSettings.Verify([]string{"quick", "small"}, []string{"load", "run"}); err != nil {
		t.Fatal(err)
	}
	if err := testSettings.Verify([]string{"quick"}, []string{"load", "run"}); err == nil || !strings.Contains(err.Error(), `unknown profile "small"`) {
		t.Errorf("a profile the workload lacks: %v", err)
	}
	var c testConfig
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	testSettings.Bind(fs, &c)
	if u := fs.Lookup("rows").Usage; u != "rows loaded (rows); by --profile: small 1000" {
		t.Errorf("help %q", u)
	}
	if err := fs.Parse([]string{"--run-secs", "2", "--rows-per-commit", "0"}); err != nil {
		t.Fatal(err)
	}
	testSettings.Apply(fs, &c, "small")
	if c.Rows != 1000 || c.Secs != 2 || c.Batch != 0 || c.Mode != "a" {
		t.Errorf("applied %+v", c)
	}
	if err := testSettings.Validate(&c, nil); err != nil {
		t.Errorf("valid settings: %v", err)
	}
	if got := Banner(testSettings.Shown(&c), []string{"run"}); got != "run_secs=2 rows_per_commit=0 mode=a delete_per_insert=false" {
		t.Errorf("banner of the run step: %q", got)
	}
	if id := testSettings.Identity(&c, []string{"load"}); len(id) != 4 || id["rows"] != int64(1000) || id["run_secs"] != nil {
		t.Errorf("identity %v", id)
	}
	for _, tc := range []struct {
		set  func(*testConfig)
		want string
	}{
		{func(c *testConfig) { c.Rows = 0 }, "--rows 0: want 1..1099511627776 rows"},
		{func(c *testConfig) { c.Batch = -1 }, "--rows-per-commit -1: want 0 (the step's own) or 1..100000"},
		{func(c *testConfig) { c.Mode = "c" }, `--mode "c": want one of a, b`},
	} {
		bad := c
		tc.set(&bad)
		if err := testSettings.Validate(&bad, nil); err == nil || err.Error() != tc.want {
			t.Errorf("got %v, want %s", err, tc.want)
		}
	}
	// A setting of a step that does not run is not checked.
	bad := c
	bad.Rows = 0
	if err := testSettings.Validate(&bad, []string{"run"}); err != nil {
		t.Errorf("rows checked though load does not run: %v", err)
	}
}
