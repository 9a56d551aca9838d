// Package engine is the registry of engines and the options they share.
//
// Each engine package registers a Factory in its init function; a binary selects engines by
// blank-importing their packages (see engine/all).
package engine

import (
	"context"
	"fmt"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"

	"github.com/rumbench/rumbench/internal/registry"
	"github.com/rumbench/rumbench/internal/syncacct"
	"github.com/rumbench/rumbench/internal/table"
)

// Options are the settings every engine takes. Each engine applies the ones that make sense for
// it and records in table.Info.Options what it did with them.
type Options struct {
	// Dir is the engine's data directory. It exists and is empty when Open is called.
	Dir string
	// CacheBytes is the engine's cache size in bytes (block cache, page cache, buffer pool).
	CacheBytes int64
	// MemoryBytes, under a memory cap (--memory-limit), is what the engine may allocate for
	// itself, bytes: its cache and everything else it sizes (write buffers, a server's work
	// memory), memcap.Shares.Engine; 0: no cap, the engine's defaults. An engine sizes what is
	// not its cache from MemoryBytes − CacheBytes (BufferBytes), and says in
	// table.Info.Options what it chose.
	MemoryBytes int64
	// Sync makes every commit durable (fsync/fdatasync) before it returns.
	Sync bool
	// Extra holds engine-specific key=value options. An engine rejects keys it does not know.
	Extra map[string]string
	// SyncAcct turns on the accounting of syncs and writes per file class, and the injected
	// sync latency (--syscalls, --fsync-latency). An engine opened with it enabled implements
	// syncacct.Reporter and says in its coverage what it cannot see.
	SyncAcct syncacct.Config
	// Cgroup is the directory of a memory cgroup (--memory-limit) a managed server's processes
	// are placed in as they start; the client stays out. Empty: none. Embedded engines ignore
	// it (their whole process is placed in the cgroup).
	Cgroup string
}

// MinBufferBytes is the smallest buffer BufferBytes gives, bytes.
const MinBufferBytes = 2 << 20

// BufferBytes returns the size of each of the n buffers an engine sizes beside its cache (the
// memtables it may hold at once, a server's work memory), bytes, whose default size is def:
// def without a cap; under one, what MemoryBytes leaves beside the cache split n ways, rounded
// down to whole MiB, at most def and at least MinBufferBytes.
func (o Options) BufferBytes(n int, def int64) int64 {
	if o.MemoryBytes <= 0 || n <= 0 {
		return def
	}
	each := (o.MemoryBytes - o.CacheBytes) / int64(n) >> 20 << 20
	return max(min(each, def), MinBufferBytes)
}

// Factory opens an engine with the given options.
type Factory func(ctx context.Context, o Options) (table.Engine, error)

