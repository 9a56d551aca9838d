package results

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/rumbench/rumbench/internal/sysstat"
	"github.com/rumbench/rumbench/internal/table"
)

// Manifest is run.json: what ran, where, with which settings, and how it ended.
type Manifest struct {
	SchemaVersion int      `json:"schema_version"`
	RunID         string   `json:"run_id"`
	Label         string   `json:"label"`
	Version       string   `json:"rumbench_version"`
	GitSHA        string   `json:"git_sha"`
	GoVersion     string   `json:"go_version"`
	Command       []string `json:"command"`
	// Config is the effective run configuration, every default resolved.
	Config         map[string]any `json:"config"`
	Workload       string         `json:"workload"`
	WorkloadConfig map[string]any `json:"workload_config"`
	// Groups are the workload's step groups in report order (Step.Group names one).
	Groups []Group `json:"groups,omitempty"`
	// Summary names the rate columns of the run's summary (step names or Groups names), in
	// order; empty in runs recorded before it (the report then picks them: every group, else
	// the first 8 steps).
	Summary []string `json:"summary,omitempty"`
	// Headline are the efficiency figures of the summary, catalog metric names as "NAME" or
	// "STEP:NAME" (see workload.Spec.Headline); empty in runs recorded before it.
	Headline []string     `json:"headline,omitempty"`
	Targets  []Target     `json:"targets"`
	Host     sysstat.Host `json:"host"`
	Start    time.Time    `json:"start"`
	End      time.Time    `json:"end"`
	// PID and Hostname identify the process that runs (ran) the run: a run left "running"
	// whose process is gone was abandoned (killed).
	PID      int    `json:"pid,omitempty"`
	Hostname string `json:"hostname,omitempty"`
	// Private is true when the run's files hold values derived from a DSN (a server's user,
	// host and port given with --dsn or a store URL; passwords are always redacted): its
	// files are then created mode 0600 and its directory 0700, 0644 and 0755 otherwise.
	Private bool `json:"private,omitempty"`
	// Status is "running" while the run goes on, then "ok", "interrupted" or "failed";
	// "abandoned" for a run whose process died while it was running (see Abandoned).
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// Memory is the run's memory cap (--memory-limit, --cold, --readahead-kb); nil when none of
	// them was asked for.
	Memory *MemoryConfig `json:"memory,omitempty"`
	// Shard says which part of a split run this run is (rumbench run --shard), nil for a run
	// that is not split.
	Shard *ShardInfo `json:"shard,omitempty"`
	// Sweep is the run's concurrency sweep (run --threads 1,2,4 and the other workloads'
	// client counts), nil for a run with one count.
	Sweep *Sweep `json:"sweep,omitempty"`
	// SLO is the latency goal of run --slo, by which a sweep of rates finds its capacity; nil
	// when none was given.
	SLO *SLO `json:"slo,omitempty"`
	// Merged lists the shard runs this run was merged from (rumbench merge), nil otherwise.
	Merged *MergeInfo `json:"merged,omitempty"`
	// Notes are caveats a reader of the results needs (system-wide counters, absent devices).
	Notes []string `json:"notes"`
}

// ShardInfo is a run's place in a split run: shard Index (0-based) of Count, all of them
// recording the same Group id.
type ShardInfo struct {
	Group string `json:"group"`
	Index int    `json:"index"`
	Count int    `json:"count"`
	// Part says which part of the work this shard did, as the workload describes it.
	Part string `json:"part,omitempty"`
	// Barriers says whether the shards met at barriers in a shared store before each step
	// (their steps and intervals then start at the same wall-clock second).
	Barriers bool `json:"barriers"`
}

// MaxShards bounds the shards of a split run (--shard I/N: N at most MaxShards).
const MaxShards = 10000

// Validate says what is wrong with a shard's record: Count must be 1 to MaxShards, Index 0 to
// Count-1. A run directory is validated as it is read (Manifest.Validate), and merge validates
// each shard's record before it reads the counts.
func (s *ShardInfo) Validate() error {
	if s.Count < 1 || s.Count > MaxShards || s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("shard %d of %d: want a count of 1 to %d and an index of 0 to count-1", s.Index, s.Count, MaxShards)
	}
	return nil
}

