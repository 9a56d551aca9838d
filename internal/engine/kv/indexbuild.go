package kv

import (
	"bufio"
	"bytes"
	"container/heap"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"slices"

	"github.com/rumbench/rumbench/internal/table"
)

// The index build. Entries are written in key order, as a B-tree engine builds an index from
// sorted entries: every index entry of every row is collected, sorted within runs of at most
// sortRunBytes and spilled to temporary files when there is more than one run, then merged and
// written in batches of as many entries as createIndexBatch rows have (the batches the engine
// receives are the size they were when entries were written in row order: a pebble batch much
// larger becomes a flushable batch that every read then searches until the next flush). A
// B-tree then fills its leaf pages one after the other instead of rewriting random pages on
// every commit, and an LSM receives ordered keys.

// sortRunBytes is the largest sorted run kept in memory (a variable for the tests); under a Go
// memory limit (a capped engine worker) a run is at most a sixteenth of it, so that the build
// leaves the engine its memory.
var sortRunBytes = 64 << 20

// runBytes returns the size of the runs of this build.
func runBytes() int {
	n := sortRunBytes
	if lim := debug.SetMemoryLimit(-1); lim < math.MaxInt64 {
		n = min(n, max(int(lim/16), 1<<20))
	}
	return n
}

// entryRun is a run of encoded index entries: keys in arena at spans.
type entryRun struct {
	arena []byte
	spans []span
}

type span struct{ lo, hi int }

func (r *entryRun) add(k []byte) {
	r.spans = append(r.spans, span{len(r.arena), len(r.arena) + len(k)})
	r.arena = append(r.arena, k...)
}

func (r *entryRun) key(i int) []byte { return r.arena[r.spans[i].lo:r.spans[i].hi] }

func (r *entryRun) size() int { return len(r.arena) + 16*len(r.spans) }

// sort orders the run's keys (their spans; the arena stays as it is).
func (r *entryRun) sort() {
	slices.SortFunc(r.spans, func(a, b span) int { return bytes.Compare(r.arena[a.lo:a.hi], r.arena[b.lo:b.hi]) })
}

func (r *entryRun) reset() { r.arena, r.spans = r.arena[:0], r.spans[:0] }

// spill writes the sorted run to a temporary file, each key as a uvarint length and its bytes.
func (r *entryRun) spill() (*os.File, error) {
	f, err := os.CreateTemp("", "rumbench-index-*.run")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name()) // unlinked: the file goes away when closed, whatever happens
	w := bufio.NewWriterSize(f, 1<<20)
	var lb [binary.MaxVarintLen64]byte
	for i := range r.spans {
		k := r.key(i)
		w.Write(lb[:binary.PutUvarint(lb[:], uint64(len(k)))])
		w.Write(k)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// buildIndexes writes the index entries of every row of t in key order.
func (e *Engine) buildIndexes(ctx context.Context, t *table.Table, ts *tableState) error {
	var run entryRun
	var files []*os.File
	limit := runBytes()
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	var c codec
	row := make([]table.Value, len(t.Columns))
	from := append([]byte(nil), ts.bounds[0].lower...)
	for from != nil {
		if err := ctx.Err(); err != nil {
			return err
		}
		var err error
		if from, err = e.collectChunk(t, ts, &run, &c, row, from); err != nil {
			return err
		}
		if run.size() >= limit {
			run.sort()
			f, err := run.spill()
			if err != nil {
				return fmt.Errorf("kv: index build: %w", err)
			}
			files = append(files, f)
			run.reset()
		}
	}
	run.sort()
	w := &entryWriter{b: e.store.NewBatch(), max: createIndexBatch * len(t.Indexes)}
	defer w.b.Close()
	if len(files) == 0 {
		for i := range run.spans {
			if err := w.put(ctx, run.key(i)); err != nil {
				return err
			}
		}
		return w.flush()
	}
	if len(run.spans) > 0 {
		f, err := run.spill()
		if err != nil {
			return fmt.Errorf("kv: index build: %w", err)
		}
		files = append(files, f)
	}
	run = entryRun{}
	return mergeRuns(ctx, files, w)
}

// collectChunk adds the index entries of up to createIndexBatch rows from key from on to run,
// and returns the key to continue from (nil at the end). No iterator stays open between chunks.
func (e *Engine) collectChunk(t *table.Table, ts *tableState, run *entryRun, c *codec, row []table.Value, from []byte) ([]byte, error) {
	it, err := e.store.NewIter(from, ts.bounds[0].upper)
	if err != nil {
		return nil, err
	}
	n := 0
	ok := it.SeekGE(from)
	for ; ok && n < createIndexBatch; ok = it.Next() {
		if err := c.decodeRow(t, it.Key()[4:], it.Value(), row); err != nil {
			it.Close()
			return nil, err
		}
		for i := range t.Indexes {
			run.add(c.indexKey(t, ts.indexIDs[i], i, row))
		}
		n++
	}
	var next []byte
	if ok {
		next = append(next, it.Key()...)
	}
	return next, it.Close()
}

// entryWriter writes index entries in batches of max.
type entryWriter struct {
	b      Batch
	n, max int
}

func (w *entryWriter) put(ctx context.Context, k []byte) error {
	if err := w.b.Set(k, nil); err != nil {
		return err
	}
	if w.n++; w.n >= w.max {
		if err := ctx.Err(); err != nil {
			return err
		}
		return w.flush()
	}
	return nil
}

func (w *entryWriter) flush() error {
	w.n = 0
	return w.b.Commit()
}

// runReader reads one spilled run.
type runReader struct {
	r   *bufio.Reader
	key []byte
}

func (r *runReader) next() (bool, error) {
	n, err := binary.ReadUvarint(r.r)
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	r.key = slices.Grow(r.key[:0], int(n))[:n]
	_, err = io.ReadFull(r.r, r.key)
	return err == nil, err
}

// runHeap orders the runs' current keys.
type runHeap []*runReader

func (h runHeap) Len() int           { return len(h) }
func (h runHeap) Less(i, j int) bool { return bytes.Compare(h[i].key, h[j].key) < 0 }
func (h runHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)        { *h = append(*h, x.(*runReader)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// mergeRuns merges the sorted runs in files and writes their keys in order.
func mergeRuns(ctx context.Context, files []*os.File, w *entryWriter) error {
	h := runHeap{}
	for _, f := range files {
		r := &runReader{r: bufio.NewReaderSize(f, 64<<10)}
		ok, err := r.next()
		if err != nil {
			return err
		}
		if ok {
			h = append(h, r)
		}
	}
	heap.Init(&h)
	for h.Len() > 0 {
		r := h[0]
		if err := w.put(ctx, r.key); err != nil {
			return err
		}
		ok, err := r.next()
		if err != nil {
			return err
		}
		if ok {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	return w.flush()
}
