package table

import (
	"errors"
	"fmt"
	"slices"
)

// The SQL dialects' names: the keys of Stmt.Dialects.
const (
	DialectPostgres = "postgres"
	DialectMySQL    = "mysql"
	DialectSQLite   = "sqlite"
)

// The MySQL storage engines a server creates tables with (Info.TableEngine), as DDL names them.
const (
	TableEngineInnoDB  = "InnoDB"
	TableEngineRocksDB = "ROCKSDB"
)

// StmtKind is what a statement does.
type StmtKind uint8

const (
	// Select returns the rows that Where matches (or one aggregate row).
	Select StmtKind = iota
	// Update sets columns of the rows that Where matches.
	Update
	// Delete removes the rows that Where matches.
	Delete
	// InsertRow inserts one row given by the arguments.
	InsertRow
	// Upsert inserts one row given by the arguments or, when its primary key exists, applies
	// the Set assignments to the existing row, their arguments after the row's (MySQL's INSERT
	// ... ON DUPLICATE KEY UPDATE, PostgreSQL's and SQLite's ON CONFLICT DO UPDATE: the dialects'
	// texts go in Dialects). Rows affected: 1 for an insert; for an update 2 on MySQL and the
	// KV engines, 1 on PostgreSQL and SQLite.
	Upsert
)

// Match is the form of a statement's key predicate.
type Match uint8

const (
	// Eq matches one key value: the predicate's argument.
	Eq Match = iota
	// In matches a list of key values: InLen arguments.
	In
	// Between matches the closed key range [lo, hi]: two arguments.
	Between
	// All matches every row, each tested by the statement's Filter (a full scan).
	All
	// From matches the first rows in key order whose key is >= the first argument, as many as
	// the second argument (an Int64 limit) says: SQL's WHERE k >= ? ORDER BY k LIMIT ? (a YCSB
	// scan). Primary key only.
	From
)

// Agg is the aggregation of a Select.
type Agg uint8

const (
	// NoAgg returns the matched rows' Cols, in key order.
	NoAgg Agg = iota
	// Count returns one row: the number of matched rows whose column AggCol is not NULL.
	Count
	// Sum returns one row: the sum of column AggCol over the matched rows (0 when none).
	Sum
	// OrderBy returns the matched rows' Cols ordered by column AggCol (ties in key order).
	OrderBy
	// Distinct returns the distinct values of column AggCol, ordered; Cols must be {AggCol}.
	Distinct
)

// Assign is one assignment of an Update: column Col gets the next argument; when Add is not 0,
// its own value plus Add (SET k=k+1, no argument); when AddArg is set, its own value plus the
// next argument (SET count=count+?); when Const is set, Value, which the SQL text writes as a
// literal (SET visibility=0, no argument).
type Assign struct {
	Col    int
	Add    int64
	AddArg bool
	Const  bool
	Value  Value
}

// TakesArg says whether the assignment takes an argument.
func (a Assign) TakesArg() bool { return a.Add == 0 && !a.Const }

