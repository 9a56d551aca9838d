// Package table is the table model that every workload speaks and every engine implements.
//
// A workload describes tables (typed columns, an integer or string primary key, secondary indexes) and issues
// operations on them through a Session; an engine implements those operations over its own storage.
// Nothing outside an engine package knows which engine runs.
package table

import (
	"fmt"
	"strings"
)

// Type is the type of a column.
type Type uint8

const (
	// Int64 is a signed 64-bit integer column.
	Int64 Type = iota
	// Timestamp is a point in time stored as int64 seconds since the Unix epoch (UTC). SQL engines
	// declare it with their datetime type where they have one.
	Timestamp
	// Bytes is a variable-length byte string column (varchar/blob).
	Bytes
	// Int32 is a signed 32-bit integer column (SQL int), held in Value.I; 4 bytes in KV keys.
	Int32
)

// String returns the type's name.
func (t Type) String() string {
	switch t {
	case Int64:
		return "int64"
	case Timestamp:
		return "timestamp"
	case Bytes:
		return "bytes"
	case Int32:
		return "int32"
	}
	return fmt.Sprintf("type(%d)", uint8(t))
}

// Column is one column of a table.
type Column struct {
	Name    string
	Type    Type
	NotNull bool
	// MaxLen is the declared maximum length of a Bytes column (SQL varchar size); 0 means unbounded.
	MaxLen int
	// Text marks a Bytes column whose values are valid UTF-8 text: SQL engines declare it varchar
	// rather than a binary type.
	Text bool
	// Fixed marks a Text column of fixed length MaxLen (SQL CHAR(n)).
	Fixed bool
	// AutoIncrement marks a primary key that engines can generate (AUTO_INCREMENT, SERIAL): see
	// Stmt.AutoID. Explicit keys may still be inserted.
	AutoIncrement bool
}

// Index is a secondary index: an ordered list of column positions. Index entries are unique
// because the primary key is appended to them.
type Index struct {
	Name    string
	Columns []int
	// SQLName is the index's name in SQL engines when the reference names it so (LinkBench's
	// id1_type); empty: <table>_<Name>. SQL names of indexes are unique per database in
	// PostgreSQL and SQLite.
	SQLName string
}

// Table describes one table. The primary key is its first Keys() columns, each Int64, Int32 or
// Bytes: a string key (YCSB's "user<n>") needs a MaxLen and is ordered bytewise by KV engines (a
// Text key by the server's collation on SQL engines, which agrees for ASCII letters and digits).
// A composite key (LinkBench's (link_type, id1, id2)) orders by its columns in turn. Session.Get
// and Session.DeleteOldest take single integer keys only; other tables are read and written
// through Exec.
type Table struct {
	Name    string
	Columns []Column
	// KeyLen is the number of leading columns that form the primary key; 0 is read as 1.
	KeyLen  int
	Indexes []Index
	// DDL, when set, are the statements that create the table with its secondary indexes on a
	// SQL engine, in place of the ones it derives from Columns and Indexes: a reference's own
	// DDL (its column types, partitions, character set). They must create the same column and
	// index names, so that the statements derived from the description run on the table. Other
	// engines ignore it.
	DDL []string
}

// Keys returns the number of primary key columns (at least 1).
func (t *Table) Keys() int { return max(t.KeyLen, 1) }

// Validate checks the table description: table, column and index names that CheckIdent accepts
// (so no name can carry SQL or a document-store operator into an engine), column names unique,
// primary key columns of an integer type or of Bytes with a MaxLen (auto-increment only for a
// single integer key), and index columns that exist (Bytes index columns need a MaxLen too).
func (t *Table) Validate() error {
	if t.Name == "" {
		return fmt.Errorf("table has no name")
	}
	if err := CheckIdent(t.Name); err != nil {
		return fmt.Errorf("table name %w", err)
	}
	seen := make(map[string]bool, len(t.Columns))
	for _, c := range t.Columns {
		if err := CheckIdent(c.Name); err != nil {
			return fmt.Errorf("table %s: column name %w", t.Name, err)
		}
		if seen[strings.ToLower(c.Name)] {
			return fmt.Errorf("table %s: column %s appears twice", t.Name, c.Name)
		}
		seen[strings.ToLower(c.Name)] = true
	}
	for _, ix := range t.Indexes {
		for _, n := range []string{ix.Name, ix.SQLName} {
			if n == "" {
				continue // an unnamed index is refused below; no SQLName means <table>_<Name>
			}
			if err := CheckIdent(n); err != nil {
				return fmt.Errorf("table %s: index name %w", t.Name, err)
			}
		}
		if ix.SQLName == "" && len(t.Name)+1+len(ix.Name) > MaxIdentLen {
			return fmt.Errorf("table %s: index %s: its SQL name %s_%s is longer than %d characters", t.Name, ix.Name, t.Name, ix.Name, MaxIdentLen)
		}
	}
	if len(t.Columns) <= t.Keys()-1 || t.KeyLen < 0 {
		return fmt.Errorf("table %s: column 0 must be the int64, int32 or bytes primary key (and KeyLen at most the columns)", t.Name)
	}
	for i, c := range t.Columns[:t.Keys()] {
		switch {
		case c.Type == Timestamp:
			return fmt.Errorf("table %s: column %d must be an int64, int32 or bytes primary key column", t.Name, i)
		case c.Type == Bytes && (c.AutoIncrement || c.MaxLen <= 0):
			return fmt.Errorf("table %s: a bytes primary key needs a MaxLen and cannot be auto-increment", t.Name)
		case c.AutoIncrement && t.Keys() > 1:
			return fmt.Errorf("table %s: an auto-increment key must be the only key column", t.Name)
		}
	}
	for _, ix := range t.Indexes {
		if ix.Name == "" || len(ix.Columns) == 0 {
			return fmt.Errorf("table %s: index needs a name and columns", t.Name)
		}
		for _, c := range ix.Columns {
			if c < 0 || c >= len(t.Columns) || (t.Keys() == 1 && c == 0) {
				return fmt.Errorf("table %s: index %s names column %d, which is not a non-key column", t.Name, ix.Name, c)
			}
			if t.Columns[c].Type == Bytes && t.Columns[c].MaxLen <= 0 {
				return fmt.Errorf("table %s: index %s on bytes column %s needs the column's MaxLen", t.Name, ix.Name, t.Columns[c].Name)
			}
		}
	}
	return nil
}

// IndexByName returns the position of the named index in t.Indexes, or -1.
func (t *Table) IndexByName(name string) int {
	for i, ix := range t.Indexes {
		if ix.Name == name {
			return i
		}
	}
	return -1
}
