// Package sqlfam implements the table model over database/sql with per-dialect SQL. SQLite uses it
// now; PostgreSQL and MySQL join by implementing Dialect.
//
// Every statement is prepared once per session (connection) and run with bound parameters. An
// insert of n rows is one multi-row INSERT statement run in autocommit mode, as the insert
// benchmark's client does, so one call is one transaction.
package sqlfam

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/rumbench/rumbench/internal/table"
)

// Dialect is what differs between SQL engines.
type Dialect interface {
	// Name is the engine name ("sqlite", "postgres", "mysql").
	Name() string
	// ColumnType returns the SQL type of a column (the primary key is declared separately).
	ColumnType(c table.Column) string
	// PrimaryKey returns the declaration of the primary key column c (int64 or int32, maybe
	// auto-increment; or bytes, see StringKey).
	PrimaryKey(c table.Column) string
	// AutoIDInsert returns the statement inserting one row of t whose primary key the database
	// generates, with a placeholder for each other column.
	AutoIDInsert(t *table.Table) string
	// TableSuffix is appended to CREATE TABLE (e.g. "ENGINE=InnoDB"); may be empty.
	TableSuffix() string
	// Placeholder returns the i-th (0-based) bind placeholder: "?" or "$1".
	Placeholder(i int) string
	// IndexHint returns the clause that forces index ix after the table name in a SELECT
	// ("INDEXED BY x", "FORCE INDEX (x)"), or "" when the dialect has none.
	IndexHint(t *table.Table, ix table.Index) string
	// DeleteOldest returns a statement deleting the first $2 rows in primary-key order with key
	// >= $1 (the parameters are fromPK, n in that order).
	DeleteOldest(t *table.Table) string
	// IndexDDL returns the statements that create every secondary index of t (see
	// CreateIndexStatements for one CREATE INDEX per index).
	IndexDDL(t *table.Table) []string
	// NativeTime says whether Timestamp columns have a SQL time type (bound and scanned as
	// time.Time in UTC) rather than an integer of unix seconds.
	NativeTime() bool
	// MaxParams is the most bind parameters one statement may have.
	MaxParams() int
	// Cleanup runs maintenance between the load and query phases and says what it did.
	Cleanup(ctx context.Context, db *sql.DB, tables []string) (string, error)
	// Size returns the database's own size figure in bytes, false if there is none.
	Size(ctx context.Context, db *sql.DB) (int64, bool, error)
}

// Settler is implemented by dialects whose database defers work a commit causes (a checkpoint,
// a WAL checkpoint, dirty pages in a buffer pool): see table.Settler. A dialect without it has
// nothing deferred.
type Settler interface {
	Settle(ctx context.Context, db *sql.DB) (table.Settled, error)
}

// StringKey returns the declaration of a Bytes primary key column c: its column type, NOT NULL,
// PRIMARY KEY ("ycsb_key varchar(255) NOT NULL PRIMARY KEY").
func StringKey(d Dialect, c table.Column) string {
	return c.Name + " " + d.ColumnType(c) + " NOT NULL PRIMARY KEY"
}

// IndexName is the SQL name of an index: its SQLName, else <table>_<index>, as the insert
// benchmark names them.
func IndexName(t *table.Table, ix table.Index) string {
	if ix.SQLName != "" {
		return ix.SQLName
	}
	return t.Name + "_" + ix.Name
}

// createTableSQL returns CREATE TABLE for t: a single-column key declared by the dialect, a
// composite key as PRIMARY KEY (a, b, ...) after the columns.
func createTableSQL(d Dialect, t *table.Table) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s (", t.Name)
	from := 0
	if t.Keys() == 1 {
		b.WriteString(d.PrimaryKey(t.Columns[0]))
		from = 1
	}
	for i, c := range t.Columns[from:] {
		if from > 0 || i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s", c.Name, d.ColumnType(c))
		if c.NotNull || from+i < t.Keys() {
			b.WriteString(" NOT NULL")
		}
	}
	if t.Keys() > 1 {
		keys := make([]int, t.Keys())
		for i := range keys {
			keys[i] = i
		}
		fmt.Fprintf(&b, ", PRIMARY KEY (%s)", ColumnList(t, keys))
	}
	b.WriteString(")")
	if s := d.TableSuffix(); s != "" {
		b.WriteString(" " + s)
	}
	return b.String()
}

// DeleteOldestIn returns the insert benchmark's delete of the n oldest rows from fromPK on, in the
// form PostgreSQL needs (an IN subquery with ORDER BY and LIMIT), with placeholders from and n.
func DeleteOldestIn(t *table.Table, from, n string) string {
	pk := t.Columns[0].Name
	return fmt.Sprintf("DELETE FROM %s WHERE %s IN (SELECT %s FROM %s WHERE %s >= %s ORDER BY %s LIMIT %s)",
		t.Name, pk, pk, t.Name, pk, from, pk, n)
}

