package lbgen

import (
	"fmt"
	"math"

	"github.com/rumbench/rumbench/internal/gen"
)

// Probabilities that a request's id2 names an existing link (the reference's ID2Chooser).
const (
	PGetExist    = 0.5  // MULTIGET_LINK: a mix of loaded and new
	PUpdateExist = 0.9  // UPDATE_LINK: mostly loaded
	PDeleteExist = 0.9  // DELETE_LINK
	PAddExist    = 0.05 // ADD_LINK: seldom collides with a loaded link
)

// maxUniqueTries is how often the upstream multiget draws again to avoid a repeated id2.
const maxUniqueTries = 100

// NextOp draws an operation with the probabilities of the mix, as the reference does: a
// uniform r in [0, 100) picks the first operation, in Op order, whose running sum of
// percentages is at least r.
func (m *Model) NextOp(r *gen.Rand) Op {
	x := r.Float64() * 100
	for op, c := range m.cumulative {
		if x <= c && m.cfg.Mix.Percent[op] > 0 {
			return Op(op)
		}
	}
	return m.lastOp // only when rounding leaves the sum a hair below 100
}

// Class is an access class of id1, for NextID1.
type Class int

// The access classes.
const (
	ClassLinkRead   Class = iota // COUNT_LINK, MULTIGET_LINK, GET_LINKS_LIST
	ClassLinkWrite               // ADD_LINK, DELETE_LINK, UPDATE_LINK
	ClassNodeRead                // GET_NODE
	ClassNodeUpdate              // UPDATE_NODE
	ClassNodeDelete              // DELETE_NODE
)

// NextID1 draws an id1 in [StartID1, MaxID1) for an operation of class c (the reference's
// chooseRequestID). Link reads take it with probability ReadUncorrBlend% from the
// uncorrelated distribution (its Zipf ranks mapped through a permutation unrelated to the
// out-degree) and otherwise from the correlated one (ranks mapped through the out-degree's
// permutation, so the hottest ids are the nodes with the most links); link writes likewise with
// their blend (see WriteUncorrFromReadKeys). Node accesses use their distribution mapped
// through the node permutation, shared by reads, updates and deletes.
func (m *Model) NextID1(r *gen.Rand, c Class) int64 {
	switch c {
	case ClassLinkRead:
		if r.Float64() < m.readBlend {
			return m.readUncorr.next(r)
		}
		return m.readCorr.next(r)
	case ClassLinkWrite:
		if r.Float64() < m.writeBlend {
			return m.writeUncorr.next(r)
		}
		return m.writeCorr.next(r)
	case ClassNodeRead:
		return m.nodeRead.next(r)
	case ClassNodeUpdate:
		return m.nodeUpdate.next(r)
	}
	return m.nodeDelete.next(r)
}

// NextLinkTypeIndex draws a link type number uniformly in [0, LinkTypeCount)
// (chooseRandomLinkType).
func (m *Model) NextLinkTypeIndex(r *gen.Rand) int {
	return int(r.Intn(int64(m.cfg.LinkTypeCount)))
}

// MultigetSize draws the number of id2s of a multiget from the reference's
// GeometricDistribution: Min + ceil(ln(1−u)/ln(1−P)) for u uniform in [0, 1), truncated to
// Max−1. As in the reference the draw is Min only when u = 0: with Min 1, Max 128 and P 0.382
// the sizes are 2..127 with mean 1 + 1/P ≈ 3.62 and P(2) = 0.382. (The workload files'
// comment means P to give "a real mean of ~2.6", 1/P, which a draw starting at Min would; the
// sizes here are the ones the reference clients request.)
func (m *Model) MultigetSize(r *gen.Rand) int {
	g := m.cfg.Multiget
	u := r.Float64()
	if u == 0 {
		return int(g.Min)
	}
	x := g.Min + int64(math.Ceil(math.Log(1-u)/math.Log(1-g.P)))
	return int(min(x, g.Max-1))
}

// id2Fix moves id2 to the requester's residue class when ID2GenConfig is 1 (fixId2).
func (m *Model) id2Fix(id2 int64, requesters, requester int64) int64 {
	if m.cfg.ID2GenConfig != 1 {
		return id2
	}
	v := id2 - id2%requesters + requester
	if max2 := m.cfg.RandomID2Max; max2 > 0 && v > max2 {
		v -= requesters
	}
	return v
}

