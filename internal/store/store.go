// Package store is the results store: every run (its manifest, targets, step records with their
// latency histograms, and interval records) recorded in a database, for listing, labelling and
// reading runs back when their directories are gone.
//
// The store is an embedded SQLite file by default (results/rumbench.db) and PostgreSQL when
// given a postgres:// URL; both have the same tables:
//
//   - runs: one row per run (run_id, label, workload, engines, targets, start_time, end_time,
//     status, error, steps_count, …) and the manifest (run.json) as a JSON document;
//   - targets: one row per target (label, engine, family, engine_version, check_result, doc);
//   - steps: one row per step record, a column per scalar field of steps.json plus the record
//     as a JSON document (doc; its latency list lives in step_latency);
//   - step_latency: one row per step × operation kind, a column per figure and the whole
//     latency record (percentiles and histogram buckets included) as doc;
//   - intervals: one row per line of intervals.jsonl, columns and doc;
//   - schema_version: the table layout's version.
//
// Columns are named after the JSON fields (start, end and group become start_time, end_time and
// step_group); times are TIMESTAMPTZ in PostgreSQL and fixed-width UTC RFC3339 text in SQLite.
// The JSON documents are what Load reads, so nothing of a run is lost; the columns are for
// filtering and SQL. Recording a run is one transaction: a run is in the store whole or not at
// all.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	_ "github.com/mattn/go-sqlite3"    // database/sql driver "sqlite3"

	"github.com/rumbench/rumbench/internal/input"
	redactpkg "github.com/rumbench/rumbench/internal/redact"
)

// DefaultPath is the SQLite file Open uses for an empty spec.
const DefaultPath = "results/rumbench.db"

// ErrNoStore is returned by OpenExisting when the SQLite file does not exist.
var ErrNoStore = errors.New("no results store")

// ErrNotFound is returned when no run matches a run id or prefix.
var ErrNotFound = errors.New("no such run")

// Store is an open results store. It is safe for concurrent use.
type Store struct {
	db   *sql.DB
	d    dialect
	name string // the SQLite path or the redacted URL, for messages

	afterTable func(table string) // tests: called inside Record after each table is written
}

// IsPostgres reports whether spec names a PostgreSQL store (postgres:// or postgresql://).
func IsPostgres(spec string) bool {
	return strings.HasPrefix(spec, "postgres://") || strings.HasPrefix(spec, "postgresql://")
}

// CheckSpec reports whether spec is a store Open accepts: empty, a file path, or a PostgreSQL
// URL. Other URLs (scheme://...) are refused. It does not connect.
func CheckSpec(spec string) error {
	if IsPostgres(spec) {
		if redactpkg.UnescapedAt(spec) {
			return fmt.Errorf("store %s: %s", redact(spec), redactpkg.AtRule)
		}
		if _, err := url.Parse(spec); err != nil {
			return fmt.Errorf("store %q: %v", redact(spec), redact(err.Error()))
		}
		return nil
	}
	if i := strings.Index(spec, "://"); i > 0 {
		return fmt.Errorf("store %q: unsupported URL scheme %q (valid: a SQLite file path, postgres://...)", spec, spec[:i])
	}
	return nil
}

// Name returns the store's name for messages: the SQLite file or the URL without its password.
func (s *Store) Name() string { return s.name }

