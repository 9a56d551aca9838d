// Package table is the table model that every workload speaks and every engine implements.
//
// A workload describes tables (typed columns, an integer or string primary key, secondary indexes) and issues
// operations on them through a Session; an engine implements those operations over its own storage.
// Nothing outside an engine package knows which engine runs.
package table

import "fmt"

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
}

// Table describes one table. Column 0 is the primary key: Int64 or Int32, or Bytes for a string
// key (YCSB's "user<n>"), which engines order bytewise (a Text key by the server's collation,
// which agrees for ASCII letters and digits). Session.Get and Session.DeleteOldest take integer
// keys only; a string-keyed table is read and written through Exec.
type Table struct {
	Name    string
	Columns []Column
	Indexes []Index
}

// Validate checks the table description: a name, an Int64, Int32 or Bytes primary key in column
// 0 (a Bytes key with a MaxLen, auto-increment only for integers), and index columns that exist.
func (t *Table) Validate() error {
	if t.Name == "" {
		return fmt.Errorf("table has no name")
	}
	if len(t.Columns) == 0 || t.Columns[0].Type == Timestamp {
		return fmt.Errorf("table %s: column 0 must be the int64, int32 or bytes primary key", t.Name)
	}
	if pk := t.Columns[0]; pk.Type == Bytes && (pk.AutoIncrement || pk.MaxLen <= 0) {
		return fmt.Errorf("table %s: a bytes primary key needs a MaxLen and cannot be auto-increment", t.Name)
	}
	for _, ix := range t.Indexes {
		if ix.Name == "" || len(ix.Columns) == 0 {
			return fmt.Errorf("table %s: index needs a name and columns", t.Name)
		}
		for _, c := range ix.Columns {
			if c <= 0 || c >= len(t.Columns) {
				return fmt.Errorf("table %s: index %s names column %d, which is not a non-key column", t.Name, ix.Name, c)
			}
			if t.Columns[c].Type == Bytes {
				return fmt.Errorf("table %s: index %s on bytes column %s is not supported", t.Name, ix.Name, t.Columns[c].Name)
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