// NextID2 draws the id2 of a link operation on (id1, type number typeIndex) that should find
// an existing link with probability about pExist (PAddExist, PUpdateExist, PDeleteExist), as
// the reference's ID2Chooser.chooseForOp, for requester number requester of requesters (used
// only when ID2GenConfig is 1). With RandomID2Max > 0 it is uniform in [0, RandomID2Max).
// Otherwise, with c = LinkCount(id1, typeIndex) the loaded links id1 .. id1+c−1:
//
//   - NeverChange (upstream): uniform in [id1, id1 + max(1, ceil(c/pExist))), which finds a
//     link with probability about pExist when c is large (one in two for c = 1);
//   - otherwise (the fork): with probability pExist uniform among the loaded id2s
//     [id1, id1 + max(1, c)), else uniform in [0, MaxID1).
func (m *Model) NextID2(r *gen.Rand, id1 int64, typeIndex int, pExist float64, requester, requesters int) int64 {
	c := m.LinkCount(id1, typeIndex)
	return m.id2(r, id1, c, pExist, int64(requester), int64(requesters))
}

func (m *Model) id2(r *gen.Rand, id1, c int64, pExist float64, requester, requesters int64) int64 {
	var id2 int64
	switch {
	case m.cfg.NeverChange:
		if m.cfg.RandomID2Max > 0 {
			id2 = r.Intn(m.cfg.RandomID2Max)
		} else {
			id2 = id1 + r.Intn(id2Range(c, pExist))
		}
	default:
		existing := r.Float64() < pExist
		switch {
		case m.cfg.RandomID2Max > 0:
			id2 = r.Intn(m.cfg.RandomID2Max)
		case existing:
			id2 = id1 + r.Intn(max(1, c))
		default:
			id2 = r.Intn(m.cfg.MaxID1)
		}
	}
	return m.id2Fix(id2, requesters, requester)
}

// id2Range is the upstream calcID2Range: max(1, ceil(c/p)).
func id2Range(c int64, p float64) int64 { return max(1, int64(math.Ceil(1/p*float64(c)))) }

// NextID2s fills dst with the id2s of a multiget on (id1, type number typeIndex)
// (chooseMultipleForOp, with pExist = PGetExist) and returns it. NeverChange (upstream): when
// the id2 range max(1, ceil(c/pExist)) holds at most len(dst) ids (and RandomID2Max is 0) the
// id2s are id1, id1+1, …; otherwise each is drawn as NextID2 does, again up to 100 times while
// it repeats an earlier one. The fork draws each independently as NextID2 does.
func (m *Model) NextID2s(r *gen.Rand, dst []int64, id1 int64, typeIndex int, pExist float64, requester, requesters int) []int64 {
	c := m.LinkCount(id1, typeIndex)
	req, reqs := int64(requester), int64(requesters)
	if !m.cfg.NeverChange {
		for i := range dst {
			dst[i] = m.id2(r, id1, c, pExist, req, reqs)
		}
		return dst
	}
	if id2Range(c, pExist) <= int64(len(dst)) && m.cfg.RandomID2Max == 0 {
		for i := range dst {
			dst[i] = m.id2Fix(id1+int64(i), reqs, req)
		}
		return dst
	}
	for i := range dst {
		var id2 int64
		for try := 0; try <= maxUniqueTries; try++ {
			id2 = m.id2(r, id1, c, pExist, req, reqs)
			if !contains(dst[:i], id2) {
				break
			}
		}
		dst[i] = id2
	}
	return dst
}

func contains(s []int64, v int64) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// LinkPayload draws an added (update false) or updated link's payload into buf (see
// Payload.Next).
func (m *Model) LinkPayload(r *gen.Rand, update bool, buf []byte) []byte {
	if update {
		return m.linkUp.Next(r, buf)
	}
	return m.linkAdd.Next(r, buf)
}

