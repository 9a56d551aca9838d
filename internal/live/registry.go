package live

import (
	"bytes"
	"context"
	"io"
	"sync"
	"time"

	"github.com/rumbench/rumbench/internal/openmetrics"
	"github.com/rumbench/rumbench/internal/results"
)

// Run names a run's series: every sample carries these labels.
type Run struct {
	// ID and Label are the run's id and label (run.json's run_id and label); Workload its
	// workload; Shard "I/N" for shard I of a split run, "" otherwise; Version rumbench's.
	ID, Label, Workload, Shard, Version string
}

// MaxSteps bounds the target × step series a registry keeps: past it, the oldest finished
// step is dropped to make room (a run of more steps than that scrapes its last ones).
const MaxSteps = 2000

// Registry keeps the latest sample of every target × step of a run, and whether each step has
// ended: the state a scrape exposes. A step's series stay, with their last values, after it
// ends, so a scrape after the step still sees its final counts. Safe for concurrent use.
type Registry struct {
	mu      sync.Mutex
	run     Run
	entries []*entry
	// scrapes are the times of the scrapes served (the first and the last two are enough:
	// the longest gap between two is kept).
	scrapes   int
	lastScr   time.Time // when the last scrape's exposition was taken
	maxGap    time.Duration
	scraped   chan struct{} // closed and replaced at each scrape written
	published time.Time     // when the last sample or step end arrived
	size      int           // the last exposition's, bytes: the next one's buffer
}

// entry is one target × step of a registry, or of a past run's history.
type entry struct {
	target, step, engine string
	rep                  int
	// points are its samples in time order: the latest alone in a registry.
	points []*Sample
	// run is the index of its run (a past run's history may hold several; a registry one).
	run int
	// labels are its series' labels, made at its first exposition (nil: to be made).
	labels []openmetrics.Label
	// done says the step has ended (its record arrived); status is the record's status.
	done   bool
	status string
}

// NewRegistry returns an empty registry for run.
func NewRegistry(run Run) *Registry {
	return &Registry{run: run, scraped: make(chan struct{})}
}

// SetRun renames the run (its id once its directory is made).
func (r *Registry) SetRun(run Run) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.run = run
	for _, e := range r.entries {
		e.labels = nil
	}
}

// Observe records s as the latest sample of its target × step. The registry keeps s: the
// caller must not change it afterwards.
func (r *Registry) Observe(s *Sample) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.find(s.Target, s.Rep, s.Step)
	if e == nil {
		e = r.add(s.Target, s.Rep, s.Step)
	}
	e.engine = s.Engine
	e.points = append(e.points[:0], s)
	r.published = time.Now()
}

// StepDone records the end of a step with its status (results.StatusOK, ...): its series stop
// being the current step's. A step that never published a sample (its engine's worker died
// before its first tick) gets series of its own with no operations.
func (r *Registry) StepDone(st *results.Step) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.find(st.Target, st.Rep, st.Step)
	if e == nil {
		e = r.add(st.Target, st.Rep, st.Step)
		e.engine = st.Engine
		e.points = []*Sample{{Target: st.Target, Rep: st.Rep, Step: st.Step, Engine: st.Engine, RateName: st.RateName,
			UnixMs: st.End.UnixMilli(), Final: true}}
		e.points[0].markUnmeasured()
	}
	e.done, e.status = true, st.Status
	r.published = time.Now()
}

func (r *Registry) find(target string, rep int, step string) *entry {
	// The newest first: the step running now is the last added.
	for i := len(r.entries) - 1; i >= 0; i-- {
		if e := r.entries[i]; e.target == target && e.rep == rep && e.step == step {
			return e
		}
	}
	return nil
}

// add appends a new entry, dropping the oldest finished one when MaxSteps are kept.
func (r *Registry) add(target string, rep int, step string) *entry {
	if len(r.entries) >= MaxSteps {
		drop := 0
		for i, e := range r.entries {
			if e.done {
				drop = i
				break
			}
		}
		r.entries = append(r.entries[:drop], r.entries[drop+1:]...)
	}
	e := &entry{target: target, rep: rep, step: step}
	r.entries = append(r.entries, e)
	return e
}

// Write writes the registry's exposition (every kept series with its latest value, no
// timestamps) to w and, once it is written, counts it as a scrape. The exposition is made
// under the registry's lock and written after it is released: a slow reader never holds up
// the runner's samples.
func (r *Registry) Write(w io.Writer) error {
	var b bytes.Buffer
	ow := openmetrics.NewWriter(&b)
	r.mu.Lock()
	b.Grow(r.size)
	taken := time.Now()
	writeFamilies(ow, []Run{r.run}, r.entries, false)
	r.mu.Unlock()
	if err := ow.End(); err != nil {
		return err
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return err
	}
	r.served(taken, b.Len())
	return nil
}

// served counts a scrape whose exposition of size bytes was taken at taken and written.
func (r *Registry) served(taken time.Time, size int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.size = size
	if r.scrapes > 0 {
		r.maxGap = max(r.maxGap, taken.Sub(r.lastScr))
	}
	r.scrapes++
	r.lastScr = taken
	close(r.scraped)
	r.scraped = make(chan struct{})
}

// Linger bounds the wait for a last scrape at a run's end (AwaitScrape).
const (
	// MaxLinger is the longest wait, whatever the scrape interval.
	MaxLinger = time.Minute
	// lingerOneScrape is the wait after a single scrape (the interval is not known): a
	// Prometheus server's default scrape interval and a second.
	lingerOneScrape = 16 * time.Second
)

// AwaitScrape waits, when the registry has been scraped, for a scrape taken after the last
// sample or step end was published and written, so that a scraper has a run's final counts; at most
// the longest gap between two scrapes seen plus half of it and a second (MaxLinger at most),
// and not after ctx ends. It returns at once when nothing ever scraped, and says how long it
// waited and whether the scrape came.
func (r *Registry) AwaitScrape(ctx context.Context) (time.Duration, bool) {
	r.mu.Lock()
	if r.scrapes == 0 || r.lastScr.After(r.published) {
		r.mu.Unlock()
		return 0, r.scrapes > 0
	}
	limit := lingerOneScrape
	if r.scrapes > 1 {
		limit = min(r.maxGap+r.maxGap/2+time.Second, MaxLinger)
	}
	r.mu.Unlock()
	start := time.Now()
	t := time.NewTimer(limit)
	defer t.Stop()
	for {
		r.mu.Lock()
		done, ch := r.lastScr.After(r.published), r.scraped
		r.mu.Unlock()
		if done {
			return time.Since(start), true
		}
		select {
		case <-ch:
		case <-t.C:
			return time.Since(start), false
		case <-ctx.Done():
			return time.Since(start), false
		}
	}
}

// Scrapes returns the number of scrapes served.
func (r *Registry) Scrapes() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.scrapes
}

// markUnmeasured sets every system figure of s to "not measured" (-1).
func (s *Sample) markUnmeasured() {
	s.ReadBytes, s.WrittenBytes, s.Flushes, s.ContextSwitches = -1, -1, -1, -1
	s.ServerCPUNs, s.Syncs, s.StallUs, s.AppEvictions = -1, -1, -1, -1
	s.ClientRSSBytes, s.ServerRSSBytes, s.MemoryPressure, s.DBBytes = -1, -1, -1, -1
}
