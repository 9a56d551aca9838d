package workload

import (
	"strings"
	"testing"
)

func TestParsePercentiles(t *testing.T) {
	if got, err := ParsePercentiles("--percentiles", "50, 99.9"); err != nil || len(got) != 2 || got[1] != 99.9 {
		t.Errorf("50, 99.9: %v %v", got, err)
	}
	many := strings.TrimSuffix(strings.Repeat("1,2,3,4,5,6,7,8,9,", 2), ",")
	for _, c := range []struct{ v, want string }{
		{"50,100", "each value must be a number in (0, 100)"},
		{"50,50", "50 is listed twice"},
		{"1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", "at most 16 percentiles"},
		{many, "1 is listed twice"},
	} {
		if _, err := ParsePercentiles("--percentiles", c.v); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.v, err, c.want)
		}
	}
}
