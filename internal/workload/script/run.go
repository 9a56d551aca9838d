package script

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/netblock"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
	"github.com/rumbench/rumbench/internal/workload/script/pgscript"
)

// Open implements workload.Workload: the engine must run SQL text (table.SQLSession); with
// init, pgbench's four tables are created (empty).
func (w *Workload) Open(ctx context.Context, eng table.Engine) (workload.Run, error) {
	r := &run{w: w, eng: eng}
	sq, err := r.sqlSession(ctx)
	if err != nil {
		return nil, err
	}
	defer r.sessions.Close()
	if w.Cfg.Init {
		sch, err := schemaFor(eng.Info(), w.Cfg.Scale)
		if err != nil {
			return nil, err
		}
		out := table.NewRows(1, 1)
		for _, q := range sch.create {
			if _, err := sq.ExecSQL(ctx, q, nil, out); err != nil {
				return nil, fmt.Errorf("init: %w", err)
			}
		}
	}
	return r, nil
}

// sqlSession opens a session of the run and returns it as a SQL session. An engine without SQL
// text is refused; so is one whose sessions cannot share a thread when --jobs is fewer than
// --clients (CheckEngine refused the engines the run knew could not: a probe makes sure, before
// the init step loads). The session stays open until r.sessions closes.
func (r *run) sqlSession(ctx context.Context) (table.SQLSession, error) {
	s, err := r.sessions.Open(ctx, r.eng)
	if err != nil {
		return nil, err
	}
	sq, ok := s.(table.SQLSession)
	if !ok {
		r.sessions.Close()
		info := r.eng.Info()
		return nil, fmt.Errorf("the script workload runs SQL text: engine %s (family %s) has no SQL; use sqlite, postgres, mysql or myrocks", info.Name, info.Family)
	}
	if c := r.w.Cfg; c.Jobs > 0 && c.Jobs < c.Clients {
		g := netblock.NewGroup()
		probe, err := r.eng.NewSession(netblock.WithGroup(ctx, g))
		if err != nil {
			r.sessions.Close()
			return nil, err
		}
		probe.Close()
		raw := g.Conns() > 0
		g.Close()
		if !raw {
			r.sessions.Close()
			return nil, jobsRefusal(c, r.eng.Info().Name)
		}
	}
	return sq, nil
}

// jobsRefusal is the error of --jobs fewer than --clients on an engine whose sessions have no
// raw sockets to share a thread over.
func jobsRefusal(c Config, name string) error {
	return fmt.Errorf("--jobs %d with %d clients: clients share a thread over raw sockets only (engine postgres or mysql, io=raw); engine %s has none", c.Jobs, c.Clients, name)
}

// CheckEngine implements workload.EngineChecker: with --jobs fewer than --clients, an engine
// whose sessions cannot share a thread (engine.Spec.SharedThreads) is refused before the run.
func (w *Workload) CheckEngine(spec engine.Spec, extra map[string]string) error {
	if c := w.Cfg; c.Jobs > 0 && c.Jobs < c.Clients && (spec.SharedThreads == nil || !spec.SharedThreads(extra)) {
		return jobsRefusal(c, spec.Name)
	}
	return nil
}

var _ workload.EngineChecker = (*Workload)(nil)

type run struct {
	w        *Workload
	eng      table.Engine
	sessions workload.Sessions
	loaded   atomic.Int64 // rows the init step inserted
	inited   bool         // the init step ran to its end
	reopened bool         // the tables are an earlier prepare's (Reopen)
	commits  atomic.Int64 // transactions of the run step that committed
	failed   atomic.Int64 // transactions that failed after their last try
	writes   atomic.Int64 // committed transactions of the built-ins that insert a history row
	// unknownWrites counts those of unknown outcome (a connection lost in flight: they may have
	// committed); writes0 and hist are the writes and the history rows before a step with
	// faults, histOff the history rows the checks after faults found beyond (or short of) the
	// writes, which the final check takes as they are (see acks.go).
	unknownWrites    atomic.Int64
	writes0, histOff int64
	hist             workload.Growth
}

func (r *run) Prepare(ctx context.Context, name string) (string, error) { return "", nil }
func (r *run) Rows() int64                                              { return r.loaded.Load() }
func (r *run) Close() error                                             { return r.sessions.Close() }

var (
	runPresentation = runner.Presentation{RateName: "tps", RateUnit: "transactions/s", PerOp: "transaction",
		Note: "tps = script runs per second (pgbench's transactions); per-op figures per transaction"}
	kindFailed = runner.Kind{Name: "failed", Role: results.RoleOther, Unit: "transactions"}
)

// Step implements workload.Run.
func (r *run) Step(ctx context.Context, name string) (runner.Step, error) {
	if err := r.sessions.Close(); err != nil {
		return runner.Step{}, err
	}
	if name == StepInit {
		return r.initStep(ctx)
	}
	return r.runStep(ctx)
}

