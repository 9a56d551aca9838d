package linkbench

import (
	"context"
	"fmt"
	"slices"

	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload"
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
	sess, err := workload.CheckSession(ctx, r.eng)
	if err != nil {
		return "", err
	}
	defer sess.Close()
	g := &r.w.Cfg.Graph
	heavy := r.w.model.HeavyNodes(sliceLinks + 1)
	slices.Sort(heavy)
	k := &checker{sess: sess, st: r.w.st, types: g.LinkTypeCount, out: table.NewRows(3, 1024), one: make([]table.Value, 2),
		counts: map[pair]int64{}, visible: map[pair]int64{}}
	chunk := int64(checkChunk)
	if r.eng.Info().WholeRanges {
		chunk = wholeChunk
	}
	for lo := g.StartID1; lo < g.MaxID1 && len(k.problems) < 10; lo += chunk {
		if err := k.chunk(ctx, lo, min(lo+chunk, g.MaxID1)-1, heavy); err != nil {
			return "", err
		}
	}
	nodes, err := sess.Count(ctx, nodeTable, -1)
	if err != nil {
		return "", err
	}
	if want := r.nodesLoaded.Load() + r.nodesAdded.Load() - r.nodesDeleted.Load() + r.nodes; nodes != want {
		k.problems = append(k.problems, fmt.Sprintf("nodetable holds %d nodes, want %d (loaded %d + added %d - deleted %d, %+d after faults)",
			nodes, want, r.nodesLoaded.Load(), r.nodesAdded.Load(), r.nodesDeleted.Load(), r.nodes))
	}
	if p := k.problems; len(p) > 0 {
		if len(p) > 5 {
			p = append(p[:5], fmt.Sprintf("... (%d more)", len(p)-5))
		}
		return "", fmt.Errorf("%d problems: %v", len(k.problems), p)
	}
	return fmt.Sprintf("ok: %d nodes, %d (id1, link_type) pairs, %d visible links, each count row equal to its visible links", nodes, k.pairs, k.links), nil
}

// checker is the count check's state: its session, buffers, the count rows and visible links
// of the range it reads, and what it found.
type checker struct {
	sess            table.Session
	st              *stmts
	types           int
	out             *table.Rows
	one             []table.Value
	counts, visible map[pair]int64
	pairs, links    int64
	problems        []string
}

// chunk checks node ids [lo, hi]: a node of more than sliceLinks links (heavy, sorted) one link
// type at a time, the others by ranges of ids.
func (k *checker) chunk(ctx context.Context, lo, hi int64, heavy []int64) error {
	from := lo
	for _, h := range heavy {
		if h < lo || h > hi {
			continue
		}
		if err := k.scan(ctx, from, h-1); err != nil {
			return err
		}
		from = h + 1
		if err := k.heavy(ctx, h); err != nil {
			return err
		}
	}
	return k.scan(ctx, from, hi)
}

// scan reads the count rows and the index entries of node ids [a, b] and compares them.
func (k *checker) scan(ctx context.Context, a, b int64) error {
	if a > b {
		return nil
	}
	k.out.Reset(3)
	if _, err := k.sess.Exec(ctx, k.st.checkCounts, []table.Value{iv(a), iv(b)}, k.out); err != nil {
		return err
	}
	for i := 0; i < k.out.N; i++ {
		row := k.out.Row(i)
		k.counts[pair{row[0].I, row[1].I}] = row[2].I
	}
	k.out.Reset(3)
	if _, err := k.sess.Exec(ctx, k.st.checkLinks, []table.Value{iv(a), iv(b)}, k.out); err != nil {
		return err
	}
	for i := 0; i < k.out.N; i++ {
		row := k.out.Row(i)
		p := pair{row[0].I, row[1].I}
		if row[2].I == visibilityDefault {
			k.visible[p]++
		} else if _, ok := k.visible[p]; !ok {
			k.visible[p] = 0
		}
	}
	k.compare()
	return nil
}

// compare notes every pair of the range read whose count row is not its visible links, adds
// the range's pairs and visible links to the totals, and forgets the range.
func (k *checker) compare() {
	for p, v := range k.visible {
		if k.counts[p] != v {
			k.problems = append(k.problems, fmt.Sprintf("id1 %d link_type %d: count row %d, visible links %d", p.id1, p.linkType, k.counts[p], v))
		}
		k.links += v
	}
	for p, v := range k.counts {
		if _, ok := k.visible[p]; !ok && v != 0 {
			k.problems = append(k.problems, fmt.Sprintf("id1 %d link_type %d: count row %d, no visible link", p.id1, p.linkType, v))
		}
		k.pairs++
	}
	clear(k.counts)
	clear(k.visible)
}

// heavy compares node h's count row of each link type with a COUNT of its visible links.
func (k *checker) heavy(ctx context.Context, h int64) error {
	for t := range k.types {
		k.one[0], k.one[1] = iv(h), iv(lbgen.LinkType(t))
		k.out.Reset(1)
		if _, err := k.sess.Exec(ctx, k.st.countVisible, k.one, k.out); err != nil {
			return err
		}
		v := k.out.Row(0)[0].I
		k.out.Reset(1)
		if _, err := k.sess.Exec(ctx, k.st.countLinks, k.one, k.out); err != nil {
			return err
		}
		var c int64
		if k.out.N > 0 {
			c = k.out.Row(0)[0].I
		}
		if c != v {
			k.problems = append(k.problems, fmt.Sprintf("id1 %d link_type %d: count row %d, visible links %d", h, lbgen.LinkType(t), c, v))
		}
		k.links += v
		k.pairs++
	}
	return nil
}
