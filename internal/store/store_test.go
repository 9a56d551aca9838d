package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/report"
	"github.com/rumbench/rumbench/internal/results"
)

var t0 = time.Date(2026, 11, 20, 22, 0, 0, 0, time.UTC)

func TestRoundTrip(t *testing.T) {
	real, err := realRun()
	if err != nil {
		t.Fatalf("measuring a real run: %v", err)
	}
	if len(real.Steps) != 2 || len(real.Intervals) == 0 || len(real.Steps[0].Latency) == 0 || len(real.Steps[0].Latency[0].Buckets) == 0 {
		t.Fatalf("the real run lacks steps, intervals or histograms: %d steps, %d intervals", len(real.Steps), len(real.Intervals))
	}
	synth := syntheticRun("20261120T220000Z-synth", "insert", "synth", t0, []string{"pebble", "postgres:a.conf"}, 3, 700)
	eachBackend(t, func(t *testing.T, s *Store, _ string) {
		ctx := context.Background()
		for _, run := range []*results.Run{real, synth} {
			if err := s.Record(ctx, run); err != nil {
				t.Fatal(err)
			}
			got, err := s.Load(ctx, run.Manifest.RunID)
			if err != nil {
				t.Fatal(err)
			}
			sameRun(t, got, run)
			checkColumns(t, s, run)
		}
	})
}

// checkColumns compares the queryable columns of steps, step_latency and intervals with the
// fields of the same JSON name in the run's records.
func checkColumns(t *testing.T, s *Store, run *results.Run) {
	t.Helper()
	id := run.Manifest.RunID
	var steps, lats, ivs []any
	for _, st := range run.Steps {
		steps = append(steps, st)
		for _, l := range st.Latency {
			lats = append(lats, l)
		}
	}
	for _, iv := range run.Intervals {
		ivs = append(ivs, iv)
	}
	compareRows(t, s, "steps", "seq", stepCols, id, steps)
	compareRows(t, s, "step_latency", "step_seq, seq", latencyCols, id, lats)
	compareRows(t, s, "intervals", "seq", intervalCol, id, ivs)
}

