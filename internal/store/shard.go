package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The shard tables: the groups of split runs (rumbench run --shard I/N --group ID), their
// members and the barriers they meet at.
//
//   - shard_groups: one row per group (group_id, shard_count, status "running" or "failed",
//     error: the first failure, created_at);
//   - shard_members: one row per shard that joined (group_id, shard, run_id once its run
//     directory exists, hostname, joined_at);
//   - shard_barriers: one row per shard arrived at a barrier (group_id, barrier, shard,
//     arrived_at by the database's clock).
var shardDDL = []string{
	"CREATE TABLE IF NOT EXISTS shard_groups (group_id TEXT NOT NULL, shard_count BIGINT NOT NULL, status TEXT NOT NULL, error TEXT NOT NULL, created_at TIMESTAMP NOT NULL, PRIMARY KEY (group_id))",
	"CREATE TABLE IF NOT EXISTS shard_members (group_id TEXT NOT NULL, shard BIGINT NOT NULL, run_id TEXT NOT NULL, hostname TEXT NOT NULL, joined_at TIMESTAMP NOT NULL, PRIMARY KEY (group_id, shard))",
	"CREATE TABLE IF NOT EXISTS shard_barriers (group_id TEXT NOT NULL, barrier TEXT NOT NULL, shard BIGINT NOT NULL, arrived_at TIMESTAMP NOT NULL, PRIMARY KEY (group_id, barrier, shard))",
}

// Group statuses.
const (
	// GroupRunning is a group whose shards have not failed.
	GroupRunning = "running"
	// GroupFailed is a group one of whose shards failed: the others stop.
	GroupFailed = "failed"
)

// GroupError is a refusal to join a group: the user's --group or --shard does not fit what the
// store holds (the CLI exits 2 for it).
type GroupError struct {
	// Msg is the one-line reason, naming the way out.
	Msg string
}

// Error returns Msg.
func (e *GroupError) Error() string { return e.Msg }

// FailedError says that a group failed: another shard marked it so.
type FailedError struct {
	Group string
	// Reason is the first failure recorded ("shard 1: ...").
	Reason string
}

// Error says which group failed and why: "group G failed: shard I: ...".
func (e *FailedError) Error() string {
	return fmt.Sprintf("group %s failed: %s", e.Group, e.Reason)
}

// createShardTables creates the shard tables (inside migrate's transaction).
func (s *Store) createShardTables(ctx context.Context, tx *sql.Tx) error {
	for _, ddl := range shardDDL {
		ddl = strings.ReplaceAll(ddl, "TIMESTAMP", s.d.typ("TIMESTAMP"))
		if _, err := tx.ExecContext(ctx, ddl); err != nil {
			return fmt.Errorf("store: %w", err)
		}
	}
	return nil
}

// JoinGroup records shard (0-based) of a group of count shards, creating the group with the
// first shard that joins. It refuses, with a *GroupError, a group recorded with another count,
// one that failed, and a shard that already joined it (a group id is used by one split run).
func (s *Store) JoinGroup(ctx context.Context, group string, shard, count int, hostname string) error {
	now := s.d.timeArg(time.Now())
	if _, err := s.db.ExecContext(ctx, s.d.q("INSERT INTO shard_groups (group_id, shard_count, status, error, created_at) VALUES (?, ?, ?, '', ?) ON CONFLICT DO NOTHING"),
		group, count, GroupRunning, now); err != nil {
		return fmt.Errorf("store %s: %w", s.name, err)
	}
	var n int
	var status, reason string
	if err := s.db.QueryRowContext(ctx, s.d.q("SELECT shard_count, status, error FROM shard_groups WHERE group_id = ?"), group).Scan(&n, &status, &reason); err != nil {
		return fmt.Errorf("store %s: %w", s.name, err)
	}
	switch {
	case n != count:
		return &GroupError{fmt.Sprintf("--group %s has %d shards in the store, not %d: give the same N to every shard, or another --group", group, n, count)}
	case status == GroupFailed:
		return &GroupError{fmt.Sprintf("--group %s failed already (%s): give another --group", group, reason)}
	}
	res, err := s.db.ExecContext(ctx, s.d.q("INSERT INTO shard_members (group_id, shard, run_id, hostname, joined_at) VALUES (?, ?, '', ?, ?) ON CONFLICT DO NOTHING"),
		group, shard, hostname, now)
	if err != nil {
		return fmt.Errorf("store %s: %w", s.name, err)
	}
	if k, err := res.RowsAffected(); err == nil && k == 0 {
		return &GroupError{fmt.Sprintf("shard %d of group %s has run already: a group id names one split run; give another --group", shard, group)}
	}
	return nil
}

// SetMemberRun records the run id of a shard that joined a group.
func (s *Store) SetMemberRun(ctx context.Context, group string, shard int, runID string) error {
	_, err := s.db.ExecContext(ctx, s.d.q("UPDATE shard_members SET run_id = ? WHERE group_id = ? AND shard = ?"), runID, group, shard)
	return err
}

