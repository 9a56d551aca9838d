package results

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/rumbench/rumbench/internal/input"
)

// The files of a run directory.
const (
	// ManifestFile is the run's manifest (Manifest).
	ManifestFile = "run.json"
	// StepsFile is the JSON array of the run's step records (Step).
	StepsFile = "steps.json"
	// IntervalsFile holds one interval record (Interval) a line.
	IntervalsFile = "intervals.jsonl"
)

// Size limits of the files read back, bytes: far above what a run writes (a manifest is a few
// KB, a step record with its histograms some tens of KB), so a larger file is not a run's.
const (
	maxManifestBytes = 16 << 20
	maxStepsBytes    = 1 << 30
	maxIntervalLine  = 16 << 20
)

// Run is a run directory read back: its manifest, step records and interval records.
type Run struct {
	// Dir is the run directory.
	Dir       string
	Manifest  *Manifest
	Steps     []Step
	Intervals []Interval
}

// Load reads and validates a run directory (run.json, steps.json, intervals.jsonl). A run that
// stopped early is read as far as it got: a missing intervals.jsonl, a torn last line of it,
// and a missing steps.json of a run whose run.json still says it is running (or abandoned: its
// process was killed) are not errors. Anything else that is not what rumbench writes is: a
// missing steps.json of a run that ended (it writes one as it ends, empty or not), a file that
// does not parse, a manifest without its required fields (see Manifest.Validate), a step or
// interval record without its target or step name, a step of a target run.json does not list.
// An error is one line that starts with the path of the file at fault, e.g. "DIR/steps.json:
// unexpected end of JSON input (truncated?)".
func Load(dir string) (*Run, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	steps, err := readSteps(dir, m.SchemaVersion)
	if errors.Is(err, fs.ErrNotExist) {
		if m.Status != StatusRunning && m.Status != StatusAbandoned {
			return nil, fmt.Errorf("%s: missing, and %s says the run ended (%s): a run that ends writes one", filepath.Join(dir, StepsFile), ManifestFile, m.Status)
		}
		err = nil
	}
	if err != nil {
		return nil, err
	}
	if err := stepTargets(dir, m, steps); err != nil {
		return nil, err
	}
	ivs, err := readIntervals(dir, m.SchemaVersion)
	if err != nil {
		return nil, err
	}
	return &Run{Dir: dir, Manifest: m, Steps: steps, Intervals: ivs}, nil
}

// ReadIntervals reads a run directory's intervals.jsonl (validated as Load does); a torn last
// line (a run killed while writing) is skipped.
func ReadIntervals(dir string) ([]Interval, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	return readIntervals(dir, m.SchemaVersion)
}

// Validate says what a manifest read back lacks; nil when it has what every run's run.json
// holds from the run's start: schema_version (1 to SchemaVersion), run_id, rumbench_version,
// workload, start and status, a label for each target, and at least one target once the run
// completed (status ok: a run that failed or was stopped before it opened an engine has none);
// a shard's record, when there is one, must be valid (ShardInfo.Validate).
func (m *Manifest) Validate() error {
	var missing []string
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"schema_version", m.SchemaVersion != 0}, {"run_id", m.RunID != ""}, {"rumbench_version", m.Version != ""},
		{"workload", m.Workload != ""}, {"start", !m.Start.IsZero()}, {"status", m.Status != ""},
	} {
		if !f.set {
			missing = append(missing, f.name)
		}
	}
	switch {
	case len(missing) > 0:
		return fmt.Errorf("not a run manifest: missing %s (required: schema_version, run_id, rumbench_version, workload, start, status)", strings.Join(missing, ", "))
	case m.SchemaVersion < 1 || m.SchemaVersion > SchemaVersion:
		return fmt.Errorf("schema_version %d: this rumbench reads 1 to %d (a newer rumbench wrote it?)", m.SchemaVersion, SchemaVersion)
	case m.Status == StatusOK && len(m.Targets) == 0:
		return errors.New("status ok but no targets: a completed run lists the engines it ran")
	}
	for i, t := range m.Targets {
		if t.Label == "" {
			return fmt.Errorf("targets[%d]: no label", i)
		}
	}
	if m.Shard != nil {
		if err := m.Shard.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// readSteps reads and validates steps.json; a missing file is an error that errors.Is
// fs.ErrNotExist.
func readSteps(dir string, schema int) ([]Step, error) {
	file := filepath.Join(dir, StepsFile)
	data, err := readRunFile(file, maxStepsBytes)
	if err != nil {
		return nil, err
	}
	steps, err := DecodeSteps(data, schema)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", file, jsonError(err, data))
	}
	for i, s := range steps {
		if err := checkNames(s.Target, s.Step); err != nil {
			return nil, fmt.Errorf("%s: record %d: %v", file, i+1, err)
		}
	}
	return steps, nil
}

