package store

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/rumbench/rumbench/internal/results"
)

// SchemaVersion is the version of the store's table layout, kept in the schema_version table.
// Columns that follow a new field of the result model are added by Open without a version
// change; a change that is not such an addition bumps it.
const SchemaVersion = 1

// column is one queryable column of steps, step_latency or intervals: a scalar field of the
// result model, named after its JSON name.
type column struct {
	name  string
	index int // field index in the struct
	typ   string
}

// renamed are JSON names that are SQL keywords; their columns get plainer names.
var renamed = map[string]string{"start": "start_time", "end": "end_time", "group": "step_group"}

var (
	timeType    = reflect.TypeFor[time.Time]()
	stepCols    = columnsOf(reflect.TypeFor[results.Step](), "run_id", "seq", "doc")
	latencyCols = columnsOf(reflect.TypeFor[results.Latency](), "run_id", "step_seq", "seq", "target", "step", "doc")
	intervalCol = columnsOf(reflect.TypeFor[results.Interval](), "run_id", "seq", "doc")
)

// columnsOf returns a column for each scalar field of t with a JSON name: strings, integers,
// floats, bools (also *bool, NULL when nil), times and string lists (comma-joined). Maps and
// other slices live in the row's JSON document only, as does a field named like one of the
// table's own columns (reserved).
func columnsOf(t reflect.Type, reserved ...string) []column {
	var cols []column
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		if r, ok := renamed[name]; ok {
			name = r
		}
		if slices.Contains(reserved, name) {
			continue
		}
		var typ string
		switch k := f.Type.Kind(); {
		case f.Type == timeType:
			typ = "TIMESTAMP"
		case k == reflect.String:
			typ = "TEXT"
		case k >= reflect.Int && k <= reflect.Int64, k >= reflect.Uint && k <= reflect.Uint32:
			typ = "BIGINT"
		case k == reflect.Float64 || k == reflect.Float32:
			typ = "DOUBLE PRECISION"
		case k == reflect.Bool, k == reflect.Pointer && f.Type.Elem().Kind() == reflect.Bool:
			typ = "BOOLEAN"
		case k == reflect.Slice && f.Type.Elem().Kind() == reflect.String:
			typ = "TEXT"
		default:
			continue
		}
		cols = append(cols, column{name: name, index: i, typ: typ})
	}
	return cols
}

// values appends the column values of the struct v to args.
func (d *dialect) values(args []any, v reflect.Value, cols []column) []any {
	for _, c := range cols {
		f := v.Field(c.index)
		switch {
		case f.Type() == timeType:
			args = append(args, d.timeArg(f.Interface().(time.Time)))
		case f.Kind() == reflect.Pointer:
			if f.IsNil() {
				args = append(args, nil)
			} else {
				args = append(args, f.Elem().Bool())
			}
		case f.Kind() == reflect.Slice:
			args = append(args, strings.Join(f.Interface().([]string), ","))
		case f.Kind() == reflect.String:
			args = append(args, f.String())
		case f.CanInt():
			args = append(args, f.Int())
		case f.CanUint():
			args = append(args, int64(f.Uint()))
		case f.CanFloat():
			args = append(args, f.Float())
		case f.Kind() == reflect.Bool:
			args = append(args, f.Bool())
		}
	}
	return args
}

func names(cols []column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.name
	}
	return out
}

// table is one table of the store: fixed key columns, then the model's columns.
type table struct {
	name  string
	fixed []string // "name TYPE" of the leading columns
	model []column
	pk    string
}

