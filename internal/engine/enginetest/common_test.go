package enginetest

import (
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/table"
)

// Cases that every engine passes, the null engine included.

func testInfo(t *testing.T, h *harness) {
	info := h.e.Info()
	if info.Name != h.name {
		t.Errorf("Info().Name = %q, want the registered name %q", info.Name, h.name)
	}
	switch info.Family {
	case "kv", "sql", "document":
		if !info.Stores {
			t.Errorf("Info() of a %s engine has Stores false", info.Family)
		}
	case "none":
		if info.Stores {
			t.Errorf("Info() of family none has Stores true")
		}
	default:
		t.Errorf("Info().Family = %q, want kv, sql, document or none", info.Family)
	}
	if info.Version == "" {
		t.Errorf("Info().Version is empty")
	}
	if info.Options == nil {
		t.Errorf("Info().Options is nil, want a map (possibly empty)")
	}
	spec, _ := engine.Lookup(h.name)
	if spec.Description == "" {
		t.Errorf("Spec.Description is empty")
	}
	// An engine whose sessions block their thread (io=raw or io=blocking) says so, for the
	// runner to keep its workers on their threads; the others do not.
	tb, ok := h.e.(table.ThreadBound)
	io := info.Options["io"]
	if want := io == "raw" || io == "blocking"; (ok && tb.ThreadBound()) != want {
		t.Errorf("ThreadBound() = %v with io=%q, want %v", ok && tb.ThreadBound(), io, want)
	}
}

func testRejectsUnknownOption(t *testing.T, h *harness) {
	spec, _ := engine.Lookup(h.name)
	o := options(serverDir(t))
	o.Extra = map[string]string{"no_such_option": "1"}
	e, err := spec.Open(h.ctx, o)
	if err == nil {
		e.Close()
		t.Fatalf("Open with an unknown option succeeded, want an error")
	}
}

// testAcceptsEveryOperation calls every operation once. Engines that store nothing must accept
// them all and read nothing back.
func testAcceptsEveryOperation(t *testing.T, h *harness) {
	tb, plain := newTable("every"), newTable("plain")
	h.createTable(tb, true)
	h.createTable(plain, false)
	s := h.session()
	m := model{}
	h.insert(s, tb, m, rowFor, span(1, 10)...)
	h.insert(s, plain, m, rowFor, span(1, 10)...)
	if err := h.e.CreateIndexes(h.ctx, plain); err != nil {
		t.Fatalf("CreateIndexes: %v", err)
	}
	out := table.NewRows(4, 8)
	if err := s.Get(h.ctx, tb, []int64{1, 2, 99}, []int{0, 1, 2, 3}, out); err != nil {
		t.Fatalf("Get: %v", err)
	}
	getN := out.N
	out.Reset(2)
	if err := s.Scan(h.ctx, tb, 1, []table.Value{{I: math.MinInt64}}, true, 5, out); err != nil {
		t.Fatalf("Scan: %v", err)
	}
	scanN := out.N
	n, err := s.Count(h.ctx, tb, -1)
	if err != nil {
		t.Fatalf("Count: %v", err)
	}
	ni, err := s.Count(h.ctx, tb, 0)
	if err != nil {
		t.Fatalf("Count index: %v", err)
	}
	d, err := s.DeleteOldest(h.ctx, tb, 0, 3)
	if err != nil {
		t.Fatalf("DeleteOldest: %v", err)
	}
	if d != 3 {
		t.Errorf("DeleteOldest(0, 3) on 10 rows = %d, want 3", d)
	}
	if h.stores() {
		if getN != 2 || scanN != 5 || n != 10 || ni != 10 {
			t.Errorf("Get found %d rows (want 2), Scan returned %d (want 5), Count %d and %d (want 10)", getN, scanN, n, ni)
		}
		return
	}
	if getN != 0 || scanN != 0 || n != 0 || ni != 0 {
		t.Errorf("an engine that stores nothing read back: Get %d rows, Scan %d rows, Count %d and %d", getN, scanN, n, ni)
	}
}