// readIntervals reads and validates intervals.jsonl: a line that does not decode is an error
// unless it is the last (a run killed while it wrote it); a missing file is no intervals.
func readIntervals(dir string, schema int) ([]Interval, error) {
	file := filepath.Join(dir, IntervalsFile)
	f, err := input.Open(file, 1<<62)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	defer f.Close()
	var out []Interval
	var torn error // the last line's decoding error, an error once another line follows
	tornLine := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), maxIntervalLine)
	line := 0
	for sc.Scan() {
		line++
		if torn != nil {
			return nil, fmt.Errorf("%s: line %d: %s", file, tornLine, torn)
		}
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		iv, err := DecodeInterval(sc.Bytes(), schema)
		if err != nil {
			torn, tornLine = errors.New(jsonError(err, sc.Bytes())), line
			continue
		}
		if err := checkNames(iv.Target, iv.Step); err != nil {
			return nil, fmt.Errorf("%s: line %d: %v", file, line, err)
		}
		out = append(out, iv)
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, fmt.Errorf("%s: line %d: longer than %d MiB: not an interval record", file, line+1, maxIntervalLine>>20)
	} else if err != nil {
		return nil, fmt.Errorf("%s: %v", file, input.Reason(err))
	}
	return out, nil
}

// stepTargets says which step record names a target the manifest does not list (the tables,
// the summary and compare would show it, or leave it out, without a word).
func stepTargets(dir string, m *Manifest, steps []Step) error {
	labels := make(map[string]bool, len(m.Targets))
	for _, t := range m.Targets {
		labels[t.Label] = true
	}
	for i, s := range steps {
		if !labels[s.Target] {
			return fmt.Errorf("%s: record %d: target %q is not one of the run's targets in %s", filepath.Join(dir, StepsFile), i+1, input.Short(s.Target), ManifestFile)
		}
	}
	return nil
}

// checkNames says which of a record's target and step names are missing.
func checkNames(target, step string) error {
	switch {
	case target == "" && step == "":
		return errors.New("no target and no step")
	case target == "":
		return fmt.Errorf("step %s: no target", input.Short(step))
	case step == "":
		return fmt.Errorf("target %s: no step", input.Short(target))
	}
	return nil
}

// readRunFile reads one file of a run directory: a regular file of at most limit bytes. An
// error names the file; a missing file's is a *fs.PathError (os.IsNotExist says so).
func readRunFile(file string, limit int64) ([]byte, error) {
	data, err := input.ReadFile(file, limit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &fs.PathError{Op: "open", Path: file, Err: err}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return data, nil
}

// jsonError says in one line why data did not decode: a file cut short says so, a syntax error
// gives its byte offset.
func jsonError(err error, data []byte) string {
	var syn *json.SyntaxError
	switch {
	case len(strings.TrimSpace(string(data))) == 0:
		return "empty file (truncated?)"
	case errors.As(err, &syn) && strings.HasPrefix(syn.Error(), "unexpected end"):
		return syn.Error() + " (truncated?)"
	case errors.As(err, &syn):
		return fmt.Sprintf("%v at byte %d", syn, syn.Offset)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
