package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/rumbench/rumbench/internal/results"
)

// maxParams bounds the parameters of one multi-row INSERT (SQLite's historical limit is 999).
const maxParams = 900

// Record writes run into the store in one transaction, replacing an earlier record of the same
// run id. If ctx ends or anything fails before the commit, the store is left as it was. The
// run's Dir is recorded as an absolute path.
func (s *Store) Record(ctx context.Context, run *results.Run) error {
	if run == nil || run.Manifest == nil || run.Manifest.RunID == "" {
		return errors.New("store: record: the run has no manifest or run id")
	}
	if err := s.record(ctx, run); err != nil {
		if ctx.Err() != nil { // the statement's error may only say the transaction is done
			err = ctx.Err()
		}
		return fmt.Errorf("store %s: record %s: %w", s.name, run.Manifest.RunID, err)
	}
	if run.Manifest.Private && !s.d.postgres {
		// A SQLite store that holds a private run (values derived from a DSN) is private too.
		for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
			if err := os.Chmod(s.name+suffix, 0o600); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("store %s: %w", s.name, err)
			}
		}
	}
	return nil
}

// record writes run in one transaction: its earlier record deleted, then a row of runs, its
// targets, steps (with their latency records) and intervals.
func (s *Store) record(ctx context.Context, run *results.Run) error {
	m := storedManifest(run)
	manifest, err := json.Marshal(m)
	if err != nil {
		return err
	}
	dir := run.Dir
	if dir != "" {
		if dir, err = filepath.Abs(dir); err != nil {
			return err
		}
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := s.schemaShared(ctx, tx); err != nil {
		return err
	}
	r := &recording{s: s, tx: tx, run: run, m: m, id: m.RunID}
	if err := r.clear(ctx); err != nil {
		return err
	}
	if err := r.runRow(ctx, dir, manifest); err != nil {
		return err
	}
	if err := r.targets(ctx); err != nil {
		return err
	}
	if err := r.steps(ctx); err != nil {
		return err
	}
	if err := r.intervals(ctx); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return tx.Commit()
}

// storedManifest is run's manifest as the store keeps it: in the current model (results.Load
// upgrades older ones: the stored manifest says so, or a reader would upgrade them again), and
// abandoned when it is a killed run's directory, imported.
func storedManifest(run *results.Run) *results.Manifest {
	current := *run.Manifest
	current.SchemaVersion = results.SchemaVersion
	if current.Abandoned() {
		current.Status = results.StatusAbandoned
	}
	return &current
}

// recording is one run's record being written in its transaction.
type recording struct {
	s   *Store
	tx  *sql.Tx
	run *results.Run
	m   *results.Manifest // the manifest as stored
	id  string            // the run's id
}

// clear deletes the run's earlier record, if any.
func (r *recording) clear(ctx context.Context) error {
	for _, t := range []string{"step_latency", "steps", "intervals", "targets", "runs"} {
		if _, err := r.tx.ExecContext(ctx, r.s.d.q("DELETE FROM "+t+" WHERE run_id = ?"), r.id); err != nil {
			return err
		}
	}
	return nil
}

// runRow inserts the run's row: its summary columns, dir (absolute) and the manifest's JSON.
func (r *recording) runRow(ctx context.Context, dir string, manifest []byte) error {
	m, d := r.m, r.s.d
	var engines, labels []string
	for _, t := range m.Targets {
		labels = append(labels, t.Label)
		if !slices.Contains(engines, t.Engine.Name) {
			engines = append(engines, t.Engine.Name)
		}
	}
	_, err := r.tx.ExecContext(ctx, d.q(`INSERT INTO runs (run_id, label, workload, engines, targets, start_time, end_time,
		status, error, rumbench_version, git_sha, result_schema_version, dir, steps_count, intervals_count, recorded_at, manifest)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		r.id, m.Label, m.Workload, strings.Join(engines, ","), strings.Join(labels, ","), d.timeArg(m.Start), d.timeArg(m.End),
		m.Status, m.Error, m.Version, m.GitSHA, m.SchemaVersion, dir, len(r.run.Steps), len(r.run.Intervals),
		d.timeArg(time.Now()), string(manifest))
	if err != nil {
		return err
	}
	r.s.hook("runs")
	return nil
}

// targets inserts a row per target of the manifest.
func (r *recording) targets(ctx context.Context) error {
	rows := make([][]any, 0, len(r.m.Targets))
	for i, t := range r.m.Targets {
		doc, err := json.Marshal(t)
		if err != nil {
			return err
		}
		rows = append(rows, []any{r.id, i, t.Label, t.Engine.Name, t.Engine.Family, t.Engine.Version, t.DataDir, t.Check, string(doc)})
	}
	if err := r.s.insert(ctx, r.tx, "targets", []string{"run_id", "seq", "label", "engine", "family", "engine_version", "data_dir", "check_result", "doc"}, rows); err != nil {
		return err
	}
	r.s.hook("targets")
	return nil
}

// steps inserts a row per step record, and a row per latency record of each into
// step_latency (the step's own document leaves them out).
func (r *recording) steps(ctx context.Context) error {
	d := r.s.d
	var stepRows, latRows [][]any
	for i := range r.run.Steps {
		st := r.run.Steps[i]
		for j := range st.Latency {
			doc, err := json.Marshal(&st.Latency[j])
			if err != nil {
				return err
			}
			row := []any{r.id, i, j, st.Target, st.Step, string(doc)}
			latRows = append(latRows, d.values(row, reflect.ValueOf(st.Latency[j]), latencyCols))
		}
		if len(st.Latency) > 0 {
			st.Latency = nil // kept in step_latency
		}
		doc, err := json.Marshal(&st)
		if err != nil {
			return err
		}
		stepRows = append(stepRows, d.values([]any{r.id, i, string(doc)}, reflect.ValueOf(st), stepCols))
	}
	if err := r.s.insert(ctx, r.tx, "steps", append([]string{"run_id", "seq", "doc"}, names(stepCols)...), stepRows); err != nil {
		return err
	}
	r.s.hook("steps")
	if err := r.s.insert(ctx, r.tx, "step_latency", append([]string{"run_id", "step_seq", "seq", "target", "step", "doc"}, names(latencyCols)...), latRows); err != nil {
		return err
	}
	r.s.hook("step_latency")
	return nil
}

// intervals inserts a row per interval record.
func (r *recording) intervals(ctx context.Context) error {
	ivs := r.run.Intervals
	rows := make([][]any, 0, len(ivs))
	for i := range ivs {
		doc, err := json.Marshal(&ivs[i])
		if err != nil {
			return err
		}
		rows = append(rows, r.s.d.values([]any{r.id, i, string(doc)}, reflect.ValueOf(ivs[i]), intervalCol))
	}
	if err := r.s.insert(ctx, r.tx, "intervals", append([]string{"run_id", "seq", "doc"}, names(intervalCol)...), rows); err != nil {
		return err
	}
	r.s.hook("intervals")
	return nil
}

func (s *Store) hook(table string) {
	if s.afterTable != nil {
		s.afterTable(table)
	}
}

// insert writes rows into table with multi-row INSERT statements.
func (s *Store) insert(ctx context.Context, tx *sql.Tx, table string, cols []string, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = quote(c)
	}
	head := "INSERT INTO " + table + " (" + strings.Join(quoted, ", ") + ") VALUES "
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
	per := max(1, maxParams/len(cols))
	for len(rows) > 0 {
		n := min(per, len(rows))
		args := make([]any, 0, n*len(cols))
		for _, r := range rows[:n] {
			if len(r) != len(cols) {
				return fmt.Errorf("insert into %s: %d values for %d columns", table, len(r), len(cols))
			}
			args = append(args, r...)
		}
		query := head + strings.TrimSuffix(strings.Repeat(one+", ", n), ", ")
		if _, err := tx.ExecContext(ctx, s.d.q(query), args...); err != nil {
			return fmt.Errorf("insert into %s: %w", table, err)
		}
		rows = rows[n:]
	}
	return nil
}

// markAbandoned sets the status of every run recorded "running" whose process is gone (see
// results.Manifest.Abandoned) to "abandoned", in the runs table and in its manifest.
func (s *Store) markAbandoned(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, s.d.q("SELECT run_id, manifest FROM runs WHERE status = ?"), results.StatusRunning)
	if err != nil {
		return err
	}
	var gone []string
	for rows.Next() {
		var id, doc string
		if err := rows.Scan(&id, &doc); err != nil {
			rows.Close()
			return err
		}
		var m results.Manifest
		if json.Unmarshal([]byte(doc), &m) == nil && m.Abandoned() {
			gone = append(gone, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, id := range gone {
		// Only if still running: the run may have been recorded again meanwhile.
		if _, err := s.setField(ctx, id, "status", results.StatusAbandoned, results.StatusRunning); err != nil {
			return err
		}
	}
	return nil
}
