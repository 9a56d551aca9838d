package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/rumbench/rumbench/internal/results"
)

// Filter selects runs for List. Zero fields select everything.
type Filter struct {
	// Workload, Engine and Label match exactly; Engine matches a run with a target on that
	// engine (e.g. "postgres" for the targets postgres:a.conf and postgres:b.conf).
	Workload, Engine, Label string
	// Since and Until bound the run's start time: Since <= start < Until.
	Since, Until time.Time
}

// RunSummary is one run as List shows it.
type RunSummary struct {
	RunID    string `json:"run_id"`
	Label    string `json:"label"`
	Workload string `json:"workload"`
	// Engines are the distinct engine names of the targets, in run order.
	Engines []string `json:"engines"`
	// Targets are the target labels (engine, or engine:config file), in run order.
	Targets []string  `json:"targets"`
	Start   time.Time `json:"start"`
	// End is the zero time (absent in JSON) for a run recorded while it was still running.
	End time.Time `json:"end,omitzero"`
	// DurationSecs is End - Start in seconds, 0 without an end.
	DurationSecs float64 `json:"duration_secs"`
	// Status is the run's final status: ok, failed, interrupted (running: the run never
	// finished its manifest).
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// Steps and Intervals count the step and interval records.
	Steps     int `json:"steps"`
	Intervals int `json:"intervals"`
	// Dir is the run directory when it was recorded (absolute).
	Dir     string `json:"dir"`
	Version string `json:"rumbench_version"`
}

const summaryCols = `run_id, label, workload, start_time, end_time, status, error, steps_count, intervals_count, dir, rumbench_version`

// List returns the runs matching f, newest first.
func (s *Store) List(ctx context.Context, f Filter) ([]RunSummary, error) {
	where, args := s.where(f)
	rows, err := s.db.QueryContext(ctx, s.d.q("SELECT "+summaryCols+" FROM runs"+where+" ORDER BY start_time DESC, run_id DESC"), args...)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", s.name, err)
	}
	out, err := scanSummaries(rows)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", s.name, err)
	}
	if len(out) == 0 {
		return out, nil
	}
	if err := s.addTargets(ctx, out, "run_id IN (SELECT run_id FROM runs"+where+")", args); err != nil {
		return nil, err
	}
	return out, nil
}

// where builds the WHERE clause of f over runs.
func (s *Store) where(f Filter) (string, []any) {
	var conds []string
	var args []any
	add := func(cond string, arg any) { conds = append(conds, cond); args = append(args, arg) }
	if f.Workload != "" {
		add("workload = ?", f.Workload)
	}
	if f.Label != "" {
		add("label = ?", f.Label)
	}
	if f.Engine != "" {
		add("run_id IN (SELECT run_id FROM targets WHERE engine = ?)", f.Engine)
	}
	if !f.Since.IsZero() {
		add("start_time >= ?", s.d.timeArg(f.Since))
	}
	if !f.Until.IsZero() {
		add("start_time < ?", s.d.timeArg(f.Until))
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

func scanSummaries(rows *sql.Rows) ([]RunSummary, error) {
	defer rows.Close()
	out := []RunSummary{}
	for rows.Next() {
		var r RunSummary
		if err := rows.Scan(&r.RunID, &r.Label, &r.Workload, timeCol{&r.Start}, timeCol{&r.End}, &r.Status, &r.Error,
			&r.Steps, &r.Intervals, &r.Dir, &r.Version); err != nil {
			return nil, err
		}
		if !r.End.IsZero() && !r.Start.IsZero() {
			r.DurationSecs = r.End.Sub(r.Start).Seconds()
		}
		r.Engines, r.Targets = []string{}, []string{}
		out = append(out, r)
	}
	return out, rows.Err()
}

// addTargets fills the engines and targets of the summaries from the targets table.
func (s *Store) addTargets(ctx context.Context, sums []RunSummary, cond string, args []any) error {
	rows, err := s.db.QueryContext(ctx, s.d.q("SELECT run_id, label, engine FROM targets WHERE "+cond+" ORDER BY run_id, seq"), args...)
	if err != nil {
		return fmt.Errorf("store %s: %w", s.name, err)
	}
	defer rows.Close()
	byID := make(map[string]*RunSummary, len(sums))
	for i := range sums {
		byID[sums[i].RunID] = &sums[i]
	}
	for rows.Next() {
		var id, label, eng string
		if err := rows.Scan(&id, &label, &eng); err != nil {
			return fmt.Errorf("store %s: %w", s.name, err)
		}
		if r := byID[id]; r != nil {
			r.Targets = append(r.Targets, label)
			if !slices.Contains(r.Engines, eng) {
				r.Engines = append(r.Engines, eng)
			}
		}
	}
	return rows.Err()
}

// Resolve returns the run id that idOrPrefix names: the run id itself, or the only run id that
// starts with it. No match is ErrNotFound; several are an error naming them.
func (s *Store) Resolve(ctx context.Context, idOrPrefix string) (string, error) {
	if idOrPrefix == "" {
		return "", fmt.Errorf("%w: empty run id", ErrNotFound)
	}
	rows, err := s.db.QueryContext(ctx, "SELECT run_id FROM runs")
	if err != nil {
		return "", fmt.Errorf("store %s: %w", s.name, err)
	}
	defer rows.Close()
	var matches []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return "", fmt.Errorf("store %s: %w", s.name, err)
		}
		if id == idOrPrefix {
			return id, nil
		}
		if strings.HasPrefix(id, idOrPrefix) {
			matches = append(matches, id)
		}
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("store %s: %w", s.name, err)
	}
	switch len(matches) {
	case 0:
		return "", fmt.Errorf("%w %q in %s", ErrNotFound, idOrPrefix, s.name)
	case 1:
		return matches[0], nil
	}
	sort.Strings(matches)
	if len(matches) > 4 {
		matches = append(matches[:4], "...")
	}
	return "", fmt.Errorf("%w: %q is the start of several run ids (%s)", ErrAmbiguous, idOrPrefix, strings.Join(matches, ", "))
}

