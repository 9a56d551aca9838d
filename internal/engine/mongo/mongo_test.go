package mongo

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx": the PostgreSQL backend's tables
	_ "github.com/mattn/go-sqlite3"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/server/ferrettest"
	"github.com/rumbench/rumbench/internal/table"
)

func TestMain(m *testing.M) {
	if _, err := ferrettest.Ensure(); err != nil {
		fmt.Fprintln(os.Stderr, "mongo:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// serverDir returns a fresh data directory whose parent others can traverse: the managed
// FerretDB's PostgreSQL backend runs as the postgres user when the tests run as root.
func serverDir(tb testing.TB) string {
	dir := tb.TempDir()
	os.Chmod(filepath.Dir(dir), 0o755)
	return dir
}

// openManaged opens the engine on a private FerretDB in a fresh directory.
func openManaged(tb testing.TB, extra map[string]string) *eng {
	tb.Helper()
	e, err := open(context.Background(), engine.Options{Dir: serverDir(tb), CacheBytes: 8 << 20, Sync: true, Extra: extra})
	if err != nil {
		tb.Fatalf("open: %v", err)
	}
	tb.Cleanup(func() { e.Close() })
	return e.(*eng)
}

var (
	items = &table.Table{Name: "items", Columns: []table.Column{
		{Name: "id", Type: table.Int64, NotNull: true},
		{Name: "k", Type: table.Int32, NotNull: true},
		{Name: "c", Type: table.Bytes, MaxLen: 20, Text: true},
		{Name: "pad", Type: table.Bytes},
	}, Indexes: []table.Index{{Name: "k_c", Columns: []int{1, 2}}}}
	links = &table.Table{Name: "links", KeyLen: 3, Columns: []table.Column{
		{Name: "link_type", Type: table.Int64, NotNull: true},
		{Name: "id1", Type: table.Int64, NotNull: true},
		{Name: "id2", Type: table.Int64, NotNull: true},
		{Name: "data", Type: table.Bytes},
	}}
)

func itemRows(from, n int) *table.Rows {
	rows := table.NewRows(4, n)
	for i := from; i < from+n; i++ {
		r := rows.Append()
		r[0], r[1], r[2], r[3] = table.Value{I: int64(i)}, table.Value{I: int64(i % 7)}, table.Value{B: fmt.Appendf(nil, "c%04d", i)}, table.Value{B: []byte{0, 1, byte(i)}}
	}
	return rows
}

// ext is doc in canonical extended JSON (every BSON type shown), without spaces after colons.
func ext(doc bson.Raw) string { return strings.ReplaceAll(doc.String(), `": `, `":`) }

// TestDocumentMapping checks the exact documents and indexes the engine writes: _id, field
// names and BSON types, the index key patterns, and the encoded _id of a composite key.
func TestDocumentMapping(t *testing.T) {
	ctx := context.Background()
	for _, idf := range []string{"native", "string"} {
		t.Run(idf, func(t *testing.T) {
			e := openManaged(t, map[string]string{"id_format": idf})
			if err := e.CreateTable(ctx, items, true); err != nil {
				t.Fatal(err)
			}
			s, _ := e.NewSession(ctx)
			defer s.Close()
			if err := s.Insert(ctx, items, itemRows(-2, 5)); err != nil {
				t.Fatal(err)
			}
			// Canonical extended JSON shows every BSON type.
			doc, err := e.db.Collection("items").FindOne(ctx, bson.D{{Key: "c", Value: "c-002"}}).Raw()
			if err != nil {
				t.Fatal(err)
			}
			want := `{"_id":{"$numberLong":"-2"},"k":{"$numberInt":"-2"},"c":"c-002","pad":{"$binary":{"base64":"AAH+","subType":"00"}}}`
			if idf == "string" {
				want = fmt.Sprintf(`{"_id":"%s","id":{"$numberLong":"-2"},"k":{"$numberInt":"-2"},"c":"c-002","pad":{"$binary":{"base64":"AAH+","subType":"00"}}}`,
					hex.EncodeToString(table.AppendValue(nil, table.Int64, table.Value{I: -2})))
			}
			if ext(doc) != want {
				t.Errorf("document = %s\nwant       %s", doc, want)
			}
			cur, err := e.db.Collection("items").Indexes().List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var ixs []struct {
				Name string   `bson:"name"`
				Key  bson.Raw `bson:"key"`
			}
			if err := cur.All(ctx, &ixs); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, ix := range ixs {
				got = append(got, ix.Name+" "+ext(ix.Key))
			}
			if want := `_id_ {"_id":{"$numberInt":"1"}}; k_c {"k":{"$numberInt":"1"},"c":{"$numberInt":"1"},"_id":{"$numberInt":"1"}}`; strings.Join(got, "; ") != want {
				t.Errorf("indexes = %s\nwant      %s", strings.Join(got, "; "), want)
			}
			// The table model reads back what it wrote, in key order through the _id range.
			n, err := s.DeleteOldest(ctx, items, -2, 2)
			if err != nil || n != 2 {
				t.Fatalf("DeleteOldest(-2, 2) = %d, %v", n, err)
			}
			out := table.NewRows(4, 4)
			if err := s.Get(ctx, items, []int64{-2, -1, 0, 2}, []int{0, 2, 1, 3}, out); err != nil {
				t.Fatal(err)
			}
			if out.N != 2 || out.Row(0)[0].I+out.Row(1)[0].I != 2 || string(out.Row(1)[3].B) != "\x00\x01\x02" && string(out.Row(0)[3].B) != "\x00\x01\x02" {
				t.Errorf("Get after DeleteOldest: %d rows %v", out.N, out.Vals)
			}
		})
	}

	e := openManaged(t, nil)
	if err := e.CreateTable(ctx, links, false); err != nil {
		t.Fatal(err)
	}
	s, _ := e.NewSession(ctx)
	defer s.Close()
	rows := table.NewRows(4, 1)
	copy(rows.Append(), []table.Value{{I: 1}, {I: 42}, {I: -7}, {B: []byte("x")}})
	if err := s.Insert(ctx, links, rows); err != nil {
		t.Fatal(err)
	}
	doc, err := e.db.Collection("links").FindOne(ctx, bson.D{}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	var key []byte
	for _, v := range []int64{1, 42, -7} {
		key = table.AppendValue(key, table.Int64, table.Value{I: v})
	}
	if want := fmt.Sprintf(`{"_id":"%x","link_type":{"$numberLong":"1"},"id1":{"$numberLong":"42"},"id2":{"$numberLong":"-7"},"data":{"$binary":{"base64":"eA==","subType":"00"}}}`, key); ext(doc) != want {
		t.Errorf("composite-key document = %v\nwant                     %s", doc, want)
	}
	// A statement on the key's prefix finds it through the _id range.
	st := &table.Stmt{Table: links, Kind: table.Select, Index: -1, Prefix: 2, Match: table.All, Cols: []int{2, 3},
		SQL: "SELECT id2, data FROM links WHERE link_type = ? AND id1 = ?"}
	out := table.NewRows(2, 1)
	if n, err := s.Exec(ctx, st, []table.Value{{I: 1}, {I: 42}}, out); err != nil || n != 1 || out.Row(0)[0].I != -7 {
		t.Errorf("prefix select: %d rows, %v, %v", n, err, out.Vals)
	}
	if info := e.Info(); info.Family != "document" || info.Options["txn"] != "per-statement" || info.Options["id_format"] != "string" ||
		!strings.HasPrefix(info.Version, "FerretDB v1.24.2 over PostgreSQL 1") || !strings.Contains(info.Version, ", MongoDB-compatible ") ||
		info.Options["backend"] != "postgresql" || !strings.Contains(info.Options["server.postgresql"], "synchronous_commit=on") {
		t.Errorf("Info = %+v", info)
	}
}

// TestOptions checks the option parsing: defaults, a --server-config file of client settings
// winning over --engine-opt, and one clear line for each bad value.
func TestOptions(t *testing.T) {
	dir := t.TempDir()
	jfalse := filepath.Join(dir, "j-false.conf")
	os.WriteFile(jfalse, []byte("# durability\nj = false\nw=majority\nwtimeout_ms=250\nread_concern=majority\n"), 0o600)
	c, err := parseConfig(map[string]string{"server_config": jfalse, "j": "true", "txn": "off"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if c.j || c.w != "majority" || c.wtimeout.Milliseconds() != 250 || c.readConcern != "majority" || c.txn != "off" || c.database != "rumbench" {
		t.Errorf("config = %+v", c)
	}
	wc := c.writeConcern()
	if wc.W != "majority" || wc.Journal == nil || *wc.Journal {
		t.Errorf("write concern = %+v", wc)
	}
	if c, _ := parseConfig(nil, true); !c.j || c.w != "1" || c.readConcernOf() != nil || c.backend != "postgresql" {
		t.Errorf("defaults with --sync = %+v", c)
	}
	bad := filepath.Join(dir, "bad.conf")
	os.WriteFile(bad, []byte("shared_buffers = 1GB\n"), 0o600)
	for _, tc := range []struct {
		extra map[string]string
		want  string
	}{
		{map[string]string{"j": "maybe"}, `j="maybe": want true or false`},
		{map[string]string{"w": "-1"}, "must be >= 0"},
		{map[string]string{"read_concern": "strong"}, "valid: default, local"},
		{map[string]string{"txn": "yes"}, "valid: auto, on, off"},
		{map[string]string{"w": "0", "j": "true"}, "w=0 (unacknowledged) cannot wait"},
		{map[string]string{"wtimeout_ms": "1s"}, "whole number of milliseconds"},
		{map[string]string{"database": "a.b"}, "database name"},
		{map[string]string{"database": "rumbench\x00admin"}, "database name"},
		{map[string]string{"database": "$cmd"}, "character '$' at 0"},
		{map[string]string{"database": "admin/../x"}, "character '/' at 5"},
		{map[string]string{"database": strings.Repeat("d", 64)}, "more than 63"},
		{map[string]string{"server_config": bad}, `line 1: "shared_buffers = 1GB" is not key=value with a key among`},
		{map[string]string{"server_config": filepath.Join(dir, "none")}, "no such file"},
		{map[string]string{"journal": "true"}, `has no option "journal"`},
		{map[string]string{"backend": "mysql"}, "valid: postgresql, sqlite"},
		{map[string]string{"backend": "sqlite", "dsn": "mongodb://127.0.0.1:1/"}, "with dsn the server is yours"},
	} {
		_, err := parseConfig(tc.extra, false)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: error %v, want one line containing %q", tc.extra, err, tc.want)
		}
	}
	if c, err := parseConfig(map[string]string{"w": "0"}, true); err != nil || c.j || c.writeConcern().Journal != nil {
		t.Errorf("w=0 with --sync: %+v, %v (j must not be sent)", c, err)
	}
}

// TestTxnOnStandalone checks that txn=on is refused on a server without transactions.
func TestTxnOnStandalone(t *testing.T) {
	_, err := open(context.Background(), engine.Options{Dir: serverDir(t), Extra: map[string]string{"txn": "on"}})
	if err == nil || !strings.Contains(err.Error(), "txn=on, but the server is a standalone FerretDB") {
		t.Errorf("open with txn=on: %v", err)
	}
}

// TestCrossCheck counts the rows the engine inserted three ways, on each backend of the managed
// FerretDB: the engine's Count, the server's own insert command counter (one InsertMany of at
// most 100,000 documents is one insert command), and the rows of the collection's table in
// FerretDB's storage: in PostgreSQL (with the GIN companion of each of FerretDB's indexes) while
// the server runs, in the SQLite file after it stopped. It also checks the step counters a
// managed server reports, and the external mode (--dsn) on the same server.
func TestCrossCheck(t *testing.T) {
	for _, backend := range []string{"postgresql", "sqlite"} {
		t.Run(backend, func(t *testing.T) { crossCheck(t, backend) })
	}
}

func crossCheck(t *testing.T, backend string) {
	ctx := context.Background()
	dir := serverDir(t)
	e0, err := open(ctx, engine.Options{Dir: dir, Sync: true, Extra: map[string]string{"backend": backend}})
	if err != nil {
		t.Fatal(err)
	}
	e := e0.(*eng)
	defer e.Close()
	if err := e.CreateTable(ctx, items, true); err != nil {
		t.Fatal(err)
	}
	// Over SQLite an _id equality scans the table too: IN lists stay one $in find.
	if got, each := e.Info().Options["in_lists"], strings.HasPrefix(e.Info().Options["in_lists"], "one find per key"); each != (backend == "postgresql") {
		t.Errorf("%s backend: in_lists = %q", backend, got)
	}
	before, err := e.ServerSample(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if !before.Managed || before.RSSBytes <= 0 || before.LogBytes != -1 || before.Fsyncs != -1 || before.UserTicks > before.CPUTicks {
		t.Errorf("managed FerretDB sample = %+v: want process figures, and log bytes and syncs not reported (-1)", before)
	}
	if _, ok := before.Counters["opcounters.insert"]; ok {
		t.Errorf("FerretDB reported opcounters.insert, which it does not have")
	}
	s, _ := e.NewSession(ctx)
	const batches, per = 7, 300
	for b := 0; b < batches; b++ {
		if err := s.Insert(ctx, items, itemRows(1+b*per, per)); err != nil {
			t.Fatal(err)
		}
	}
	after, err := e.ServerSample(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if d := after.Counters["commands.insert"] - before.Counters["commands.insert"]; d != batches {
		t.Errorf("server insert commands: %d, want %d (one per batch)", d, batches)
	}
	if d := after.Counters["dbstats.objects"] - before.Counters["dbstats.objects"]; d != batches*per {
		t.Errorf("dbStats objects grew by %d, want %d", d, batches*per)
	}
	n, err := s.Count(ctx, items, -1)
	if err != nil || n != batches*per {
		t.Errorf("Count = %d, %v; want %d", n, err, batches*per)
	}
	// A point read by _id finds its document.
	out := table.NewRows(4, 1)
	if err := s.Get(ctx, items, []int64{1234}, []int{0, 2}, out); err != nil || out.N != 1 || string(out.Row(0)[1].B) != "c1234" {
		t.Errorf("Get(1234) = %d rows %v, %v", out.N, out.Vals, err)
	}

	// The same server through --dsn: no process figures, the same rows.
	x0, err := open(ctx, engine.Options{Dir: t.TempDir(), Extra: map[string]string{"dsn": e.srv.DSN()}})
	if err != nil {
		t.Fatal(err)
	}
	x := x0.(*eng)
	xs, _ := x.NewSession(ctx)
	if n, err := xs.Count(ctx, items, 0); err != nil || n != batches*per {
		t.Errorf("external mode: Count = %d, %v", n, err)
	}
	if err := x.CreateTable(ctx, items, false); err == nil || !strings.Contains(err.Error(), "already exists in database rumbench") {
		t.Errorf("CreateTable of an existing collection: %v", err)
	}
	if smp, err := x.ServerSample(ctx, false); err != nil || smp.Managed || smp.RSSBytes != 0 {
		t.Errorf("external mode sample: %+v, %v", smp, err)
	}
	if _, ok := x.Info().Options["server"]; ok || x.Info().Options["id_format"] != "native" {
		t.Errorf("external mode Info options: %v", x.Info().Options)
	}
	xs.Close()
	x.Close()
	s.Close()

	var rows int64
	if backend == "postgresql" {
		rows = pgRows(t, e, "items", 2) // the _id index and k_c
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if backend == "sqlite" {
		// The SQLite file FerretDB wrote: one table per collection, one row per document.
		db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "data", "rumbench.sqlite")+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var tbl string
		if err := db.QueryRow(`SELECT table_name FROM _ferretdb_collections WHERE name = 'items'`).Scan(&tbl); err != nil {
			t.Fatalf("FerretDB's collection catalog: %v", err)
		}
		if err := db.QueryRow(fmt.Sprintf("SELECT count(*) FROM %q", tbl)).Scan(&rows); err != nil {
			t.Fatal(err)
		}
	}
	if rows != batches*per {
		t.Errorf("%s table holds %d rows, want %d", backend, rows, batches*per)
	}
	t.Logf("inserted %d rows in %d batches: Count %d, server insert commands %d, %s rows %d",
		batches*per, batches, n, after.Counters["commands.insert"]-before.Counters["commands.insert"], backend, rows)
}

// pgRows returns the rows of collection coll's table in the managed FerretDB's PostgreSQL
// backend (found through FerretDB's catalog), and checks that each of its ixs B-tree indexes
// has its GIN companion.
func pgRows(t *testing.T, e *eng, coll string, ixs int) int64 {
	t.Helper()
	pg := e.srv.Backend()
	if pg == nil {
		t.Fatal("no PostgreSQL backend")
	}
	db, err := sql.Open("pgx", pg.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var tbl string
	if err := db.QueryRow(`SELECT _jsonb->>'table' FROM rumbench._ferretdb_database_metadata WHERE _jsonb->>'_id' = $1`, coll).Scan(&tbl); err != nil {
		t.Fatalf("FerretDB's collection catalog: %v", err)
	}
	var rows int64
	if err := db.QueryRow(fmt.Sprintf(`SELECT count(*) FROM rumbench.%q`, tbl)).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	var btree, gin int
	if err := db.QueryRow(`SELECT count(*) FILTER (WHERE indexdef LIKE '% USING btree %'), count(*) FILTER (WHERE indexname LIKE 'rumbench_gin_%' AND indexdef LIKE '% USING gin %jsonb_path_ops%')
		FROM pg_indexes WHERE schemaname = 'rumbench' AND tablename = $1`, tbl).Scan(&btree, &gin); err != nil {
		t.Fatal(err)
	}
	if btree != ixs || gin != ixs {
		t.Errorf("table %s: %d B-tree and %d GIN companion indexes, want %d of each", tbl, btree, gin, ixs)
	}
	return rows
}

// TestRefused checks the one-line refusal of a statement without a MongoDB form.
func TestRefused(t *testing.T) {
	ctx := context.Background()
	e := openManaged(t, nil)
	if err := e.CreateTable(ctx, items, false); err != nil {
		t.Fatal(err)
	}
	s, _ := e.NewSession(ctx)
	defer s.Close()
	st := &table.Stmt{Table: items, Kind: table.Select, Index: -1, Match: table.All, Cols: []int{0}, Filter: true, FilterCol: 2,
		SQL: "SELECT id FROM items WHERE LENGTH(c) < 0"}
	_, err := s.Exec(ctx, st, nil, table.NewRows(1, 1))
	if !errors.Is(err, table.ErrUnsupported) || strings.Contains(err.Error(), "\n") {
		t.Errorf("Exec of a LENGTH filter: %v, want one line wrapping ErrUnsupported", err)
	}
}

// The client's cost per operation (the server is another process: allocations are the
// driver's and the engine's), on the managed FerretDB's default backend, PostgreSQL. The table
// is kept small, so that backend=sqlite, which scans the collection for each read, runs them too.

func BenchmarkPointRead(b *testing.B) {
	ctx := context.Background()
	e := openManaged(b, nil)
	if err := e.CreateTable(ctx, items, true); err != nil {
		b.Fatal(err)
	}
	s, _ := e.NewSession(ctx)
	defer s.Close()
	if err := s.Insert(ctx, items, itemRows(1, 1000)); err != nil {
		b.Fatal(err)
	}
	out := table.NewRows(4, 1)
	cols := []int{0, 1, 2, 3}
	pk := []int64{0}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		out.Reset(4)
		pk[0] = int64(1 + i%1000)
		if err := s.Get(ctx, items, pk, cols, out); err != nil || out.N != 1 {
			b.Fatalf("Get: %d rows, %v", out.N, err)
		}
	}
}

func BenchmarkInsertBatch100(b *testing.B) {
	ctx := context.Background()
	e := openManaged(b, nil)
	if err := e.CreateTable(ctx, items, true); err != nil {
		b.Fatal(err)
	}
	s, _ := e.NewSession(ctx)
	defer s.Close()
	next := 1
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		rows := itemRows(next, 100)
		next += 100
		b.StartTimer()
		if err := s.Insert(ctx, items, rows); err != nil {
			b.Fatal(err)
		}
	}
}

// TestInsertCommand checks that Insert with wire=driver sends the command InsertMany sends for
// the same rows (its documents, ordered, the write concern; the driver's session and cluster
// time fields aside), and that a duplicate key is still table.ErrDuplicate.
func TestInsertCommand(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var cmds []bson.Raw
	testMonitor = &event.CommandMonitor{Started: func(_ context.Context, ev *event.CommandStartedEvent) {
		if ev.CommandName == "insert" {
			mu.Lock()
			cmds = append(cmds, append(bson.Raw(nil), ev.Command...))
			mu.Unlock()
		}
	}}
	defer func() { testMonitor = nil }()
	for _, extra := range []map[string]string{{"wire": "driver"}, {"wire": "driver", "j": "false", "w": "majority"}} {
		e := openManaged(t, extra)
		if err := e.CreateTable(ctx, items, true); err != nil {
			t.Fatal(err)
		}
		s, _ := e.NewSession(ctx)
		cmds = nil
		rows := itemRows(1, 3)
		if err := s.Insert(ctx, items, rows); err != nil {
			t.Fatal(err)
		}
		var docs []any
		ss := s.(*session)
		ts, _ := e.state(items)
		for r := 0; r < rows.N; r++ {
			docs = append(docs, bson.Raw(ss.appendDoc(nil, ts, rows.Row(r))))
		}
		if _, err := e.db.Collection("items").InsertMany(ctx, docs); err == nil || !strings.Contains(err.Error(), "E11000") {
			t.Errorf("InsertMany of the same rows again: %v, want a duplicate key error", err)
		}
		if len(cmds) != 2 {
			t.Fatalf("%d insert commands seen, want 2", len(cmds))
		}
		// What differs between any two commands: the session and the cluster time.
		strip := func(c bson.Raw) string {
			var d bson.D
			if err := bson.Unmarshal(c, &d); err != nil {
				t.Fatal(err)
			}
			var keep bson.D
			for _, el := range d {
				if el.Key != "lsid" && el.Key != "$clusterTime" {
					keep = append(keep, el)
				}
			}
			sort.SliceStable(keep, func(i, j int) bool { return keep[i].Key < keep[j].Key })
			b, _ := bson.MarshalExtJSON(keep, true, false)
			return string(b)
		}
		if got, want := strip(cmds[0]), strip(cmds[1]); got != want {
			t.Errorf("Insert sent    %s\nInsertMany sent %s", got, want)
		} else {
			t.Logf("%v: %s", extra, got)
		}
		if err := s.Insert(ctx, items, itemRows(3, 2)); !errors.Is(err, table.ErrDuplicate) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Insert of a duplicate key: %v, want ErrDuplicate", err)
		}
		if n, err := s.Count(ctx, items, -1); err != nil || n != 3 {
			t.Errorf("Count = %d, %v; want 3 (ordered: the batch stops at the duplicate)", n, err)
		}
		s.Close()
	}
}

// TestInsertManyPath checks the documents Insert hands InsertMany where it does not send its
// own command (an unacknowledged write concern, a retryable write).
func TestInsertManyPath(t *testing.T) {
	ctx := context.Background()
	e := openManaged(t, nil)
	e.insertLean = false
	if err := e.CreateTable(ctx, items, true); err != nil {
		t.Fatal(err)
	}
	s, _ := e.NewSession(ctx)
	defer s.Close()
	if err := s.Insert(ctx, items, itemRows(1, 12)); err != nil {
		t.Fatal(err)
	}
	out := table.NewRows(4, 12)
	if err := s.Scan(ctx, items, 0, nil, true, 100, out); err != nil || out.N != 12 {
		t.Fatalf("Scan: %d rows, %v", out.N, err)
	}
	ts, _ := e.state(items)
	ss := s.(*session)
	want := itemRows(1, 12)
	for r := 0; r < 12; r++ {
		doc, err := e.db.Collection("items").FindOne(ctx, bson.D{{Key: "id", Value: int64(r + 1)}}).Raw()
		if err != nil {
			t.Fatal(err)
		}
		if w := bson.Raw(ss.appendDoc(nil, ts, want.Row(r))); !bytes.Equal(doc, w) {
			t.Errorf("row %d: document %s, want %s", r, doc, w)
		}
	}
}

// TestIOModes runs the operations over each io mode's connections, and checks that a read
// waiting for a stopped server (SIGSTOP) ends promptly when its context is cancelled (the
// driver closes the connection, which interrupts a blocking socket's read) and that the
// session works again once the server runs.
func TestIOModes(t *testing.T) {
	ctx := context.Background()
	for _, io := range ioModes {
		t.Run(io, func(t *testing.T) {
			e := openManaged(t, map[string]string{"io": io})
			if got := e.Info().Options["io"]; got != io {
				t.Errorf("Info io = %q", got)
			}
			if err := e.CreateTable(ctx, items, true); err != nil {
				t.Fatal(err)
			}
			s, _ := e.NewSession(ctx)
			defer s.Close()
			if err := s.Insert(ctx, items, itemRows(1, 300)); err != nil {
				t.Fatal(err)
			}
			out := table.NewRows(4, 10)
			if err := s.Get(ctx, items, []int64{5, 7}, []int{0, 1, 2, 3}, out); err != nil || out.N != 2 {
				t.Fatalf("Get: %d rows, %v", out.N, err)
			}
			if n, err := s.Count(ctx, items, 0); err != nil || n != 300 {
				t.Fatalf("Count = %d, %v", n, err)
			}
			stopServer(t, e.srv.Pid())
			cctx, cancel := context.WithCancel(ctx)
			time.AfterFunc(200*time.Millisecond, cancel)
			start := time.Now()
			out.Reset(4)
			err := s.Get(cctx, items, []int64{9}, []int{0}, out)
			took := time.Since(start)
			syscall.Kill(e.srv.Pid(), syscall.SIGCONT)
			if err == nil || !errors.Is(err, context.Canceled) || took > 2*time.Second {
				t.Errorf("Get on a stopped server, cancelled after 200 ms: %v after %v, want context.Canceled within 2 s", err, took)
			}
			out.Reset(4)
			if err := s.Get(ctx, items, []int64{9}, []int{0}, out); err != nil || out.N != 1 {
				t.Errorf("Get after the server continued: %d rows, %v", out.N, err)
			}
			// A deadline (the driver's read deadline, kept by a timer over a blocking socket).
			stopServer(t, e.srv.Pid())
			dctx, dcancel := context.WithTimeout(ctx, 200*time.Millisecond)
			start = time.Now()
			err = s.Get(dctx, items, []int64{9}, []int{0}, out)
			took = time.Since(start)
			dcancel()
			syscall.Kill(e.srv.Pid(), syscall.SIGCONT)
			if err == nil || !errors.Is(err, context.DeadlineExceeded) || took > 2*time.Second {
				t.Errorf("Get on a stopped server with a 200 ms deadline: %v after %v, want context.DeadlineExceeded within 2 s", err, took)
			}
		})
	}
}

// stopServer stops process pid (SIGSTOP) and waits until it is stopped.
func stopServer(t *testing.T, pid int) {
	t.Helper()
	syscall.Kill(pid, syscall.SIGSTOP)
	for i := 0; i < 1000; i++ {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			t.Fatal(err)
		}
		if f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:])); len(f) > 0 && f[0] == "T" {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("process %d did not stop", pid)
}

// BenchmarkRoundTrip measures the driver's cost of one command round trip (RunCommand of
// {ping: 1}) as the client's CPU time per operation (cpu-us/op): the floor under every
// operation's client cost.
func BenchmarkRoundTrip(b *testing.B) {
	ctx := context.Background()
	for _, io := range ioModes {
		b.Run(io, func(b *testing.B) {
			e := openManaged(b, map[string]string{"io": io})
			ping := bson.Raw(sortDoc("ping", 1))
			var r0, r1 syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if err := e.db.RunCommand(ctx, ping).Err(); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
			cpu := time.Duration(r1.Utime.Nano() - r0.Utime.Nano() + r1.Stime.Nano() - r0.Stime.Nano())
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-us/op")
		})
	}
}

// TestInLists checks a select of whole primary keys IN a list, on a single and on a composite
// key, and a Get of several keys, on FerretDB: one find per distinct key (the server's find
// counter), the rows in key order, a repeated key once, a missing one skipped.
func TestInLists(t *testing.T) {
	ctx := context.Background()
	e := openManaged(t, nil)
	if got := e.Info().Options["in_lists"]; got != "one find per key (FerretDB pushes no $in down)" {
		t.Errorf("in_lists = %q", got)
	}
	if !e.Info().WholeRanges {
		t.Error("Info().WholeRanges is false on FerretDB, which reads a whole collection for a range")
	}
	if err := e.CreateTable(ctx, items, true); err != nil {
		t.Fatal(err)
	}
	if err := e.CreateTable(ctx, links, false); err != nil {
		t.Fatal(err)
	}
	s, _ := e.NewSession(ctx)
	defer s.Close()
	if err := s.Insert(ctx, items, itemRows(1, 50)); err != nil {
		t.Fatal(err)
	}
	lr := table.NewRows(4, 5)
	for _, k := range [][3]int64{{1, 42, 100}, {1, 42, -7}, {1, 42, 3}, {1, 42, 9}, {1, 43, 5}} {
		r := lr.Append()
		r[0], r[1], r[2], r[3] = table.Value{I: k[0]}, table.Value{I: k[1]}, table.Value{I: k[2]}, table.Value{B: []byte("x")}
	}
	if err := s.Insert(ctx, links, lr); err != nil {
		t.Fatal(err)
	}
	finds := func() int64 {
		smp, err := e.ServerSample(ctx, true)
		if err != nil {
			t.Fatal(err)
		}
		return smp.Counters["commands.find"]
	}
	before := finds()

	st := &table.Stmt{Table: items, Kind: table.Select, Index: -1, Match: table.In, InLen: 5, Cols: []int{0, 2},
		SQL: "SELECT id, c FROM items WHERE id IN (?, ?, ?, ?, ?)"}
	out := table.NewRows(2, 5)
	n, err := s.Exec(ctx, st, []table.Value{{I: 30}, {I: 7}, {I: 99}, {I: 7}, {I: 12}}, out)
	if err != nil || n != 3 || out.N != 3 {
		t.Fatalf("items IN: %d rows, %v", n, err)
	}
	for i, want := range []int64{7, 12, 30} {
		if r := out.Row(i); r[0].I != want || string(r[1].B) != fmt.Sprintf("c%04d", want) {
			t.Errorf("items IN row %d = %v, want id %d", i, r, want)
		}
	}
	lst := &table.Stmt{Table: links, Kind: table.Select, Index: -1, Prefix: 2, Match: table.In, InLen: 4, Cols: []int{2},
		SQL: "SELECT id2 FROM links WHERE link_type = ? AND id1 = ? AND id2 IN (?, ?, ?, ?)"}
	out = table.NewRows(1, 4)
	n, err = s.Exec(ctx, lst, []table.Value{{I: 1}, {I: 42}, {I: 100}, {I: -7}, {I: 9}, {I: 8}}, out)
	if err != nil || n != 3 || out.N != 3 || out.Row(0)[0].I != -7 || out.Row(1)[0].I != 9 || out.Row(2)[0].I != 100 {
		t.Errorf("links IN: %d rows %v, %v; want id2 -7, 9, 100", n, out.Vals, err)
	}
	out = table.NewRows(1, 4)
	if err := s.Get(ctx, items, []int64{40, 3, 40, 1000}, []int{0}, out); err != nil || out.N != 2 || out.Row(0)[0].I != 3 || out.Row(1)[0].I != 40 {
		t.Errorf("Get of 40, 3, 40, 1000: %d rows %v, %v; want 3, 40", out.N, out.Vals, err)
	}
	// 4 + 4 + 3 distinct keys.
	if d := finds() - before; d != 11 {
		t.Errorf("the server ran %d finds, want 11 (one per distinct key)", d)
	}
}
