package linkbench

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload/worktest"
)

// The fork's statements (LinkStoreSql, LinkStoreMysql, LinkStorePgsql), byte for byte as
// Connector/J sent them to MariaDB's general log, without the database prefix (linkdb0.).
const (
	refAddLink    = "INSERT INTO linktable (id1, id2, link_type, visibility, data, version, time) VALUES (?, ?, ?, ?, ?, ?, ?)"
	refForUpdate  = "SELECT visibility FROM linktable WHERE id1 = ? AND id2 = ? AND link_type = ? FOR UPDATE"
	refUpdateLink = "UPDATE linktable SET visibility = ?,     data = ?,     version = ?,     time = ? WHERE id1 = ? AND id2 = ? AND link_type = ?"
	refHide       = "UPDATE linktable SET visibility = 0 WHERE id1 = ? AND id2 = ? AND link_type = ?"
	refCountInc   = "UPDATE counttable SET count = count + ?,     version = version + 1,     time = ? WHERE id = ? AND link_type = ?"
	refSelect     = "SELECT id1, id2, link_type, visibility, data, version, time FROM linktable"
	refCount      = "SELECT count from counttable WHERE id = ? AND link_type = ?"
	refMultiget   = refSelect + " WHERE id1 = 1 AND link_type = 2 and id2 IN (3,4,5)"
	refListWhere  = " WHERE id1 = ? AND link_type = ?  AND time >= ? AND time <= ? AND visibility = 1 ORDER BY time DESC LIMIT ? OFFSET ?"
	refAddNode    = "INSERT INTO nodetable (type, version, time, data) VALUES (?, ?, ?, ?)"
	refUpdateNode = "UPDATE nodetable SET version=?, time=?, data=? WHERE id=? AND type=?"
	refDeleteNode = "DELETE FROM nodetable WHERE id=? and type =?"
	refGetNode    = "SELECT id, type, version, time, data FROM nodetable WHERE id=?"
)

