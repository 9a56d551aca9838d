package linkbench

import (
	"fmt"
	"math"

	"github.com/rumbench/rumbench/internal/memneed"
	"github.com/rumbench/rumbench/internal/workload/linkbench/lbgen"
)

// Sizes of what the load and the check hold per item, bytes.
const (
	taskBytes    = 56 + 48 // a loadTask, and the lbgen.LoadTask of the plan it copies
	pairBytes    = 2 * 64  // an (id1, link_type) pair in the check's two maps
	historyBytes = lbgen.HistoryLimit * 100
)

// memNeed estimates the peak memory the workload holds (of valid settings and their graph): the load's task lists (per range of
// nodes, and per slice of a node's links when every node has more than sliceLinks), then the
// largest of the load (each loader's batches of rows and payloads, copied by the engine), the
// request loops (each requester's get-links-list result, payload buffer and history) and the
// check (a chunk of checkChunk nodes' links and (id1, link_type) pairs).
func (c *Config) memNeed() memneed.Part {
	g := &c.Graph
	n := float64(g.MaxID1 - g.StartID1)
	types := float64(g.LinkTypeCount)
	minDeg, meanDeg := degrees(g)
	perNode := func(d float64) float64 { // links of a node of out-degree d over its types
		if g.NeverChange {
			return d
		}
		return max(d, types)
	}
	ids := fmt.Sprintf("maxid1=%d", g.MaxID1)
	fixed := []memneed.Part{{Bytes: n * taskBytes * (1.0/loadBatch + 1.0/chunkNodes), Inputs: ids,
		Detail: "the load's task lists"}}
	if p := perNode(minDeg); p > sliceLinks {
		slices := types * math.Ceil(p/types/sliceLinks)
		fixed = append(fixed, memneed.Part{Bytes: n * (slices*taskBytes + 64), Inputs: fmt.Sprintf("%s × link_type_count=%d", ids, g.LinkTypeCount),
			Detail: fmt.Sprintf("every node's %.0f links loaded in %.0f slices", p, slices)})
	}

	nodeData, linkData := meanSize(g.NodeDataSize, g.NodeDataSigma, lbgen.MaxNodeData), meanSize(g.LinkDataSize, g.LinkDataSigma, lbgen.MaxLinkData)
	cells := float64(len(linkTable.Columns)+len(countTable.Columns)+len(nodeTable.Columns)) * memneed.ValueBytes
	payload := max(nodeData, linkData)
	load := memneed.Part{Bytes: float64(c.Loaders) * (memneed.WorkerBytes + loadBatch*(cells+2*payload)),
		Inputs: fmt.Sprintf("node_datasize=%g × loaders=%d", g.NodeDataSize, c.Loaders),
		Detail: fmt.Sprintf("%s a payload × %d rows a batch × 2 copies × %d loaders", memneed.Size(payload), loadBatch, c.Loaders)}

	result := lbgen.RangeLimit * (float64(len(linkCols))*memneed.ValueBytes + linkData)
	loops := memneed.Part{Bytes: float64(c.Requesters) * (memneed.WorkerBytes + historyBytes + 2*result + 2*nodeData),
		Inputs: fmt.Sprintf("requesters=%d", c.Requesters),
		Detail: fmt.Sprintf("%s a get-links-list result of %d links × 2 copies × %d requesters", memneed.Size(result), lbgen.RangeLimit, c.Requesters)}
	if c.Loops == 0 {
		loops.Bytes = 0
	}

	chunkLinks := checkChunk * min(perNode(meanDeg), sliceLinks)
	check := memneed.Part{Bytes: memneed.WorkerBytes + chunkLinks*3*memneed.ValueBytes + checkChunk*types*pairBytes,
		Inputs: fmt.Sprintf("link_type_count=%d", g.LinkTypeCount),
		Detail: fmt.Sprintf("%d nodes' %.0f links and %.0f (id1, link_type) pairs the check holds", checkChunk, chunkLinks, checkChunk*types)}
	return memneed.Peak(fixed, []memneed.Part{load, loops, check})
}

// degrees returns the smallest and the mean out-degree of g's nodes (after MaxDegree).
func degrees(g *lbgen.Config) (lo, mean float64) {
	capped := func(d int64) float64 {
		if g.MaxDegree > 0 {
			d = min(d, g.MaxDegree)
		}
		return float64(d)
	}
	switch g.NLinksFunc {
	case lbgen.NLinksConst, lbgen.NLinksMultiples:
		d := capped(g.NLinksDefault)
		return d, d
	}
	t, err := lbgen.Degrees(g.DegreeData)
	if err != nil || len(t.Values) == 0 {
		return 0, 0
	}
	prev := 0.0
	for i, v := range t.Values {
		mean += capped(v) * (t.CDF[i] - prev)
		prev = t.CDF[i]
	}
	return capped(t.Values[0]), mean
}

// meanSize is the mean of a log-normal size of the given median and sigma, at most limit bytes.
func meanSize(median, sigma, limit float64) float64 {
	return min(median*math.Exp(sigma*sigma/2), limit)
}
