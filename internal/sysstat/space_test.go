package sysstat

import (
	"path/filepath"
	"testing"
)

// TestSpace reads a real file system's space: free within total, and a path not created yet
// answered by its nearest existing ancestor.
func TestSpace(t *testing.T) {
	dir := t.TempDir()
	free, total, err := Space(dir)
	if err != nil || total == 0 || free > total {
		t.Fatalf("Space(%s) = %d, %d, %v", dir, free, total, err)
	}
	_, total2, err := Space(filepath.Join(dir, "not", "yet"))
	if err != nil || total2 != total {
		t.Errorf("a missing path: total %d (want %d), %v", total2, total, err)
	}
}