// Sweep is a run whose client count is a dimension: each target ran its measured steps once per
// count, recorded as targets "<label>@<count>" (Target.Of, Target.Clients).
type Sweep struct {
	// Flag is the workload's flag the counts were given to ("threads", "requesters", "clients"),
	// or "rate" for a sweep of fixed rates (Rates).
	Flag string `json:"flag"`
	// Counts are the client counts, increasing; empty in a sweep of rates.
	Counts []int `json:"counts"`
	// Rates are the fixed rates of a sweep of rates (--rate 1000,2000,4000), per second,
	// increasing: each engine loads once and runs its other steps at each rate.
	Rates []float64 `json:"rates,omitempty"`
	// LoadOnce says whether each engine loaded its data once and ran every count on it (false:
	// every count loaded its own, as the count shapes the data, e.g. one table per client).
	LoadOnce bool `json:"load_once"`
}

// SLO is a latency goal: a percentile of the response time from the intended start (of the
// headline rate's operation kinds together) at most a limit. The capacity of a target in a
// sweep of rates is the highest rate at which every step met its goal and kept its rate.
type SLO struct {
	// Text is the goal as given ("p99<=10ms"); Name the percentile's name ("p99", "p99.9"),
	// Percentile its value (99, 99.9).
	Text       string  `json:"text"`
	Name       string  `json:"name"`
	Percentile float64 `json:"percentile"`
	// LimitUs is the most the percentile may be, µs.
	LimitUs float64 `json:"limit_us"`
}

// MergeInfo is what a merged run was made from.
type MergeInfo struct {
	Group string `json:"group"`
	// Runs are the shard runs, in shard order, with the host each ran on.
	Runs []MergedRun `json:"runs"`
}

// MergedRun is one shard run of a merged run.
type MergedRun struct {
	RunID    string `json:"run_id"`
	Shard    int    `json:"shard"`
	Hostname string `json:"hostname"`
	Status   string `json:"status"`
}

// MemoryConfig is how a run treated memory: the cap every engine ran under, the cgroup that
// enforced it, whether each step started with the engine's files out of the page cache.
type MemoryConfig struct {
	// LimitBytes is the cap of every engine, bytes (0: none).
	LimitBytes int64 `json:"limit_bytes"`
	// CgroupVersion is 1 or 2 (0: no cap).
	CgroupVersion int `json:"cgroup_version,omitempty"`
	// GoLimitBytes is the Go memory limit an embedded engine's worker process set (bytes).
	GoLimitBytes int64 `json:"go_limit_bytes,omitempty"`
	// EngineBytes is what each engine may allocate for itself under the cap, its cache
	// included (bytes): the engine's share of the cap (memcap.Shares).
	EngineBytes int64 `json:"engine_bytes,omitempty"`
	// Cold says whether the engine's data files were evicted from the page cache before each
	// step (--cold).
	Cold bool `json:"cold"`
	// ReadaheadKB is the data device's readahead during the run (--readahead-kb), 0 when left
	// as it was.
	ReadaheadKB int `json:"readahead_kb,omitempty"`
}

// Group is a group of steps a workload reports together (sysbench's "point queries").
type Group struct {
	Name  string `json:"name"`
	Title string `json:"title"`
}

// Target is one engine (or engine × configuration) of a run.
type Target struct {
	Label   string     `json:"label"`
	Engine  table.Info `json:"engine"`
	DataDir string     `json:"data_dir"`
	// Check is the outcome of the workload's invariant check after the last step.
	Check string `json:"check,omitempty"`
	// Of and Clients place the target in a concurrency sweep (Manifest.Sweep): it is target Of
	// (an engine, or engine × configuration) with Clients clients; "" and 0 outside a sweep,
	// and for the target that holds a sweep's load steps (Of "" and Clients 0, its label Of's).
	Of      string `json:"of,omitempty"`
	Clients int    `json:"clients,omitempty"`
	// Rate places the target in a sweep of rates: target Of run at this fixed rate, per second.
	Rate float64 `json:"rate,omitempty"`
}

// NewTarget returns the target label that runs the registered engine with the engine-specific
// options opts (nil for none), before it is opened.
func NewTarget(label, engine string, opts map[string]string) Target {
	return Target{Label: label, Engine: table.Info{Name: engine, Options: opts}}
}

// Writer writes a run directory: run.json and steps.json are rewritten whole (atomically) each
// time they change, intervals.jsonl is appended and flushed every tick, so a run that stops at
// any point leaves valid files with everything measured so far.
type Writer struct {
	dir       string
	runID     string
	intervals *os.File
	buf       *bufio.Writer
	enc       *json.Encoder
	steps     []Step
	mode      os.FileMode // of the files written
}

// maxRunDirTries bounds the names Create tries for one run: runID, runID-2, … runID-1000.
const maxRunDirTries = 1000

