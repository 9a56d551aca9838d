package lbgen

import (
	"math"
	"slices"

	"github.com/rumbench/rumbench/internal/gen"
)

// Model generates one LinkBench graph and the distributions of its requests. It is built once
// from a Config and a seed by NewModel, is immutable, and all its methods are safe for
// concurrent use.
type Model struct {
	cfg     Config
	seed    uint64
	n       int64 // node ids loaded: MaxID1 − StartID1
	degrees *DegreeTable

	nlinksShuf, uncorrShuf, nodeShuf *Shuffler

	linkAdd, linkUp, nodeAdd, nodeUp Payload

	readCorr, readUncorr, writeCorr, writeUncorr idChooser
	nodeRead, nodeUpdate, nodeDelete             idChooser
	readBlend, writeBlend                        float64 // fractions of uncorrelated draws

	cumulative [NumOps]float64 // running sums of the mix's percentages
	lastOp     Op              // the last operation with a positive percentage
	history    float64         // fraction of get-links-lists from the history
}

// Salts separating the random streams derived from the seed.
const (
	saltLink uint64 = 0x4c494e4b // links
	saltNode uint64 = 0x4e4f4445 // nodes
	saltData uint64 = 0x44415441 // motif buffers
)

// NewModel validates cfg and returns the model of its graph and requests for seed. Set-up
// costs O(1) per node-independent structure plus, once per process, the parsing of the
// embedded degree data (about 20 ms).
func NewModel(cfg Config, seed uint64) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m := &Model{cfg: cfg, seed: seed, n: cfg.MaxID1 - cfg.StartID1}
	if cfg.NLinksFunc == NLinksReal {
		t, err := Degrees(cfg.DegreeData)
		if err != nil {
			return nil, err
		}
		m.degrees = t
	}
	m.nlinksShuf = NewShuffler(NLinksShufflerSeed, ShufflerGroups, m.n)
	m.uncorrShuf = NewShuffler(UncorrShufflerSeed, ShufflerGroups, m.n)
	m.nodeShuf = NewShuffler(NodeShufflerSeed, ShufflerGroups, m.n)

	data := func(g DataGen, i uint64) *DataGenerator { return NewDataGenerator(g, gen.Mix(seed^saltData+i)) }
	linkSize := NewLogNormal(0, MaxLinkData, cfg.LinkDataSize, cfg.LinkDataSigma)
	nodeSize := NewLogNormal(0, MaxNodeData, cfg.NodeDataSize, cfg.NodeDataSigma)
	m.linkAdd = Payload{linkSize, data(cfg.LinkAddData, 1)}
	m.linkUp = Payload{linkSize, data(cfg.LinkUpData, 2)}
	m.nodeAdd = Payload{nodeSize, data(cfg.NodeAddData, 3)}
	m.nodeUp = Payload{nodeSize, data(cfg.NodeUpData, 4)}

	// The correlated link accesses use the out-degree's permutation, so their hot ids are the
	// nodes with the most links; the uncorrelated ones use another (RealDistribution).
	m.readCorr = newIDChooser(cfg.LinkRead, cfg.StartID1, m.n, m.nlinksShuf)
	m.readUncorr = newIDChooser(cfg.LinkReadUncorr, cfg.StartID1, m.n, m.uncorrShuf)
	m.writeCorr = newIDChooser(cfg.LinkWrite, cfg.StartID1, m.n, m.nlinksShuf)
	m.readBlend, m.writeBlend = cfg.ReadUncorrBlend/100, cfg.WriteUncorrBlend/100
	if cfg.WriteUncorrFromReadKeys {
		m.writeUncorr = newIDChooser(cfg.LinkReadUncorr, cfg.StartID1, m.n, m.uncorrShuf)
		m.writeBlend = m.readBlend
	} else {
		m.writeUncorr = newIDChooser(cfg.LinkWriteUncorr, cfg.StartID1, m.n, m.uncorrShuf)
	}
	m.nodeRead = newIDChooser(cfg.NodeRead, cfg.StartID1, m.n, m.nodeShuf)
	m.nodeUpdate = newIDChooser(cfg.NodeUpdate, cfg.StartID1, m.n, m.nodeShuf)
	m.nodeDelete = newIDChooser(cfg.NodeDelete, cfg.StartID1, m.n, m.nodeShuf)

	sum := 0.0
	for op, p := range cfg.Mix.Percent {
		sum += p
		m.cumulative[op] = sum
		if p > 0 {
			m.lastOp = Op(op)
		}
	}
	m.history = cfg.Mix.GetLinkListHistory / 100
	return m, nil
}

