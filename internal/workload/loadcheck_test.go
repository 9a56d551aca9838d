package workload

import (
	"context"
	"errors"
	"testing"
)

func TestLoadCheck(t *testing.T) {
	calls := 0
	check := func(context.Context) (string, error) { calls++; return "3 rows", nil }
	var l LoadCheck
	if got, err := l.Before(context.Background(), check); got != "load checked: 3 rows" || err != nil {
		t.Errorf("first: %q %v", got, err)
	}
	if got, err := l.Before(context.Background(), check); got != "" || err != nil || calls != 1 {
		t.Errorf("second: %q %v, %d calls", got, err, calls)
	}
	var f LoadCheck
	_, err := f.Before(context.Background(), func(context.Context) (string, error) { return "", errors.New("2 rows, want 3") })
	if err == nil || err.Error() != "after the load: 2 rows, want 3" {
		t.Errorf("failed check: %v", err)
	}
}