func compareRows(t *testing.T, s *Store, table, order string, cols []column, id string, records []any) {
	t.Helper()
	var sel []string
	for _, c := range cols {
		sel = append(sel, quote(c.name))
	}
	rows, err := s.db.Query(s.d.q("SELECT "+strings.Join(sel, ", ")+" FROM "+table+" WHERE run_id = ? ORDER BY "+order), id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	jsonName := map[string]string{}
	for k, v := range renamed {
		jsonName[v] = k
	}
	n := 0
	for rows.Next() {
		got := make([]any, len(sel))
		ptrs := make([]any, len(sel))
		for i := range got {
			ptrs[i] = &got[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		if n >= len(records) {
			t.Fatalf("%s: more rows than the %d records", table, len(records))
		}
		b, _ := json.Marshal(records[n])
		var want map[string]any
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&want); err != nil {
			t.Fatal(err)
		}
		for i, c := range cols {
			name := c.name
			if j, ok := jsonName[name]; ok {
				name = j
			}
			w, present := want[name]
			if !present { // omitempty: the zero value
				if g := got[i]; g != nil && g != "" && g != int64(0) && g != float64(0) && g != false && string(asBytes(g)) != "" {
					t.Errorf("%s row %d column %s = %v, want the zero value", table, n, c.name, g)
				}
				continue
			}
			if !sameValue(got[i], w) {
				t.Errorf("%s row %d column %s = %v (%T), want %v (%T)", table, n, c.name, got[i], got[i], want[name], want[name])
			}
		}
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != len(records) {
		t.Errorf("%s: %d rows, want %d", table, n, len(records))
	}
}

// sameValue compares a scanned column value with the JSON value of the field.
func sameValue(got, want any) bool {
	if b, ok := got.([]byte); ok {
		got = string(b)
	}
	switch w := want.(type) {
	case nil: // an absent *bool
		return got == nil
	case []any: // a string list
		var parts []string
		for _, p := range w {
			parts = append(parts, p.(string))
		}
		return got == strings.Join(parts, ",")
	case string:
		wt, err := time.Parse(time.RFC3339Nano, w)
		if err != nil || !strings.Contains(w, "T") {
			return got == w
		}
		switch g := got.(type) {
		case time.Time: // PostgreSQL keeps microseconds
			return g.Equal(wt.Truncate(time.Microsecond))
		case string:
			gt, err := time.Parse(time.RFC3339Nano, g)
			return err == nil && gt.Equal(wt)
		}
		return false
	case bool:
		switch g := got.(type) {
		case bool:
			return g == w
		case int64:
			return (g != 0) == w
		}
		return false
	case json.Number:
		f, err := w.Float64()
		if err != nil {
			return false
		}
		switch g := got.(type) {
		case int64:
			return float64(g) == f
		case float64:
			return g == f || math.Abs(g-f) <= 1e-12*math.Abs(f)
		}
	}
	return false
}

func TestRecordReplaces(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store, _ string) {
		ctx := context.Background()
		first := syntheticRun("20261120T220000Z-x", "insert", "x", t0, []string{"pebble", "bbolt"}, 4, 20)
		if err := s.Record(ctx, first); err != nil {
			t.Fatal(err)
		}
		second := syntheticRun("20261120T220000Z-x", "insert", "x", t0, []string{"sqlite"}, 1, 3)
		second.Manifest.Status = results.StatusInterrupted
		if err := s.Record(ctx, second); err != nil {
			t.Fatal(err)
		}
		got, err := s.Load(ctx, "20261120T220000Z-x")
		if err != nil {
			t.Fatal(err)
		}
		sameRun(t, got, second)
		for table, want := range map[string]int{"runs": 1, "targets": 1, "steps": 1, "step_latency": 2, "intervals": 3} {
			if n := count(t, s, table, "20261120T220000Z-x"); n != want {
				t.Errorf("%s: %d rows after re-recording, want %d", table, n, want)
			}
		}
	})
}

func TestList(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store, _ string) {
		ctx := context.Background()
		day := 24 * time.Hour
		runs := []*results.Run{
			syntheticRun("20261118T220000Z-insert", "insert", "insert", t0.Add(-2*day), []string{"pebble", "bbolt"}, 20, 0),
			syntheticRun("20261119T220000Z-base", "insert", "base", t0.Add(-day), []string{"postgres:a.cnf", "postgres:b.cnf"}, 4, 0),
			syntheticRun("20261120T220000Z-sb", "sysbench", "sb", t0, []string{"sqlite", "pebble"}, 2, 0),
		}
		for _, r := range runs {
			if err := s.Record(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		cases := []struct {
			name string
			f    Filter
			want []string // run ids, newest first
		}{
			{"all", Filter{}, []string{"20261120T220000Z-sb", "20261119T220000Z-base", "20261118T220000Z-insert"}},
			{"workload", Filter{Workload: "insert"}, []string{"20261119T220000Z-base", "20261118T220000Z-insert"}},
			{"engine", Filter{Engine: "pebble"}, []string{"20261120T220000Z-sb", "20261118T220000Z-insert"}},
			{"engine of a matrix", Filter{Engine: "postgres"}, []string{"20261119T220000Z-base"}},
			{"label", Filter{Label: "base"}, []string{"20261119T220000Z-base"}},
			{"since", Filter{Since: t0.Add(-day)}, []string{"20261120T220000Z-sb", "20261119T220000Z-base"}},
			{"until (exclusive)", Filter{Until: t0.Add(-day)}, []string{"20261118T220000Z-insert"}},
			{"since and until", Filter{Since: t0.Add(-day - time.Nanosecond), Until: t0.Add(-day + time.Second)}, []string{"20261119T220000Z-base"}},
			{"both", Filter{Workload: "insert", Engine: "bbolt"}, []string{"20261118T220000Z-insert"}},
			{"none", Filter{Workload: "insert", Engine: "sqlite"}, nil},
		}
		for _, tc := range cases {
			got, err := s.List(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, r := range got {
				ids = append(ids, r.RunID)
			}
			if !slices.Equal(ids, tc.want) {
				t.Errorf("%s: %v, want %v", tc.name, ids, tc.want)
			}
		}
		all, _ := s.List(ctx, Filter{Label: "base"})
		want := RunSummary{RunID: "20261119T220000Z-base", Label: "base", Workload: "insert", Engines: []string{"postgres"},
			Targets: []string{"postgres:a.cnf", "postgres:b.cnf"}, Start: t0.Add(-day), End: t0.Add(-day + 90*time.Second),
			DurationSecs: 90, Status: "ok", Error: runs[1].Manifest.Error, Steps: 4, Dir: "/tmp/runs/20261119T220000Z-base",
			Version: runs[1].Manifest.Version}
		if len(all) != 1 || !reflect.DeepEqual(all[0], want) {
			t.Errorf("summary\n got %+v\nwant %+v", all, want)
		}
	})
}

// TestSuffixedRunIDs: two runs started in the same second with the same label (the second's
// id suffixed "-2" by results.Create) are two runs of the store, each loaded by its exact id.
func TestSuffixedRunIDs(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store, _ string) {
		ctx := context.Background()
		first := syntheticRun("20261120T220000Z-x", "insert", "x", t0, []string{"pebble"}, 2, 5)
		second := syntheticRun("20261120T220000Z-x-2", "insert", "x", t0, []string{"bbolt"}, 1, 3)
		for _, r := range []*results.Run{first, second} {
			if err := s.Record(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		l, err := s.List(ctx, Filter{Label: "x"})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range l {
			ids = append(ids, r.RunID)
		}
		if want := []string{"20261120T220000Z-x-2", "20261120T220000Z-x"}; !slices.Equal(ids, want) {
			t.Errorf("List: %v, want %v", ids, want)
		}
		for _, r := range []*results.Run{first, second} {
			got, err := s.Load(ctx, r.Manifest.RunID)
			if err != nil {
				t.Fatal(err)
			}
			sameRun(t, got, r)
		}
	})
}

func TestResolveLabelDelete(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store, _ string) {
		ctx := context.Background()
		a := syntheticRun("20261120T220000Z-a", "insert", "a", t0, []string{"pebble"}, 2, 5)
		b := syntheticRun("20261120T230000Z-b", "insert", "b", t0.Add(time.Hour), []string{"bbolt"}, 2, 5)
		for _, r := range []*results.Run{a, b} {
			if err := s.Record(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		if id, err := s.Resolve(ctx, "20261120T23"); err != nil || id != b.Manifest.RunID {
			t.Errorf("Resolve(unique prefix) = %q, %v", id, err)
		}
		if _, err := s.Resolve(ctx, "20261120T2"); !errors.Is(err, ErrAmbiguous) || !strings.Contains(err.Error(), "20261120T220000Z-a, 20261120T230000Z-b") {
			t.Errorf("Resolve(ambiguous prefix): %v", err)
		}
		if _, err := s.Load(ctx, "2025"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Load(unknown): %v", err)
		}

		if id, err := s.SetLabel(ctx, "20261120T22", "baseline"); err != nil || id != a.Manifest.RunID {
			t.Fatalf("SetLabel = %q, %v", id, err)
		}
		got, err := s.Load(ctx, a.Manifest.RunID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Manifest.Label != "baseline" {
			t.Errorf("manifest label after SetLabel: %q", got.Manifest.Label)
		}
		got.Manifest.Label = "a"
		sameRun(t, got, a) // nothing else changed
		if l, _ := s.List(ctx, Filter{Label: "baseline"}); len(l) != 1 || l[0].RunID != a.Manifest.RunID {
			t.Errorf("List(label baseline) = %+v", l)
		}

		if id, err := s.Delete(ctx, "20261120T22"); err != nil || id != a.Manifest.RunID {
			t.Fatalf("Delete = %q, %v", id, err)
		}
		for _, table := range []string{"runs", "targets", "steps", "step_latency", "intervals"} {
			if n := count(t, s, table, a.Manifest.RunID); n != 0 {
				t.Errorf("%s keeps %d rows of the deleted run", table, n)
			}
		}
		if _, err := s.Load(ctx, a.Manifest.RunID); !errors.Is(err, ErrNotFound) {
			t.Errorf("Load(deleted): %v", err)
		}
		got, err = s.Load(ctx, "2026") // now unique
		if err != nil {
			t.Fatal(err)
		}
		sameRun(t, got, b)
	})
}

// TestCancelledRecord cancels the context in the middle of Record, after each table in turn:
// the store keeps the earlier record of the run and gains nothing of a new one.
func TestCancelledRecord(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store, _ string) {
		old := syntheticRun("20261120T220000Z-old", "insert", "old", t0, []string{"pebble", "bbolt"}, 3, 50)
		if err := s.Record(context.Background(), old); err != nil {
			t.Fatal(err)
		}
		for _, at := range []string{"runs", "targets", "steps", "step_latency", "intervals"} {
			for _, run := range []*results.Run{
				syntheticRun("20261120T220000Z-old", "insert", "new", t0, []string{"sqlite"}, 1, 2),
				syntheticRun("20261121T220000Z-new", "insert", "new", t0.Add(24*time.Hour), []string{"sqlite"}, 1, 2),
			} {
				ctx, cancel := context.WithCancel(context.Background())
				s.afterTable = func(table string) {
					if table == at {
						cancel()
					}
				}
				err := s.Record(ctx, run)
				cancel()
				s.afterTable = nil
				if !errors.Is(err, context.Canceled) {
					t.Errorf("Record cancelled after %s: error %v, want context.Canceled", at, err)
				}
			}
			got, err := s.Load(context.Background(), old.Manifest.RunID)
			if err != nil {
				t.Fatal(err)
			}
			sameRun(t, got, old)
			for _, table := range []string{"runs", "targets", "steps", "step_latency", "intervals"} {
				if n := count(t, s, table, "20261121T220000Z-new"); n != 0 {
					t.Errorf("cancelled after %s: %s holds %d rows of the unrecorded run", at, table, n)
				}
			}
			if l, _ := s.List(context.Background(), Filter{}); len(l) != 1 {
				t.Errorf("cancelled after %s: %d runs listed, want 1", at, len(l))
			}
		}
	})
}

// TestSchema checks that Open adds a column missing from an older store (a field added to the
// result model) and refuses a store of a newer schema version.
func TestSchema(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store, spec string) {
		ctx := context.Background()
		if _, err := s.db.Exec(`ALTER TABLE steps DROP COLUMN "write_kb_per_op"`); err != nil {
			t.Fatal(err)
		}
		s.Close()
		s2, err := Open(ctx, spec)
		if err != nil {
			t.Fatal(err)
		}
		run := syntheticRun("20261120T220000Z-s", "insert", "s", t0, []string{"pebble"}, 1, 0)
		if err := s2.Record(ctx, run); err != nil {
			t.Fatal(err)
		}
		var v float64
		if err := s2.db.QueryRow(`SELECT "write_kb_per_op" FROM steps`).Scan(&v); err != nil || v != run.Steps[0].WriteKBPerOp {
			t.Errorf("re-added column holds %v (%v), want %v", v, err, run.Steps[0].WriteKBPerOp)
		}
		if _, err := s2.db.Exec(`UPDATE schema_version SET version = 99`); err != nil {
			t.Fatal(err)
		}
		s2.Close()
		if s3, err := Open(ctx, spec); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("schema version 99, newer than this rumbench knows (%d)", SchemaVersion)) {
			t.Errorf("Open of a newer store: %v", err)
			if err == nil {
				s3.Close()
			}
		}
	})
}