// Config returns the model's configuration.
func (m *Model) Config() Config { return m.cfg }

// Nodes returns the number of nodes loaded, MaxID1 − StartID1; their ids are
// [StartID1, MaxID1).
func (m *Model) Nodes() int64 { return m.n }

// LinkType returns the link_type of link type number i in [0, LinkTypeCount).
func LinkType(i int) int64 { return DefaultLinkType + int64(i) }

// OutDegree returns the number of links the out-degree function gives node id1, before it is
// split between the link types (the reference's calcTotalLinkCount). For the real function it
// is the degree table's value at the node's rank, the rank being the node's position under the
// inverse of the reference's out-degree permutation, so the same nodes have the same degrees
// as in the reference. Below 2,048 nodes that permutation is the identity (each of its groups
// holds one id), so node StartID1 has the table's largest degree. id1 must be in
// [StartID1, MaxID1).
func (m *Model) OutDegree(id1 int64) int64 {
	switch m.cfg.NLinksFunc {
	case NLinksConst:
		return m.capDegree(m.cfg.NLinksDefault)
	case NLinksMultiples:
		if id1%m.cfg.NLinksConfig == 0 {
			return m.capDegree(m.cfg.NLinksDefault + m.cfg.NLinksConfig)
		}
		return m.capDegree(m.cfg.NLinksDefault)
	}
	return m.capDegree(m.degrees.AtRank(m.nlinksShuf.Invert(id1-m.cfg.StartID1), m.n))
}

// capDegree applies Config.MaxDegree to an out-degree.
func (m *Model) capDegree(d int64) int64 {
	if m.cfg.MaxDegree > 0 {
		return min(d, m.cfg.MaxDegree)
	}
	return d
}

// LinkCount returns the number of links of type number typeIndex that the loader gives node
// id1 (the reference's calcLinkCount), from its out-degree d and the L = LinkTypeCount types:
//
//   - NeverChange (upstream): each type gets d/L links, plus one for the types numbered below
//     d − d/L. The reference means the remainder d mod L; as written, with two types a node
//     of d >= 3 links gets d/2+1 of each (one or two more than d in all) and one of d = 2 gets
//     2 + 1. It is reproduced since it is what the reference loads (at maxid1 = 100001:
//     1,368,899 links in 77,207 (id1, type) pairs).
//   - otherwise (the fork): max(d, L)/L links of each type: every type has a link and the
//     remainder is dropped (at maxid1 = 100001: 4,597,662 links, 200,000 pairs).
func (m *Model) LinkCount(id1 int64, typeIndex int) int64 {
	return m.typeCount(m.OutDegree(id1), typeIndex)
}

func (m *Model) typeCount(d int64, typeIndex int) int64 {
	l := int64(m.cfg.LinkTypeCount)
	if !m.cfg.NeverChange {
		return max(d, l) / l
	}
	minCount := d / l
	if int64(typeIndex) < d-minCount {
		return minCount + 1
	}
	return minCount
}

// LinksOf returns the number of links of node id1 over all its link types.
func (m *Model) LinksOf(id1 int64) int64 {
	d := m.OutDegree(id1)
	var s int64
	for i := range m.cfg.LinkTypeCount {
		s += m.typeCount(d, i)
	}
	return s
}

// Link is one row of linktable. Data is the payload.
type Link struct {
	ID1, LinkType, ID2 int64
	Visibility         int8
	Version            int64
	Time               int64 // milliseconds since the epoch
	Data               []byte
}

// Node is one row of nodetable. Data is the payload.
type Node struct {
	ID, Type, Version int64
	Time              int64 // seconds since the epoch
	Data              []byte
}

// linkRand returns the random stream of link j of type typeIndex of node id1.
func (m *Model) linkRand(id1 int64, typeIndex int, j int64) gen.Rand {
	return gen.NewRand(gen.Mix(gen.Mix(gen.Mix(m.seed^saltLink^uint64(id1))^uint64(typeIndex)) ^ uint64(j)))
}

