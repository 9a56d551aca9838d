package script

import (
	"context"
	"fmt"
	"strings"

	"github.com/rumbench/rumbench/internal/table"
)

// BuiltinNames are pgbench's built-in scripts (pgbench -b), in pgbench's order.
var BuiltinNames = []string{"tpcb-like", "simple-update", "select-only"}

// builtinScripts are pgbench's built-in scripts as pgbench 15 shows them (--show-script).
var builtinScripts = map[string]string{
	"tpcb-like": `\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`,
	"simple-update": `\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`,
	"select-only": `\set aid random(1, 100000 * :scale)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
`,
}

// Rows per scale unit, as pgbench -i loads them.
const (
	branchesPerScale = 1
	tellersPerScale  = 10
	accountsPerScale = 100_000
)

// loadBatch is the rows of one INSERT (one transaction) of the init step.
const loadBatch = 1000

// Tables are pgbench's tables, in pgbench's order.
var Tables = []string{"pgbench_history", "pgbench_tellers", "pgbench_accounts", "pgbench_branches"}

// schema is pgbench's DDL in an engine's dialect.
type schema struct {
	create []string // CREATE TABLE statements
	keys   []string // statements after the load: primary keys, statistics
}

// schemaFor returns pgbench's tables for a SQL engine (by its dialect, and a MySQL server's
// table engine). PostgreSQL gets pgbench's own DDL (fillfactor 100, primary keys added after the
// load, then VACUUM ANALYZE); SQLite, MySQL and MyRocks declare the primary keys with the
// tables (SQLite cannot add one later; InnoDB and MyRocks cluster rows by it).
func schemaFor(info table.Info, scale int64) (schema, error) {
	key := "int"
	if scale >= 20000 { // pgbench's rule: aid needs a bigint beyond 2^31 accounts
		key = "bigint"
	}
	var s schema
	switch info.Dialect {
	case table.DialectPostgres:
		s.create = []string{
			"CREATE TABLE pgbench_history (tid int, bid int, aid " + key + ", delta int, mtime timestamp, filler char(22))",
			"CREATE TABLE pgbench_tellers (tid int not null, bid int, tbalance int, filler char(84)) WITH (fillfactor=100)",
			"CREATE TABLE pgbench_accounts (aid " + key + " not null, bid int, abalance int, filler char(84)) WITH (fillfactor=100)",
			"CREATE TABLE pgbench_branches (bid int not null, bbalance int, filler char(88)) WITH (fillfactor=100)",
		}
		s.keys = []string{
			"ALTER TABLE pgbench_branches ADD PRIMARY KEY (bid)",
			"ALTER TABLE pgbench_tellers ADD PRIMARY KEY (tid)",
			"ALTER TABLE pgbench_accounts ADD PRIMARY KEY (aid)",
			"VACUUM ANALYZE pgbench_branches",
			"VACUUM ANALYZE pgbench_tellers",
			"VACUUM ANALYZE pgbench_accounts",
			"VACUUM ANALYZE pgbench_history",
		}
	case table.DialectSQLite, table.DialectMySQL:
		suffix := ""
		if info.TableEngine != "" {
			suffix = " ENGINE=" + info.TableEngine
		}
		s.create = []string{
			"CREATE TABLE pgbench_history (tid int, bid int, aid " + key + ", delta int, mtime timestamp NULL, filler char(22))" + suffix,
			"CREATE TABLE pgbench_tellers (tid int not null PRIMARY KEY, bid int, tbalance int, filler char(84))" + suffix,
			"CREATE TABLE pgbench_accounts (aid " + key + " not null PRIMARY KEY, bid int, abalance int, filler char(84))" + suffix,
			"CREATE TABLE pgbench_branches (bid int not null PRIMARY KEY, bbalance int, filler char(88))" + suffix,
		}
		if info.Dialect == table.DialectSQLite {
			s.keys = []string{"ANALYZE"}
		} else {
			s.keys = []string{"ANALYZE TABLE pgbench_branches, pgbench_tellers, pgbench_accounts, pgbench_history"}
		}
	default:
		return s, fmt.Errorf("no pgbench schema for engine %s: it speaks no SQL dialect pgbench's tables are written for (postgres, mysql, sqlite)", info.Name)
	}
	return s, nil
}

// insertText returns the INSERT of n rows of table (one of the three loaded tables), two
// arguments per row: the key and the branch (the account's or teller's; none for branches).
func insertText(tbl string, n int) string {
	var b strings.Builder
	var row string
	switch tbl {
	case "pgbench_branches":
		b.WriteString("INSERT INTO pgbench_branches (bid, bbalance) VALUES ")
		row = "(?, 0)"
	case "pgbench_tellers":
		b.WriteString("INSERT INTO pgbench_tellers (tid, bid, tbalance) VALUES ")
		row = "(?, ?, 0)"
	default:
		b.WriteString("INSERT INTO pgbench_accounts (aid, bid, abalance, filler) VALUES ")
		row = "(?, ?, 0, '')"
	}
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(row)
	}
	return b.String()
}

// loader inserts pgbench's rows in batches: the branches, the tellers, then the accounts.
type loader struct {
	sess  table.SQLSession
	scale int64
	next  [3]int64 // rows loaded so far per table: branches, tellers, accounts
	args  []table.Value
	out   *table.Rows
	texts map[int]string
}

var loadTables = [3]string{"pgbench_branches", "pgbench_tellers", "pgbench_accounts"}

func (l *loader) total(t int) int64 {
	return l.scale * [3]int64{branchesPerScale, tellersPerScale, accountsPerScale}[t]
}

// batch inserts the next batch and returns the rows inserted; 0 when every row is loaded.
func (l *loader) batch(ctx context.Context) (int, error) {
	t := 0
	for t < 3 && l.next[t] >= l.total(t) {
		t++
	}
	if t == 3 {
		return 0, nil
	}
	n := int(min(loadBatch, l.total(t)-l.next[t]))
	key := t<<20 | n
	text := l.texts[key]
	if text == "" {
		text = insertText(loadTables[t], n)
		l.texts[key] = text
	}
	l.args = l.args[:0]
	for i := int64(0); i < int64(n); i++ {
		id := l.next[t] + i + 1
		l.args = append(l.args, table.Value{I: id})
		switch t {
		case 1:
			l.args = append(l.args, table.Value{I: (id-1)/tellersPerScale + 1})
		case 2:
			l.args = append(l.args, table.Value{I: (id-1)/accountsPerScale + 1})
		}
	}
	if _, err := l.sess.ExecSQL(ctx, text, l.args, l.out); err != nil {
		return 0, fmt.Errorf("load %s: %w", loadTables[t], err)
	}
	l.next[t] += int64(n)
	return n, nil
}
