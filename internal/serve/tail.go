package serve

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/rumbench/rumbench/internal/results"
)

// maxTails bounds the runs in progress whose intervals are kept between polls.
const maxTails = 16

// maxChunk bounds what one read of a growing intervals file takes, bytes; the rest comes at
// the next poll.
const maxChunk = 64 << 20

// tails reads the run directories of runs in progress, keeping each one's intervals and how
// far its intervals file was read, so that a poll reads only what was appended since the last.
type tails struct {
	mu   sync.Mutex
	runs map[string]*tail // by directory
	// order is the directories from the least recently read.
	order []string
}

// tail is one run directory's intervals read so far.
type tail struct {
	offset    int64
	intervals []results.Interval
	pending   []byte // a line not yet ended
}

func newTails() *tails { return &tails{runs: map[string]*tail{}} }

// load reads the run in dir, which must be run id's: its manifest and steps afresh, its
// intervals from where the last load stopped. A run whose process is gone is said abandoned.
func (ts *tails) load(dir, id string) (*results.Run, error) {
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("run %s: its directory %q is not an absolute path", id, dir)
	}
	m, err := results.ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	if m.RunID != id {
		return nil, fmt.Errorf("%s holds run %s, not %s", dir, m.RunID, id)
	}
	if m.Abandoned() {
		m.Status = results.StatusAbandoned
	}
	steps, err := results.ReadSteps(dir)
	if errors.Is(err, os.ErrNotExist) {
		steps, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t := ts.runs[dir]
	if t == nil {
		t = &tail{}
		ts.runs[dir] = t
	}
	ts.touch(dir)
	if err := t.read(filepath.Join(dir, results.IntervalsFile), m.SchemaVersion); err != nil {
		delete(ts.runs, dir)
		return nil, err
	}
	ivs := make([]results.Interval, len(t.intervals))
	copy(ivs, t.intervals)
	return &results.Run{Dir: dir, Manifest: m, Steps: steps, Intervals: ivs}, nil
}

// touch makes dir the most recently read, dropping the least recent past maxTails.
func (ts *tails) touch(dir string) {
	for i, d := range ts.order {
		if d == dir {
			ts.order = append(ts.order[:i], ts.order[i+1:]...)
			break
		}
	}
	ts.order = append(ts.order, dir)
	for len(ts.order) > maxTails {
		delete(ts.runs, ts.order[0])
		ts.order = ts.order[1:]
	}
}

// read decodes the lines appended to file since the last read.
func (t *tail) read(file string, schema int) error {
	f, err := os.Open(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file", file)
	}
	if st.Size() < t.offset { // rewritten: read it again
		*t = tail{}
	}
	data, err := io.ReadAll(io.NewSectionReader(f, t.offset, min(st.Size()-t.offset, maxChunk)))
	if err != nil {
		return err
	}
	t.offset += int64(len(data))
	data = append(t.pending, data...)
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		line := data[:i]
		data = data[i+1:]
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		iv, err := results.DecodeInterval(line, schema)
		if err != nil {
			return fmt.Errorf("%s: %v", file, err)
		}
		t.intervals = append(t.intervals, iv)
	}
	if len(data) > maxChunk {
		return fmt.Errorf("%s: a line longer than %d MiB: not an interval record", file, maxChunk>>20)
	}
	t.pending = append([]byte(nil), data...)
	return nil
}
