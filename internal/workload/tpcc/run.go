package tpcc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
)

// The five transaction types, in the order of the mix.
const (
	txNewOrder = iota
	txPayment
	txOrderStatus
	txDelivery
	txStockLevel
	numTx
)

// txKinds are the transaction types as kinds: each counts once in the per-transaction figures;
// units are the rows the transaction read (returned by its Selects).
var txKinds = [numTx]runner.Kind{
	{Name: "new_order", Role: results.RoleWrite, Unit: "rows read"},
	{Name: "payment", Role: results.RoleWrite, Unit: "rows read"},
	{Name: "order_status", Role: results.RoleRead, Unit: "rows read"},
	{Name: "delivery", Role: results.RoleWrite, Unit: "rows read"},
	{Name: "stock_level", Role: results.RoleRead, Unit: "rows read"},
}

// kindRollback times again the New-Orders that rolled back (the 1% with an unused item): they
// are in new_order too; NOPM counts the others.
var kindRollback = runner.Kind{Name: "new_order_rollback", Role: results.RoleOther, Unit: "rows read"}

// mix is the cumulative percentage of each type (clause 5.2.3: at least 43% Payment and 4% of
// each other but New-Order; go-tpc and HammerDB run 45/43/4/4/4).
var mix = [numTx]int64{45, 88, 92, 96, 100}

// p90Limit is the specification's 90th-percentile response time of each type (clause 5.2.5.4);
// Delivery's is its terminal response, the deferred part being done in the same call here.
var p90Limit = [numTx]time.Duration{5 * time.Second, 5 * time.Second, 5 * time.Second, 5 * time.Second, 20 * time.Second}

var runPresentation = runner.Presentation{RateName: "tpmC", RateUnit: "New-Orders/min", PerOp: "transaction",
	Note: "tpmC = New-Orders completed per minute, rolled back included; per-op figures per transaction of any type"}

// maxRetries bounds the tries of one transaction after conflicts and deadlocks; each waits a
// random backoff first (see terminal.backoff).
const maxRetries = 1000

// errRaced is a Delivery that found its oldest new order deleted by another terminal's: it is
// rolled back and tried again, as a conflict is.
var errRaced = fmt.Errorf("new order delivered by another terminal: %w", table.ErrConflict)

// Run is the workload's state on one engine.
type Run struct {
	w        *Workload
	eng      table.Engine
	stores   bool
	sessions workload.Sessions
	// rows counts the rows the tables hold by the workload's count.
	rows      atomic.Int64
	loadCheck workload.LoadCheck
	// newOrders counts the New-Orders acknowledged (committed, not rolled back) and those of
	// unknown outcome since BeforeFaults; orders are the districts' orders (see acks.go).
	newOrders, unknownNO atomic.Int64
	orders               workload.Growth
}

var _ workload.Run = (*Run)(nil)

// Open implements workload.Workload: it creates the nine tables.
func (w *Workload) Open(ctx context.Context, eng table.Engine) (workload.Run, error) {
	if err := transactional(eng.Info()); err != nil {
		return nil, err
	}
	if err := openTables(ctx, eng); err != nil {
		return nil, err
	}
	return &Run{w: w, eng: eng, stores: eng.Info().Stores}, nil
}

// transactional refuses an engine that runs each statement on its own (the document engine on
// a standalone server): TPC-C's transactions and its consistency conditions need multi-statement
// transactions.
func transactional(info table.Info) error {
	if txn, ok := info.Options["txn"]; ok && txn != "transactions" {
		return fmt.Errorf("tpcc needs multi-statement transactions, and engine %s runs statements one by one (txn=%s, a standalone server): run it on a replica set or mongos", info.Name, txn)
	}
	return nil
}

// Rows implements workload.Run.
func (r *Run) Rows() int64 { return r.rows.Load() }

// Close implements workload.Run.
func (r *Run) Close() error { return r.sessions.Close() }

// Prepare implements workload.Run: before the run, the consistency check of the load.
func (r *Run) Prepare(ctx context.Context, name string) (string, error) {
	if name != StepRun || !r.stores {
		return "", nil
	}
	return r.loadCheck.Before(ctx, r.Check)
}

// Step implements workload.Run.
func (r *Run) Step(ctx context.Context, name string) (runner.Step, error) {
	if err := r.sessions.Close(); err != nil {
		return runner.Step{}, err
	}
	if name == StepLoad {
		return r.loadStep(ctx)
	}
	return r.runStep(ctx)
}