// NodePayload draws an added (update false) or updated node's payload into buf (see
// Payload.Next).
func (m *Model) NodePayload(r *gen.Rand, update bool, buf []byte) []byte {
	if update {
		return m.nodeUp.Next(r, buf)
	}
	return m.nodeAdd.Next(r, buf)
}

// Request is one request drawn by a Requester. The fields an operation does not use are zero.
// ID2s and Data point into storage that the next draw into the same Request reuses.
type Request struct {
	Op Op
	// ID1 is the link's id1 for the link operations, and the node's id for GET, UPDATE and
	// DELETE_NODE (0 for ADD_NODE: the store assigns it).
	ID1 int64
	// LinkType is the link_type of the link operations.
	LinkType int64
	// ID2 is the id2 of ADD, UPDATE and DELETE_LINK.
	ID2 int64
	// ID2s are the id2s of MULTIGET_LINK.
	ID2s []int64
	// Visibility and Version are the values ADD and UPDATE_LINK write (VisibilityDefault, 0),
	// and Version the one ADD_NODE (1) and UPDATE_NODE (2) write; the time is the caller's:
	// milliseconds now for links, seconds for nodes.
	Visibility int8
	Version    int64
	// NodeType is the node type of the node operations (DefaultNodeType).
	NodeType int64
	// Data is the payload of ADD and UPDATE_LINK and of ADD and UPDATE_NODE.
	Data []byte
	// GET_LINKS_LIST: the visible links of (ID1, LinkType) with MinTime <= time <= MaxTime,
	// newest first, skipping Offset, at most Limit. A normal request is [0, MaxInt64], offset
	// 0; a History request asks for the page older than one seen before: MaxTime that page's
	// oldest time and offset 1 (the reference's getLinkListTail). Report the result with
	// Requester.LinkListDone.
	MinTime, MaxTime int64
	Offset, Limit    int
	History          bool
	historySlot      int
}

// Requester draws the requests of one requester (a LinkBench request thread) and keeps its
// get-links-list history. It is not safe for concurrent use: give each worker its own.
type Requester struct {
	m                     *Model
	requester, requesters int
	id2s                  [MaxMultiget]int64
	hist                  history
}

// NewRequester returns the requester number requester of requesters (0 <= requester <
// requesters; the numbers matter only when ID2GenConfig is 1).
func (m *Model) NewRequester(requester, requesters int) (*Requester, error) {
	if requesters < 1 || requester < 0 || requester >= requesters {
		return nil, fmt.Errorf("lbgen: requester %d of %d: want 0 <= requester < requesters", requester, requesters)
	}
	return &Requester{m: m, requester: requester, requesters: requesters, hist: newHistory()}, nil
}

// Next draws one request into req, from r, as the reference's oneRequest composes it: the
// operation from the mix; for link operations an id1 of the link read or write class, a link
// type and the id2(s) (NextID2 with PAddExist, PUpdateExist or PDeleteExist; NextID2s with
// MultigetSize ids at PGetExist); for GET_LINKS_LIST, with probability getlinklist_history% and
// a non-empty history, a page from the history; for node operations an id of the node read,
// update or delete class; and the payloads of additions and updates, written into req.Data's
// storage (grown when short; it reaches MaxNodeData−1 bytes at most).
func (q *Requester) Next(r *gen.Rand, req *Request) {
	m := q.m
	op := m.NextOp(r)
	data := req.Data
	*req = Request{Op: op, Data: data[:0]}
	switch op {
	case OpAddLink, OpUpdateLink, OpDeleteLink:
		req.ID1 = m.NextID1(r, ClassLinkWrite)
		t := m.NextLinkTypeIndex(r)
		req.LinkType = LinkType(t)
		p := PAddExist
		switch op {
		case OpUpdateLink:
			p = PUpdateExist
		case OpDeleteLink:
			p = PDeleteExist
		}
		req.ID2 = m.NextID2(r, req.ID1, t, p, q.requester, q.requesters)
		if op != OpDeleteLink {
			req.Visibility = VisibilityDefault
			req.Data = m.LinkPayload(r, op == OpUpdateLink, data)
		}
	case OpCountLink:
		req.ID1 = m.NextID1(r, ClassLinkRead)
		req.LinkType = LinkType(m.NextLinkTypeIndex(r))
	case OpMultigetLink:
		req.ID1 = m.NextID1(r, ClassLinkRead)
		t := m.NextLinkTypeIndex(r)
		req.LinkType = LinkType(t)
		n := m.MultigetSize(r)
		req.ID2s = m.NextID2s(r, q.id2s[:n], req.ID1, t, PGetExist, q.requester, q.requesters)
	case OpGetLinkList:
		req.Limit = RangeLimit
		if r.Float64() < m.history && q.hist.size > 0 {
			slot := int(r.Intn(int64(q.hist.size)))
			e := q.hist.entries[slot]
			req.ID1, req.LinkType, req.MaxTime, req.Offset = e.id1, e.linkType, e.time, 1
			req.History, req.historySlot = true, slot
			return
		}
		req.ID1 = m.NextID1(r, ClassLinkRead)
		req.LinkType = LinkType(m.NextLinkTypeIndex(r))
		req.MaxTime = math.MaxInt64
	case OpAddNode:
		req.NodeType, req.Version = DefaultNodeType, 1
		req.Data = m.NodePayload(r, false, data)
	case OpUpdateNode:
		req.ID1 = m.NextID1(r, ClassNodeUpdate)
		req.NodeType, req.Version = DefaultNodeType, 2
		req.Data = m.NodePayload(r, true, data)
	case OpDeleteNode:
		req.ID1 = m.NextID1(r, ClassNodeDelete)
		req.NodeType = DefaultNodeType
	case OpGetNode:
		req.ID1 = m.NextID1(r, ClassNodeRead)
		req.NodeType = DefaultNodeType
	}
}

