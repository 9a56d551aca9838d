package linkbench

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
	"github.com/rumbench/rumbench/internal/workload/linkbench/lbgen"
)

// opKinds are the ten operations as kinds, named after the reference's (lower case).
var opKinds = [lbgen.NumOps]runner.Kind{}

func init() {
	for op := range lbgen.NumOps {
		role := results.RoleRead
		switch lbgen.Op(op) {
		case lbgen.OpAddLink, lbgen.OpUpdateLink, lbgen.OpAddNode, lbgen.OpUpdateNode:
			role = results.RoleWrite
		case lbgen.OpDeleteLink, lbgen.OpDeleteNode:
			role = results.RoleDelete
		}
		opKinds[op] = runner.Kind{Name: strings.ToLower(lbgen.Op(op).String()), Role: role, Unit: "rows"}
	}
}

var loopPresentation = runner.Presentation{RateName: "rps", RateUnit: "requests/s", PerOp: "request",
	Note: "rps = requests/s, every operation once (LinkBench's Requests/second); per-op figures per request"}

// maxRetries bounds the retries of one request after lock conflicts, as the reference retries
// (MyRocks reports a deadlock as a lock wait timeout, after 1 s by default).
const maxRetries = 50

// Run is the workload's state on one engine.
type Run struct {
	w        *Workload
	eng      table.Engine
	stores   bool
	plan     *lbgen.LoadPlan
	sessions workload.Sessions
	// nodesLoaded and linksLoaded count the load's rows; nodesAdded and nodesDeleted the request
	// loops' node inserts and deletes.
	nodesLoaded, linksLoaded, nodesAdded, nodesDeleted atomic.Int64
	// loadCheck checks the load once, before the first loop.
	loadCheck workload.LoadCheck
	// Node writes after faults (acks.go): the node inserts and deletes of unknown outcome since
	// BeforeFaults; the nodes added and deleted then, and the nodes (nodeRows); and the nodes
	// the checks found beyond (or short of) the count, which the final check takes as they are.
	unknownNodes            atomic.Int64
	added0, deleted0, nodes int64
	nodeRows                workload.Growth
}

var _ workload.Run = (*Run)(nil)

// Open implements workload.Workload: it creates the three tables.
func (w *Workload) Open(ctx context.Context, eng table.Engine) (workload.Run, error) {
	if err := openTables(ctx, eng); err != nil {
		return nil, err
	}
	return w.newRun(eng), nil
}

// newRun is the state of a run on eng, which holds the graph's tables.
func (w *Workload) newRun(eng table.Engine) *Run {
	return &Run{w: w, eng: eng, stores: eng.Info().Stores, plan: w.loadPlan()}
}

// Rows implements workload.Run: the links loaded (so bytes per row is bytes per link).
func (r *Run) Rows() int64 { return r.linksLoaded.Load() }

// Close implements workload.Run.
func (r *Run) Close() error { return r.sessions.Close() }

// Prepare implements workload.Run: before the first loop, the count check of the load.
func (r *Run) Prepare(ctx context.Context, name string) (string, error) {
	if name != loopName(1) || !r.stores || r.w.split() {
		return "", nil
	}
	return r.loadCheck.Before(ctx, r.check)
}

// Step implements workload.Run.
func (r *Run) Step(ctx context.Context, name string) (runner.Step, error) {
	if err := r.sessions.Close(); err != nil {
		return runner.Step{}, err
	}
	if name == StepLoad {
		return r.loadStep(ctx)
	}
	return r.loopStep(ctx, name)
}

// loopStep makes the requesters of loop name (loopN): each draws requests until the loop's time
// is up or its share of Requests is done; --request-rate paces them as the run's --rate
// (SpelledRate).
func (r *Run) loopStep(ctx context.Context, name string) (runner.Step, error) {
	cfg := &r.w.Cfg
	loop, err := strconv.Atoi(strings.TrimPrefix(name, "loop"))
	if err != nil || !strings.HasPrefix(name, "loop") {
		return runner.Step{}, fmt.Errorf("linkbench: unknown step %q (valid: load, loop1 .. loop%d)", name, cfg.Loops)
	}
	st := runner.Step{Name: name, Presentation: loopPresentation, Percentiles: cfg.pcts,
		Warmup: time.Duration(cfg.warmupSecs * float64(time.Second)), Duration: time.Duration(cfg.LoopSecs * float64(time.Second))}
	var kinds [lbgen.NumOps]runner.KindID
	for op := range lbgen.NumOps {
		kinds[op] = st.Kinds.Add(opKinds[op])
		st.RateKinds = append(st.RateKinds, kinds[op])
	}
	all := int64(cfg.Requesters * max(r.w.Shard.Count, 1))
	for i := 0; i < cfg.Requesters; i++ {
		g := r.w.Shard.Index*cfg.Requesters + i // the requester's number among all shards'
		q, err := r.w.model.NewRequester(g, int(all))
		if err != nil {
			return st, err
		}
		c, err := r.newRequester(ctx, &r.sessions, q)
		if err != nil {
			return st, err
		}
		c.rng = gen.NewRand(gen.Mix(r.w.Seed ^ uint64(loop)<<40 ^ uint64(g+1)))
		left := int64(-1) // requests still to do (-1: no count, the loop's time only)
		if cfg.Requests > 0 {
			left = cfg.Requests / all
			if int64(g) < cfg.Requests%all {
				left++
			}
		}
		st.Workers = append(st.Workers, runner.Worker{Name: fmt.Sprintf("requester %d", i+1), Role: runner.Driver,
			Op: func(ctx context.Context, m *runner.Meter) (bool, error) {
				now := time.Now()
				if left == 0 || m.Ended(now) {
					return true, nil
				}
				c.q.Next(&c.rng, &c.req)
				for try := 0; ; try++ {
					rows, err := c.do(ctx)
					if err == nil {
						m.Done(kinds[c.req.Op], now, rows)
						if left > 0 && m.InWindow(now) {
							left--
						}
						if opKinds[c.req.Op].Role != results.RoleRead {
							m.Commit(1)
						}
						return false, nil
					}
					if ctx.Err() != nil {
						return true, nil
					}
					if !errors.Is(err, table.ErrConflict) || try == maxRetries {
						if (c.req.Op == lbgen.OpAddNode || c.req.Op == lbgen.OpDeleteNode) && table.UnknownOutcome(err) {
							r.unknownNodes.Add(1)
						}
						return false, fmt.Errorf("%s id1=%d: %w", c.req.Op, c.req.ID1, err)
					}
					m.Retry()
				}
			}})
	}
	return st, nil
}

// newRequester opens a requester's sessions in ss: two connections on the servers the fork has
// a store for (see requester), the write one with autocommit off on MariaDB/MySQL; one session
// elsewhere.
func (r *Run) newRequester(ctx context.Context, ss *workload.Sessions, q *lbgen.Requester) (*requester, error) {
	sess, err := ss.Open(ctx, r.eng)
	if err != nil {
		return nil, err
	}
	c := &requester{r: r, st: r.w.st, sess: sess, w: sess, q: q, out: table.NewRows(len(linkCols), 64)}
	d := dialectOf(r.eng.Info())
	if d == "" {
		return c, nil
	}
	if c.w, err = ss.Open(ctx, r.eng); err != nil {
		return nil, err
	}
	if d == table.DialectMySQL {
		if err := c.setImplicit(ctx); err != nil {
			return nil, err
		}
	}
	return c, nil
}
