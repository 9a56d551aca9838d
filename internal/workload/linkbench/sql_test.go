package linkbench

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/table"
)

var (
	logStatement  = regexp.MustCompile(`LOG:  (?:statement|execute [^:]*): (.*)$`)
	pgPlaceholder = regexp.MustCompile(`\$[0-9]+`)
	marker        = regexp.MustCompile(`^SELECT 'rumbench-test:(.*)'$`)
)

// TestReferenceSQL runs the script of requests on a private PostgreSQL that logs every statement
// it receives and compares each request's statements with the reference's (the Small Datum
// fork's LinkStoreSql and LinkStorePgsql), in order.
func TestReferenceSQL(t *testing.T) {
	spec, ok := engine.Lookup("postgres")
	if !ok {
		t.Skip("no postgres engine")
	}
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
	dir := t.TempDir()
	os.Chmod(filepath.Dir(dir), 0o755)
	conf := filepath.Join(t.TempDir(), "log.conf")
	os.Chmod(filepath.Dir(conf), 0o755)
	if err := os.WriteFile(conf, []byte("log_statement = 'all'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	eng, err := spec.Open(ctx, engine.Options{Dir: dir, CacheBytes: 8 << 20, Extra: map[string]string{"server_config": conf}})
	if err != nil {
		t.Fatal(err)
	}
	_, c := opsRun(t, struct{ table.Engine }{eng}, dir)
	db := eng.(interface{ DB() *sql.DB }).DB()
	for i, req := range script(2) {
		if _, err := db.ExecContext(ctx, "SELECT 'rumbench-test:"+strconv.Itoa(i)+"'"); err != nil {
			t.Fatal(err)
		}
		c.req = req
		if _, err := c.do(ctx); err != nil {
			t.Fatalf("request %d %v: %v", i, req.Op, err)
		}
	}
	db.ExecContext(ctx, "SELECT 'rumbench-test:end'")
	c.sess.Close()
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	cur := ""
	for _, line := range strings.Split(string(data), "\n") {
		m := logStatement.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		stmt := pgPlaceholder.ReplaceAllString(m[1], "?")
		if mk := marker.FindStringSubmatch(stmt); mk != nil {
			cur = mk[1]
			continue
		}
		if cur != "" && stmt != "-- ping" { // database/sql's liveness check of a pooled connection
			got[cur] = append(got[cur], stmt)
		}
	}
	for i, w := range want {
		if g := got[strconv.Itoa(i)]; strings.Join(g, "\n") != strings.Join(w, "\n") {
			t.Errorf("request %d %v: statements\n%s\nwant\n%s", i, script(2)[i].Op, strings.Join(g, "\n"), strings.Join(w, "\n"))
		}
	}
}
