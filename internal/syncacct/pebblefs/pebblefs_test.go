package pebblefs

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/rumbench/rumbench/internal/syncacct"
)

func TestClassOf(t *testing.T) {
	for name, want := range map[string]syncacct.Class{
		"/d/000004.log": syncacct.Log, "000007.sst": syncacct.Data, "/d/000009.blob": syncacct.Data,
		"/d/MANIFEST-000001": syncacct.Other, "OPTIONS-000003": syncacct.Other, "/d": syncacct.Other,
	} {
		if got := ClassOf(name); got != want {
			t.Errorf("ClassOf(%q) = %v, want %v", name, got, want)
		}
	}
}

// Writes and syncs through the wrapper on the real file system land in their classes, and the
// latency is slept on full syncs only.
func TestCounts(t *testing.T) {
	dir := t.TempDir()
	b := syncacct.NewBlock()
	fs := New(vfs.Default, b, 2*time.Millisecond)
	f, err := fs.Create(filepath.Join(dir, "000001.log"), vfs.WriteCategoryUnspecified)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(make([]byte, 100))
	f.WriteAt(make([]byte, 50), 100)
	f.SyncData()
	f.Sync()
	f.Close()
	g, _ := fs.Create(filepath.Join(dir, "000002.sst"), vfs.WriteCategoryUnspecified)
	g.Write(make([]byte, 4096))
	full, _ := g.SyncTo(4096)
	g.Close()
	d, _ := fs.OpenDir(dir)
	d.Sync()
	d.Close()
	var s syncacct.Sample
	b.Read(&s)
	lg, dt, ot := s.Class[syncacct.Log], s.Class[syncacct.Data], s.Class[syncacct.Other]
	if lg.Writes != 2 || lg.WriteBytes != 150 || lg.Fdatasync != 1 || lg.Fsync != 1 {
		t.Errorf("log: %+v, want 2 writes, 150 bytes, 1 fdatasync, 1 fsync", lg)
	}
	if dt.WriteBytes != 4096 || dt.Syncs() != 1 || (full && dt.Fdatasync != 1) || (!full && dt.SyncFileRange != 1) {
		t.Errorf("data: %+v (SyncTo full %v), want 4096 bytes and one sync", dt, full)
	}
	if ot.Fsync != 1 {
		t.Errorf("other (directory): %+v, want 1 fsync", ot)
	}
	slow := lg.Syncs() + ot.Syncs()
	if full {
		slow++
	}
	tot := s.Total()
	if time.Duration(tot.DelayNs) < time.Duration(slow)*2*time.Millisecond {
		t.Errorf("delay %v for %d full syncs, want at least %v", time.Duration(tot.DelayNs), slow, time.Duration(slow)*2*time.Millisecond)
	}
	if s.Attached != 1 {
		t.Errorf("attached = %d, want 1", s.Attached)
	}
}
