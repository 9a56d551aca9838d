// Package syncacct is sync and write accounting per file class: the counters that the sync
// shim (package cshim: an LD_PRELOAD library for servers, link-time hooks for SQLite) and the
// Go hooks (package pebblefs) add to, and the types the runner reads each tick.
//
// Counters live in a block of uint64 words (see Layout), in a shared file mapped by every
// server process, in C memory, or in Go memory; all updates are atomic adds. A Sample is one
// reading of such a block; the runner diffs two samples over a step.
package syncacct

import (
	"fmt"
	"sync/atomic"
	"time"
)

// Class is a file class: what a file is to its engine.
type Class int

// The file classes.
const (
	// Log is the redo log, WAL, journal or binlog: written and synced at commit.
	Log Class = iota
	// Data is the table and index files.
	Data
	// Other is every other file under the engine's directory (the directory itself, control
	// files, manifests) and calls that name no file (msync, sync).
	Other
	// NumClasses is the number of classes.
	NumClasses
)

var classNames = [NumClasses]string{"log", "data", "other"}

// String returns "log", "data" or "other".
func (c Class) String() string { return classNames[c] }

// Counter indices inside a class block. Keep in step with enum ctr in cshim/syncshim.c.
const (
	CFsync = iota
	CFdatasync
	CSyncFileRange
	CMsync
	CSyncfs
	CSync
	CDsyncWrites
	CWrites
	CWriteBytes
	CDelayNs
	CSyncNs
)

// Layout of a counter block (words of 8 bytes): HeaderWords header words (magic, version,
// processes attached), then ClassWords words per class.
const (
	HeaderWords = 8
	ClassWords  = 16
	Words       = HeaderWords + int(NumClasses)*ClassWords
	// Magic is the first word of a block written by the C shim ("RUMDSYN1").
	Magic   = 0x314e5953444d5552
	Version = 1
)

// Counts are one class's cumulative counters.
type Counts struct {
	Fsync, Fdatasync, SyncFileRange, Msync, Syncfs, Sync uint64
	// DsyncWrites are writes on descriptors opened with O_DSYNC or O_SYNC (each is a sync).
	DsyncWrites uint64
	// Writes and WriteBytes are write calls (write, pwrite, writev, pwritev...) and bytes.
	Writes, WriteBytes uint64
	// DelayNs is the latency injected into sync calls; SyncNs the real time spent in them.
	DelayNs, SyncNs uint64
}

// Syncs is every call that asks the device to make data durable: fsync, fdatasync,
// sync_file_range, msync, syncfs, sync and O_DSYNC/O_SYNC writes.
func (c Counts) Syncs() uint64 {
	return c.Fsync + c.Fdatasync + c.SyncFileRange + c.Msync + c.Syncfs + c.Sync + c.DsyncWrites
}

// Sample is one reading of a counter block.
type Sample struct {
	Class [NumClasses]Counts
	// Attached is the number of processes (or in-process hooks) that configured themselves on
	// the block; 0 for a server means the library was not loaded.
	Attached uint64
}

// Sub returns the counters of s minus those of a (an earlier sample); Attached is s's.
func (s Sample) Sub(a Sample) Sample {
	d := Sample{Attached: s.Attached}
	for c := range d.Class {
		x, y := s.Class[c], a.Class[c]
		d.Class[c] = Counts{
			Fsync: x.Fsync - y.Fsync, Fdatasync: x.Fdatasync - y.Fdatasync,
			SyncFileRange: x.SyncFileRange - y.SyncFileRange, Msync: x.Msync - y.Msync,
			Syncfs: x.Syncfs - y.Syncfs, Sync: x.Sync - y.Sync, DsyncWrites: x.DsyncWrites - y.DsyncWrites,
			Writes: x.Writes - y.Writes, WriteBytes: x.WriteBytes - y.WriteBytes,
			DelayNs: x.DelayNs - y.DelayNs, SyncNs: x.SyncNs - y.SyncNs,
		}
	}
	return d
}

// Total sums the classes.
func (s Sample) Total() Counts {
	var t Counts
	for _, c := range s.Class {
		t.Fsync += c.Fsync
		t.Fdatasync += c.Fdatasync
		t.SyncFileRange += c.SyncFileRange
		t.Msync += c.Msync
		t.Syncfs += c.Syncfs
		t.Sync += c.Sync
		t.DsyncWrites += c.DsyncWrites
		t.Writes += c.Writes
		t.WriteBytes += c.WriteBytes
		t.DelayNs += c.DelayNs
		t.SyncNs += c.SyncNs
	}
	return t
}

// Block is a counter block of Words words. Its methods are safe for concurrent use.
type Block struct{ w []uint64 }