// Link fills l with link j, 0 <= j < LinkCount(id1, typeIndex), of type number typeIndex of
// node id1, as the reference's loader builds it (LinkBenchLoad.constructLink): id2 = id1 + j
// (or, with RandomID2Max > 0, uniform in [0, RandomID2Max)), visibility VisibilityDefault,
// version 0, a time uniform in [nowMillis − 2^32, nowMillis − 1] (about 50 days back, so that
// id2 and time are not correlated) and a payload of the link size distribution from the
// link-add generator. The payload is written into buf (see Payload.Next; 254 bytes of capacity
// never allocate) and l.Data points to it. The link is a function of the model's seed, id1,
// typeIndex and j alone (and nowMillis), so any loader may generate any links of any node.
//
// The count row of (id1, type) that the loader writes with them holds LinkCount links,
// version 0 and the largest time of its links.
func (m *Model) Link(l *Link, id1 int64, typeIndex int, j int64, nowMillis int64, buf []byte) {
	r := m.linkRand(id1, typeIndex, j)
	l.ID1, l.LinkType = id1, LinkType(typeIndex)
	l.Time = nowMillis - (1 << 31) + int64(int32(uint32(r.Uint64())))
	if m.cfg.RandomID2Max > 0 {
		l.ID2 = r.Intn(m.cfg.RandomID2Max)
	} else {
		l.ID2 = id1 + j
	}
	l.Visibility, l.Version = VisibilityDefault, 0
	l.Data = m.linkAdd.Next(&r, buf)
}

// LinkTime returns the time of the link that Link generates, without its payload.
func (m *Model) LinkTime(id1 int64, typeIndex int, j int64, nowMillis int64) int64 {
	r := m.linkRand(id1, typeIndex, j)
	return nowMillis - (1 << 31) + int64(int32(uint32(r.Uint64())))
}

// Node fills nd with node id as the reference's node loader builds it (NodeLoader.genNode):
// type DefaultNodeType, version 1, time nowSec, and a payload of the node size distribution
// from the node-add generator, written into buf (see Payload.Next: node payloads reach
// MaxNodeData−1 bytes, so a buffer of that capacity never allocates). The node is a function
// of the model's seed and id (and nowSec).
func (m *Model) Node(nd *Node, id int64, nowSec int64, buf []byte) {
	r := gen.NewRand(gen.Mix(m.seed ^ saltNode ^ gen.Mix(uint64(id))))
	nd.ID, nd.Type, nd.Version, nd.Time = id, DefaultNodeType, 1, nowSec
	nd.Data = m.nodeAdd.Next(&r, buf)
}