// initStep loads pgbench's rows with one client, then adds the keys. It is the workload's own
// load step, not a workload.Loader's batches: pgbench -i loads the tables one after the other,
// each by one writer in key order, and adds their keys after them.
func (r *run) initStep(ctx context.Context) (runner.Step, error) {
	st := runner.Step{Name: StepInit, Presentation: workload.LoadPresentation}
	k := st.Kinds.Add(workload.KindInsert)
	st.RateKinds = []runner.KindID{k}
	s, err := r.sessions.Open(ctx, r.eng)
	if err != nil {
		return st, err
	}
	sch, err := schemaFor(r.eng.Info(), r.w.Cfg.Scale)
	if err != nil {
		return st, err
	}
	l := &loader{sess: s.(table.SQLSession), scale: r.w.Cfg.Scale, out: table.NewRows(1, 1), texts: map[int]string{}}
	st.Workers = []runner.Worker{{Name: "loader", Role: runner.Driver, Op: func(ctx context.Context, m *runner.Meter) (bool, error) {
		t0 := time.Now()
		n, err := l.batch(ctx)
		if err != nil {
			return false, err
		}
		if n > 0 {
			m.Done(k, t0, n)
			m.Commit(1)
			r.loaded.Add(int64(n))
			return false, nil
		}
		for _, q := range sch.keys {
			if _, err := l.sess.ExecSQL(ctx, q, nil, l.out); err != nil {
				return false, fmt.Errorf("init: %w", err)
			}
		}
		r.inited = true
		return true, nil
	}}}
	return st, nil
}

// runStep makes the clients: each runs scripts chosen by weight until the run's time is up.
// The clients run for the warm-up and the measured time; the warm-up's figures are left out
// (runner.Step.Warmup), as sysbench's --warmup-time. jobs threads run the clients: client i on
// thread i mod jobs (a netblock.Group of its clients when a thread has several).
func (r *run) runStep(ctx context.Context) (runner.Step, error) {
	cfg := &r.w.Cfg
	st := runner.Step{Name: StepRun, Presentation: runPresentation,
		Warmup: time.Duration(cfg.WarmupSecs * float64(time.Second)), Duration: time.Duration(cfg.RunSecs * float64(time.Second))}
	scripts := compile(&st, cfg.Scripts)
	failed := st.Kinds.Add(kindFailed)
	jobs := cfg.Clients
	if cfg.Jobs > 0 && cfg.Jobs < jobs {
		jobs = cfg.Jobs
	}
	groups := make([]*netblock.Group, jobs)
	ops := make([][]func(context.Context, *runner.Meter) (bool, error), jobs)
	for i := 0; i < cfg.Clients; i++ {
		j := i % jobs
		if (cfg.Clients-j+jobs-1)/jobs > 1 && groups[j] == nil { // the thread has several clients
			groups[j] = netblock.NewGroup()
		}
		c, err := r.newClient(ctx, i, groups[j], len(ops[j]))
		if err != nil {
			return st, err
		}
		ops[j] = append(ops[j], r.clientOp(c, scripts, failed, groups[j] != nil))
	}
	for j, g := range groups {
		st.Workers = append(st.Workers, threadWorker(j, g, ops[j]))
	}
	return st, nil
}

// compile declares the run step's operation kinds: one per script (a transaction, its rate's),
// and one per SQL command of each script (its statement, named LABEL_NN_VERB).
func compile(st *runner.Step, weighted []Weighted) []compiled {
	scripts := make([]compiled, len(weighted))
	for i := range weighted {
		sc := &scripts[i]
		sc.w = &weighted[i]
		sc.kind = st.Kinds.Add(runner.Kind{Name: "tx_" + sc.w.Label, Role: results.RoleOther, Unit: "transactions"})
		st.RateKinds = append(st.RateKinds, sc.kind)
	}
	for i := range scripts {
		sc := &scripts[i]
		sc.kinds = make([]runner.KindID, len(sc.w.Script.Commands))
		n := 0
		for j, cmd := range sc.w.Script.Commands {
			if !cmd.Kind.Statement() {
				continue
			}
			n++
			verb := statementVerb(cmd)
			sc.kinds[j] = st.Kinds.Add(runner.Kind{Name: fmt.Sprintf("%s_%02d_%s", sc.w.Label, n, verb), Role: verbRole(verb), Unit: "statements"})
		}
	}
	return scripts
}

// newClient opens client i's session (in group g when its thread has several clients, where it
// is the thread's n-th) and its variables.
func (r *run) newClient(ctx context.Context, i int, g *netblock.Group, n int) (*client, error) {
	cfg := &r.w.Cfg
	octx := ctx
	if g != nil {
		octx = netblock.WithGroup(ctx, g)
	}
	s, err := r.sessions.Open(octx, r.eng)
	if err != nil {
		return nil, err
	}
	sq, ok := s.(table.SQLSession)
	if !ok {
		return nil, fmt.Errorf("engine %s runs no SQL text", r.eng.Info().Name)
	}
	if g != nil && g.Conns() != n+1 {
		return nil, jobsRefusal(*cfg, r.eng.Info().Name)
	}
	c := &client{id: i, sess: s, sql: sq, vars: pgscript.NewVars(r.w.names, cfg.Scale, i, r.w.Seed),
		out: table.NewRows(1, 4), text: make([]byte, 0, 256), stores: map[*pgscript.Command][]int{}, names: r.w.names,
		preparedTx: r.eng.Info().Dialect == table.DialectPostgres}
	for _, set := range cfg.Sets {
		c.vars.V[set.Slot] = set.Value
	}
	return c, nil
}

