package workload

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

type listConfig struct{ Props []string }

func TestStringsSetting(t *testing.T) {
	ss := Params[listConfig]{Strings(func(c *listConfig) *[]string { return &c.Props }, List{Name: "property", Short: "p", Key: "overrides",
		Help: "k=v", MaxItems: 2, MaxLen: 8, Check: func(v string) error {
			if !strings.Contains(v, "=") {
				return errors.New("want key=value")
			}
			return nil
		}})}
	var c listConfig
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	ss.Bind(fs, &c)
	if err := fs.Parse([]string{"-p", "a=1,2", "--property", "b=2"}); err != nil {
		t.Fatal(err)
	}
	ss.Apply(fs, &c, "quick")
	if !slices.Equal(c.Props, []string{"a=1,2", "b=2"}) || ss.Validate(&c, nil) != nil {
		t.Errorf("items %q: %v", c.Props, ss.Validate(&c, nil))
	}
	if got := ss.Record(&c)["overrides"]; !slices.Equal(got.([]string), c.Props) {
		t.Errorf("recorded %v", got)
	}
	for _, tc := range []struct {
		items []string
		want  string
	}{
		{[]string{"a=1", "b=2", "c=3"}, "--property given 3 times: at most 2"},
		{[]string{"a=123456789"}, `--property "a=123456789": at most 8 bytes`},
		{[]string{"a"}, `--property "a": want key=value`},
	} {
		c.Props = tc.items
		if err := ss.Validate(&c, nil); err == nil || err.Error() != tc.want {
			t.Errorf("%q: %v, want %q", tc.items, err, tc.want)
		}
	}
	var d listConfig
	ss.Apply(pflag.NewFlagSet("u", pflag.ContinueOnError), &d, "quick")
	if d.Props != nil {
		t.Errorf("default %q, want none", d.Props)
	}
}
