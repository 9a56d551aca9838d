package linkbench

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload/linkbench/lbgen"
)

// Load sizes: the reference loads 2048 nodes per task (loader_chunk_size) and inserts rows in
// batches of 1024 (its MySQL store's bulk load batch); with --load-split slices a node with more
// links than sliceLinks is loaded in slices by several loaders.
const (
	chunkNodes = 2048
	loadBatch  = 1024
	sliceLinks = 100_000
)

// Load splits (--load-split).
const (
	// SplitReference gives each range of nodes, all their links, to one loader, as the
	// reference's loader does.
	SplitReference = "reference"
	// SplitSlices cuts a node of more than 100,000 links into slices that every loader shares.
	SplitSlices = "slices"
)

// loadPlan is the load's task list for the configured split.
func (w *Workload) loadPlan() *lbgen.LoadPlan {
	if w.Cfg.LoadSplit == SplitSlices {
		return w.model.LoadPlan(chunkNodes, sliceLinks)
	}
	return w.model.LoadPlan(chunkNodes, noSlices)
}

// noSlices is a slice size no node's links reach.
const noSlices = 1 << 62

// splitRemark says in the load step's result which split ran and what it means for its rate.
func (r *Run) splitRemark() string {
	heavy := r.w.model.HeavyNodes(sliceLinks + 1)
	if r.w.Cfg.LoadSplit == SplitSlices {
		return fmt.Sprintf("load split slices: %d nodes of more than %d links cut into %d slices shared by the loaders (not LinkBench's load: its links/s are not comparable with LinkBench's)",
			len(heavy), sliceLinks, len(r.plan.Tasks)-r.rangeTasks())
	}
	most := int64(0)
	for _, id := range heavy {
		n := int64(0)
		for t := range r.w.Cfg.Graph.LinkTypeCount {
			n += r.w.model.LinkCount(id, t)
		}
		most = max(most, n)
	}
	if most == 0 {
		return "load split reference: each range of 2048 nodes, all their links, by one loader, as LinkBench loads"
	}
	return fmt.Sprintf("load split reference: each range of 2048 nodes, all their links, by one loader, as LinkBench loads (the largest node's %d links by one loader)", most)
}

// rangeTasks counts the plan's node-range tasks.
func (r *Run) rangeTasks() int {
	n := 0
	for _, t := range r.plan.Tasks {
		if !t.Slice {
			n++
		}
	}
	return n
}

// Load kinds: links are the rate; nodes and count rows are counted beside them.
var (
	kindLink  = runner.Kind{Name: "link", Role: results.RoleWrite, Unit: "rows", CountUnits: true}
	kindNode  = runner.Kind{Name: "node", Role: results.RoleWrite, Unit: "rows", CountUnits: true}
	kindCount = runner.Kind{Name: "count", Role: results.RoleWrite, Unit: "rows", CountUnits: true}
)

var loadPresentation = runner.Presentation{RateName: "ips", RateUnit: "links/s", PerOp: "link loaded",
	Note: "ips = links loaded/s; per-op figures per link, the nodes and count rows included"}

// loadTask is one unit of the load: a range of nodes, or a range of links (a node's range, or a
// slice of one node's links of one type).
type loadTask struct {
	nodes bool
	links lbgen.LoadTask
}