// LinkListDone records the result of the GET_LINKS_LIST req, the last one Next drew: count
// links returned, the oldest (last) of them with time oldest. As the reference does, a full
// page (RangeLimit links) of a normal request enters the history (once per (id1, link_type);
// when the history holds HistoryLimit entries a random one drawn from r is replaced), and a
// history request replaces its entry's time by oldest when its page was full again and
// otherwise removes it. Call it before the next Next; other requests are ignored.
func (q *Requester) LinkListDone(r *gen.Rand, req *Request, count int, oldest int64) {
	if req.Op != OpGetLinkList {
		return
	}
	if !req.History {
		if count >= RangeLimit {
			q.hist.add(r, histEntry{req.ID1, req.LinkType, oldest})
		}
		return
	}
	if count == RangeLimit {
		q.hist.entries[req.historySlot].time = oldest
	} else {
		q.hist.remove(req.historySlot, nil)
	}
}

// HistoryLen returns the number of entries in the requester's get-links-list history.
func (q *Requester) HistoryLen() int { return q.hist.size }

type histKey struct{ id1, linkType int64 }

type histEntry struct{ id1, linkType, time int64 }

// history is the reference's list-tail cache: up to HistoryLimit (id1, link_type, time) entries,
// one per (id1, link_type), indexed by key.
type history struct {
	entries []histEntry
	size    int
	index   map[histKey]int
}

func newHistory() history {
	return history{entries: make([]histEntry, HistoryLimit), index: make(map[histKey]int, HistoryLimit)}
}

func (h *history) add(r *gen.Rand, e histEntry) {
	k := histKey{e.id1, e.linkType}
	if _, ok := h.index[k]; ok {
		return
	}
	if h.size < len(h.entries) {
		h.entries[h.size] = e
		h.index[k] = h.size
		h.size++
		return
	}
	h.remove(int(r.Intn(int64(h.size))), &e)
}

// remove removes the entry at pos, or replaces it by repl when repl is not nil; removing moves
// the last entry into pos (removeTailCacheEntry; unlike the reference it also drops the
// removed entry's key from the index, which otherwise keeps that key out of the history).
func (h *history) remove(pos int, repl *histEntry) {
	old := h.entries[pos]
	delete(h.index, histKey{old.id1, old.linkType})
	last := h.size - 1
	if repl == nil {
		if pos != last {
			h.entries[pos] = h.entries[last]
			h.index[histKey{h.entries[pos].id1, h.entries[pos].linkType}] = pos
		}
		h.size--
		return
	}
	h.entries[pos] = *repl
	h.index[histKey{repl.id1, repl.linkType}] = pos
}