// Spec describes a registered engine.
type Spec struct {
	// Name is what users type after --engine.
	Name string
	// Description is one line for `rumbench engines`.
	Description string
	// Options lists the engine-specific option keys with a short help each (key → help).
	Options map[string]string
	// Open opens the engine.
	Open Factory
	// Server is true for engines on a database server: they take the options dsn, server_config
	// and server_bin, set from --dsn, --server-config and --server-bin.
	Server bool
	// ClientConfig is true for a server engine whose server_config file holds the client's
	// settings (the mongo engine's write and read concern), not the server's: --server-config
	// then goes with --dsn too, one target per file against the same server.
	ClientConfig bool
	// ClientOptions are the keys of Options that change only how the client reaches the engine
	// (its connections' I/O, its protocol path, its sessions' write concern), not the data the
	// engine holds: rumbench run --reuse accepts data prepared with other values of them.
	ClientOptions []string
	// Check validates engine-specific options without opening anything (nil: only the keys of
	// Options are checked).
	Check func(extra map[string]string) error
	// SQL is true for engines whose sessions run SQL text (table.SQLSession): a workload of
	// users' SQL (workload.Spec.NeedsSQL) refuses the others before the run starts.
	SQL bool
	// MaxColumns is the most columns a table may have on the engine, key columns included (0: no
	// limit): workloads whose column count is a setting refuse more before the run starts.
	MaxColumns int
	// CachePerFileByte is the cache, bytes, the engine needs to hold one byte of its data files
	// in memory: what a workload profile multiplies its data's size on disk by to size the
	// engine's cache (workload.CacheFor). 0: no such rule (no cache of its own, or one the page
	// cache backs), the engine keeps the run's cache.
	CachePerFileByte float64
	// PerUnitBytes are figures measured on the engine that workloads size its cache and their
	// disk estimates by, keyed by the unit a workload names (docs/engine-settings.md has the
	// measurements): bytes on disk per unit of its data ("sysbench.row", "ycsb.record" of the
	// default 1 KB shape, "tpcc.warehouse", "linkbench.node", "linkbench.link", "script.scale", "kv.row" of a 1-byte value),
	// or a cache's bytes per row ("insert.row.cache"). A unit the engine has no figure for
	// leaves its cache to the run. Workloads read them with workload.Measured.
	PerUnitBytes map[string]float64
	// SharedThreads, when set, says whether sessions of the engine opened with the options extra
	// can share one thread: their sockets read together in a netblock.Group, which raw I/O
	// allows. A workload whose clients share threads (the script workload's --jobs) refuses the
	// engines that cannot before the run starts. nil: they cannot.
	SharedThreads func(extra map[string]string) bool
	// Release, for a server engine rumbench can start, returns the version of the server
	// binaries in binDir (the discovered ones when "") as the server reports it ("16.4"), which
	// names a release's target when a run compares several (--server-bin DIR1,DIR2). nil: the
	// engine has no releases to compare.
	Release func(ctx context.Context, binDir string) (string, error)
	// Faults is true for a server engine whose sessions reconnect after a lost connection and
	// that implements table.Faulter: rumbench run --fault and --tolerate-errors connection
	// take it.
	Faults bool
	// ClusterKind is the --cluster an engine's servers form: "replicas" (PostgreSQL streaming
	// replicas), "galera" (MariaDB Galera nodes); "" takes none.
	ClusterKind string
	// Unavailable, when set, says why this binary cannot open the engine (a cgo engine built
	// without its tag): the engine is listed, and refused with this line.
	Unavailable string
}

// CheckOptions validates extra for this engine: known keys, then the engine's own Check.
func (s Spec) CheckOptions(extra map[string]string) error {
	if err := CheckExtra(s.Name, extra, s.Options); err != nil {
		return err
	}
	if s.Check != nil {
		return s.Check(extra)
	}
	return nil
}

var specs = registry.New[Spec]("engine")

// Register adds an engine. It panics when the name is taken: registration happens in init.
func Register(s Spec) { specs.Register(s.Name, s) }

// Lookup returns the engine registered under name.
func Lookup(name string) (Spec, bool) { return specs.Lookup(name) }

// Names returns the registered engine names, sorted.
func Names() []string { return specs.Names() }

// ModuleVersion returns the version of a Go module linked into this binary, or "unknown": the
// version of a pure-Go engine library.
func ModuleVersion(path string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == path {
				return d.Version
			}
		}
	}
	return "unknown"
}

// CheckExtra returns an error naming the first key of extra that is not in known, and the valid
// keys.
func CheckExtra(engine string, extra map[string]string, known map[string]string) error {
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := known[k]; !ok {
			valid := make([]string, 0, len(known))
			for v := range known {
				valid = append(valid, v)
			}
			sort.Strings(valid)
			if len(valid) == 0 {
				return fmt.Errorf("engine %s takes no --engine-opt options (got %q)", engine, k)
			}
			return fmt.Errorf("engine %s has no option %q (valid: %s)", engine, k, strings.Join(valid, ", "))
		}
	}
	return nil
}

// IntOption returns the integer value of extra[key], or def when the key is absent.
func IntOption(engine string, extra map[string]string, key string, def int64) (int64, error) {
	s, ok := extra[key]
	if !ok {
		return def, nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("engine %s option %s=%q: not an integer", engine, key, s)
	}
	return v, nil
}

// ChoiceOption returns extra[key] when it is one of choices, def when the key is absent, and an
// error naming the choices otherwise.
func ChoiceOption(engine string, extra map[string]string, key, def string, choices ...string) (string, error) {
	s, ok := extra[key]
	if !ok {
		return def, nil
	}
	for _, c := range choices {
		if s == c {
			return s, nil
		}
	}
	return "", fmt.Errorf("engine %s option %s=%q is not valid (valid: %s)", engine, key, s, strings.Join(choices, ", "))
}