// loadStep loads the nodes, then the links and their count rows, by Loaders clients taking
// tasks from one list.
func (r *Run) loadStep(ctx context.Context) (runner.Step, error) {
	w := r.w
	remark := r.splitRemark()
	st := runner.Step{Name: StepLoad, Presentation: loadPresentation, Percentiles: w.Cfg.pcts,
		Finish: func(res *results.Step) { res.Remarks = append(res.Remarks, remark) }}
	kLink, kNode, kCount := st.Kinds.Add(kindLink), st.Kinds.Add(kindNode), st.Kinds.Add(kindCount)
	st.RateKinds = []runner.KindID{kLink}
	g := &w.Cfg.Graph
	var tasks []loadTask
	for lo := g.StartID1; lo < g.MaxID1; lo += loadBatch {
		tasks = append(tasks, loadTask{nodes: true, links: lbgen.LoadTask{Lo: lo, Hi: min(lo+loadBatch, g.MaxID1)}})
	}
	for _, t := range r.plan.Tasks {
		tasks = append(tasks, loadTask{links: t})
	}
	if w.split() {
		// This shard's tasks of the list.
		own := tasks[:0:0]
		for i, t := range tasks {
			if w.ownsTask(i) {
				own = append(own, t)
			}
		}
		tasks = own
	}
	var next atomic.Int64
	for i := 0; i < w.Cfg.Loaders; i++ {
		sess, err := r.sessions.Open(ctx, r.eng)
		if err != nil {
			return st, err
		}
		l := &loader{r: r, sess: sess, links: table.NewRows(len(linkTable.Columns), loadBatch),
			counts: table.NewRows(len(countTable.Columns), loadBatch), nodes: table.NewRows(len(nodeTable.Columns), loadBatch),
			kLink: kLink, kNode: kNode, kCount: kCount, now: time.Now()}
		st.Workers = append(st.Workers, runner.Worker{Name: fmt.Sprintf("loader %d", i+1), Role: runner.Driver,
			Op: func(ctx context.Context, m *runner.Meter) (bool, error) {
				i := next.Add(1) - 1
				if i >= int64(len(tasks)) {
					return true, nil
				}
				t := tasks[i]
				if t.nodes {
					return false, l.loadNodes(ctx, m, t.links.Lo, t.links.Hi)
				}
				return false, l.loadLinks(ctx, m, t.links)
			}})
	}
	return st, nil
}

// loader is one load client with its buffers.
type loader struct {
	r                    *Run
	sess                 table.Session
	links, counts, nodes *table.Rows
	data                 []byte
	offs                 []int
	link                 lbgen.Link
	node                 lbgen.Node
	kLink, kNode, kCount runner.KindID
	now                  time.Time // the load's clock: links' times are before it
}

// loadNodes inserts nodes [lo, hi) with their ids (the reference's loader gives them ids from
// startid1 up, in order).
func (l *loader) loadNodes(ctx context.Context, m *runner.Meter, lo, hi int64) error {
	l.nodes.Reset(len(nodeTable.Columns))
	l.data, l.offs = l.data[:0], l.offs[:0]
	for id := lo; id < hi; id++ {
		l.r.w.model.Node(&l.node, id, l.now.Unix(), l.data[len(l.data):cap(l.data)])
		l.offs = append(l.offs, len(l.data))
		l.data = append(l.data, l.node.Data...)
		row := l.nodes.AppendRaw()
		row[nID], row[nType], row[nVersion], row[nTime] = table.Value{I: id}, table.Value{I: l.node.Type},
			table.Value{I: l.node.Version}, table.Value{I: l.node.Time}
	}
	l.setData(l.nodes, nData)
	t0 := time.Now()
	if err := l.sess.Insert(ctx, nodeTable, l.nodes); err != nil {
		return err
	}
	m.Done(l.kNode, t0, l.nodes.N)
	m.Commit(1)
	l.r.nodesLoaded.Add(int64(l.nodes.N))
	return nil
}

// setData points column col of every row of rows at its payload in l.data, once l.data no
// longer grows.
func (l *loader) setData(rows *table.Rows, col int) {
	for i := 0; i < rows.N; i++ {
		end := len(l.data)
		if i+1 < len(l.offs) {
			end = l.offs[i+1]
		}
		rows.Row(i)[col] = table.Value{B: l.data[l.offs[i]:end:end]}
	}
}

