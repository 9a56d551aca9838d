package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/bench"
	_ "github.com/rumbench/rumbench/internal/engine/sqlite"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/server"
	"github.com/rumbench/rumbench/internal/workload/insert"
)

// The PostgreSQL server the tests share (started on first use, stopped by TestMain); each test
// gets its own database in it.
var (
	pgOnce   sync.Once
	pgServer *server.Server
	pgErr    error
	pgTmp    string
	pgDBs    int
	pgMu     sync.Mutex
)

func TestMain(m *testing.M) {
	if spec := os.Getenv(childEnv); spec != "" {
		recordForever(spec)
		return
	}
	code := m.Run()
	if pgServer != nil {
		pgServer.Stop(context.Background())
	}
	if pgTmp != "" {
		os.RemoveAll(pgTmp)
	}
	os.Exit(code)
}

// postgresSpec returns the URL of a new, empty database on the shared private server, or skips
// the test when PostgreSQL is not installed.
func postgresSpec(t testing.TB) string {
	t.Helper()
	pgOnce.Do(func() {
		if pgTmp, pgErr = os.MkdirTemp("", "rumbench-store-"); pgErr != nil {
			return
		}
		os.Chmod(pgTmp, 0o755) // the server runs as the postgres user when we are root
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		pgServer, pgErr = server.Start(ctx, server.Config{Kind: server.Postgres, Dir: filepath.Join(pgTmp, "pg")})
	})
	if errors.Is(pgErr, server.ErrBinaryNotFound) {
		t.Skipf("skipping PostgreSQL: %v", pgErr)
	}
	if pgErr != nil {
		t.Fatalf("starting PostgreSQL: %v", pgErr)
	}
	pgMu.Lock()
	pgDBs++
	name := fmt.Sprintf("store_test_%d", pgDBs)
	pgMu.Unlock()
	db, err := sql.Open("pgx", pgServer.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	return strings.Replace(pgServer.DSN(), "/rumbench?", "/"+name+"?", 1)
}

// backend is a way to get an empty store.
type backend struct {
	name string
	spec func(t testing.TB) string
}

var backends = []backend{
	{"sqlite", func(t testing.TB) string { return filepath.Join(t.TempDir(), "sub", "rumbench.db") }},
	{"postgres", postgresSpec},
}

// eachBackend runs fn as a subtest per backend, with a new empty store.
func eachBackend(t *testing.T, fn func(t *testing.T, s *Store, spec string)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			spec := b.spec(t)
			s, err := Open(context.Background(), spec)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			fn(t, s, spec)
		})
	}
}

// fill sets every field of v (recursively) to a distinct non-zero value, so a round trip that
// drops or mixes up a field shows.
func fill(v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", *n))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*n))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(*n) + 0.25)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n)
	case reflect.Struct:
		if v.Type() == timeType {
			v.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(*n)*time.Second + 123456789)))
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), n)
			}
		}
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := 0; i < 2; i++ {
			fill(s.Index(i), n)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for i := 0; i < 2; i++ {
			k := reflect.New(v.Type().Key()).Elem()
			fill(k, n)
			val := reflect.New(v.Type().Elem()).Elem()
			if val.Kind() == reflect.Interface {
				val.Set(reflect.ValueOf(fmt.Sprintf("v%d", *n)))
			} else {
				fill(val, n)
			}
			m.SetMapIndex(k, val)
		}
		v.Set(m)
	}
}

// syntheticRun returns a run with every field set, nsteps steps and nint intervals.
func syntheticRun(id, workload, label string, start time.Time, engines []string, nsteps, nint int) *results.Run {
	n := 0
	m := &results.Manifest{}
	fill(reflect.ValueOf(m).Elem(), &n)
	m.RunID, m.Workload, m.Label, m.Start, m.End, m.Status = id, workload, label, start, start.Add(90*time.Second), results.StatusOK
	m.SchemaVersion = results.SchemaVersion // the store records the current model
	m.Targets = nil
	for _, e := range engines {
		var t results.Target
		fill(reflect.ValueOf(&t).Elem(), &n)
		t.Label, t.Engine.Name = e, strings.SplitN(e, ":", 2)[0]
		m.Targets = append(m.Targets, t)
	}
	run := &results.Run{Dir: "/tmp/runs/" + id, Manifest: m, Steps: []results.Step{}}
	for i := 0; i < nsteps; i++ {
		var st results.Step
		fill(reflect.ValueOf(&st).Elem(), &n)
		st.Target, st.Step = engines[i%len(engines)], fmt.Sprintf("step%d", i)
		run.Steps = append(run.Steps, st)
	}
	for i := 0; i < nint; i++ {
		var iv results.Interval
		fill(reflect.ValueOf(&iv).Elem(), &n)
		run.Intervals = append(run.Intervals, iv)
	}
	return run
}

// realRun returns a run measured on the sqlite engine (two insert benchmark steps), read back
// from its directory with results.Load.
var realRun = sync.OnceValues(func() (*results.Run, error) {
	tmp, err := os.MkdirTemp("", "rumbench-store-run-")
	if err != nil {
		return nil, err
	}
	wl, err := insert.New(insert.Config{Clients: 1, Rows: 2000, QuerySecs: 1, Steps: "l.i0,l.x"}, 1)
	if err != nil {
		return nil, err
	}
	out, err := bench.Run(context.Background(), bench.Config{
		Workload: wl, Targets: []results.Target{results.NewTarget("sqlite", "sqlite", nil)}, CacheMB: 8, Repeat: 1,
		DataDir: filepath.Join(tmp, "data"), Out: filepath.Join(tmp, "results"), RunID: "20261121T120000Z-real", Label: "real",
		Command: []string{"rumbench", "test"}, Settings: map[string]any{"profile": "test"},
	})
	if err != nil {
		return nil, err
	}
	return results.Load(out.Dir)
})

// sameRun fails the test unless got equals want field by field (as JSON, part by part).
func sameRun(t *testing.T, got, want *results.Run) {
	t.Helper()
	if got.Dir != want.Dir {
		t.Errorf("Dir %q, want %q", got.Dir, want.Dir)
	}
	same(t, "manifest", got.Manifest, want.Manifest)
	if len(got.Steps) != len(want.Steps) {
		t.Errorf("%d steps, want %d", len(got.Steps), len(want.Steps))
	}
	for i := range min(len(got.Steps), len(want.Steps)) {
		same(t, fmt.Sprintf("step %d", i), got.Steps[i], want.Steps[i])
	}
	same(t, "steps", got.Steps, want.Steps)
	same(t, "intervals", got.Intervals, want.Intervals)
}

func same(t *testing.T, what string, got, want any) {
	t.Helper()
	g, err1 := json.Marshal(got)
	w, err2 := json.Marshal(want)
	if err1 != nil || err2 != nil {
		t.Fatalf("%s: %v %v", what, err1, err2)
	}
	if string(g) != string(w) {
		t.Errorf("%s differs:\n got %s\nwant %s", what, g, w)
	}
}

// count returns the rows of table that belong to run id.
func count(t *testing.T, s *Store, table, id string) int {
	t.Helper()
	var n int
	if err := s.db.QueryRow(s.d.q("SELECT count(*) FROM "+table+" WHERE run_id = ?"), id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