// ErrAmbiguous is returned when a run id prefix matches several runs.
var ErrAmbiguous = errors.New("ambiguous run id")

// Get returns the summary of the run idOrPrefix names (see Resolve).
func (s *Store) Get(ctx context.Context, idOrPrefix string) (RunSummary, error) {
	id, err := s.Resolve(ctx, idOrPrefix)
	if err != nil {
		return RunSummary{}, err
	}
	rows, err := s.db.QueryContext(ctx, s.d.q("SELECT "+summaryCols+" FROM runs WHERE run_id = ?"), id)
	if err != nil {
		return RunSummary{}, fmt.Errorf("store %s: %w", s.name, err)
	}
	sums, err := scanSummaries(rows)
	if err != nil {
		return RunSummary{}, fmt.Errorf("store %s: %w", s.name, err)
	}
	if len(sums) == 0 {
		return RunSummary{}, fmt.Errorf("%w %q in %s", ErrNotFound, id, s.name)
	}
	if err := s.addTargets(ctx, sums, "run_id = ?", []any{id}); err != nil {
		return RunSummary{}, err
	}
	return sums[0], nil
}

// Load reads the run idOrPrefix names (see Resolve) back from the store: the manifest, the
// step records (with their latency) and the interval records as they were recorded, and Dir,
// the run directory when it was recorded (which may no longer exist). Reports use it when a
// run directory is gone.
func (s *Store) Load(ctx context.Context, idOrPrefix string) (*results.Run, error) {
	id, err := s.Resolve(ctx, idOrPrefix)
	if err != nil {
		return nil, err
	}
	run, err := s.load(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("store %s: load %s: %w", s.name, id, err)
	}
	return run, nil
}

