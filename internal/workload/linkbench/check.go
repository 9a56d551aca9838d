package linkbench

import (
	"context"
	"fmt"
	"slices"

	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload/linkbench/lbgen"
)

// checkChunk is the node ids one step of the count check reads; wholeChunk the node ids it
// reads at once on an engine that reads a whole table for every range (table.Info.WholeRanges):
// as few reads as the memory of its maps allows (about 100 bytes per (id1, link_type) pair).
const (
	checkChunk = 512
	wholeChunk = 1 << 20
)

// Check implements workload.Run: the count check after the last loop.
func (r *Run) Check(ctx context.Context) (string, error) {
	if !r.stores {
		return "skipped: the engine keeps no data", nil
	}
	if r.w.split() {
		return fmt.Sprintf("not compared: the %d shards share the graph, which the others may still be writing; this shard loaded %d nodes and %d links, added %d nodes and deleted %d",
			r.w.Shard.Count, r.nodesLoaded.Load(), r.linksLoaded.Load(), r.nodesAdded.Load(), r.nodesDeleted.Load()), nil
	}
	return r.check(ctx)
}

type pair struct{ id1, linkType int64 }

// check verifies the invariants the reference's count check does, over every (id1, link_type):
// the count row holds the number of visible links (no count row: none); and the node table
// holds the loaded nodes plus those the loops added, minus those they deleted. It reads count
// rows and index entries by ranges of node ids, and counts a sliced node's links with COUNT.
func (r *Run) check(ctx context.Context) (string, error) {
	sess, err := r.eng.NewSession(ctx)
	if err != nil {
		return "", err
	}
	defer sess.Close()
	g := &r.w.Cfg.Graph
	st := r.w.st
	heavy := r.w.model.HeavyNodes(sliceLinks + 1)
	slices.Sort(heavy)
	out := table.NewRows(3, 1024)
	counts, visible := map[pair]int64{}, map[pair]int64{}
	var pairs, links int64
	var problems []string
	compare := func() {
		for k, v := range visible {
			if counts[k] != v {
				problems = append(problems, fmt.Sprintf("id1 %d link_type %d: count row %d, visible links %d", k.id1, k.linkType, counts[k], v))
			}
			links += v
		}
		for k, v := range counts {
			if _, ok := visible[k]; !ok && v != 0 {
				problems = append(problems, fmt.Sprintf("id1 %d link_type %d: count row %d, no visible link", k.id1, k.linkType, v))
			}
			pairs++
		}
		clear(counts)
		clear(visible)
	}
	scan := func(a, b int64) error {
		if a > b {
			return nil
		}
		out.Reset(3)
		if _, err := sess.Exec(ctx, st.checkCounts, []table.Value{iv(a), iv(b)}, out); err != nil {
			return err
		}
		for i := 0; i < out.N; i++ {
			row := out.Row(i)
			counts[pair{row[0].I, row[1].I}] = row[2].I
		}
		out.Reset(3)
		if _, err := sess.Exec(ctx, st.checkLinks, []table.Value{iv(a), iv(b)}, out); err != nil {
			return err
		}
		for i := 0; i < out.N; i++ {
			row := out.Row(i)
			k := pair{row[0].I, row[1].I}
			if row[2].I == visibilityDefault {
				visible[k]++
			} else if _, ok := visible[k]; !ok {
				visible[k] = 0
			}
		}
		compare()
		return nil
	}
	one := make([]table.Value, 2)
	chunk := int64(checkChunk)
	if r.eng.Info().WholeRanges {
		chunk = wholeChunk
	}
	for lo := g.StartID1; lo < g.MaxID1 && len(problems) < 10; lo += chunk {
		hi := min(lo+chunk, g.MaxID1) - 1
		from := lo
		for _, h := range heavy {
			if h < lo || h > hi {
				continue
			}
			if err := scan(from, h-1); err != nil {
				return "", err
			}
			from = h + 1
			for t := range g.LinkTypeCount {
				one[0], one[1] = iv(h), iv(lbgen.LinkType(t))
				out.Reset(1)
				if _, err := sess.Exec(ctx, st.countVisible, one, out); err != nil {
					return "", err
				}
				v := out.Row(0)[0].I
				out.Reset(1)
				if _, err := sess.Exec(ctx, st.countLinks, one, out); err != nil {
					return "", err
				}
				var c int64
				if out.N > 0 {
					c = out.Row(0)[0].I
				}
				if c != v {
					problems = append(problems, fmt.Sprintf("id1 %d link_type %d: count row %d, visible links %d", h, lbgen.LinkType(t), c, v))
				}
				links += v
				pairs++
			}
		}
		if err := scan(from, hi); err != nil {
			return "", err
		}
	}
	nodes, err := sess.Count(ctx, nodeTable, -1)
	if err != nil {
		return "", err
	}
	if want := r.nodesLoaded.Load() + r.nodesAdded.Load() - r.nodesDeleted.Load(); nodes != want {
		problems = append(problems, fmt.Sprintf("nodetable holds %d nodes, want %d (loaded %d + added %d - deleted %d)",
			nodes, want, r.nodesLoaded.Load(), r.nodesAdded.Load(), r.nodesDeleted.Load()))
	}
	if len(problems) > 0 {
		if len(problems) > 5 {
			problems = append(problems[:5], fmt.Sprintf("... (%d more)", len(problems)-5))
		}
		return "", fmt.Errorf("%d problems: %v", len(problems), problems)
	}
	return fmt.Sprintf("ok: %d nodes, %d (id1, link_type) pairs, %d visible links, each count row equal to its visible links", nodes, pairs, links), nil
}
