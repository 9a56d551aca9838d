package linkbench

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload/worktest"
)

// TestReferenceSQL runs the script of requests on a private PostgreSQL that logs every statement
// it receives and compares each request's statements with the reference's (the Small Datum
// fork's LinkStoreSql and LinkStorePgsql), in order.
func TestReferenceSQL(t *testing.T) {
	const (
		addLink    = "INSERT INTO linktable (id1, id2, link_type, visibility, data, version, time) VALUES (?, ?, ?, ?, ?, ?, ?)"
		upsert     = "INSERT INTO counttable (id, link_type, count, time, version) VALUES (?, ?, ?, ?, ?) ON CONFLICT ON CONSTRAINT counttable_pkey DO UPDATE SET count = counttable.count + ?, version = counttable.version + 1, time = ?"
		forUpdate  = "SELECT visibility FROM linktable WHERE id1 = ? AND id2 = ? AND link_type = ? FOR UPDATE"
		updateLink = "UPDATE linktable SET visibility = ?, data = ?, version = ?, time = ? WHERE id1 = ? AND id2 = ? AND link_type = ?"
		hide       = "UPDATE linktable SET visibility = 0 WHERE id1 = ? AND id2 = ? AND link_type = ?"
		countInc   = "UPDATE counttable SET count = count + ?, version = version + 1, time = ? WHERE id = ? AND link_type = ?"
		sel        = "SELECT id1, id2, link_type, visibility, data, version, time FROM linktable"
	)
	want := [][]string{
		{"SELECT count from counttable WHERE id = ? AND link_type = ?"},
		{"BEGIN", addLink, upsert, "COMMIT"},
		{"BEGIN", addLink, "ROLLBACK", "BEGIN", forUpdate, updateLink, "COMMIT"},
		{"BEGIN", forUpdate, updateLink, "COMMIT"},
		{"BEGIN", forUpdate, hide, countInc, "COMMIT"},
		{"BEGIN", forUpdate, "ROLLBACK"},
		{"BEGIN", forUpdate, "ROLLBACK", "BEGIN", addLink, upsert, "COMMIT"},
		{sel + " WHERE id1 = ? AND link_type = ? and id2 IN (?,?,?)"},
		{sel + " WHERE id1 = ? AND link_type = ?  AND time >= ? AND time <= ? AND visibility = 1 ORDER BY time DESC LIMIT ? OFFSET ?"},
		{"INSERT INTO nodetable (type, version, time, data) VALUES (?, ?, ?, ?) RETURNING id"},
		{"UPDATE nodetable SET version=?, time=?, data=? WHERE id=? AND type=?"},
		{"DELETE FROM nodetable WHERE id=? and type =?"},
		{"SELECT id, type, version, time, data FROM nodetable WHERE id=?"},
	}
	ctx := context.Background()
	eng, dir := worktest.LoggingPostgres(t)
	_, c := opsRun(t, struct{ table.Engine }{eng}, dir)
	db := eng.(interface{ DB() *sql.DB }).DB()
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
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	got := worktest.LoggedStatements(t, dir)
	for i, w := range want {
		if g := got[strconv.Itoa(i)]; strings.Join(g, "\n") != strings.Join(w, "\n") {
			t.Errorf("request %d %v: statements\n%s\nwant\n%s", i, script(2)[i].Op, strings.Join(g, "\n"), strings.Join(w, "\n"))
		}
	}
}