// HeavyNodes returns the nodes with at least minLinks links over their link types (LinksOf),
// the most links first. For the real out-degree function this costs O(K log n) for K nodes;
// for the arithmetic functions it scans all nodes. With the fork's data one node has
// 4,181,357 out-degree at any maxid1 (rank 0 takes the table's largest value), the upstream
// data 961,963: a loader should split such nodes' links (see LoadPlan).
func (m *Model) HeavyNodes(minLinks int64) []int64 {
	var ids []int64
	if m.degrees == nil {
		for id := m.cfg.StartID1; id < m.cfg.MaxID1; id++ {
			if m.LinksOf(id) >= minLinks {
				ids = append(ids, id)
			}
		}
		slices.SortStableFunc(ids, func(a, b int64) int { return int(m.LinksOf(b) - m.LinksOf(a)) })
		return ids
	}
	// The links over the types do not decrease with the out-degree, which does not increase
	// with the rank.
	lo, hi := int64(0), m.n // the first rank whose links are below minLinks
	for lo < hi {
		mid := lo + (hi-lo)/2
		if m.linksAtRank(mid) >= minLinks {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	for k := int64(0); k < lo; k++ {
		ids = append(ids, m.cfg.StartID1+m.nlinksShuf.Permute(k))
	}
	return ids
}

func (m *Model) linksAtRank(k int64) int64 {
	d := m.capDegree(m.degrees.AtRank(k, m.n))
	var s int64
	for i := range m.cfg.LinkTypeCount {
		s += m.typeCount(d, i)
	}
	return s
}

// LoadTask is a unit of link-loading work. A range task (Slice false) covers the nodes
// [Lo, Hi): all their links, except those of the nodes the plan slices (LoadPlan.Sliced). A
// slice task covers links [From, To) of type number TypeIndex of node Lo (Hi = Lo+1).
type LoadTask struct {
	Lo, Hi    int64
	Slice     bool
	TypeIndex int
	From, To  int64
}

// LoadPlan divides the link load into tasks that loaders may take in any order and any number.
type LoadPlan struct {
	Tasks  []LoadTask
	sliced map[int64]bool
}

// Sliced reports whether node id1's links are loaded by slice tasks instead of the range task
// covering it.
func (p *LoadPlan) Sliced(id1 int64) bool { return p.sliced[id1] }

// LoadPlan returns the tasks of the link load: first the nodes with more than maxLinks links
// (HeavyNodes(maxLinks+1)), cut into slices of at most maxLinks links of one type, then
// ranges of chunkSize nodes (the reference's loader_chunk_size, 2048), last range first as the
// reference enqueues them. The reference's loader gives all of a node's links to one thread, so
// with the fork's data a small graph's load ends with one thread loading 4.18M links alone;
// slices spread them. chunkSize and maxLinks must be >= 1.
func (m *Model) LoadPlan(chunkSize, maxLinks int64) *LoadPlan {
	chunkSize, maxLinks = max(chunkSize, 1), max(maxLinks, 1)
	p := &LoadPlan{sliced: map[int64]bool{}}
	for _, id := range m.HeavyNodes(maxLinks + 1) {
		p.sliced[id] = true
		for t := range m.cfg.LinkTypeCount {
			c := m.LinkCount(id, t)
			for from := int64(0); from < c; from += maxLinks {
				p.Tasks = append(p.Tasks, LoadTask{Lo: id, Hi: id + 1, Slice: true, TypeIndex: t,
					From: from, To: min(from+maxLinks, c)})
			}
		}
	}
	var ranges []LoadTask
	for lo := m.cfg.StartID1; lo < m.cfg.MaxID1; lo += chunkSize {
		ranges = append(ranges, LoadTask{Lo: lo, Hi: min(lo+chunkSize, m.cfg.MaxID1)})
	}
	slices.Reverse(ranges)
	p.Tasks = append(p.Tasks, ranges...)
	return p
}

// idChooser draws ids in [start, start+n) from a Zipf (rank 0 the hottest) or uniform
// distribution, then maps them through a shuffler (AccessDistributions.ProbAccessDistribution
// as LinkBenchRequest.chooseRequestID applies it). Its Zipf is only read, so one chooser
// serves concurrent draws.
type idChooser struct {
	start, n int64
	zipf     *gen.Zipf // nil: uniform
	shuf     *Shuffler
}

func newIDChooser(a Access, start, n int64, shuf *Shuffler) idChooser {
	c := idChooser{start: start, n: n, shuf: shuf}
	if a.Function == AccessZipf {
		c.zipf = gen.NewZipfZeta(n, a.Shape, zeta(n, a.Shape))
	}
	return c
}

// rank draws the popularity rank in [0, n).
func (c *idChooser) rank(r *gen.Rand) int64 {
	if c.zipf != nil {
		return c.zipf.Next(r) - 1
	}
	return r.Intn(c.n)
}

func (c *idChooser) next(r *gen.Rand) int64 { return c.start + c.shuf.Permute(c.rank(r)) }

// zeta returns the generalized harmonic number H(n, s) = Σ_{i=1..n} i^−s: summed exactly up to
// 10,000 terms, and beyond by the Euler–Maclaurin formula (relative error below 1e-12). The
// reference approximates it for n >= 100,000 by n^(1−s)/(1−s) + 0.58 − 1/(1−s) (0.004% to
// 0.023% high for its shapes at 1M to 3M ids); the exact value gives the Zipf distribution its
// definition.
func zeta(n int64, s float64) float64 {
	const m = 10000
	sum := 0.0
	for i := int64(1); i <= min(n, m); i++ {
		sum += math.Pow(float64(i), -s)
	}
	if n <= m {
		return sum
	}
	// Σ_{i=m+1..n} f(i) = ∫_m^n f + (f(n) − f(m))/2 + (f'(n) − f'(m))/12 − …
	f := func(x float64) float64 { return math.Pow(x, -s) }
	df := func(x float64) float64 { return -s * math.Pow(x, -s-1) }
	nf, mf := float64(n), float64(m)
	integral := (math.Pow(nf, 1-s) - math.Pow(mf, 1-s)) / (1 - s)
	return sum + integral + (f(nf)-f(mf))/2 + (df(nf)-df(mf))/12
}