func TestSpecs(t *testing.T) {
	if err := CheckSpec("mysql://x"); err == nil || !strings.Contains(err.Error(), `unsupported URL scheme "mysql"`) {
		t.Errorf("CheckSpec(mysql://x) = %v", err)
	}
	for _, ok := range []string{"", "results/rumbench.db", "postgres://u@h/db", "postgresql://u:pw@h/db"} {
		if err := CheckSpec(ok); err != nil {
			t.Errorf("CheckSpec(%q) = %v", ok, err)
		}
	}
	for _, p := range []string{t.TempDir(), "/dev/zero"} {
		if _, err := Open(context.Background(), p); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("Open(%s) = %v, want not a regular file", p, err)
		}
	}
	// A path holding what a SQLite URI reads as options, a fragment or an escape is the file's
	// name, not options: the store is that file (mode=memory would have recorded nothing).
	odd := filepath.Join(t.TempDir(), "a?mode=memory&x=%41#f.db")
	s, err := Open(context.Background(), odd)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := os.Stat(odd); err != nil {
		t.Errorf("the store is not the file named: %v", err)
	}
	if _, err := OpenExisting(context.Background(), t.TempDir()+"/none.db"); !errors.Is(err, ErrNoStore) {
		t.Errorf("OpenExisting(missing file) = %v", err)
	}
	if got := redact("postgres://u:secret@h:5432/db"); strings.Contains(got, "secret") {
		t.Errorf("redact kept the password: %s", got)
	}
}

