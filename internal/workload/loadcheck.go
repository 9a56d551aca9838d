package workload

import (
	"context"
	"fmt"
)

// LoadCheck checks what a run loaded once, before the first step that reads it: a workload's
// Run.Prepare calls Before for that step. The zero LoadCheck has not checked yet.
type LoadCheck struct {
	done bool
}

// Before runs check the first time it is called (later calls return "" and nil): its error
// is said to come after the load, and its result is the line the run prints ("load checked:
// ..."). A check that fails is not run again.
func (l *LoadCheck) Before(ctx context.Context, check func(context.Context) (string, error)) (string, error) {
	if l.done {
		return "", nil
	}
	l.done = true
	what, err := check(ctx)
	if err != nil {
		return "", fmt.Errorf("after the load: %w", err)
	}
	return "load checked: " + what, nil
}
