// Package toy is a small workload for tests: it proves that a workload is one folder plus a
// registry line. It declares its own flag (--toy-rows), its own profiles, two operation kinds
// of its own (put, a write; lookup, a read) and its own presentation (the fill step's rate is
// "pps", the probe step's "lps"), and runs on every engine through the table model. It is
// registered only where it is imported (the CLI's tests), never in the rumbench binary.
//
// Steps:
//
//	fill    one writer puts Rows rows with keys 1..Rows, 100 per transaction
//	probe   one reader looks up 10 random keys per call for Secs seconds while a writer puts
//	        rows beyond Rows at 200 rows/s (paced, 20 per transaction)
package toy

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"

	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
)

// Steps are the toy's steps in run order.
var Steps = []string{"fill", "probe"}

// profiles are the rows of the fill step and the seconds of the probe step per scale.
var profiles = map[string]Config{
	"quick":    {Rows: 2000, Secs: 1},
	"standard": {Rows: 200_000, Secs: 10},
}

func init() {
	workload.Register(workload.Spec{
		Name:        "toy",
		Description: "a small test workload: fill a table, then look keys up beside a paced writer",
		Steps:       Steps,
		Profiles:    []string{"quick", "standard"},
		Rates: []workload.Rate{{Name: "pps", Unit: "puts/s", Meaning: "rows put per second (fill)"},
			{Name: "lps", Unit: "lookups/s", Meaning: "10-key lookups per second (probe)"}},
		New: newDefinition,
	})
}

// Config sizes the toy.
type Config struct {
	// Rows is the rows the fill step puts; Secs the probe step's duration.
	Rows int64
	Secs float64
	Seed uint64
}

type definition struct {
	fs   *pflag.FlagSet
	rows int64
}

func newDefinition() workload.Definition {
	d := &definition{fs: pflag.NewFlagSet("toy", pflag.ContinueOnError)}
	d.fs.Int64Var(&d.rows, "toy-rows", 0, "rows the fill step puts (default from --profile)")
	return d
}

func (d *definition) Flags() *pflag.FlagSet { return d.fs }

// Build makes the toy from --toy-rows and the profile.
func (d *definition) Build(s workload.Shared) (workload.Workload, error) {
	c, err := workload.PickProfile("toy", profiles, s.Profile)
	if err != nil {
		return nil, err
	}
	if d.fs.Changed("toy-rows") {
		c.Rows = d.rows
	}
	if c.Rows < 1 {
		return nil, fmt.Errorf("--toy-rows %d: must be at least 1", c.Rows)
	}
	c.Seed = s.Seed
	return &Workload{cfg: c}, nil
}

// Workload is the configured toy.
type Workload struct{ cfg Config }

// Name implements workload.Workload.
func (w *Workload) Name() string { return "toy" }

// Steps implements workload.Workload.
func (w *Workload) Steps() []string { return Steps }

// Config implements workload.Workload.
func (w *Workload) Config() map[string]any {
	return map[string]any{"rows": w.cfg.Rows, "probe_secs": w.cfg.Secs, "seed": w.cfg.Seed}
}

// Settings implements workload.Workload.
func (w *Workload) Settings() []workload.Setting {
	return []workload.Setting{workload.Show("rows", w.cfg.Rows), workload.Show("probe_secs", w.cfg.Secs).For("probe"), workload.Show("seed", w.cfg.Seed)}
}

var kvTable = &table.Table{Name: "toy", Columns: []table.Column{
	{Name: "id", Type: table.Int64, NotNull: true},
	{Name: "v", Type: table.Bytes, MaxLen: 32, Text: true},
}}

// Operation kinds: a put counts by rows, a lookup by calls.
var (
	kindPut    = runner.Kind{Name: "put", Role: results.RoleWrite, Unit: "rows", CountUnits: true}
	kindLookup = runner.Kind{Name: "lookup", Role: results.RoleRead, Unit: "rows"}
)

// Open implements workload.Workload.
func (w *Workload) Open(ctx context.Context, eng table.Engine) (workload.Run, error) {
	if err := eng.CreateTable(ctx, kvTable, true); err != nil {
		return nil, err
	}
	return &run{w: w, eng: eng}, nil
}