// runStep makes the terminals: each runs transactions in the mix until the step's time is up.
func (r *Run) runStep(ctx context.Context) (runner.Step, error) {
	cfg := &r.w.Cfg
	st := runner.Step{Name: StepRun, Presentation: runPresentation, Percentiles: cfg.Percentiles,
		Warmup: time.Duration(cfg.WarmupSecs * float64(time.Second)), Duration: time.Duration(cfg.RunSecs * float64(time.Second))}
	var kinds [numTx]runner.KindID
	for t := range numTx {
		kinds[t] = st.Kinds.Add(txKinds[t])
		st.RateKinds = append(st.RateKinds, kinds[t])
	}
	st.HeadlineKinds, st.RateScale = []runner.KindID{kinds[txNewOrder]}, 60
	kRollback := st.Kinds.Add(kindRollback)
	st.Finish = finish
	var left atomic.Int64 // transactions still to start (Transactions > 0)
	left.Store(r.w.transactionShare())
	for i := 0; i < cfg.Terminals; i++ {
		sess, err := r.sessions.Open(ctx, r.eng)
		if err != nil {
			return st, err
		}
		c := newTerminal(r, sess, i)
		st.Workers = append(st.Workers, runner.Worker{Name: fmt.Sprintf("terminal %d (warehouse %d, district %d)", i+1, c.w, c.d), Role: runner.Driver,
			Op: func(ctx context.Context, m *runner.Meter) (bool, error) {
				// --transactions counts the measured transactions: the warm-up's come first.
				if now := time.Now(); m.Ended(now) || cfg.Transactions > 0 && m.InWindow(now) && left.Add(-1) < 0 {
					return true, nil
				}
				tx := c.next()
				end := m.End()
				if cfg.Think && !c.wait(ctx, keying[tx], end) {
					return true, nil
				}
				start := time.Now()
				for try := 0; ; try++ {
					rows, rolledBack, err := c.do(ctx, tx)
					if err == nil {
						m.Done(kinds[tx], start, rows)
						if rolledBack {
							m.Done(kRollback, start, rows)
						} else if tx != txOrderStatus && tx != txStockLevel {
							m.Commit(1)
						}
						if tx == txNewOrder && !rolledBack {
							r.newOrders.Add(1)
						}
						break
					}
					if tx == txNewOrder && table.UnknownOutcome(err) {
						r.unknownNO.Add(1)
					}
					c.sess.Rollback(ctx)
					if ctx.Err() != nil {
						return true, nil
					}
					if !errors.Is(err, table.ErrConflict) || try == maxRetries {
						return false, fmt.Errorf("%s (warehouse %d): %w", txKinds[tx].Name, c.w, err)
					}
					m.Retry()
					if !c.pause(ctx, c.backoff(try)) {
						return true, nil
					}
				}
				if cfg.Think && !c.wait(ctx, c.thinkTime(tx), end) {
					return true, nil
				}
				return false, nil
			}})
	}
	return st, nil
}

// finish adds the step's remarks: NOPM and transactions per second, and each type's 90th
// percentile against the specification's limit. (The rate, tpmC, is the runner's: the
// New-Orders per second times 60.)
func finish(res *results.Step) {
	if res.Secs <= 0 {
		return
	}
	no := res.KindOps(txKinds[txNewOrder].Name)
	rb := res.KindOps(kindRollback.Name)
	var over []string
	for t := range numTx {
		for _, l := range res.Latency {
			if l.Kind == txKinds[t].Name && l.P90Us > float64(p90Limit[t].Microseconds()) {
				over = append(over, fmt.Sprintf("%s p90 %.1f s > %g s", l.Kind, l.P90Us/1e6, p90Limit[t].Seconds()))
			}
		}
	}
	p90 := "every type's p90 within the specification's limits (5 s; stock_level 20 s)"
	if len(over) > 0 {
		p90 = "p90 above the specification's limits: " + strings.Join(over, ", ")
	}
	res.Remarks = append(res.Remarks, fmt.Sprintf("NOPM %.0f (New-Orders committed/min), %.1f transactions/s; %s",
		float64(no-rb)*60/res.Secs, float64(res.Ops)/res.Secs, p90))
}

// keying is each type's keying time (clause 5.2.5.2), before the transaction when Think is on.
var keying = [numTx]time.Duration{18 * time.Second, 3 * time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second}

// thinkMean is each type's mean think time (clause 5.2.5.4), after the transaction.
var thinkMean = [numTx]float64{12, 12, 10, 5, 5}

// newRand returns terminal i's random source.
func (r *Run) newRand(i int) gen.Rand { return seedOf(r.w.Cfg.Seed, partRun, uint64(i)) }
