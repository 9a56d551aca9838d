package server

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"
)

// loaded starts a server of kind with conns connections running queries in a loop until the
// test (or benchmark) ends, or until the returned function stops them: a tree as the runner
// samples it during a step.
func loaded(tb testing.TB, kind Kind, conns int) (*Server, func()) {
	tb.Helper()
	requireKindTB(tb, kind)
	dir := instanceDirTB(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := Start(ctx, Config{Kind: kind, Dir: dir})
	if err != nil {
		tb.Fatal(err)
	}
	driver := map[Kind]string{Postgres: "pgx", MariaDB: "mysql"}[kind]
	db, err := sql.Open(driver, s.DSN())
	if err != nil {
		tb.Fatal(err)
	}
	db.SetMaxOpenConns(conns)
	lctx, cancelLoad := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	stop := func() { cancelLoad(); wg.Wait() }
	for i := 0; i < conns; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for lctx.Err() == nil {
				db.ExecContext(lctx, "SELECT 1")
			}
		}()
	}
	tb.Cleanup(func() {
		stop()
		db.Close()
		s.Stop(context.Background())
	})
	time.Sleep(200 * time.Millisecond) // the connections are open
	return s, stop
}

// fullScanStats is how a tick found the tree before the walker: every /proc/*/stat on the host,
// then status and smaps_rollup of each tree member. Kept here to measure the walker against.
func fullScanStats(root int) (TreeStats, error) {
	procs, err := readProcs()
	if err != nil {
		return TreeStats{}, err
	}
	byPid := make(map[int]int, len(procs))
	children := map[int][]int{}
	for i, p := range procs {
		byPid[p.pid] = i
		children[p.ppid] = append(children[p.ppid], p.pid)
	}
	var st TreeStats
	buf := make([]byte, 4096)
	for queue := []int{root}; len(queue) > 0; queue = queue[1:] {
		pid := queue[0]
		queue = append(queue, children[pid]...)
		p := procs[byPid[pid]]
		st.Pids++
		st.CPUTicks += p.stat.UTime + p.stat.STime + p.stat.CUTime + p.stat.CSTime
		st.RSSBytes += p.stat.RSSPages * 4096
		if data, err := readSmall("/proc/"+strconv.Itoa(pid)+"/smaps_rollup", buf); err == nil {
			st.PSSBytes += parsePss(data)
		}
	}
	return st, nil
}

// TestWalkerMatchesFullScan checks the walker's tree against a scan of all of /proc, for both
// servers under load, and that a tick's walk does not allocate.
func TestWalkerMatchesFullScan(t *testing.T) {
	for _, kind := range Kinds() {
		if kind == FerretDB {
			continue // one process, no SQL load: TestFerretDBLifecycle checks its tree
		}
		t.Run(string(kind), func(t *testing.T) {
			s, stopLoad := loaded(t, kind, 4)
			// The server forks and reaps (autovacuum workers, a connection's backend) between
			// the two readings: take them again until they see the same processes, three tries.
			var walked, scanned TreeStats
			for try := 0; try < 3; try++ {
				var err error
				if walked, err = s.Stats(true); err != nil {
					t.Fatal(err)
				}
				if scanned, err = fullScanStats(s.Pid()); err != nil {
					t.Fatal(err)
				}
				if walked.Pids == scanned.Pids {
					break
				}
			}
			if walked.Pids != scanned.Pids || walked.Pids < 1 || (kind == Postgres && walked.Pids < 6) {
				t.Errorf("walker found %d processes, a full scan %d", walked.Pids, scanned.Pids)
			}
			// CPU and memory move between the two readings: within 20%.
			if d := float64(walked.RSSBytes) / float64(scanned.RSSBytes); d < 0.8 || d > 1.25 || walked.PSSBytes <= 0 {
				t.Errorf("RSS walked %d, scanned %d; PSS %d", walked.RSSBytes, scanned.RSSBytes, walked.PSSBytes)
			}
			if walked.CPUTicks < scanned.CPUTicks*8/10 {
				t.Errorf("CPU ticks walked %d, scanned %d", walked.CPUTicks, scanned.CPUTicks)
			}
			if tick, _ := s.Stats(false); tick.PSSBytes != 0 {
				t.Errorf("a tick read PSS: %d", tick.PSSBytes)
			}
			// Allocations are counted process-wide: without the load's goroutines, and the
			// least of three measurements (the runtime and the driver's pool allocate now and
			// then on their own).
			stopLoad()
			least := -1.0
			for range 3 {
				if n := testing.AllocsPerRun(20, func() { s.Stats(false) }); least < 0 || n < least {
					least = n
				}
			}
			if least != 0 {
				t.Errorf("%g allocations per tick walk", least)
			}
		})
	}
}

// BenchmarkTreeStats times one tick's look at a managed server's tree under load (4
// connections running queries): the walker as a tick calls it, with PSS as at a step's start
// and end, and the full scan of /proc a tick did before.
func BenchmarkTreeStats(b *testing.B) {
	for _, kind := range Kinds() {
		s, _ := loaded(b, kind, 4)
		for _, c := range []struct {
			name string
			fn   func() (TreeStats, error)
		}{
			{"walk", func() (TreeStats, error) { return s.Stats(false) }},
			{"walk+pss", func() (TreeStats, error) { return s.Stats(true) }},
			{"fullscan+pss", func() (TreeStats, error) { return fullScanStats(s.Pid()) }},
		} {
			b.Run(fmt.Sprintf("%s/%s", kind, c.name), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if _, err := c.fn(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
