package script

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload/script/pgscript"
)

// compiled is a script as the run step runs it: its commands and the operation kinds of the
// script and of each SQL command.
type compiled struct {
	w     *Weighted
	kind  runner.KindID   // one run of the script (a transaction)
	kinds []runner.KindID // per command: its statement's kind (SQL commands only)
}

// client runs scripts on one session. It is not safe for concurrent use.
type client struct {
	id     int
	sess   table.Session
	sql    table.SQLSession
	vars   *pgscript.Vars
	out    *table.Rows
	args   []table.Value
	spans  [][2]int
	text   []byte
	timer  *time.Timer
	stores map[*pgscript.Command][]int // \gset and \aset: per result column, its variable slot (-1: unused)
	names  *pgscript.Names
	// preparedTx sends BEGIN and COMMIT as prepared statements through ExecSQL, as pgbench -M
	// prepared does on PostgreSQL; else they are the session's Begin and Commit (SQLite's
	// BEGIN IMMEDIATE; MySQL, which has no END).
	preparedTx bool
	// clock is the end of the client's last transaction when it committed (a reading of
	// time.Now), the start of the next one; zero otherwise.
	clock time.Time
	// until is the end of the step's time: a \sleep that would end after it ends there, and
	// with it the transaction (errDeadline). Zero: no end.
	until time.Time
}

// errFailed is a transaction that failed on a conflict after its last try.
var errFailed = errors.New("failed")

// errDeadline is a transaction cut at the step's end by a \sleep that would have ended after it
// (pgbench -T ends its clients there too); it is not counted.
var errDeadline = errors.New(`\sleep reached the end of the step's time`)

// run runs script sc once as one transaction, from start (a reading of time.Now), retrying it
// up to tries times on a conflict (serialization failure, deadlock), with the random state it
// started with, as pgbench does. It returns the time the transaction ended. Its statements
// count in the step's figures with the transaction (runner.Meter.DoneIn), tries included.
func (c *client) run(ctx context.Context, m *runner.Meter, sc *compiled, tries int, start time.Time) (time.Time, error) {
	saved := *c.vars.Rand
	origin := start
	for try := 1; ; try++ {
		end, err := c.runOnce(ctx, m, sc, origin, start)
		if err == nil || !errors.Is(err, table.ErrConflict) || ctx.Err() != nil || errors.Is(err, errDeadline) {
			return end, err
		}
		start = time.Time{}
		if rerr := c.sess.Rollback(ctx); rerr != nil {
			return end, rerr
		}
		if try >= tries {
			return end, errFailed
		}
		m.Retry()
		*c.vars.Rand = saved
	}
}

// runOnce runs the commands of sc once. A statement's latency runs from the end of the command
// before it: the clock is read once at the boundary between two statements (or the start of the
// transaction and its first statement), for the end of one and the start of the other; after a
// meta-command it is read again. origin is the transaction's first start, start this try's
// (zero: unknown); it returns the time the last command ended, zero after an error.
func (c *client) runOnce(ctx context.Context, m *runner.Meter, sc *compiled, origin, start time.Time) (time.Time, error) {
	cmds := sc.w.Script.Commands
	last := start // the clock at the end of the command before, zero after a meta-command
	for i := 0; i < len(cmds); {
		cmd := &cmds[i]
		next := i + 1
		if !cmd.Kind.Statement() {
			last = time.Time{}
		}
		switch cmd.Kind {
		case pgscript.Set:
			v, err := cmd.Expr.Eval(c.vars)
			if err != nil {
				return time.Time{}, c.fail(sc, cmd, err)
			}
			c.vars.V[cmd.Slot] = v
		case pgscript.If:
			v, err := cmd.Expr.Eval(c.vars)
			if err != nil {
				return time.Time{}, c.fail(sc, cmd, err)
			}
			ok := false
			if v.T != pgscript.Null {
				if ok, err = v.Truth(); err != nil {
					return time.Time{}, c.fail(sc, cmd, err)
				}
			}
			if !ok {
				next = cmd.Target
			}
		case pgscript.Goto:
			next = cmd.Target
		case pgscript.Nop:
		case pgscript.Sleep:
			if err := c.sleep(ctx, cmd); err != nil {
				return time.Time{}, c.fail(sc, cmd, err)
			}
		default:
			t0 := last
			if t0.IsZero() {
				t0 = time.Now()
			}
			var err error
			switch cmd.Kind {
			case pgscript.Begin:
				if c.preparedTx {
					_, err = c.sql.ExecSQL(ctx, "BEGIN", nil, c.out)
				} else {
					err = c.sess.Begin(ctx)
				}
			case pgscript.Commit:
				if c.preparedTx {
					_, err = c.sql.ExecSQL(ctx, "COMMIT", nil, c.out)
				} else {
					err = c.sess.Commit(ctx)
				}
			case pgscript.Rollback:
				err = c.sess.Rollback(ctx)
			default:
				err = c.exec(ctx, cmd)
			}
			if err != nil {
				return time.Time{}, c.fail(sc, cmd, err)
			}
			last = time.Now()
			m.DoneIn(sc.kinds[i], origin, t0, last, 1)
		}
		i = next
	}
	if last.IsZero() {
		last = time.Now()
	}
	return last, nil
}