// NewBlock returns a block in Go memory (for Go hooks).
func NewBlock() *Block {
	b := &Block{w: make([]uint64, Words)}
	b.w[0], b.w[1] = Magic, Version
	return b
}

// BlockOf wraps words (mapped file or C memory, at least Words long) as a block.
func BlockOf(words []uint64) (*Block, error) {
	if len(words) < Words {
		return nil, fmt.Errorf("syncacct: counter block of %d words, want %d", len(words), Words)
	}
	return &Block{w: words[:Words:Words]}, nil
}

// Attach records one more process or hook using the block.
func (b *Block) Attach() { atomic.AddUint64(&b.w[2], 1) }

// Add adds n to counter ctr of class c.
func (b *Block) Add(c Class, ctr int, n uint64) {
	atomic.AddUint64(&b.w[HeaderWords+int(c)*ClassWords+ctr], n)
}

// Read fills s with the block's current values.
func (b *Block) Read(s *Sample) {
	s.Attached = atomic.LoadUint64(&b.w[2])
	for c := range s.Class {
		base := HeaderWords + c*ClassWords
		ld := func(i int) uint64 { return atomic.LoadUint64(&b.w[base+i]) }
		s.Class[c] = Counts{
			Fsync: ld(CFsync), Fdatasync: ld(CFdatasync), SyncFileRange: ld(CSyncFileRange),
			Msync: ld(CMsync), Syncfs: ld(CSyncfs), Sync: ld(CSync), DsyncWrites: ld(CDsyncWrites),
			Writes: ld(CWrites), WriteBytes: ld(CWriteBytes), DelayNs: ld(CDelayNs), SyncNs: ld(CSyncNs),
		}
	}
}

// Config is what the user asked for: --syscalls and --fsync-latency.
type Config struct {
	// Enabled turns the accounting on.
	Enabled bool
	// Latency is slept in every sync call (fsync, fdatasync, sync_file_range with WAIT_AFTER,
	// msync with MS_SYNC, syncfs, sync, O_DSYNC writes) of the engine's files; 0 = none.
	Latency time.Duration
}

// Coverage says what the accounting of an engine sees.
type Coverage struct {
	// Source names the hooks: "preload" (LD_PRELOAD library in the server), "inprocess" (the
	// shim linked into rumbench, for SQLite), "pebble-vfs", or "none".
	Source string
	// Complete is false when syncs or writes go through a path the hooks cannot see.
	Complete bool
	// Note says what is missed (empty when Complete).
	Note string
}

// Reporter is implemented by engines opened with accounting on. The runner reads it each tick.
type Reporter interface {
	// SyncSample fills s with the cumulative counters.
	SyncSample(s *Sample) error
	// SyncCoverage says what the counters see.
	SyncCoverage() Coverage
}

// Patterns are the fnmatch(3) patterns (relative to the engine's root directory, '*' also
// matching '/') that make a file a log or a data file; other files are Other.
type Patterns struct{ Log, Data []string }

// Engine-specific patterns.
var (
	// PostgresPatterns: the WAL is log; relation files (base/, global/) are data.
	PostgresPatterns = Patterns{Log: []string{"pg_wal/*"}, Data: []string{"base/*", "global/*"}}
	// MariaDBPatterns: InnoDB redo, binlog and MyRocks WAL are log; InnoDB system and table
	// spaces, undo tablespaces and MyRocks sstables (#rocksdb/ in MariaDB) are data.
	MariaDBPatterns = Patterns{
		Log: []string{"ib_logfile*", "*bin.[0-9]*", "*bin.index", "*binlog.[0-9]*", "*binlog.index",
			"aria_log.*", "#rocksdb/*.log", ".rocksdb/*.log"},
		Data: []string{"ibdata*", "*.ibd", "undo[0-9]*", "ibtmp*", "#rocksdb/*.sst", ".rocksdb/*.sst"},
	}
	// SQLitePatterns: the rollback journal and the WAL are log; the database file is data.
	SQLitePatterns = Patterns{Log: []string{"*-wal", "*-journal"}, Data: []string{"*.db"}}
	// LMDBPatterns: LMDB has no log; its data file is data (the lock file is other).
	LMDBPatterns = Patterns{Data: []string{"data.mdb"}}
)

// Uncounted is embedded by an engine that cannot count its syncs and writes: opened with
// accounting on (Note set), it reports source "none" and why, so the results say what is not
// seen; with accounting off (Note empty) it reports nothing and the runner ignores it.
type Uncounted struct{ Note string }

// SyncSample implements Reporter: nothing is counted.
func (Uncounted) SyncSample(s *Sample) error { *s = Sample{}; return nil }

// SyncCoverage implements Reporter.
func (u Uncounted) SyncCoverage() Coverage {
	if u.Note == "" {
		return Coverage{}
	}
	return Coverage{Source: "none", Note: u.Note}
}