// Open opens (creating when needed) the store spec: empty means DefaultPath, a postgres:// or
// postgresql:// URL a PostgreSQL database, anything else a SQLite file (its directory is
// created). The tables are created or brought up to date.
func Open(ctx context.Context, spec string) (*Store, error) {
	if err := CheckSpec(spec); err != nil {
		return nil, err
	}
	var s *Store
	if IsPostgres(spec) {
		db, err := sql.Open("pgx", spec)
		if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		s = &Store{db: db, d: dialect{postgres: true}, name: redact(spec)}
	} else {
		if spec == "" {
			spec = DefaultPath
		}
		if err := os.MkdirAll(filepath.Dir(spec), 0o755); err != nil {
			return nil, fmt.Errorf("store %s: %w", spec, err)
		}
		if st, err := os.Stat(spec); err == nil {
			if err := input.CheckRegular(st, math.MaxInt64); err != nil {
				return nil, fmt.Errorf("store %s: %w", spec, err) // a directory, /dev/zero
			}
		}
		q := url.Values{"_busy_timeout": {"30000"}, "_txlock": {"immediate"}}
		db, err := sql.Open("sqlite3", "file:"+input.SQLitePath(spec)+"?"+q.Encode())
		if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		db.SetMaxOpenConns(1)
		s = &Store{db: db, name: spec}
	}
	if err := s.db.PingContext(ctx); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("store %s: %w", s.name, oneLine{err})
	}
	if err := s.migrate(ctx); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("store %s: %w", s.name, err)
	}
	if err := s.markAbandoned(ctx); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("store %s: %w", s.name, err)
	}
	return s, nil
}

// OpenExisting is Open for commands that only read or change recorded runs: a SQLite file that
// does not exist is ErrNoStore instead of being created.
func OpenExisting(ctx context.Context, spec string) (*Store, error) {
	if !IsPostgres(spec) {
		p := spec
		if p == "" {
			p = DefaultPath
		}
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("%w at %s", ErrNoStore, p)
		}
	}
	return Open(ctx, spec)
}

// Close closes the store's connections.
func (s *Store) Close() error { return s.db.Close() }

// redact returns spec with its password masked, for messages.
func redact(spec string) string { return redactpkg.DSN(spec) }

// dialect holds the differences between SQLite and PostgreSQL.
type dialect struct{ postgres bool }

// sqliteTime is the layout of times in SQLite: fixed width, so text order is time order.
const sqliteTime = "2006-01-02T15:04:05.000000000Z"

// q rewrites ? placeholders to PostgreSQL's $n (queries here have no ? inside literals).
func (d *dialect) q(query string) string {
	if !d.postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// typ maps a column type of the schema to the database's: TIMESTAMP is TIMESTAMPTZ in
// PostgreSQL and TEXT in SQLite.
func (d *dialect) typ(t string) string {
	rest, ok := strings.CutPrefix(t, "TIMESTAMP")
	if !ok {
		return t
	}
	if d.postgres {
		return "TIMESTAMPTZ" + rest
	}
	return "TEXT" + rest
}

// timeArg is the query argument for a time: NULL for the zero time.
func (d *dialect) timeArg(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	if d.postgres {
		return t.UTC()
	}
	return t.UTC().Format(sqliteTime)
}

// columns returns the names of the columns table has.
func (d *dialect) columns(ctx context.Context, tx *sql.Tx, table string) (map[string]bool, error) {
	query := "SELECT name FROM pragma_table_info(?)"
	if d.postgres {
		query = "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1"
	}
	rows, err := tx.QueryContext(ctx, query, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		have[n] = true
	}
	return have, rows.Err()
}

// timeCol scans a time column of either database (time or text; NULL is the zero time).
type timeCol struct{ t *time.Time }

func (c timeCol) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*c.t = time.Time{}
	case time.Time:
		*c.t = v.UTC()
	case string:
		return c.parse(v)
	case []byte:
		return c.parse(string(v))
	default:
		return fmt.Errorf("store: time column holds %T", src)
	}
	return nil
}

func (c timeCol) parse(s string) error {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("store: time column: %w", err)
	}
	*c.t = t.UTC()
	return nil
}

// oneLine shows an error on one line (pgx connection errors list each address tried on a line
// of its own).
type oneLine struct{ err error }

func (e oneLine) Error() string {
	s := strings.ReplaceAll(strings.ReplaceAll(e.err.Error(), ":\n", ": "), "\n", "; ")
	return strings.Join(strings.Fields(s), " ")
}
func (e oneLine) Unwrap() error { return e.err }