// clientOp is one transaction of client c: a script chosen by weight, run from the end of the
// client's last committed transaction (or now), counted in its script's kind when it commits and
// as failed when its tries ran out. grouped says the client shares its thread (its errors name
// it).
func (r *run) clientOp(c *client, scripts []compiled, failed runner.KindID, grouped bool) func(context.Context, *runner.Meter) (bool, error) {
	cfg := &r.w.Cfg
	total := 0
	for _, sc := range cfg.Scripts {
		total += sc.Weight
	}
	return func(ctx context.Context, m *runner.Meter) (bool, error) {
		c.until = m.End()
		t0 := c.clock // the end of the transaction before, if it committed
		if t0.IsZero() {
			t0 = time.Now()
		}
		c.clock = time.Time{}
		if m.Ended(t0) {
			return true, nil
		}
		sc := &scripts[choose(c.vars.Rand, cfg.Scripts, total)]
		end, err := c.run(ctx, m, sc, cfg.MaxTries, t0)
		switch {
		case err == errFailed:
			m.Done(failed, t0, 1)
			r.failed.Add(1)
			return false, nil
		case err != nil && ctx.Err() != nil:
			return true, nil
		case errors.Is(err, errDeadline):
			// The step's time ended in a \sleep: the transaction is not counted, and what
			// it began is rolled back (an error when none is open is no matter).
			c.sess.Rollback(context.WithoutCancel(ctx))
			return true, nil
		case err != nil:
			c.sess.Rollback(context.WithoutCancel(ctx))
			if table.UnknownOutcome(err) && (sc.w.Builtin == "tpcb-like" || sc.w.Builtin == "simple-update") {
				r.unknownWrites.Add(1)
			}
			if grouped { // the worker is the thread: name the client
				err = fmt.Errorf("client %d: %w", c.id, err)
			}
			return false, err
		}
		m.DoneAt(sc.kind, t0, end, 1)
		c.clock = end
		m.Commit(1)
		r.commits.Add(1)
		if sc.w.Builtin == "tpcb-like" || sc.w.Builtin == "simple-update" {
			r.writes.Add(1)
		}
		return false, nil
	}
}

// threadWorker is thread j: its one client's op, or with group g the ops of all its clients,
// each added to the group on the thread's first call and run a step of the group at a time.
func threadWorker(j int, g *netblock.Group, ops []func(context.Context, *runner.Meter) (bool, error)) runner.Worker {
	if g == nil {
		return runner.Worker{Name: fmt.Sprintf("client %d", j), Role: runner.Driver, Op: ops[0]}
	}
	started := false
	return runner.Worker{Name: fmt.Sprintf("thread %d", j), Role: runner.Driver,
		// A client's error comes out of Step as the thread's; the client goes on at the next
		// Step when the runner tolerates it (a lost connection), and the group ends with the
		// thread.
		Finish: g.Close,
		Op: func(ctx context.Context, m *runner.Meter) (bool, error) {
			if !started {
				started = true
				gctx := netblock.WithGroup(ctx, g)
				for _, op := range ops {
					g.Add(func() (bool, error) { return op(gctx, m) })
				}
			}
			all, err := g.Step()
			if all {
				g.Close()
			}
			return all, err
		}}
}

// choose picks a script by weight, as pgbench's chooseScript does.
func choose(rnd *pgscript.Rand, scripts []Weighted, total int) int {
	if len(scripts) == 1 {
		return 0
	}
	w := int(pgscript.Uniform(rnd, 0, int64(total-1)))
	for i, s := range scripts {
		w -= s.Weight
		if w < 0 {
			return i
		}
	}
	return len(scripts) - 1
}

// statementVerb is the lower-case first word of a command's statement ("select", "begin").
func statementVerb(cmd pgscript.Command) string {
	switch cmd.Kind {
	case pgscript.Begin:
		return "begin"
	case pgscript.Commit:
		return "commit"
	case pgscript.Rollback:
		return "rollback"
	}
	f := strings.Fields(strings.TrimLeft(cmd.Text, "("))
	if len(f) == 0 {
		return "sql"
	}
	v := strings.ToLower(f[0])
	for i := 0; i < len(v); i++ {
		if v[i] < 'a' || v[i] > 'z' {
			return "sql"
		}
	}
	return v[:min(len(v), 16)]
}

func verbRole(verb string) string {
	switch verb {
	case "select", "with", "values", "show", "table":
		return results.RoleRead
	case "insert", "update", "upsert", "replace", "merge":
		return results.RoleWrite
	case "delete":
		return results.RoleDelete
	}
	return results.RoleOther
}