// Stmt is one statement a workload issues, in two equivalent forms: SQL, the reference text that
// SQL engines run (with '?' placeholders, which a dialect may renumber), and the logical form
// below, which engines without SQL execute. The two must say the same thing; the workload's tests
// check that every engine returns the same results.
//
// Arguments, in the order of the SQL placeholders: Update assignments' values (for Add == 0)
// first, then the values of the key's Prefix leading columns (but the Consts), then the key
// predicate's values (Eq: 1, In: InLen, Between: 2, From: the start key and the limit), then the
// AlsoEq values, then, with Limit, the row count and the offset; for InsertRow, every column
// (or every column but the primary key when AutoID, or InsertCols), for Upsert the same
// followed by the assignments' values.
type Stmt struct {
	Table *Table
	Kind  StmtKind
	// SQL is the statement text. An AutoID InsertRow may leave it empty: SQL engines render their
	// own form (how a generated key is asked for differs between dialects).
	SQL string
	// Dialects holds the statement's text for the SQL dialects (by dialect name: DialectPostgres,
	// DialectMySQL, DialectSQLite) whose syntax differs from SQL's (LIMIT offset, count; FOR
	// UPDATE; upserts), with the same arguments in the same order: '?' placeholders, or the
	// dialect's own numbered ones.
	Dialects map[string]string
	// Index is the index the key predicate is on: -1 for the primary key, else a secondary index
	// of Table.
	Index int
	// Prefix is the number of leading columns of that key (the primary key's columns, or the
	// index's) fixed by equality before Match applies to the next one: id1 = ? AND link_type = ?
	// AND id2 IN (...) is Prefix 2 and In on a (id1, link_type, id2) key. With Match All, the
	// statement matches every row of the prefix.
	Prefix int
	// Consts are the values of the last len(Consts) prefix columns when the SQL text writes them
	// as literals (visibility = 1) rather than placeholders: they take no argument.
	Consts []Value
	Match  Match
	// KeyOrder is the order of the key arguments (the prefix's, then an Eq match's) in the SQL
	// text when it differs from the key's column order: KeyOrder[i] is the key position (0 =
	// the key's first column) of the i-th. LinkBench writes WHERE id1 = ? AND id2 = ? AND
	// link_type = ? for a (link_type, id1, id2) key: KeyOrder {1, 2, 0}. It orders the prefix's
	// arguments and an Eq match's value; In, Between and limit arguments follow unchanged.
	KeyOrder []int
	// AlsoEq are non-key integer columns the statement also compares by equality, each with an
	// argument after the key predicate's (WHERE id = ? AND type = ?): a row whose key matches
	// but whose value differs is not matched. Primary-key Eq and In matches only.
	AlsoEq []int
	// InsertCols are the columns of an InsertRow's arguments in the order of the SQL text's
	// column list, when it differs from the table's (nil: every column in table order, the
	// key left out when AutoID).
	InsertCols []int
	// ForUpdate locks the rows a primary-key Select (Eq or In) reads until the transaction ends
	// (SELECT ... FOR UPDATE); outside a transaction the locks end with the statement.
	ForUpdate bool
	// ReturnID makes an AutoID InsertRow append one row to out with the key the engine
	// generated (LAST_INSERT_ID, RETURNING).
	ReturnID bool
	// Desc returns the matched rows in descending key order (Between, All; NoAgg only).
	Desc bool
	// Limit takes two more arguments, a row count and an offset: at most count of the matched
	// rows from the offset-th on (0-based, after Desc), SQL's LIMIT ? OFFSET ?.
	Limit bool
	// InLen is the number of values of an In predicate.
	InLen int
	// Cols are the columns a Select returns, as positions in Table.Columns.
	Cols []int
	Agg  Agg
	// AggCol is the column Count, Sum, OrderBy and Distinct work on.
	AggCol int
	// Set are an Update's assignments.
	Set []Assign
	// Filter, FilterCol and FilterLenBelow describe a filter on the matched rows: when Filter is
	// set, only rows where the byte length of column FilterCol is below FilterLenBelow
	// (sysbench's full scan with LENGTH(c) < 0 returns nothing).
	Filter         bool
	FilterCol      int
	FilterLenBelow int
	// AutoID says the engine assigns an InsertRow's primary key (auto-increment).
	AutoID bool
	// Unprepared asks SQL engines to send the text each time instead of preparing it once per
	// session (sysbench --db-ps-mode=disable).
	Unprepared bool
}

// Args returns the number of arguments the statement takes.
func (s *Stmt) Args() int {
	n := 0
	for _, a := range s.Set {
		if a.TakesArg() {
			n++
		}
	}
	switch s.Kind {
	case InsertRow, Upsert:
		if s.InsertCols != nil {
			return len(s.InsertCols) + n
		}
		if s.AutoID {
			return len(s.Table.Columns) - 1
		}
		return len(s.Table.Columns) + n
	}
	n += s.Prefix - len(s.Consts) + len(s.AlsoEq)
	if s.Limit {
		n += 2
	}
	switch s.Match {
	case Eq:
		n++
	case In:
		n += s.InLen
	case Between, From:
		n += 2
	}
	return n
}

// KeyCols returns the columns of the key the predicate is on, in key order: the primary key's,
// or the index's.
func (s *Stmt) KeyCols() []int {
	if s.Index < 0 {
		return pkColumns[:s.Table.Keys()]
	}
	return s.Table.Indexes[s.Index].Columns
}