func (s *Store) load(ctx context.Context, id string) (*results.Run, error) {
	// One read transaction: a concurrent re-record cannot mix two versions of the run.
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: s.d.postgres, Isolation: s.isolation()})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	var dir, manifest string
	err = tx.QueryRowContext(ctx, s.d.q("SELECT dir, manifest FROM runs WHERE run_id = ?"), id).Scan(&dir, &manifest)
	if err == sql.ErrNoRows {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	run := &results.Run{Dir: dir, Manifest: &results.Manifest{}, Steps: []results.Step{}}
	if err := json.Unmarshal([]byte(manifest), run.Manifest); err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	schema := run.Manifest.SchemaVersion
	results.UpgradeManifest(run.Manifest)
	var stepDocs [][]byte
	err = s.docs(ctx, tx, "SELECT doc FROM steps WHERE run_id = ? ORDER BY seq", id, func(doc []byte) error {
		stepDocs = append(stepDocs, doc)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("steps: %w", err)
	}
	lrows, err := tx.QueryContext(ctx, s.d.q("SELECT step_seq, doc FROM step_latency WHERE run_id = ? ORDER BY step_seq, seq"), id)
	if err != nil {
		return nil, err
	}
	latency := make([][]results.Latency, len(stepDocs))
	if err := addLatency(lrows, latency); err != nil {
		return nil, fmt.Errorf("step_latency: %w", err)
	}
	for i, doc := range stepDocs {
		st, err := results.DecodeStep(doc, schema, latency[i])
		if err != nil {
			return nil, fmt.Errorf("steps: %w", err)
		}
		run.Steps = append(run.Steps, st)
	}
	err = s.docs(ctx, tx, "SELECT doc FROM intervals WHERE run_id = ? ORDER BY seq", id, func(doc []byte) error {
		iv, err := results.DecodeInterval(doc, schema)
		if err != nil {
			return err
		}
		run.Intervals = append(run.Intervals, iv)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("intervals: %w", err)
	}
	return run, nil
}

// addLatency appends the latency records of (step_seq, doc) rows to their steps' lists and
// closes rows.
func addLatency(rows *sql.Rows, steps [][]results.Latency) error {
	defer rows.Close()
	for rows.Next() {
		var i int
		var doc []byte
		if err := rows.Scan(&i, &doc); err != nil {
			return err
		}
		if i < 0 || i >= len(steps) {
			return fmt.Errorf("a row for step %d of %d", i, len(steps))
		}
		var l results.Latency
		if err := json.Unmarshal(doc, &l); err != nil {
			return err
		}
		steps[i] = append(steps[i], l)
	}
	return rows.Err()
}

func (s *Store) isolation() sql.IsolationLevel {
	if s.d.postgres {
		return sql.LevelRepeatableRead
	}
	return sql.LevelDefault
}

// docs calls fn with each JSON document the query (with one argument) returns.
func (s *Store) docs(ctx context.Context, tx *sql.Tx, query string, arg any, fn func([]byte) error) error {
	rows, err := tx.QueryContext(ctx, s.d.q(query), arg)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var doc []byte
		if err := rows.Scan(&doc); err != nil {
			return err
		}
		if err := fn(doc); err != nil {
			return err
		}
	}
	return rows.Err()
}

// SetLabel sets the label of the run idOrPrefix names, in the runs table and in its manifest
// document (the run id and the run directory's run.json keep the label the run had), and
// returns the run id.
func (s *Store) SetLabel(ctx context.Context, idOrPrefix, label string) (string, error) {
	id, err := s.Resolve(ctx, idOrPrefix)
	if err != nil {
		return "", err
	}
	if err := s.setLabel(ctx, id, label); err != nil {
		return "", fmt.Errorf("store %s: label %s: %w", s.name, id, err)
	}
	return id, nil
}

func (s *Store) setLabel(ctx context.Context, id, label string) error {
	_, err := s.setField(ctx, id, "label", label, "")
	return err
}

// setField sets a run's column field (label, status) and the same field of its manifest
// document, other fields kept as they are (also those this build does not know), in one
// transaction; when onlyIf is not empty, only if the run's status is onlyIf. It says whether
// the run was changed.
func (s *Store) setField(ctx context.Context, id, field, value, onlyIf string) (bool, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	query, args := "SELECT manifest FROM runs WHERE run_id = ?", []any{id}
	if onlyIf != "" {
		query, args = query+" AND status = ?", append(args, onlyIf)
	}
	var manifest string
	err = tx.QueryRowContext(ctx, s.d.q(query), args...).Scan(&manifest)
	if err == sql.ErrNoRows && onlyIf != "" {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(manifest), &doc); err != nil {
		return false, err
	}
	doc[field], _ = json.Marshal(value)
	b, err := json.Marshal(doc)
	if err != nil {
		return false, err
	}
	// field is one of this package's column names, never user input.
	if _, err := tx.ExecContext(ctx, s.d.q("UPDATE runs SET "+field+" = ?, manifest = ? WHERE run_id = ?"), value, string(b), id); err != nil {
		return false, err
	}
	return true, tx.Commit()
}

// Delete removes the run idOrPrefix names from the store (in one transaction) and returns its
// run id. The run directory is not touched.
func (s *Store) Delete(ctx context.Context, idOrPrefix string) (string, error) {
	id, err := s.Resolve(ctx, idOrPrefix)
	if err != nil {
		return "", err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return "", fmt.Errorf("store %s: %w", s.name, err)
	}
	defer tx.Rollback()
	if err := s.schemaShared(ctx, tx); err != nil {
		return "", fmt.Errorf("store %s: delete %s: %w", s.name, id, err)
	}
	for _, t := range []string{"step_latency", "steps", "intervals", "targets", "runs"} {
		if _, err := tx.ExecContext(ctx, s.d.q("DELETE FROM "+t+" WHERE run_id = ?"), id); err != nil {
			return "", fmt.Errorf("store %s: delete %s: %w", s.name, id, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return "", fmt.Errorf("store %s: delete %s: %w", s.name, id, err)
	}
	return id, nil
}
