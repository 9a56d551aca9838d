// Package pebblefs counts Pebble's syncs and writes per file class with a wrapping vfs.FS, and
// sleeps an injected latency in its sync calls. Pebble makes its system calls from Go, where an
// LD_PRELOAD library cannot see them; every file Pebble writes is opened through its vfs.FS.
//
// Classes: the WAL (*.log) is log, sstables (*.sst) and blob files (*.blob) are data, the
// MANIFEST, OPTIONS, marker files and directories are other.
package pebblefs

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/rumbench/rumbench/internal/syncacct"
)

// FS wraps a vfs.FS and adds its files' syncs and writes to a counter block.
type FS struct {
	vfs.FS
	block   *syncacct.Block
	latency time.Duration
}

// New returns fs wrapped: counts go to block, latency is slept after every sync that waits for
// the device (Sync, SyncData, SyncTo when it syncs fully).
func New(fs vfs.FS, block *syncacct.Block, latency time.Duration) *FS {
	block.Attach()
	return &FS{FS: fs, block: block, latency: latency}
}

// ClassOf returns the class of a Pebble file by its name.
func ClassOf(name string) syncacct.Class {
	switch base := filepath.Base(name); {
	case strings.HasSuffix(base, ".log"):
		return syncacct.Log
	case strings.HasSuffix(base, ".sst"), strings.HasSuffix(base, ".blob"):
		return syncacct.Data
	}
	return syncacct.Other
}

func (fs *FS) wrap(name string, f vfs.File, err error) (vfs.File, error) {
	if err != nil {
		return f, err
	}
	return &file{File: f, fs: fs, class: ClassOf(name)}, nil
}

// Create implements vfs.FS.
func (fs *FS) Create(name string, cat vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.Create(name, cat)
	return fs.wrap(name, f, err)
}

// Open implements vfs.FS (read-only files are wrapped too: Pebble syncs directories it opens).
func (fs *FS) Open(name string, opts ...vfs.OpenOption) (vfs.File, error) {
	f, err := fs.FS.Open(name, opts...)
	return fs.wrap(name, f, err)
}

// OpenReadWrite implements vfs.FS.
func (fs *FS) OpenReadWrite(name string, cat vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	f, err := fs.FS.OpenReadWrite(name, cat, opts...)
	return fs.wrap(name, f, err)
}

// OpenDir implements vfs.FS: a directory's syncs are class other.
func (fs *FS) OpenDir(name string) (vfs.File, error) {
	f, err := fs.FS.OpenDir(name)
	if err != nil {
		return f, err
	}
	return &file{File: f, fs: fs, class: syncacct.Other}, nil
}

// ReuseForWrite implements vfs.FS (recycled WAL files).
func (fs *FS) ReuseForWrite(oldname, newname string, cat vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.ReuseForWrite(oldname, newname, cat)
	return fs.wrap(newname, f, err)
}

// Unwrap implements vfs.FS.
func (fs *FS) Unwrap() vfs.FS { return fs.FS }

type file struct {
	vfs.File
	fs    *FS
	class syncacct.Class
}

func (f *file) wrote(n int) {
	if n > 0 {
		f.fs.block.Add(f.class, syncacct.CWrites, 1)
		f.fs.block.Add(f.class, syncacct.CWriteBytes, uint64(n))
	}
}

// synced records a sync of kind ctr that started at t0 and sleeps the latency when slow.
func (f *file) synced(ctr int, t0 time.Time, slow bool) {
	f.fs.block.Add(f.class, ctr, 1)
	f.fs.block.Add(f.class, syncacct.CSyncNs, uint64(time.Since(t0)))
	if slow && f.fs.latency > 0 {
		t1 := time.Now()
		time.Sleep(f.fs.latency)
		f.fs.block.Add(f.class, syncacct.CDelayNs, uint64(time.Since(t1)))
	}
}

func (f *file) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	f.wrote(n)
	return n, err
}

func (f *file) WriteAt(p []byte, off int64) (int, error) {
	n, err := f.File.WriteAt(p, off)
	f.wrote(n)
	return n, err
}

func (f *file) Sync() error {
	t0 := time.Now()
	err := f.File.Sync()
	f.synced(syncacct.CFsync, t0, true)
	return err
}

func (f *file) SyncData() error {
	t0 := time.Now()
	err := f.File.SyncData()
	f.synced(syncacct.CFdatasync, t0, true)
	return err
}

// SyncTo counts an fdatasync when the file synced fully, else a sync_file_range that does not
// wait for the device (no latency injected).
func (f *file) SyncTo(length int64) (bool, error) {
	t0 := time.Now()
	full, err := f.File.SyncTo(length)
	if full {
		f.synced(syncacct.CFdatasync, t0, true)
	} else {
		f.synced(syncacct.CSyncFileRange, t0, false)
	}
	return full, err
}
