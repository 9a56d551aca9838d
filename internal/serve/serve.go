// Package serve is rumbench serve: a web view of a results store. Its pages are the list of
// runs with filters, a run's page and a comparison of runs (both the HTML report's own
// rendering, internal/report), and a run in progress whose charts follow it. Everything is
// served from the binary: no build step, no network beyond the listener.
package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/report"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/store"
)

// Limits of what a request can ask for.
const (
	// MaxListed is the most runs the list shows (the newest).
	MaxListed = 500
	// MaxCompared is the most runs one comparison takes.
	MaxCompared = 10
	// requestTimeout bounds the store's work for one page.
	requestTimeout = 30 * time.Second
)

// Server serves the pages of a store.
type Server struct {
	st    *store.Store
	tails *tails
}

// New returns the server of st (which the caller opens and closes).
func New(st *store.Store) *Server { return &Server{st: st, tails: newTails()} }

// Handler returns the server's routes: / (the runs, filtered by the query's workload, engine,
// label, since and until), /run/ID (a run), /run/ID/charts (its charts as JSON, which the page
// of a run in progress polls) and /compare?run=ID&run=ID[&base=LABEL] (a comparison).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/", s.list)
	mux.HandleFunc("/run/", s.run)
	mux.HandleFunc("/compare", s.compare)
	return mux
}

// badRequest is an error in what a request asks: a 400 with its one line.
type badRequest struct{ msg string }

func (e badRequest) Error() string { return e.msg }

func badf(format string, args ...any) error { return badRequest{fmt.Sprintf(format, args...)} }

// fail answers a request that failed: 400 for a bad request, 404 for an unknown run, 500
// otherwise, with one line of text.
func fail(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	var br badRequest
	switch {
	case errors.As(err, &br):
		code = http.StatusBadRequest
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrAmbiguous):
		code = http.StatusNotFound
	}
	http.Error(w, input.Printable(input.Line(err.Error(), 0)), code)
}

// get refuses a request other than GET or HEAD; it says whether to go on.
func get(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed: the pages are read with GET", http.StatusMethodNotAllowed)
		return false
	}
	return true
}

// runID checks a run id from a request: a name (input.CheckName), as run ids are.
func runID(v string) (string, error) {
	if err := input.CheckName(v); err != nil {
		return "", badf("run %q: %v", input.Short(v), err)
	}
	return v, nil
}

// run serves /run/ID (the run's page) and /run/ID/charts (its charts as JSON).
func (s *Server) run(w http.ResponseWriter, r *http.Request) {
	if !get(w, r) {
		return
	}
	rest := strings.TrimPrefix(r.URL.Path, "/run/")
	id, charts := rest, false
	if before, ok := strings.CutSuffix(rest, "/charts"); ok {
		id, charts = before, true
	}
	id, err := runID(id)
	if err != nil {
		fail(w, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	run, err := s.load(ctx, id)
	if err != nil {
		fail(w, err)
		return
	}
	opt := report.HTMLOptions{}
	if run.Manifest.Status == results.StatusRunning {
		opt.Live = "/run/" + run.Manifest.RunID + "/charts"
	}
	var b bytes.Buffer
	if charts {
		err = report.HTMLCharts(&b, []*results.Run{run}, opt)
		w.Header().Set("Content-Type", "application/json")
	} else {
		err = report.HTML(&b, []*results.Run{run}, opt)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
	}
	if err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Write(b.Bytes())
}

// compare serves /compare?run=ID&run=ID[&base=LABEL]: the HTML report of two or more runs,
// relative to the base (the first run's first target by default).
func (s *Server) compare(w http.ResponseWriter, r *http.Request) {
	if !get(w, r) {
		return
	}
	q := r.URL.Query()
	ids := q["run"]
	if len(ids) < 2 || len(ids) > MaxCompared {
		fail(w, badf("a comparison takes 2 to %d runs (run=ID&run=ID...), got %d", MaxCompared, len(ids)))
		return
	}
	base := q.Get("base")
	if len(base) > 200 {
		fail(w, badf("base %q: too long", input.Short(base)))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	var runs []*results.Run
	for _, v := range ids {
		id, err := runID(v)
		if err != nil {
			fail(w, err)
			return
		}
		run, err := s.load(ctx, id)
		if err != nil {
			fail(w, err)
			return
		}
		runs = append(runs, run)
	}
	var b bytes.Buffer
	if err := report.HTML(&b, runs, report.HTMLOptions{Base: base}); err != nil {
		if errors.Is(err, report.ErrUnknownBase) {
			err = badRequest{err.Error()}
		}
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(b.Bytes())
}

// load reads run id: from the store when it has ended (the store holds it whole), from its
// run directory while it runs (the store holds its start only; the directory its intervals
// and steps so far).
func (s *Server) load(ctx context.Context, id string) (*results.Run, error) {
	sum, err := s.st.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if sum.Status == results.StatusRunning {
		run, err := s.tails.load(sum.Dir, sum.RunID)
		if err == nil {
			return run, nil
		}
		// The directory is gone or not this run's: what the store holds.
	}
	return s.st.Load(ctx, sum.RunID)
}