// loadLinks inserts the links of a task and the count rows of its (id1, link_type) pairs; a
// sliced node's count row is written by its first slice of each type.
func (l *loader) loadLinks(ctx context.Context, m *runner.Meter, t lbgen.LoadTask) error {
	model := l.r.w.model
	nowMs := l.now.UnixMilli()
	l.links.Reset(len(linkTable.Columns))
	l.counts.Reset(len(countTable.Columns))
	l.data, l.offs = l.data[:0], l.offs[:0]
	add := func(id1 int64, typ int, j int64) error {
		model.Link(&l.link, id1, typ, j, nowMs, l.data[len(l.data):cap(l.data)])
		l.offs = append(l.offs, len(l.data))
		l.data = append(l.data, l.link.Data...)
		row := l.links.AppendRaw()
		row[lLinkType], row[lID1], row[lID2] = table.Value{I: l.link.LinkType}, table.Value{I: id1}, table.Value{I: l.link.ID2}
		row[lVisibility], row[lTime], row[lVersion] = table.Value{I: int64(l.link.Visibility)}, table.Value{I: l.link.Time}, table.Value{I: l.link.Version}
		if l.links.N == loadBatch {
			return l.flushLinks(ctx, m)
		}
		return nil
	}
	count := func(id1 int64, typ int, n, newest int64) error {
		if n == 0 {
			return nil
		}
		row := l.counts.AppendRaw()
		row[cID], row[cLinkType], row[cCount] = table.Value{I: id1}, table.Value{I: lbgen.LinkType(typ)}, table.Value{I: n}
		row[cTime], row[cVersion] = table.Value{I: newest}, table.Value{I: 0}
		if l.counts.N == loadBatch {
			return l.flushCounts(ctx, m)
		}
		return nil
	}
	if t.Slice {
		for j := t.From; j < t.To; j++ {
			if err := add(t.Lo, t.TypeIndex, j); err != nil {
				return err
			}
		}
		if t.From == 0 {
			n := model.LinkCount(t.Lo, t.TypeIndex)
			newest := int64(0)
			for j := int64(0); j < n; j++ {
				newest = max(newest, model.LinkTime(t.Lo, t.TypeIndex, j, nowMs))
			}
			if err := count(t.Lo, t.TypeIndex, n, newest); err != nil {
				return err
			}
		}
	} else {
		for id1 := t.Lo; id1 < t.Hi; id1++ {
			if l.r.plan.Sliced(id1) {
				continue
			}
			for typ := range l.r.w.Cfg.Graph.LinkTypeCount {
				n := model.LinkCount(id1, typ)
				newest := int64(0)
				for j := int64(0); j < n; j++ {
					if err := add(id1, typ, j); err != nil {
						return err
					}
					newest = max(newest, l.link.Time)
				}
				if err := count(id1, typ, n, newest); err != nil {
					return err
				}
			}
		}
	}
	if err := l.flushLinks(ctx, m); err != nil {
		return err
	}
	return l.flushCounts(ctx, m)
}

func (l *loader) flushLinks(ctx context.Context, m *runner.Meter) error {
	if l.links.N == 0 {
		return nil
	}
	l.setData(l.links, lData)
	t0 := time.Now()
	if err := l.sess.Insert(ctx, linkTable, l.links); err != nil {
		return err
	}
	m.Done(l.kLink, t0, l.links.N)
	m.Commit(1)
	l.r.linksLoaded.Add(int64(l.links.N))
	l.links.Reset(len(linkTable.Columns))
	l.data, l.offs = l.data[:0], l.offs[:0]
	return nil
}

func (l *loader) flushCounts(ctx context.Context, m *runner.Meter) error {
	if l.counts.N == 0 {
		return nil
	}
	t0 := time.Now()
	if err := l.sess.Insert(ctx, countTable, l.counts); err != nil {
		return err
	}
	m.Done(l.kCount, t0, l.counts.N)
	m.Commit(1)
	l.counts.Reset(len(countTable.Columns))
	return nil
}

// openTables creates the three tables with their indexes (the reference creates them before
// its load).
func openTables(ctx context.Context, eng table.Engine) error {
	info := eng.Info()
	for _, t := range []*table.Table{linkTable, countTable, nodeTable} {
		if err := eng.CreateTable(ctx, referenceTable(info, t), true); err != nil {
			return err
		}
	}
	return nil
}
