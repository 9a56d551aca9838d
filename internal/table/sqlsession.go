package table

import "context"

// SQLSession is implemented by the sessions of SQL engines: they run a statement's text as a
// user wrote it (a pgbench script's), not one of the table model's operations. Engines without
// SQL (the KV and document families) do not implement it; a workload that needs it refuses
// them.
type SQLSession interface {
	// ExecSQL runs text, one SQL statement with a '?' marker outside quotes for each argument
	// (translated to the dialect's own markers), with args bound in order: an argument whose B
	// is nil is the integer I; one whose B is not nil is the text B, which the server converts to
	// the parameter's type. The statement is prepared on this session at its first run and kept
	// until the session closes (at most MaxSQLStatements distinct texts per session).
	//
	// A statement that returns rows (a SELECT, WITH, VALUES, SHOW or any with RETURNING) resets
	// out to its columns and appends its rows, every cell as its text in B (nil for NULL), and
	// returns how many rows it returned; another statement leaves out alone and returns the rows
	// it changed. The portable way to run a transaction is the session's Begin, Commit and
	// Rollback (SQLite's BEGIN IMMEDIATE; MySQL, which has no END); a dialect that prepares
	// BEGIN and COMMIT (PostgreSQL) also takes them through ExecSQL, the session being on one
	// connection either way. A statement that meets a serialization failure, a deadlock or a
	// lock timeout returns an error that errors.Is finds ErrConflict; the caller then rolls
	// back.
	ExecSQL(ctx context.Context, text string, args []Value, out *Rows) (int64, error)
	// SQLColumns returns the names of the columns of the rows text's last ExecSQL on this
	// session returned, nil when it returned no rows or never ran. The slice is the session's:
	// read it, do not keep or change it.
	SQLColumns(text string) []string
	// QueryReadOnly runs text, one SQL statement without arguments, as ExecSQL does, in a
	// transaction that cannot change the database, then rolls it back: a read-only transaction
	// (START TRANSACTION READ ONLY) on PostgreSQL, one in a read-only session on MySQL/MariaDB
	// (where DDL would otherwise commit the transaction and run), the connection's query_only
	// setting on SQLite, which has no read-only transaction. A statement that writes, DDL
	// included, fails with the server's error. Call it outside a transaction.
	QueryReadOnly(ctx context.Context, text string, out *Rows) (int64, error)
}

// MaxSQLStatements bounds the distinct statement texts a session prepares through ExecSQL.
const MaxSQLStatements = 4096