// pkColumns are the positions of primary key columns (a key has at most len(pkColumns)).
var pkColumns = [...]int{0, 1, 2, 3, 4, 5, 6, 7}

// KeyCol returns the column Match applies to: the key column after the prefix.
func (s *Stmt) KeyCol() int { return s.KeyCols()[min(s.Prefix, len(s.KeyCols())-1)] }

// Validate checks that the logical form is complete and consistent.
func (s *Stmt) Validate() error {
	if s.Table == nil {
		return errors.New("statement has no table")
	}
	// In this order: a statement at fault in several ways is refused for the first.
	checks := [...]func(*Stmt) error{(*Stmt).checkKey, (*Stmt).checkRows, (*Stmt).checkKeyOrder, (*Stmt).checkClauses,
		(*Stmt).checkInsertCols, (*Stmt).checkMatch, (*Stmt).checkColumns, (*Stmt).checkKind}
	for _, check := range checks {
		if err := check(s); err != nil {
			return err
		}
	}
	return nil
}

// checkKey checks the key the predicate is on: the index, the primary key's size, the prefix
// and its constants.
func (s *Stmt) checkKey() error {
	t := s.Table
	if s.Index < -1 || s.Index >= len(t.Indexes) {
		return fmt.Errorf("statement on %s: no index %d", t.Name, s.Index)
	}
	if s.Table.Keys() > len(pkColumns) {
		return fmt.Errorf("statement on %s: a primary key of more than %d columns is not supported", t.Name, len(pkColumns))
	}
	if n := len(s.KeyCols()); s.Prefix < 0 || s.Prefix > n || s.Prefix == n && s.Match != All {
		return fmt.Errorf("statement on %s: prefix of %d columns on a key of %d", t.Name, s.Prefix, n)
	}
	if len(s.Consts) > s.Prefix {
		return fmt.Errorf("statement on %s: %d constant prefix values for a prefix of %d", t.Name, len(s.Consts), s.Prefix)
	}
	return nil
}

// checkRows checks that DESC and LIMIT apply to a range of rows a Select returns.
func (s *Stmt) checkRows() error {
	if (s.Desc || s.Limit) && (s.Kind != Select || s.Agg != NoAgg || s.Match == From || s.Match == In) {
		return fmt.Errorf("statement on %s: DESC and LIMIT apply to row ranges (Between, All) of a Select without aggregate", s.Table.Name)
	}
	return nil
}

// checkKeyOrder checks that KeyOrder, when set, is an order of the prefix's (and an Eq
// match's) arguments, with no constants in the prefix.
func (s *Stmt) checkKeyOrder() error {
	if s.KeyOrder == nil {
		return nil
	}
	n := s.Prefix - len(s.Consts)
	if s.Match == Eq {
		n++
	}
	seen := map[int]bool{}
	for _, p := range s.KeyOrder {
		if p < 0 || p >= n || seen[p] {
			seen[-1] = true
		}
		seen[p] = true
	}
	if len(s.KeyOrder) != n || seen[-1] || len(s.Consts) > 0 {
		return fmt.Errorf("statement on %s: KeyOrder %v is not an order of the %d prefix (and Eq) arguments", s.Table.Name, s.KeyOrder, n)
	}
	return nil
}

// checkClauses checks FOR UPDATE and the AlsoEq columns against the statement they apply to.
func (s *Stmt) checkClauses() error {
	t := s.Table
	if s.ForUpdate && (s.Kind != Select || s.Index != -1 || (s.Match != Eq && s.Match != In) || s.Prefix != t.Keys()-1) {
		return fmt.Errorf("statement on %s: FOR UPDATE locks rows read by their whole primary key", t.Name)
	}
	for _, c := range s.AlsoEq {
		if c < t.Keys() || c >= len(t.Columns) || t.Columns[c].Type == Bytes || s.Index != -1 || (s.Match != Eq && s.Match != In) {
			return fmt.Errorf("statement on %s: AlsoEq compares non-key integer columns of a primary-key = or IN", t.Name)
		}
	}
	return nil
}

