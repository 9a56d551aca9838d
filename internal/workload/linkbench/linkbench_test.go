package linkbench

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/engine"
	_ "github.com/rumbench/rumbench/internal/engine/all"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
	"github.com/rumbench/rumbench/internal/workload/linkbench/lbgen"
	"github.com/rumbench/rumbench/internal/workload/worktest"
)

// build makes the workload from command-line arguments, as the run command does.
func build(t testing.TB, args ...string) *Workload {
	t.Helper()
	d := newDefinition()
	if err := d.Flags().Parse(args); err != nil {
		t.Fatal(err)
	}
	w, err := d.Build(workload.Shared{Profile: "quick", Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	return w.(*Workload)
}

// TestEngines loads a tiny graph and runs a loop of a fixed number of requests on every storing
// engine, with the count check after the load and after the loop. The loop's time (minutes) is a
// guard against a hang only: the loop ends when its requests are done, however slow the host.
func TestEngines(t *testing.T) {
	for _, name := range engine.Names() {
		if name == "null" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			const requests = 50
			w := build(t, "--maxid1", "501", "--max-degree", "300", "--loops", "1", "--loop-secs", "600",
				"--requests", fmt.Sprint(requests), "--requesters", "2")
			eng, dir := worktest.Engine(t, name, false, nil)
			run := worktest.Steps(t, eng, dir, w, func(_ workload.Run, step string, res results.Step) {
				if step == "loop1" && res.Ops != requests {
					t.Errorf("loop1: %d requests (status %s), want %d", res.Ops, res.Status, requests)
				}
			})
			msg, err := run.Check(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(msg, "each count row equal") {
				t.Errorf("check: %q", msg)
			}
		})
	}
}

// script is a sequence of requests with known effects on the tiny graph of opsWorkload: node 1
// has links to 1..nlinks of link type lbgen.LinkType(0).
func script(nlinks int64) []lbgen.Request {
	lt := lbgen.LinkType(0)
	data := []byte("payload")
	return []lbgen.Request{
		{Op: lbgen.OpCountLink, ID1: 1, LinkType: lt},
		{Op: lbgen.OpAddLink, ID1: 1, LinkType: lt, ID2: 9001, Visibility: visibilityDefault, Data: data},                // new
		{Op: lbgen.OpAddLink, ID1: 1, LinkType: lt, ID2: 9001, Visibility: visibilityDefault, Data: []byte("payload 2")}, // exists: update (new data, so the row changes)
		{Op: lbgen.OpUpdateLink, ID1: 1, LinkType: lt, ID2: 1, Visibility: visibilityDefault, Data: data},                // exists
		{Op: lbgen.OpDeleteLink, ID1: 1, LinkType: lt, ID2: 1},                                                           // visible: hidden
		{Op: lbgen.OpDeleteLink, ID1: 1, LinkType: lt, ID2: 1},                                                           // hidden: nothing
		{Op: lbgen.OpUpdateLink, ID1: 1, LinkType: lt, ID2: 9002, Visibility: visibilityDefault, Data: data},             // missing: insert
		{Op: lbgen.OpMultigetLink, ID1: 1, LinkType: lt, ID2s: []int64{2, 9001, 77777}},
		{Op: lbgen.OpGetLinkList, ID1: 1, LinkType: lt, MinTime: 0, MaxTime: 1 << 62, Limit: 3},
		{Op: lbgen.OpAddNode, NodeType: lbgen.DefaultNodeType, Version: 1, Data: data},
		{Op: lbgen.OpUpdateNode, ID1: 2, NodeType: lbgen.DefaultNodeType, Version: 2, Data: data},
		{Op: lbgen.OpDeleteNode, ID1: 3, NodeType: lbgen.DefaultNodeType},
		{Op: lbgen.OpGetNode, ID1: 2, NodeType: lbgen.DefaultNodeType},
	}
}

// opsRun loads the tiny graph on eng and returns the run and a requester of its own session.
func opsRun(t *testing.T, eng table.Engine, dir string) (*Run, *requester) {
	t.Helper()
	w := build(t, "--maxid1", "21", "--max-degree", "8", "--loops", "0", "--reference", "upstream")
	run := worktest.Steps(t, eng, dir, w, nil).(*Run)
	var ss workload.Sessions
	t.Cleanup(func() { ss.Close() })
	q, _ := w.model.NewRequester(0, 1)
	c, err := run.newRequester(context.Background(), &ss, q)
	if err != nil {
		t.Fatal(err)
	}
	return run, c
}

// TestOperations runs each operation on every storing engine and checks its effect on the
// tables: the rows it returned, the links, counts and nodes it left.
func TestOperations(t *testing.T) {
	for _, name := range engine.Names() {
		if name == "null" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			eng, dir := worktest.Engine(t, name, false, nil)
			run, c := opsRun(t, eng, dir)
			ctx := context.Background()
			nlinks := run.w.model.LinkCount(1, 0)
			if nlinks < 2 {
				t.Fatalf("node 1 has %d links of type 0; the script needs 2", nlinks)
			}
			count := func() int64 {
				c.args = append(c.args[:0], iv(1), iv(lbgen.LinkType(0)))
				if _, err := c.exec(ctx, c.st.countLinks); err != nil {
					t.Fatal(err)
				}
				return c.out.Row(0)[0].I
			}
			visibility := func(id2 int64) int64 {
				c.args = append(c.args[:0], iv(1), iv(id2), iv(lbgen.LinkType(0)))
				if n, err := c.exec(ctx, c.st.linkForUpdate); err != nil || n != 1 {
					t.Fatalf("link 1/%d: %d rows, %v", id2, n, err)
				}
				return c.out.Row(0)[0].I
			}
			wantRows := []int{1, 1, 1, 1, 1, 0, 1, 2, 3, 1, 1, 1, 1}
			wantCount := []int64{nlinks, nlinks + 1, nlinks + 1, nlinks + 1, nlinks, nlinks, nlinks + 1, nlinks + 1,
				nlinks + 1, nlinks + 1, nlinks + 1, nlinks + 1, nlinks + 1}
			nodes0 := run.nodesLoaded.Load()
			for i, req := range script(nlinks) {
				c.req = req
				rows, err := c.do(ctx)
				if err != nil {
					t.Fatalf("request %d %v: %v", i, req.Op, err)
				}
				if rows != wantRows[i] {
					t.Errorf("request %d %v: %d rows, want %d", i, req.Op, rows, wantRows[i])
				}
				switch i {
				case 4, 5:
					if v := visibility(1); v != visibilityHidden {
						t.Errorf("after %v: link 1/1 visibility %d, want hidden", req.Op, v)
					}
				case 8:
					if c.out.N != 3 || c.out.Row(0)[6].I < c.out.Row(1)[6].I || c.out.Row(1)[6].I < c.out.Row(2)[6].I {
						t.Errorf("link list: %d rows, want 3, newest first", c.out.N)
					}
				case 12:
					if c.out.N != 1 || string(c.out.Row(0)[nData].B) != "payload" || c.out.Row(0)[nVersion].I != 2 {
						t.Errorf("node 2 after its update: %v", c.out.Row(0))
					}
				}
				if got := count(); got != wantCount[i] {
					t.Errorf("after request %d %v: count %d, want %d", i, req.Op, got, wantCount[i])
				}
			}
			if a, d := run.nodesAdded.Load(), run.nodesDeleted.Load(); a != 1 || d != 1 {
				t.Errorf("nodes added %d, deleted %d, want 1 and 1", a, d)
			}
			msg, err := run.Check(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(msg, fmt.Sprintf("ok: %d nodes", nodes0)) {
				t.Errorf("check: %s", msg)
			}
			// A planted inconsistency: one count row off by one.
			c.args = append(c.args[:0], iv(1), iv(0), iv(2), iv(lbgen.LinkType(0)))
			if _, err := c.exec(ctx, c.st.countInc); err != nil {
				t.Fatal(err)
			}
			if _, err := run.Check(ctx); err == nil || !strings.Contains(err.Error(), "id1 2 link_type") {
				t.Errorf("check after a count row was changed: %v", err)
			}
		})
	}
}

