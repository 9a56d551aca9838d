package tpcc

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
	"github.com/rumbench/rumbench/internal/workload/worktest"
)

// TestShards splits a tiny TPC-C of three warehouses between two shards on one engine, as two
// hosts would on one server: shard 0 creates the tables, shard 1 attaches to them; both load,
// then both run (the shards meet between the steps); each checks its own warehouses, and
// together they loaded what one process loads.
func TestShards(t *testing.T) {
	ctx := context.Background()
	eng, _ := worktest.Engine(t, "pebble", false, nil)
	k := eng.(table.Keeper)
	var ws [2]*Workload
	var runs [2]workload.Run
	for i := range ws {
		w, err := New(Config{Warehouses: 3, Scale: Scale{Items: 200, Customers: 60}, Terminals: 4, Loaders: 2,
			RunSecs: 600, Transactions: 301, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.SetShard(workload.Shard{Index: i, Count: 2}); err != nil {
			t.Fatal(err)
		}
		ws[i] = w
		if i == 0 {
			runs[i], err = w.Open(ctx, eng)
		} else {
			runs[i], err = w.Attach(ctx, eng, k)
		}
		if err != nil {
			t.Fatal(err)
		}
		defer runs[i].Close()
	}
	if got := ws[1].ShardPart(); got != "loads warehouses 2..3 of 3; terminals 5..8 of 8, bound to them" {
		t.Errorf("shard 1: %q", got)
	}
	if len(ws[1].Tables()) != 0 || len(ws[0].Tables()) != 9 {
		t.Errorf("tables to drop: shard 0 %d, shard 1 %d; want 9 and 0", len(ws[0].Tables()), len(ws[1].Tables()))
	}
	var ops [2]int64
	for _, step := range []string{StepLoad, StepRun} {
		for i, run := range runs {
			if _, err := run.Prepare(ctx, step); err != nil {
				t.Fatalf("shard %d %s prepare: %v", i, step, err)
			}
			st, err := run.Step(ctx, step)
			if err != nil {
				t.Fatal(err)
			}
			res, err := runner.Run(ctx, runner.Setup{Label: fmt.Sprint(i), Engine: eng, Rows: run.Rows, Tick: 100 * time.Millisecond}, st)
			if err != nil || res.Status == results.StatusFailed {
				t.Fatalf("shard %d %s: %v %s", i, step, err, res.Error)
			}
			if step == StepRun {
				ops[i] = res.Ops
			}
		}
	}
	if ops != [2]int64{151, 150} {
		t.Errorf("transactions per shard %v, want [151 150]", ops)
	}
	whole, err := New(Config{Warehouses: 3, Scale: Scale{Items: 200, Customers: 60}, Terminals: 4, Loaders: 2, RunSecs: 600, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	// The shards' load parts, in shard order, are one process's, each once.
	if got := append(ws[0].parts(), ws[1].parts()...); !slices.Equal(got, whole.parts()) {
		t.Errorf("the shards load %d parts, not the %d of one process in order", len(got), len(whole.parts()))
	}
	for i, run := range runs {
		msg, err := run.Check(ctx)
		if err != nil {
			t.Fatalf("shard %d: %v", i, err)
		}
		if wantMsg := []string{"warehouses 1..1 of 3", "warehouses 2..3 of 3"}[i]; !strings.Contains(msg, wantMsg) {
			t.Errorf("shard %d check: %q", i, msg)
		}
	}
}
