package results

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCreateNeverSharesADirectory: writers created with the same out and run id get directories
// and ids of their own, and Create creates out itself when missing.
func TestCreateNeverSharesADirectory(t *testing.T) {
	out := filepath.Join(t.TempDir(), "results")
	const id = "20261121T120000Z-insert"
	var writers []*Writer
	for range 3 {
		w, err := Create(out, id, false)
		if err != nil {
			t.Fatal(err)
		}
		writers = append(writers, w)
	}
	for i, want := range []string{id, id + "-2", id + "-3"} {
		w := writers[i]
		if w.RunID() != want || w.Dir() != filepath.Join(out, want) {
			t.Errorf("writer %d: id %q, dir %q; want %q in %s", i, w.RunID(), w.Dir(), want, out)
		}
		if err := w.Manifest(testManifest(w.RunID())); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	for _, w := range writers {
		if m, err := ReadManifest(w.Dir()); err != nil || m.RunID != w.RunID() {
			t.Errorf("%s: manifest %+v, %v", w.Dir(), m, err)
		}
	}
	// A file of the run's name is taken too.
	if err := os.WriteFile(filepath.Join(out, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if w, err := Create(out, "x", false); err != nil || w.RunID() != "x-2" {
		t.Errorf("Create beside a file named x: %v", err)
	} else {
		w.Close()
	}
}

// TestCreateGivesUp: after maxRunDirTries taken names Create returns an error.
func TestCreateGivesUp(t *testing.T) {
	out := t.TempDir()
	for i := 1; i <= maxRunDirTries; i++ {
		w, err := Create(out, "r", false)
		if err != nil {
			t.Fatalf("directory %d: %v", i, err)
		}
		w.Close()
	}
	if w, err := Create(out, "r", false); err == nil {
		t.Errorf("Create made %s after %d directories", w.Dir(), maxRunDirTries)
	}
}
