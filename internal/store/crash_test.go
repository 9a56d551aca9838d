package store

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// childEnv makes the test binary a child that records runs until it is killed.
const childEnv = "RUMBENCH_STORE_CHILD"

const crashSteps, crashIntervals = 5, 3000

// recordForever records run after run into spec, printing "recorded N" after each commit.
func recordForever(spec string) {
	s, err := Open(context.Background(), spec)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	for i := 0; ; i++ {
		run := syntheticRun(fmt.Sprintf("20261120T220000Z-crash%04d", i), "insert", "crash", t0.Add(time.Duration(i)*time.Second),
			[]string{"pebble"}, crashSteps, crashIntervals)
		if err := s.Record(context.Background(), run); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Printf("recorded %d\n", i)
	}
}

// TestKilledWriter kills (SIGKILL) a process in the middle of recording runs: every run the
// store then holds is whole, and the store takes new records.
func TestKilledWriter(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			spec := b.spec(t)
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childEnv+"="+spec)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(out)
			committed := -1
			for sc.Scan() {
				line := sc.Text()
				if strings.HasPrefix(line, "error:") {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatal(line)
				}
				fmt.Sscanf(line, "recorded %d", &committed)
				if committed == 2 {
					break
				}
			}
			time.Sleep(40 * time.Millisecond) // into the next record's transaction
			cmd.Process.Kill()
			cmd.Wait()
			if _, err := os.Stat(spec + "-journal"); err == nil {
				t.Logf("killed inside a transaction: %s-journal is left for the next open to roll back", spec)
			}

			s, err := Open(context.Background(), spec)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if !s.d.postgres {
				var check string
				if err := s.db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
					t.Errorf("integrity_check: %q %v", check, err)
				}
			}
			runs, err := s.List(context.Background(), Filter{})
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) < committed+1 {
				t.Errorf("%d runs in the store, but %d were committed", len(runs), committed+1)
			}
			for _, r := range runs {
				got, err := s.Load(context.Background(), r.RunID)
				if err != nil {
					t.Fatal(err)
				}
				if len(got.Steps) != crashSteps || len(got.Intervals) != crashIntervals || len(got.Steps[0].Latency) != 2 {
					t.Errorf("%s: %d steps, %d intervals: a partial record", r.RunID, len(got.Steps), len(got.Intervals))
				}
			}
			t.Logf("%d runs whole after the kill (%d committed before it was reported)", len(runs), committed+1)
			if err := s.Record(context.Background(), syntheticRun("20261121T000000Z-after", "insert", "after", t0, []string{"bbolt"}, 1, 1)); err != nil {
				t.Errorf("recording after the kill: %v", err)
			}
		})
	}
}