// fail wraps err with the script and line of cmd, keeping it an ErrConflict for errors.Is. (The
// client's worker, or its thread with --jobs, names the client.)
func (c *client) fail(sc *compiled, cmd *pgscript.Command, err error) error {
	return fmt.Errorf("script %s line %d: %w", sc.w.Script.Name, cmd.Line, err)
}

// exec binds cmd's variables and runs its statement, then stores its result for \gset, \aset.
func (c *client) exec(ctx context.Context, cmd *pgscript.Command) error {
	c.args = c.args[:0]
	c.text = c.text[:0]
	c.spans = c.spans[:0]
	for k, slot := range cmd.Params {
		v := c.vars.V[slot]
		switch v.T {
		case pgscript.Undef:
			return fmt.Errorf("undefined variable %q", cmd.ParamNames[k])
		case pgscript.Null:
			return fmt.Errorf("variable %q is NULL: rumbench binds no NULL parameter (write NULL in the statement)", cmd.ParamNames[k])
		case pgscript.Int:
			c.args = append(c.args, table.Value{I: v.I})
			c.spans = append(c.spans, [2]int{-1, 0})
		default:
			from := len(c.text)
			c.text = v.AppendText(c.text)
			c.args = append(c.args, table.Value{})
			c.spans = append(c.spans, [2]int{from, len(c.text)})
		}
	}
	for k, sp := range c.spans {
		if sp[0] >= 0 {
			c.args[k].B = c.text[sp[0]:sp[1]:sp[1]]
		}
	}
	n, err := c.sql.ExecSQL(ctx, cmd.Text, c.args, c.out)
	if err != nil || cmd.Store == pgscript.StoreNone {
		return err
	}
	if cmd.Store == pgscript.StoreOne && n != 1 {
		return fmt.Errorf(`\gset: expected one row, got %d`, n)
	}
	if n == 0 {
		return nil
	}
	slots := c.stores[cmd]
	if slots == nil {
		for _, col := range c.sql.SQLColumns(cmd.Text) {
			s, ok := c.names.Lookup(cmd.Prefix + col)
			if !ok {
				s = -1 // no script reads it
			}
			slots = append(slots, s)
		}
		c.stores[cmd] = slots
	}
	row := c.out.Row(c.out.N - 1) // \aset: the last row's values win
	for k, s := range slots {
		if s >= 0 && k < len(row) {
			if row[k].B == nil {
				c.vars.V[s] = pgscript.NullValue
			} else {
				pgscript.ParseValue(row[k].B, &c.vars.V[s])
			}
		}
	}
	return nil
}

func (c *client) sleep(ctx context.Context, cmd *pgscript.Command) error {
	us := cmd.Micros
	if cmd.SleepSlot >= 0 {
		v := c.vars.V[cmd.SleepSlot]
		n, err := v.AsInt()
		if err != nil || v.T != pgscript.Int {
			return fmt.Errorf(`\sleep: variable %q is %s, not an integer`, c.names.Name(cmd.SleepSlot), v)
		}
		if n < 0 || n > pgscript.MaxSleepMicros/cmd.SleepUnit {
			return fmt.Errorf(`\sleep: %d is out of range (0 up to one hour)`, n)
		}
		us = n * cmd.SleepUnit
	}
	if us <= 0 {
		return nil
	}
	d := time.Duration(us) * time.Microsecond
	cut := false // the sleep ends at the step's end, not its own
	if !c.until.IsZero() {
		if left := time.Until(c.until); left < d {
			d, cut = left, true
		}
	}
	if d <= 0 {
		return errDeadline
	}
	if c.timer == nil {
		c.timer = time.NewTimer(d)
	} else {
		c.timer.Reset(d)
	}
	select {
	case <-c.timer.C:
		if cut {
			return errDeadline
		}
		return nil
	case <-ctx.Done():
		c.timer.Stop()
		return ctx.Err()
	}
}
