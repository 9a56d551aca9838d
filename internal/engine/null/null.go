// Package null registers the "null" engine: it accepts every operation and does nothing, so a run
// on it measures rumbench's own cost (data generation, batching, pacing, recording).
//
// Reads find nothing: Get and Scan return no rows, Count returns 0.
package null

import (
	"context"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/table"
)

func init() {
	engine.Register(engine.Spec{
		Name:        "null",
		Description: "does nothing: measures rumbench's own cost per operation",
		Open: func(ctx context.Context, o engine.Options) (table.Engine, error) {
			if err := engine.CheckExtra("null", o.Extra, nil); err != nil {
				return nil, err
			}
			return Engine{}, nil
		},
	})
}

// Engine is the null engine. Its zero value is ready to use.
type Engine struct{}

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
func (Engine) NewSession(context.Context) (table.Session, error) { return Session{}, nil }

// Cleanup implements table.Engine.
func (Engine) Cleanup(context.Context) (string, error) { return "none", nil }

// Size implements table.Engine.
func (Engine) Size(context.Context) (int64, bool, error) { return 0, false, nil }

// Close implements table.Engine.
func (Engine) Close() error { return nil }

// Session is the null engine's session.
type Session struct{}

// Insert implements table.Session.
func (Session) Insert(context.Context, *table.Table, *table.Rows) error { return nil }

// DeleteOldest implements table.Session: it reports n rows deleted.
func (Session) DeleteOldest(_ context.Context, _ *table.Table, _ int64, n int) (int, error) {
	return n, nil
}

// Get implements table.Session.
func (Session) Get(context.Context, *table.Table, []int64, []int, *table.Rows) error { return nil }

// Scan implements table.Session.
func (Session) Scan(context.Context, *table.Table, int, []table.Value, bool, int, *table.Rows) error {
	return nil
}

// Count implements table.Session.
func (Session) Count(context.Context, *table.Table, int) (int64, error) { return 0, nil }

// Close implements table.Session.
func (Session) Close() error { return nil }

// Exec implements table.Session: it returns nothing and reports nothing changed.
func (Session) Exec(context.Context, *table.Stmt, []table.Value, *table.Rows) (int64, error) {
	return 0, nil
}

// Begin implements table.Session.
func (Session) Begin(context.Context) error { return nil }

// Commit implements table.Session.
func (Session) Commit(context.Context) error { return nil }

// Rollback implements table.Session.
func (Session) Rollback(context.Context) error { return nil }