func asBytes(v any) []byte {
	if b, ok := v.([]byte); ok {
		return b
	}
	return []byte("x")
}

// TestConcurrentWriters opens the same new store from several handles at once (as several
// rumbench processes would) and records runs from all of them in parallel.
func TestConcurrentWriters(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			spec := b.spec(t)
			const writers, each = 3, 4
			errs := make(chan error, writers*each+writers)
			var wg sync.WaitGroup
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					s, err := Open(context.Background(), spec)
					if err != nil {
						errs <- err
						return
					}
					defer s.Close()
					for i := range each {
						id := fmt.Sprintf("20261120T22000%dZ-w%d", i, w)
						errs <- s.Record(context.Background(), syntheticRun(id, "insert", "w", t0.Add(time.Duration(i)*time.Second), []string{"pebble"}, 2, 30))
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Error(err)
				}
			}
			s, err := Open(context.Background(), spec)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if l, err := s.List(context.Background(), Filter{}); err != nil || len(l) != writers*each {
				t.Errorf("%d runs listed (%v), want %d", len(l), err, writers*each)
			}
		})
	}
}

// TestVersion1Run records runs written with result schema version 1 and reads them back: the
// store upgrades them as a run directory is upgraded, so both render the same tables.
func TestVersion1Run(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store, spec string) {
		ctx := context.Background()
		for _, id := range []string{"20261124T032916Z-v1insert", "20261124T032920Z-v1sysbench"} {
			dirRun, err := results.Load(filepath.Join("..", "results", "testdata", "v1", id))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Record(ctx, dirRun); err != nil {
				t.Fatal(err)
			}
			stored, err := s.Load(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			var fromDir, fromStore bytes.Buffer
			report.Render(&fromDir, "text", report.RunsDocument([]*results.Run{dirRun}, report.Wide))
			report.Render(&fromStore, "text", report.RunsDocument([]*results.Run{stored}, report.Wide))
			if fromDir.String() != fromStore.String() || fromDir.Len() < 1000 {
				t.Errorf("%s: the stored run renders differently:\n%s\nfrom the directory:\n%s", id, fromStore.String(), fromDir.String())
			}
			if len(stored.Intervals) != len(dirRun.Intervals) || len(stored.Intervals[0].Kinds) == 0 {
				t.Errorf("%s: %d intervals stored of %d", id, len(stored.Intervals), len(dirRun.Intervals))
			}
		}
	})
}
