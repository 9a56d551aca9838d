// Package null registers the "null" engine: it accepts every operation and does nothing, so a run
// on it measures rumbench's own cost (data generation, batching, pacing, recording).
//
// Reads find nothing: Get and Scan return no rows, Count returns 0.
//
// With stall_every=N and stall_ms=M every Nth operation (a row insert batch, a read, a
// statement) of the engine's sessions sleeps M ms before it returns: an engine that stalls on
// purpose, to see queueing in the response times measured from the intended start of a paced
// run (rumbench run --rate), and nothing of it in the service times.
package null

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/table"
)

// Bounds of the stall options.
const (
	maxStallEvery = 1 << 30
	maxStallMs    = 60000
)

var options = map[string]string{
	"stall_every": fmt.Sprintf("every this many operations one stalls (1..%d; default none)", maxStallEvery),
	"stall_ms":    fmt.Sprintf("how long a stall sleeps, ms (0..%d; default 0)", maxStallMs),
}

func init() {
	engine.Register(engine.Spec{
		Name:        "null",
		Description: "does nothing: measures rumbench's own cost per operation",
		Options:     options,
		Check:       func(extra map[string]string) error { _, err := parseStall(extra); return err },
		Open: func(ctx context.Context, o engine.Options) (table.Engine, error) {
			if err := engine.CheckExtra("null", o.Extra, options); err != nil {
				return nil, err
			}
			st, err := parseStall(o.Extra)
			if err != nil {
				return nil, err
			}
			return Engine{stall: st}, nil
		},
	})
}

// parseStall reads the stall options: nil when the engine does not stall.
func parseStall(extra map[string]string) (*stall, error) {
	every, ms := int64(0), int64(0)
	for _, o := range []struct {
		key  string
		max  int64
		min  int64
		into *int64
	}{{"stall_every", maxStallEvery, 1, &every}, {"stall_ms", maxStallMs, 0, &ms}} {
		v, ok := extra[o.key]
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < o.min || n > o.max {
			return nil, fmt.Errorf("engine null: %s=%q: want a whole number %d..%d", o.key, v, o.min, o.max)
		}
		*o.into = n
	}
	if every == 0 {
		if ms > 0 {
			return nil, fmt.Errorf("engine null: stall_ms without stall_every: give both")
		}
		return nil, nil
	}
	return &stall{every: every, d: time.Duration(ms) * time.Millisecond}, nil
}

// stall makes every Nth operation of an engine's sessions sleep.
type stall struct {
	every int64
	d     time.Duration
	n     atomic.Int64
}

// op counts one operation and sleeps when it is a stalled one (or until ctx ends).
func (s *stall) op(ctx context.Context) {
	if s == nil || s.n.Add(1)%s.every != 0 {
		return
	}
	t := time.NewTimer(s.d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// Engine is the null engine. Its zero value is ready to use (it never stalls).
type Engine struct{ stall *stall }

var (
	_ table.Engine  = Engine{}
	_ table.Session = Session{}
)

// Info implements table.Engine.
func (Engine) Info() table.Info {
	return table.Info{Name: "null", Family: "none", Version: "n/a", Stores: false, Options: map[string]string{}}
}

// CreateTable implements table.Engine.
func (Engine) CreateTable(context.Context, *table.Table, bool) error { return nil }

// CreateIndexes implements table.Engine.
func (Engine) CreateIndexes(context.Context, *table.Table) error { return nil }

// NewSession implements table.Engine.
func (e Engine) NewSession(context.Context) (table.Session, error) {
	return Session{stall: e.stall}, nil
}

// Cleanup implements table.Engine.
func (Engine) Cleanup(context.Context) (string, error) { return "none", nil }

// Size implements table.Engine.
func (Engine) Size(context.Context) (int64, bool, error) { return 0, false, nil }

// Close implements table.Engine.
func (Engine) Close() error { return nil }

// Session is the null engine's session.
type Session struct{ stall *stall }

// Insert implements table.Session.
func (s Session) Insert(ctx context.Context, _ *table.Table, _ *table.Rows) error {
	s.stall.op(ctx)
	return nil
}

// DeleteOldest implements table.Session: it reports n rows deleted.
func (Session) DeleteOldest(_ context.Context, _ *table.Table, _ int64, n int) (int, error) {
	return n, nil
}

// Get implements table.Session.
func (s Session) Get(ctx context.Context, _ *table.Table, _ []int64, _ []int, _ *table.Rows) error {
	s.stall.op(ctx)
	return nil
}

// Scan implements table.Session.
func (s Session) Scan(ctx context.Context, _ *table.Table, _ int, _ []table.Value, _ bool, _ int, _ *table.Rows) error {
	s.stall.op(ctx)
	return nil
}

// Count implements table.Session.
func (Session) Count(context.Context, *table.Table, int) (int64, error) { return 0, nil }

// Close implements table.Session.
func (Session) Close() error { return nil }

// Exec implements table.Session: it returns nothing and reports nothing changed.
func (s Session) Exec(ctx context.Context, _ *table.Stmt, _ []table.Value, _ *table.Rows) (int64, error) {
	s.stall.op(ctx)
	return 0, nil
}

// Begin implements table.Session.
func (Session) Begin(context.Context) error { return nil }

// Commit implements table.Session.
func (Session) Commit(context.Context) error { return nil }

// Rollback implements table.Session.
func (Session) Rollback(context.Context) error { return nil }