var tables = []table{
	{name: "runs", fixed: []string{
		"run_id TEXT NOT NULL", "label TEXT NOT NULL", "workload TEXT NOT NULL",
		"engines TEXT NOT NULL", "targets TEXT NOT NULL",
		"start_time TIMESTAMP", "end_time TIMESTAMP", "status TEXT NOT NULL", "error TEXT NOT NULL",
		"rumbench_version TEXT NOT NULL", "git_sha TEXT NOT NULL", "result_schema_version BIGINT NOT NULL",
		"dir TEXT NOT NULL", "steps_count BIGINT NOT NULL", "intervals_count BIGINT NOT NULL",
		"recorded_at TIMESTAMP NOT NULL", "manifest TEXT NOT NULL"}, pk: "run_id"},
	{name: "targets", fixed: []string{
		"run_id TEXT NOT NULL", "seq BIGINT NOT NULL", "label TEXT NOT NULL", "engine TEXT NOT NULL",
		"family TEXT NOT NULL", "engine_version TEXT NOT NULL", "data_dir TEXT NOT NULL",
		"check_result TEXT NOT NULL", "doc TEXT NOT NULL"}, pk: "run_id, seq"},
	{name: "steps", fixed: []string{"run_id TEXT NOT NULL", "seq BIGINT NOT NULL", "doc TEXT NOT NULL"},
		model: stepCols, pk: "run_id, seq"},
	{name: "step_latency", fixed: []string{"run_id TEXT NOT NULL", "step_seq BIGINT NOT NULL", "seq BIGINT NOT NULL",
		"target TEXT NOT NULL", "step TEXT NOT NULL", "doc TEXT NOT NULL"},
		model: latencyCols, pk: "run_id, step_seq, seq"},
	{name: "intervals", fixed: []string{"run_id TEXT NOT NULL", "seq BIGINT NOT NULL", "doc TEXT NOT NULL"},
		model: intervalCol, pk: "run_id, seq"},
}

// migrate creates the tables (in one transaction), checks the schema version and adds the
// columns of result fields newer than the tables.
func (s *Store) migrate(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if s.d.postgres {
		// Two processes opening a new database at once would race on CREATE TABLE; and the
		// DDL below locks the tables in another order than a recording transaction does
		// (deadlock): writers hold the same lock shared (schemaShared).
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", schemaLock); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)"); err != nil {
		return err
	}
	var version int
	switch err := tx.QueryRowContext(ctx, "SELECT version FROM schema_version").Scan(&version); {
	case err == sql.ErrNoRows:
		if _, err := tx.ExecContext(ctx, s.d.q("INSERT INTO schema_version (version) VALUES (?)"), SchemaVersion); err != nil {
			return err
		}
	case err != nil:
		return err
	case version > SchemaVersion:
		return fmt.Errorf("store: %s has schema version %d, newer than this rumbench knows (%d)", s.name, version, SchemaVersion)
	}
	for _, t := range tables {
		var defs []string
		for _, def := range t.fixed {
			name, typ, _ := strings.Cut(def, " ")
			defs = append(defs, quote(name)+" "+s.d.typ(typ))
		}
		for _, c := range t.model {
			defs = append(defs, quote(c.name)+" "+s.d.typ(c.typ))
		}
		ddl := fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (%s, PRIMARY KEY (%s))", t.name, strings.Join(defs, ", "), t.pk)
		if _, err := tx.ExecContext(ctx, ddl); err != nil {
			return fmt.Errorf("store: create %s: %w", t.name, err)
		}
		have, err := s.d.columns(ctx, tx, t.name)
		if err != nil {
			return err
		}
		for _, c := range t.model {
			if !have[c.name] {
				add := fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s %s", t.name, quote(c.name), s.d.typ(c.typ))
				if _, err := tx.ExecContext(ctx, add); err != nil {
					return fmt.Errorf("store: %s: %w", add, err)
				}
			}
		}
	}
	if err := s.createShardTables(ctx, tx); err != nil {
		return err
	}
	for _, ix := range []string{
		"CREATE INDEX IF NOT EXISTS runs_start ON runs (start_time)",
		"CREATE INDEX IF NOT EXISTS targets_engine ON targets (engine)",
	} {
		if _, err := tx.ExecContext(ctx, ix); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// schemaLock is the PostgreSQL advisory lock that orders the schema's DDL (held exclusively by
// migrate) before the writes of runs (held shared by each writing transaction).
const schemaLock = 7268725

// schemaShared takes the schema lock shared for the transaction tx (PostgreSQL; nothing for
// SQLite, whose transactions lock the whole file), so a writer never interleaves with migrate's
// DDL: both take the advisory lock before any table lock.
func (s *Store) schemaShared(ctx context.Context, tx *sql.Tx) error {
	if !s.d.postgres {
		return nil
	}
	_, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock_shared($1)", schemaLock)
	return err
}

// quote quotes an identifier (double quotes: standard SQL, SQLite and PostgreSQL).
func quote(name string) string { return `"` + name + `"` }