// FailGroup marks the group failed because of shard's error; the first failure is kept.
func (s *Store) FailGroup(ctx context.Context, group string, shard int, msg string) error {
	_, err := s.db.ExecContext(ctx, s.d.q("UPDATE shard_groups SET status = ?, error = ? WHERE group_id = ? AND status <> ?"),
		GroupFailed, fmt.Sprintf("shard %d: %s", shard, msg), group, GroupFailed)
	return err
}

// GroupFailure returns a *FailedError when the group failed, nil while it has not.
func (s *Store) GroupFailure(ctx context.Context, group string) error {
	var status, reason string
	err := s.db.QueryRowContext(ctx, s.d.q("SELECT status, error FROM shard_groups WHERE group_id = ?"), group).Scan(&status, &reason)
	if err != nil {
		return fmt.Errorf("store %s: %w", s.name, err)
	}
	if status == GroupFailed {
		return &FailedError{Group: group, Reason: reason}
	}
	return nil
}

// GroupRuns returns the run ids of the group's shards in shard order, and the number of shards
// the group has; a shard that joined but whose run never started has an empty id.
func (s *Store) GroupRuns(ctx context.Context, group string) ([]string, int, error) {
	var count int
	err := s.db.QueryRowContext(ctx, s.d.q("SELECT shard_count FROM shard_groups WHERE group_id = ?"), group).Scan(&count)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, fmt.Errorf("%w: no group %s in the store %s", ErrNotFound, group, s.name)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("store %s: %w", s.name, err)
	}
	rows, err := s.db.QueryContext(ctx, s.d.q("SELECT run_id FROM shard_members WHERE group_id = ? ORDER BY shard"), group)
	if err != nil {
		return nil, 0, fmt.Errorf("store %s: %w", s.name, err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, 0, err
		}
		ids = append(ids, id)
	}
	return ids, count, rows.Err()
}

// BarrierPoll is how often a shard waiting at a barrier looks at the store.
const BarrierPoll = 50 * time.Millisecond

// BarrierNotice is how long a shard waits at a barrier for the others before Barrier tells its
// caller how many have arrived (a barrier the shards reach together passes sooner).
const BarrierNotice = 5 * time.Second

// Barrier records shard's arrival at the barrier named name of a group of count shards and
// waits for the others (PostgreSQL stores only). When all have arrived, every shard agrees on
// the same start instant, by the database's clock: the next whole second at least one second
// after the last arrival. Barrier returns at that instant, by this host's clock corrected by its
// offset from the database's (measured by the query that saw the last arrival, so the shards
// start within their query latencies of each other). It returns a *FailedError as soon as the
// group is marked failed, an error after timeout, and ctx's error when cancelled. When the
// shard has waited BarrierNotice and not all have arrived, waiting (if not nil) is called once
// with the number of shards that have.
func (s *Store) Barrier(ctx context.Context, group, name string, shard, count int, timeout time.Duration, waiting func(arrived int)) error {
	if !s.d.postgres {
		return fmt.Errorf("store %s: barriers need a PostgreSQL store", s.name)
	}
	if _, err := s.db.ExecContext(ctx, "INSERT INTO shard_barriers (group_id, barrier, shard, arrived_at) VALUES ($1, $2, $3, clock_timestamp())",
		group, name, shard); err != nil {
		return fmt.Errorf("store %s: barrier %s: %w", s.name, name, err)
	}
	arrived := time.Now()
	deadline := arrived.Add(timeout)
	for {
		var n int
		var last, dbNow time.Time
		var status, reason string
		err := s.db.QueryRowContext(ctx, `SELECT count(b.shard), coalesce(max(b.arrived_at), clock_timestamp()), clock_timestamp(), g.status, g.error
			FROM shard_groups g LEFT JOIN shard_barriers b ON b.group_id = g.group_id AND b.barrier = $2
			WHERE g.group_id = $1 GROUP BY g.status, g.error`, group, name).Scan(&n, &last, &dbNow, &status, &reason)
		local := time.Now()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("store %s: barrier %s: %w", s.name, name, err)
		}
		if status == GroupFailed {
			return &FailedError{Group: group, Reason: reason}
		}
		if n >= count {
			start := StartAfter(last)
			wait := start.Sub(dbNow)
			if wait <= 0 {
				return nil // the instant has passed (a slow poll): start now
			}
			t := time.NewTimer(time.Until(local.Add(wait)))
			defer t.Stop()
			select {
			case <-t.C:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("barrier %s: %d of %d shards of group %s arrived in %v", name, n, count, group, timeout)
		}
		if waiting != nil && time.Since(arrived) >= BarrierNotice {
			waiting(n)
			waiting = nil
		}
		select {
		case <-time.After(BarrierPoll):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// StartAfter is the start instant the shards agree on when the last of them arrived at a
// barrier at last: the first whole second at least one second later.
func StartAfter(last time.Time) time.Time {
	t := last.Add(time.Second)
	if c := t.Truncate(time.Second); c.Before(t) {
		return c.Add(time.Second)
	}
	return t
}
