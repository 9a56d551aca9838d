package results

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
)

// Run is a run directory read back: its manifest, step records and interval records.
type Run struct {
	// Dir is the run directory.
	Dir       string
	Manifest  *Manifest
	Steps     []Step
	Intervals []Interval
}

// Load reads a run directory (run.json, steps.json, intervals.jsonl). A run that stopped early is
// read as far as it got: a missing intervals.jsonl or a torn last line is not an error.
func Load(dir string) (*Run, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("results: %s is not a run directory: %w", dir, err)
	}
	steps, err := readSteps(dir, m.SchemaVersion)
	if err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("results: %s: %w", dir, err)
	}
	ivs, err := readIntervals(dir, m.SchemaVersion)
	if err != nil {
		return nil, err
	}
	return &Run{Dir: dir, Manifest: m, Steps: steps, Intervals: ivs}, nil
}

// ReadIntervals reads a run directory's intervals.jsonl; a torn last line (a run killed while
// writing) is skipped.
func ReadIntervals(dir string) ([]Interval, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	return readIntervals(dir, m.SchemaVersion)
}

func readIntervals(dir string, schema int) ([]Interval, error) {
	f, err := os.Open(filepath.Join(dir, "intervals.jsonl"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	defer f.Close()
	var out []Interval
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		iv, err := DecodeInterval(sc.Bytes(), schema)
		if err != nil {
			continue
		}
		out = append(out, iv)
	}
	return out, sc.Err()
}