// TestMix runs a loop of 100,000 requests on the null engine and checks each operation's share of
// the requests against the mix, for both references' mixes.
func TestMix(t *testing.T) {
	for _, mix := range []string{"smalldatum", "upstream"} {
		t.Run(mix, func(t *testing.T) {
			const requests = 100_000
			w := build(t, "--mix", mix, "--maxid1", "10001", "--loops", "1", "--loop-secs", "600", "--requests", fmt.Sprint(requests))
			eng, dir := worktest.Engine(t, "null", false, nil)
			worktest.Steps(t, eng, dir, w, func(_ workload.Run, step string, res results.Step) {
				if step != "loop1" {
					return
				}
				if res.Ops != requests {
					t.Fatalf("%d requests in the loop (status %s), want %d", res.Ops, res.Status, requests)
				}
				for op := range lbgen.NumOps {
					got := float64(res.KindOps(opKinds[op].Name)) / float64(res.Ops) * 100
					if want := w.Cfg.Graph.Mix.Percent[op]; math.Abs(got-want) > 1 {
						t.Errorf("%s: %.2f%% of the requests, want %.2f%% ± 1", opKinds[op].Name, got, want)
					}
				}
			})
		})
	}
}

// TestFlags checks the refusals of bad values.
func TestFlags(t *testing.T) {
	for _, bad := range [][]string{
		{"--reference", "facebook"}, {"--mix", "/no/such/mix"}, {"--maxid1", "1"}, {"--loaders", "0"},
		{"--loop-secs", "0"}, {"--requests", "-1"}, {"--percentiles", "100"}, {"--max-degree", "-3"},
		{"--load-split", "halves"},
	} {
		d := newDefinition()
		if err := d.Flags().Parse(bad); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Build(workload.Shared{Profile: "quick", Seed: 1}); err == nil {
			t.Errorf("%v: accepted", bad)
		}
	}
}