func testCleanupAndSize(t *testing.T, h *harness) {
	tb := newTable("clean")
	h.createTable(tb, true)
	s := h.session()
	m := model{}
	for b := 0; b < 3; b++ {
		h.insert(s, tb, m, rowFor, span(int64(1+b*500), 500)...)
	}
	desc, err := h.e.Cleanup(h.ctx)
	if err != nil {
		t.Fatalf("Cleanup: %v", err)
	}
	if desc == "" {
		t.Errorf("Cleanup returned an empty description")
	}
	size, ok, err := h.e.Size(h.ctx)
	if err != nil {
		t.Fatalf("Size: %v", err)
	}
	if ok && h.stores() && size <= 0 {
		t.Errorf("Size() = %d, true after 1500 rows; want a positive size", size)
	}
	if !ok && size != 0 {
		t.Errorf("Size() = %d, false; want 0 when the engine has no figure", size)
	}
	if h.stores() {
		h.checkCounts(s, tb, m, true) // cleanup keeps every row and entry
	}
	// The engine still works after cleanup.
	h.insert(s, tb, m, rowFor, 5000)
	if h.stores() {
		h.checkCounts(s, tb, m, true)
	}
}

// testConcurrentSessions uses sessions from several goroutines at once: one inserts into table A
// while another scans and reads table B and a third counts table A. Each insert is one
// transaction, so a concurrent count sees whole batches only.
func testConcurrentSessions(t *testing.T, h *harness) {
	const batches, perBatch = 20, 25
	ta, tb := newTable("ta"), newTable("tb")
	h.createTable(ta, true)
	h.createTable(tb, true)
	sw, sr, sc := h.session(), h.session(), h.session()
	mb := model{}
	h.insert(sw, tb, mb, rowFor, span(1, 300)...)

	var wg sync.WaitGroup
	errs := make(chan string, 3*batches+10)
	wg.Add(3)
	done := make(chan struct{})
	go func() {
		defer wg.Done()
		defer close(done)
		rows := table.NewRows(4, perBatch)
		for b := 0; b < batches; b++ {
			rows.Reset(4)
			for _, pk := range span(int64(1+b*perBatch), perBatch) {
				copy(rows.Append(), rowFor(pk))
			}
			if err := sw.Insert(h.ctx, ta, rows); err != nil {
				errs <- "Insert: " + err.Error()
				return
			}
		}
	}()
	go func() {
		defer wg.Done()
		out := table.NewRows(2, 10)
		for i := 0; i < 2*batches; i++ {
			out.Reset(2)
			start := []table.Value{{I: int64(i%14) - 4}, {I: baseTS + int64(i%11)}}
			if err := sr.Scan(h.ctx, tb, 1, start, i%2 == 0, 10, out); err != nil {
				errs <- "Scan: " + err.Error()
				return
			}
			if h.stores() {
				if want := len(expectScan(tb, mb, 1, start, i%2 == 0, 10)); out.N != want {
					errs <- "Scan returned a wrong row count"
					return
				}
			}
			out.Reset(4)
			if err := sr.Get(h.ctx, tb, []int64{int64(i + 1), int64(i + 100)}, []int{0, 1, 2, 3}, out); err != nil {
				errs <- "Get: " + err.Error()
				return
			}
			if h.stores() && out.N != 2 {
				errs <- "Get did not find 2 rows"
				return
			}
		}
	}()
	go func() {
		defer wg.Done()
		last := int64(0)
		for stop := false; !stop; {
			select {
			case <-done:
				stop = true
			default:
			}
			n, err := sc.Count(h.ctx, ta, -1)
			if err != nil {
				errs <- "Count: " + err.Error()
				return
			}
			if n%perBatch != 0 || n < last {
				errs <- "Count saw a partial or lost batch"
				return
			}
			last = n
		}
	}()
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if h.stores() {
		if got := h.count(sc, ta, -1); got != batches*perBatch {
			t.Errorf("table ta holds %d rows after the concurrent inserts, want %d", got, batches*perBatch)
		}
		h.checkCounts(sr, tb, mb, true)
	}
}

// serverDir returns a fresh data directory whose parent others can traverse: managed servers run
// as the postgres and mysql users.
func serverDir(t *testing.T) string {
	dir := t.TempDir()
	os.Chmod(filepath.Dir(dir), 0o755)
	return dir
}