// checkInsertCols checks an insert's column list and ReturnID: the list, when set, names every
// column (but a generated key) once.
func (s *Stmt) checkInsertCols() error {
	t := s.Table
	if s.InsertCols != nil {
		seen := map[int]bool{}
		for _, c := range s.InsertCols {
			if c < 0 || c >= len(t.Columns) || seen[c] || (s.AutoID && c == 0) {
				return fmt.Errorf("statement on %s: InsertCols %v is not a list of distinct columns", t.Name, s.InsertCols)
			}
			seen[c] = true
		}
		if want := len(t.Columns) - map[bool]int{true: 1}[s.AutoID]; (s.Kind != InsertRow && s.Kind != Upsert) || len(s.InsertCols) != want {
			return fmt.Errorf("statement on %s: InsertCols of an InsertRow name every column (but a generated key)", t.Name)
		}
	}
	if s.ReturnID && (s.Kind != InsertRow || !s.AutoID) {
		return fmt.Errorf("statement on %s: ReturnID needs an AutoID InsertRow", t.Name)
	}
	return nil
}

// checkMatch checks the In and From matches' own conditions.
func (s *Stmt) checkMatch() error {
	if s.Match == In && s.InLen <= 0 {
		return fmt.Errorf("statement on %s: IN with no values", s.Table.Name)
	}
	if s.Match == From && (s.Index != -1 || s.Kind != Select || s.Agg != NoAgg || s.Prefix > 0) {
		return fmt.Errorf("statement on %s: a From match is a primary-key Select of rows", s.Table.Name)
	}
	return nil
}

// checkCol checks that column c is one of the table's.
func (s *Stmt) checkCol(c int) error {
	if c < 0 || c >= len(s.Table.Columns) {
		return fmt.Errorf("statement on %s: no column %d", s.Table.Name, c)
	}
	return nil
}

// checkColumns checks the columns a Select returns and those an Update assigns (never the
// primary key's).
func (s *Stmt) checkColumns() error {
	for _, c := range s.Cols {
		if err := s.checkCol(c); err != nil {
			return err
		}
	}
	for _, a := range s.Set {
		if err := s.checkCol(a.Col); err != nil {
			return err
		}
		if a.Col < s.Table.Keys() {
			return fmt.Errorf("statement on %s: updating the primary key is not supported", s.Table.Name)
		}
	}
	return nil
}

// checkKind checks what each kind of statement requires: a Select's aggregate and filter
// columns, an Upsert's key, an Update's or Delete's primary-key match.
func (s *Stmt) checkKind() error {
	t := s.Table
	switch s.Kind {
	case Select:
		if s.Agg != NoAgg {
			if err := s.checkCol(s.AggCol); err != nil {
				return err
			}
		}
		if s.Agg == Distinct && (len(s.Cols) != 1 || s.Cols[0] != s.AggCol) {
			return fmt.Errorf("statement on %s: DISTINCT returns its own column only", t.Name)
		}
		if s.Agg == OrderBy && !slices.Contains(s.Cols, s.AggCol) {
			return fmt.Errorf("statement on %s: ORDER BY a column the statement does not return", t.Name)
		}
		if s.Filter {
			return s.checkCol(s.FilterCol)
		}
	case Upsert:
		if s.AutoID {
			return fmt.Errorf("statement on %s: an upsert names its key", t.Name)
		}
	case Update, Delete:
		if s.Index != -1 || (s.Match != Eq && s.Match != In) || s.Prefix != t.Keys()-1 {
			return fmt.Errorf("statement on %s: updates and deletes are by primary key (= or IN on its last column)", t.Name)
		}
	}
	return nil
}

// ErrDuplicate is returned (wrapped: test with errors.Is) by an insert whose primary key exists,
// on every engine (MySQL 1062, PostgreSQL 23505, SQLite's constraint error, the KV adapter's
// check). The transaction stays open for the caller to roll back.
var ErrDuplicate = errors.New("duplicate primary key")

// ErrConflict is returned by a write that met a row another session holds in an open
// transaction and could not wait for it without risking a deadlock. The transaction is rolled
// back; the caller may retry it (as sysbench retries a deadlocked transaction).
var ErrConflict = errors.New("write conflict: transaction rolled back")

// ErrUnsupported is returned (wrapped: test with errors.Is) by an engine that has no form of a
// statement (the document engine has none of a full scan filtered by a column's byte length).
// It is returned the first time the statement runs, before anything is done; the message
// names the statement and why.
var ErrUnsupported = errors.New("statement not supported by this engine")