// Create makes a new run directory under out (created if missing) and opens intervals.jsonl in
// it. The directory is out/runID, or out/runID-2, out/runID-3, … when that name exists, so two
// runs never share a directory even when they start in the same second with the same label;
// RunID returns the id actually used.
func Create(out, runID string, private bool) (*Writer, error) {
	dir, id, err := NewDir(out, runID, DirMode(private))
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "intervals.jsonl"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, FileMode(private))
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	buf := bufio.NewWriterSize(f, 64<<10)
	return &Writer{dir: dir, runID: id, intervals: f, buf: buf, enc: json.NewEncoder(buf), mode: FileMode(private)}, nil
}

// NewDir makes a new directory under out (created if missing) named name, or name-2, name-3, …
// (up to name-1000) when that name exists, with mode mode, and returns it and the name used. It
// only ever makes a directory that did not exist (os.Mkdir), so two runs or recipes that start
// in the same second under one name never share one, and the directory returned is the caller's
// own.
func NewDir(out, name string, mode os.FileMode) (dir, used string, err error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", "", err
	}
	used = name
	for i := 1; ; i++ {
		if i > maxRunDirTries {
			return "", "", fmt.Errorf("%s: %d directories named %s or %s-N exist already", out, maxRunDirTries, name, name)
		}
		if i > 1 {
			used = fmt.Sprintf("%s-%d", name, i)
		}
		dir = filepath.Join(out, used)
		err := os.Mkdir(dir, mode)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", "", err
		}
	}
	if err := os.Chmod(dir, mode); err != nil { // the umask may have narrowed it
		return "", "", err
	}
	return dir, used, nil
}

// FileMode is the mode of a run's files: 0600 for a private run (Manifest.Private), 0644
// otherwise.
func FileMode(private bool) os.FileMode {
	if private {
		return 0o600
	}
	return 0o644
}

// DirMode is the mode of a run's directory: 0700 for a private run, 0755 otherwise.
func DirMode(private bool) os.FileMode {
	if private {
		return 0o700
	}
	return 0o755
}

// RunID returns the run id the directory was created for: the runID given to Create, or it
// with a "-N" suffix (N from 2) when a directory of that name existed already.
func (w *Writer) RunID() string { return w.runID }

// Dir returns the run directory.
func (w *Writer) Dir() string { return w.dir }

// Interval appends one interval record and flushes it to the file.
func (w *Writer) Interval(iv *Interval) error {
	if err := w.enc.Encode(iv); err != nil {
		return err
	}
	return w.buf.Flush()
}

// Step records a step result and rewrites steps.json.
func (w *Writer) Step(s Step) error {
	w.steps = append(w.steps, s)
	return writeJSON(filepath.Join(w.dir, "steps.json"), w.steps, w.mode)
}

// Steps returns the step results recorded so far.
func (w *Writer) Steps() []Step { return w.steps }

// Manifest rewrites run.json.
func (w *Writer) Manifest(m *Manifest) error {
	return writeJSON(filepath.Join(w.dir, "run.json"), m, w.mode)
}

// Close flushes and closes intervals.jsonl and makes sure steps.json exists.
func (w *Writer) Close() error {
	if w.steps == nil {
		if err := writeJSON(filepath.Join(w.dir, "steps.json"), []Step{}, w.mode); err != nil {
			return err
		}
	}
	if err := w.buf.Flush(); err != nil {
		w.intervals.Close()
		return err
	}
	return w.intervals.Close()
}

// Remove closes the writer and deletes its run directory and everything in it: for a run that
// ends before it measured anything (its first run.json could not be written).
func (w *Writer) Remove() error {
	w.intervals.Close()
	return os.RemoveAll(w.dir)
}

// writeJSON writes v as indented JSON to path (mode mode) through a temporary file and a
// rename; a temporary file that could not be written whole is removed.
func writeJSON(path string, v any, mode os.FileMode) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), mode); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

// ReadSteps reads a run directory's steps.json, in the schema version of its run.json; both are
// validated (see ReadManifest and Load).
func ReadSteps(dir string) ([]Step, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	return readSteps(dir, m.SchemaVersion)
}

// ReadManifest reads and validates a run directory's run.json (see Manifest.Validate). An error
// is one line that starts with the file's path: "DIR/run.json: unexpected end of JSON input
// (truncated?)"; a missing file's error is a *fs.PathError ("open DIR/run.json: no such file or
// directory"), which os.IsNotExist recognizes.
func ReadManifest(dir string) (*Manifest, error) {
	file := filepath.Join(dir, ManifestFile)
	data, err := readRunFile(file, maxManifestBytes)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %s", file, jsonError(err, data))
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	UpgradeManifest(&m)
	return &m, nil
}