// TestLoadSplit checks the two load plans on the fork's data, whose first node has 4,181,356 at maxid1 1001
// links: the reference's gives each range of nodes to one loader whole, slices cut that node,
// and the load step's remark says which ran.
func TestLoadSplit(t *testing.T) {
	for _, tc := range []struct {
		split, remark string
		slices        bool
	}{
		{"reference", "load split reference: each range of 2048 nodes, all their links, by one loader, as LinkBench loads (the largest node's 4181356 links by one loader)", false},
		{"slices", "load split slices: 1 nodes of more than 100000 links cut into 42 slices shared by the loaders", true},
	} {
		w := build(t, "--maxid1", "1001", "--max-degree", "0", "--load-split", tc.split)
		r := &Run{w: w, plan: w.loadPlan()}
		sliced := 0
		for _, task := range r.plan.Tasks {
			if task.Slice {
				sliced++
			}
		}
		if (sliced > 0) != tc.slices {
			t.Errorf("%s: %d slice tasks", tc.split, sliced)
		}
		if got := r.splitRemark(); !strings.HasPrefix(got, tc.remark) {
			t.Errorf("%s: remark %q, want it to start with %q", tc.split, got, tc.remark)
		}
	}
	w := build(t, "--maxid1", "1001")
	if got := workload.Banner(w.Settings(), w.Steps()); !strings.Contains(got, "load_split=reference") {
		t.Errorf("banner %q: no load_split=reference", got)
	}
	// The loaders' settings are the load's; a run of the loops alone does not show them.
	if got := workload.Banner(w.Settings(), w.Steps()[1:]); strings.Contains(got, "load_split=") || strings.Contains(got, "loaders=") || !strings.Contains(got, "requesters=") {
		t.Errorf("banner of the loops %q: the load's settings, or no requesters", got)
	}
}

// TestCacheMB: the cached profiles size each engine's cache for the graph (nodes and links
// from the model: 420,252 links at quick, 4,597,662 at small), bounded by the ceiling; the
// iobound profile and engines without a rule leave the cache to the run.
func TestCacheMB(t *testing.T) {
	worktest.CheckCaches(t, newDefinition, []worktest.CacheCase{
		{Profile: "quick", Engine: "pebble", MiB: 256, OK: true},
		{Profile: "quick", Engine: "wiredtiger", MiB: 256, OK: true},
		{Profile: "quick", Engine: "myrocks", MiB: 512, OK: true},
		{Profile: "quick", Engine: "postgres", MiB: 512, OK: true},
		{Profile: "quick", Engine: "mysql", MiB: 1024, OK: true},
		{Profile: "small", Engine: "mysql", MiB: 2048, OK: true},
		{Profile: "small", Engine: "mysql", Max: 1 << 30, MiB: 1024, OK: true},
		{Profile: "quick", Engine: "sqlite"},
		{Profile: "quick", Engine: "lmdb"},
		{Profile: "iobound", Engine: "mysql", Regime: workload.RegimeIOBound},
	})
}
