package store

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// TestGroupJoin: a group takes each shard once, with one shard count, and refuses a failed
// group; its runs come back in shard order.
func TestGroupJoin(t *testing.T) {
	eachBackend(t, func(t *testing.T, s *Store, spec string) {
		ctx := context.Background()
		for _, i := range []int{1, 0} {
			if err := s.JoinGroup(ctx, "g1", i, 2, "h"); err != nil {
				t.Fatal(err)
			}
			if err := s.SetMemberRun(ctx, "g1", i, []string{"run-a", "run-b"}[i]); err != nil {
				t.Fatal(err)
			}
		}
		var ge *GroupError
		if err := s.JoinGroup(ctx, "g1", 1, 2, "h"); !errors.As(err, &ge) || ge.Msg != "shard 1 of group g1 has run already: a group id names one split run; give another --group" {
			t.Errorf("second join: %v", err)
		}
		if err := s.JoinGroup(ctx, "g1", 0, 3, "h"); !errors.As(err, &ge) {
			t.Errorf("join with another count: %v", err)
		}
		ids, n, err := s.GroupRuns(ctx, "g1")
		if err != nil || n != 2 || len(ids) != 2 || ids[0] != "run-a" || ids[1] != "run-b" {
			t.Errorf("GroupRuns: %v %d %v", ids, n, err)
		}
		if _, _, err := s.GroupRuns(ctx, "nope"); !errors.Is(err, ErrNotFound) {
			t.Errorf("GroupRuns of no group: %v", err)
		}
		if err := s.GroupFailure(ctx, "g1"); err != nil {
			t.Errorf("fresh group failed: %v", err)
		}
		s.FailGroup(ctx, "g1", 1, "boom")
		s.FailGroup(ctx, "g1", 0, "later")
		var fe *FailedError
		if err := s.GroupFailure(ctx, "g1"); !errors.As(err, &fe) || fe.Reason != "shard 1: boom" {
			t.Errorf("failed group: %v", err)
		}
		if err := s.JoinGroup(ctx, "g1", 0, 2, "h"); !errors.As(err, &ge) {
			t.Errorf("join of a failed group: %v", err)
		}
	})
}

// TestBarrier: three shards arriving at different times leave the barrier together, at a whole
// second by the database's clock; a failed group releases a waiting shard at once.
func TestBarrier(t *testing.T) {
	ctx := context.Background()
	spec := postgresSpec(t)
	const n = 3
	var wg sync.WaitGroup
	left := make([]time.Time, n)
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		s, err := Open(ctx, spec)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := s.JoinGroup(ctx, "b", i, n, "h"); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func(i int, s *Store) {
			defer wg.Done()
			time.Sleep(time.Duration(i) * 300 * time.Millisecond)
			errs[i] = s.Barrier(ctx, "b", "step1", i, n, time.Minute, nil)
			left[i] = time.Now()
		}(i, s)
	}
	wg.Wait()
	for i := 0; i < n; i++ {
		if errs[i] != nil {
			t.Fatalf("shard %d: %v", i, errs[i])
		}
		if d := left[i].Sub(left[0]).Abs(); d > 100*time.Millisecond {
			t.Errorf("shard %d left the barrier %v after shard 0", i, d)
		}
	}
	if ms := left[0].Nanosecond() / 1e6; ms > 100 && ms < 900 {
		t.Errorf("left at %v: not near a whole second (the database runs on this host's clock)", left[0])
	}
	s, err := Open(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	done := make(chan error)
	go func() { done <- s.Barrier(ctx, "b", "step2", 0, n, time.Minute, nil) }()
	time.Sleep(200 * time.Millisecond)
	s.FailGroup(ctx, "b", 2, "engine gone")
	select {
	case err := <-done:
		var fe *FailedError
		if !errors.As(err, &fe) || err.Error() != "group b failed: shard 2: engine gone" {
			t.Errorf("barrier of a failed group: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a shard waits at the barrier of a failed group")
	}
	if got := StartAfter(time.Date(2026, 1, 1, 0, 0, 5, 0, time.UTC)); !got.Equal(time.Date(2026, 1, 1, 0, 0, 6, 0, time.UTC)) {
		t.Errorf("StartAfter(5s) = %v", got)
	}
	if got := StartAfter(time.Date(2026, 1, 1, 0, 0, 5, 1, time.UTC)); !got.Equal(time.Date(2026, 1, 1, 0, 0, 7, 0, time.UTC)) {
		t.Errorf("StartAfter(5s+1ns) = %v", got)
	}
}