type run struct {
	w        *Workload
	eng      table.Engine
	sessions workload.Sessions
	next     atomic.Int64 // rows put so far: keys 1..next
}

func (r *run) Prepare(ctx context.Context, name string) (string, error) { return "", nil }
func (r *run) Rows() int64                                              { return r.next.Load() }
func (r *run) Close() error                                             { return r.sessions.Close() }

// Step implements workload.Run.
func (r *run) Step(ctx context.Context, name string) (runner.Step, error) {
	if err := r.sessions.Close(); err != nil {
		return runner.Step{}, err
	}
	st := runner.Step{Name: name}
	put := st.Kinds.Add(kindPut)
	switch name {
	case "fill":
		st.RateKinds = []runner.KindID{put}
		st.Presentation = runner.Presentation{RateName: "pps", RateUnit: "puts/s", PerOp: "row put", Note: "per-op figures per row put"}
		return st, r.addWriter(ctx, &st, put, r.w.cfg.Rows, 100, 0)
	case "probe":
		lookup := st.Kinds.Add(kindLookup)
		st.RateKinds = []runner.KindID{lookup}
		st.Presentation = runner.Presentation{RateName: "lps", RateUnit: "lookups/s", PerOp: "lookup", Note: "per-op figures per lookup"}
		st.TargetInsertRate = 200
		if err := r.addWriter(ctx, &st, put, int64(200*r.w.cfg.Secs), 20, 10); err != nil {
			return st, err
		}
		s, err := r.sessions.Open(ctx, r.eng)
		if err != nil {
			return st, err
		}
		rnd := gen.NewRand(r.w.cfg.Seed)
		out := table.NewRows(2, 10)
		var pks [10]int64
		cols := []int{0, 1}
		st.Workers = append(st.Workers, runner.Worker{Name: "reader", Role: runner.Background, Op: func(ctx context.Context, m *runner.Meter) (bool, error) {
			n := r.next.Load()
			for i := range pks {
				pks[i] = 1 + rnd.Intn(n)
			}
			out.Reset(2)
			t0 := time.Now()
			if err := s.Get(ctx, kvTable, pks[:], cols, out); err != nil {
				return false, err
			}
			m.Done(lookup, t0, out.N)
			return false, nil
		}})
		return st, nil
	}
	return st, fmt.Errorf("toy: unknown step %q (valid: %s)", name, strings.Join(Steps, ", "))
}

// addWriter adds a writer that puts total rows after the current last key, batch rows per
// transaction, rate batches per second (0: as fast as it can).
func (r *run) addWriter(ctx context.Context, st *runner.Step, put runner.KindID, total int64, batch int, rate float64) error {
	s, err := r.sessions.Open(ctx, r.eng)
	if err != nil {
		return err
	}
	rows := table.NewRows(2, batch)
	var done int64
	st.Workers = append(st.Workers, runner.Worker{Name: "writer", Role: runner.Driver, Rate: rate, Op: func(ctx context.Context, m *runner.Meter) (bool, error) {
		n := min(int64(batch), total-done)
		if n <= 0 {
			return true, nil
		}
		rows.Reset(2)
		first := r.next.Load() + 1
		for i := int64(0); i < n; i++ {
			row := rows.AppendRaw()
			row[0] = table.Value{I: first + i}
			row[1] = table.Value{B: []byte("value")}
		}
		t0 := time.Now()
		if err := s.Insert(ctx, kvTable, rows); err != nil {
			return false, err
		}
		m.Done(put, t0, int(n))
		r.next.Add(n)
		done += n
		return false, nil
	}})
	return nil
}

// Check implements workload.Run: the table holds every row put.
func (r *run) Check(ctx context.Context) (string, error) {
	if !r.eng.Info().Stores {
		return "not checked (engine stores nothing)", nil
	}
	s, err := workload.CheckSession(ctx, r.eng)
	if err != nil {
		return "", err
	}
	defer s.Close()
	n, err := s.Count(ctx, kvTable, -1)
	if err != nil {
		return "", err
	}
	if want := r.next.Load(); n != want {
		return "", fmt.Errorf("table toy holds %d rows, want %d", n, want)
	}
	return fmt.Sprintf("ok: %d rows", n), nil
}