// runScript runs the script of requests on eng, each after a Mark on the engine's pool, and
// closes the engine. Before the script, each query of ddl (one value) must return its want: the
// tables are the fork's.
func runScript(t *testing.T, eng table.Engine, dir string, ddl map[string]string) {
	t.Helper()
	ctx := context.Background()
	_, c := opsRun(t, struct{ table.Engine }{eng}, dir)
	db := eng.(interface{ DB() *sql.DB }).DB()
	for q, want := range ddl {
		var got string
		if err := db.QueryRowContext(ctx, q).Scan(&got); err != nil || got != want {
			t.Errorf("%s: %q (%v), want %q", q, got, err, want)
		}
	}
	for i, req := range script(2) {
		if _, err := db.ExecContext(ctx, worktest.Mark(strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
		c.req = req
		if _, err := c.do(ctx); err != nil {
			t.Fatalf("request %d %v: %v", i, req.Op, err)
		}
	}
	db.ExecContext(ctx, worktest.Mark(""))
	c.sess.Close()
	c.w.Close()
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
}

// compareScript compares the statements logged per request of the script with want.
func compareScript(t *testing.T, got map[string][]string, want [][]string) {
	t.Helper()
	for i, w := range want {
		if g := got[strconv.Itoa(i)]; strings.Join(g, "\n") != strings.Join(w, "\n") {
			t.Errorf("request %d %v: statements\n%s\nwant\n%s", i, script(2)[i].Op, strings.Join(g, "\n"), strings.Join(w, "\n"))
		}
	}
}

// TestReferenceSQL runs the script of requests on a private PostgreSQL that logs every statement
// it receives and compares each request's statements with the reference's (the Small Datum
// fork's LinkStoreSql and LinkStorePgsql, with pgjdbc's BEGIN on the write connection), in order.
func TestReferenceSQL(t *testing.T) {
	// The fork writes the initial version, 0, into the text; rumbench binds it.
	upsert := "INSERT INTO counttable(id, link_type, count, time, version) VALUES (?, ?, ?, ?, ?) ON CONFLICT ON CONSTRAINT counttable_pkey DO UPDATE SET  count = counttable.count + ?, version = counttable.version + 1 , time = ?"
	want := [][]string{
		{refCount},
		{"BEGIN", refAddLink, upsert, "COMMIT"},
		{"BEGIN", refAddLink, "ROLLBACK", "BEGIN", refForUpdate, refUpdateLink, "COMMIT"},
		{"BEGIN", refForUpdate, refUpdateLink, "COMMIT"},
		{"BEGIN", refForUpdate, refHide, refCountInc, "COMMIT"},
		{"BEGIN", refForUpdate, "ROLLBACK"},
		{"BEGIN", refForUpdate, "ROLLBACK", "BEGIN", refAddLink, upsert, "COMMIT"},
		{refSelect + " WHERE id1 = ? AND link_type = ? and id2 IN (?,?,?)"},
		{refSelect + refListWhere},
		{refAddNode + " RETURNING id"},
		{refUpdateNode},
		{refDeleteNode},
		{refGetNode},
	}
	eng, dir := worktest.LoggingPostgres(t)
	runScript(t, eng, dir, map[string]string{
		"SELECT data_type || ' ' || numeric_precision FROM information_schema.columns WHERE table_name = 'linktable' AND column_name = 'id1'": "numeric 20",
		"SELECT data_type FROM information_schema.columns WHERE table_name = 'linktable' AND column_name = 'visibility'":                      "smallint",
	})
	compareScript(t, worktest.LoggedStatements(t, dir), want)
}

// TestReferenceSQLMariaDB runs the script of requests on a private MariaDB that writes every
// statement to its general log and compares each request's statements with the reference's (the
// fork's LinkStoreSql and LinkStoreMysql through Connector/J), in order, with the connection
// each went on: 1 the read connection (autocommit on), 2 the write connection (autocommit off:
// no BEGIN; no ROLLBACK after a duplicate key, whose error reply tells the driver of no open
// transaction).
func TestReferenceSQLMariaDB(t *testing.T) {
	upsert := "INSERT INTO counttable (id, link_type, count, time, version) VALUES (?, ?, ?, ?, 0) ON DUPLICATE KEY UPDATE count = count + ?, version = version + 1, time = ?"
	r := func(s ...string) []string { return conn("1", s) }
	w := func(s ...string) []string { return conn("2", s) }
	want := [][]string{
		r(refCount),
		w(refAddLink, upsert, "COMMIT"),
		w(refAddLink, refForUpdate, refUpdateLink, "COMMIT"),
		w(refForUpdate, refUpdateLink, "COMMIT"),
		w(refForUpdate, refHide, refCountInc, "COMMIT"),
		w(refForUpdate, "ROLLBACK"),
		w(refForUpdate, "ROLLBACK", refAddLink, upsert, "COMMIT"),
		r(refMultiget),
		r(refSelect + " FORCE INDEX(id1_type) " + refListWhere),
		r(refAddNode),
		r(refUpdateNode),
		r(refDeleteNode),
		r(refGetNode),
	}
	eng, path := worktest.LoggingMariaDB(t)
	dir := t.TempDir()
	runScript(t, eng, dir, map[string]string{
		"SELECT column_type FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'linktable' AND column_name = 'id1'":                                   "bigint(20) unsigned",
		"SELECT CONCAT(column_type, ' ', character_set_name) FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'nodetable' AND column_name = 'data'": "mediumtext latin1",
		"SELECT COUNT(*) FROM information_schema.partitions WHERE table_schema = DATABASE() AND table_name = 'linktable'":                                                           "16",
	})
	compareScript(t, worktest.MariaDBStatements(t, path), want)
}

// conn returns the statements as MariaDBStatements shows them on connection n.
func conn(n string, stmts []string) []string {
	out := make([]string, len(stmts))
	for i, s := range stmts {
		out[i] = n + ": " + worktest.NormalizeMySQL(s)
	}
	return out
}

// TestClientPaths runs the script of requests on MariaDB through the driver's statement API and
// through database/sql, which bind payloads as strings: the tables are then rumbench's, and
// every request and the count check still work.
func TestClientPaths(t *testing.T) {
	for _, extra := range []map[string]string{{"wire": "driver"}, {"client": "sql"}} {
		t.Run(fmt.Sprint(extra), func(t *testing.T) {
			eng, dir := worktest.Engine(t, "mysql", false, extra)
			run, c := opsRun(t, eng, dir)
			ctx := context.Background()
			for i, req := range script(2) {
				c.req = req
				if _, err := c.do(ctx); err != nil {
					t.Fatalf("request %d %v: %v", i, req.Op, err)
				}
			}
			if _, err := run.Check(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}