// CreateIndexStatements returns one CREATE INDEX statement per secondary index of t.
func CreateIndexStatements(t *table.Table) []string {
	out := make([]string, len(t.Indexes))
	for i, ix := range t.Indexes {
		out[i] = fmt.Sprintf("CREATE INDEX %s ON %s (%s)", IndexName(t, ix), t.Name, ColumnList(t, ix.Columns))
	}
	return out
}

// ColumnList returns the names of columns cols of t, comma-separated.
func ColumnList(t *table.Table, cols []int) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = t.Columns[c].Name
	}
	return strings.Join(names, ",")
}

// InsertSQL returns the multi-row INSERT of n rows of t with every column, in d's placeholders:
// the statement every SQL engine loads rows with.
func InsertSQL(d Dialect, t *table.Table, n int) string {
	var b strings.Builder
	all := make([]int, len(t.Columns))
	for i := range all {
		all[i] = i
	}
	fmt.Fprintf(&b, "INSERT INTO %s (%s) VALUES ", t.Name, ColumnList(t, all))
	p := 0
	for r := 0; r < n; r++ {
		if r > 0 {
			b.WriteString(",")
		}
		b.WriteString("(")
		for c := range t.Columns {
			if c > 0 {
				b.WriteString(",")
			}
			b.WriteString(d.Placeholder(p))
			p++
		}
		b.WriteString(")")
	}
	return b.String()
}

// getSQL returns a primary-key IN-list lookup of n keys returning cols.
func getSQL(d Dialect, t *table.Table, n int, cols []int) string {
	ph := make([]string, n)
	for i := range ph {
		ph[i] = d.Placeholder(i)
	}
	return fmt.Sprintf("SELECT %s FROM %s WHERE %s IN (%s)", ColumnList(t, cols), t.Name, t.Columns[0].Name, strings.Join(ph, ","))
}

// scanSQL returns the covering range scan of index ix from a prefix of nstart columns, as the
// insert benchmark's range queries are written.
func scanSQL(d Dialect, t *table.Table, ix table.Index, nstart int, inclusive bool, limit int) string {
	op := ">="
	if !inclusive {
		op = ">"
	}
	lhs := ColumnList(t, ix.Columns[:nstart])
	ph := make([]string, nstart)
	for i := range ph {
		ph[i] = d.Placeholder(i)
	}
	rhs := strings.Join(ph, ",")
	if nstart > 1 {
		lhs, rhs = "("+lhs+")", "("+rhs+")"
	}
	from := t.Name
	if h := d.IndexHint(t, ix); h != "" {
		from += " " + h
	}
	cols := ColumnList(t, ix.Columns)
	where := fmt.Sprintf(" WHERE %s %s %s", lhs, op, rhs)
	if nstart == 0 {
		where = "" // no start: from the first entry
	}
	return fmt.Sprintf("SELECT %s FROM %s%s ORDER BY %s LIMIT %d", cols, from, where, cols, limit)
}

// countSQL counts the rows of t, through index ix when it is not nil.
func countSQL(d Dialect, t *table.Table, ix *table.Index) string {
	if ix == nil {
		return "SELECT COUNT(*) FROM " + t.Name
	}
	return fmt.Sprintf("SELECT COUNT(*) FROM %s %s", t.Name, d.IndexHint(t, *ix))
}

// AutoIDInsertZero returns the MySQL form of an insert with a generated key: 0 for the key
// ("INSERT INTO t (id, k, c) VALUES (0, ?, ?)").
func AutoIDInsertZero(t *table.Table) string { return autoIDInsert(t, "0", "?") }

// AutoIDInsertNull returns the SQLite form: NULL for the key.
func AutoIDInsertNull(t *table.Table) string { return autoIDInsert(t, "NULL", "?") }

// AutoIDInsertOmit returns the PostgreSQL form: the key left out; placeholders are ph followed by
// their number ("$1"), or "?".
func AutoIDInsertOmit(t *table.Table, ph string) string { return autoIDInsert(t, "", ph) }

func autoIDInsert(t *table.Table, key, ph string) string {
	var cols, vals []string
	if key != "" {
		cols, vals = append(cols, t.Columns[0].Name), append(vals, key)
	}
	for i, c := range t.Columns[1:] {
		cols = append(cols, c.Name)
		if ph == "?" {
			vals = append(vals, "?")
		} else {
			vals = append(vals, fmt.Sprintf("%s%d", ph, i+1))
		}
	}
	return fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", t.Name, strings.Join(cols, ", "), strings.Join(vals, ", "))
}

// Renumber rewrites the '?' placeholders of q (outside quotes) with the dialect's.
func Renumber(d Dialect, q string) string {
	if d.Placeholder(0) == "?" {
		return q
	}
	var b strings.Builder
	n, quoted := 0, false
	for i := 0; i < len(q); i++ {
		switch c := q[i]; {
		case c == '\'':
			quoted = !quoted
			b.WriteByte(c)
		case c == '?' && !quoted:
			b.WriteString(d.Placeholder(n))
			n++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
