package lbgen

import (
	"math"
	"testing"

	"github.com/rumbench/rumbench/internal/gen"
)

func model(t testing.TB, cfg Config, maxid1 int64) *Model {
	t.Helper()
	cfg.MaxID1 = maxid1
	m, err := NewModel(cfg, 11)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Both mixes' proportions over 100,000 requests are within one percentage point of the
// configured ones (a standard deviation is at most 0.16 points).
func TestMixProportions(t *testing.T) {
	for _, cfg := range []Config{UpstreamConfig(), SmallDatumConfig()} {
		m := model(t, cfg, 100001)
		q, _ := m.NewRequester(0, 1)
		r := gen.NewRand(1)
		var req Request
		var counts [NumOps]int
		const n = 100000
		for range n {
			q.Next(&r, &req)
			counts[req.Op]++
		}
		worst := 0.0
		for op, c := range counts {
			got, want := 100*float64(c)/n, cfg.Mix.Percent[op]
			if math.Abs(got-want) > 1 {
				t.Errorf("%s: %v %.3f%%, want %.3f%%", cfg.DegreeData, Op(op), got, want)
			}
			worst = max(worst, math.Abs(got-want))
		}
		t.Logf("%s mix: largest deviation %.3f points over %d requests", cfg.DegreeData, worst, n)
	}
}

// zipfP returns the Zipf probability of rank k (0 the hottest) among n with exponent s.
func zipfP(k, n int64, s float64) float64 { return math.Pow(float64(k+1), -s) / zeta(n, s) }

// The hottest ids of each class have their Zipf probability, blended: a link read of the id
// that is rank 0 of the correlated distribution has probability (1−b)·P(0) + b·P(its rank in
// the uncorrelated one), for the blend b. Link writes blend with the read settings
// (WriteUncorrFromReadKeys) unless told otherwise.
func TestAccessPopularityAndBlend(t *testing.T) {
	const n = 100000
	const draws = 400000
	type probe struct {
		id   int64
		want float64
	}
	count := func(m *Model, c Class, probes []probe) {
		t.Helper()
		r := gen.NewRand(2)
		hits := make([]int, len(probes))
		for range draws {
			id := m.NextID1(&r, c)
			if id < 1 || id >= n+1 {
				t.Fatalf("id %d outside [1, %d]", id, n)
			}
			for i, p := range probes {
				if id == p.id {
					hits[i]++
				}
			}
		}
		for i, p := range probes {
			got := float64(hits[i]) / draws
			sd := math.Sqrt(p.want * (1 - p.want) / draws)
			if math.Abs(got-p.want) > 4*sd+1e-5 {
				t.Errorf("class %d id %d: frequency %.5f, want %.5f (±%.5f)", c, p.id, got, p.want, 4*sd)
			} else {
				t.Logf("class %d id %d: frequency %.5f, want %.5f", c, p.id, got, p.want)
			}
		}
	}
	blendProbes := func(m *Model, corr, uncorr Access, b float64) []probe {
		var ps []probe
		for k := int64(0); k < 2; k++ {
			// Rank k of the correlated distribution, and rank k of the uncorrelated one.
			idc := m.cfg.StartID1 + m.nlinksShuf.Permute(k)
			ku := m.uncorrShuf.Invert(idc - m.cfg.StartID1)
			ps = append(ps, probe{idc, (1-b)*zipfP(k, n, corr.Shape) + b*zipfP(ku, n, uncorr.Shape)})
			idu := m.cfg.StartID1 + m.uncorrShuf.Permute(k)
			kc := m.nlinksShuf.Invert(idu - m.cfg.StartID1)
			ps = append(ps, probe{idu, (1-b)*zipfP(kc, n, corr.Shape) + b*zipfP(k, n, uncorr.Shape)})
		}
		return ps
	}
	cfg := UpstreamConfig()
	m := model(t, cfg, n+1)
	count(m, ClassLinkRead, blendProbes(m, cfg.LinkRead, cfg.LinkReadUncorr, 0.995))
	count(m, ClassLinkWrite, blendProbes(m, cfg.LinkWrite, cfg.LinkReadUncorr, 0.995))
	cfg.WriteUncorrFromReadKeys = false
	cfg.ReadUncorrBlend = 30
	m = model(t, cfg, n+1)
	count(m, ClassLinkRead, blendProbes(m, cfg.LinkRead, cfg.LinkReadUncorr, 0.30))
	count(m, ClassLinkWrite, blendProbes(m, cfg.LinkWrite, cfg.LinkWriteUncorr, 0.95))
	// Node reads and updates share the node permutation: their hottest id is the same.
	hot := cfg.StartID1 + m.nodeShuf.Permute(0)
	next := cfg.StartID1 + m.nodeShuf.Permute(1)
	count(m, ClassNodeRead, []probe{{hot, zipfP(0, n, 0.625)}, {next, zipfP(1, n, 0.625)}})
	count(m, ClassNodeUpdate, []probe{{hot, zipfP(0, n, 0.606)}, {next, zipfP(1, n, 0.606)}})
	count(m, ClassNodeDelete, []probe{{hot, 1.0 / n}})
}

// The correlated link reads favour the nodes with the most links.
func TestCorrelatedAccessHitsHeavyNodes(t *testing.T) {
	cfg := SmallDatumConfig()
	cfg.ReadUncorrBlend = 0
	m := model(t, cfg, 100001)
	r := gen.NewRand(3)
	heavy := m.HeavyNodes(m.LinksOf(m.cfg.StartID1 + m.nlinksShuf.Permute(0)))[0]
	hits := 0
	for range 100000 {
		if m.NextID1(&r, ClassLinkRead) == heavy {
			hits++
		}
	}
	if want := zipfP(0, 100000, 0.8) * 100000; math.Abs(float64(hits)-want) > 4*math.Sqrt(want) {
		t.Errorf("node with the most links read %d times in 100000, want %.0f", hits, want)
	}
}

// The multiget size is the reference's truncated geometric: 2 with probability p, mean
// 1 + 1/p, never above Max−1.
func TestMultigetSizeGeometric(t *testing.T) {
	m := model(t, UpstreamConfig(), 1001)
	r := gen.NewRand(4)
	const n = 200000
	sum, twos, maxSeen := 0, 0, 0
	for range n {
		k := m.MultigetSize(&r)
		if k < 1 || k > 127 {
			t.Fatalf("multiget size %d outside [1, 127]", k)
		}
		sum += k
		if k == 2 {
			twos++
		}
		maxSeen = max(maxSeen, k)
	}
	mean, p2 := float64(sum)/n, float64(twos)/n
	if want := 1 + 1/0.382; math.Abs(mean-want) > 0.01*want {
		t.Errorf("mean multiget size %.4f, want %.4f", mean, want)
	}
	if math.Abs(p2-0.382) > 0.005 {
		t.Errorf("P(size 2) %.4f, want 0.382", p2)
	}
	t.Logf("multiget sizes: mean %.4f (1+1/p = %.4f), P(2) %.4f, max %d", mean, 1+1/0.382, p2, maxSeen)
}

// The id2s of link operations find a loaded link about as often as each reference intends.
func TestID2Existence(t *testing.T) {
	for _, cfg := range []Config{UpstreamConfig(), SmallDatumConfig()} {
		m := model(t, cfg, 100001)
		// Upstream: a node with many links, where the id2 range works as intended; the fork: a
		// node of median degree, whose new id2s are uniform over [0, MaxID1).
		id1 := m.HeavyNodes(100000)[0]
		if !cfg.NeverChange {
			id1 = cfg.StartID1 + m.nlinksShuf.Permute(m.Nodes()/2)
		}
		c := m.LinkCount(id1, 0)
		r := gen.NewRand(5)
		for _, p := range []float64{PAddExist, PUpdateExist, PGetExist} {
			exist := 0
			const n = 100000
			for range n {
				id2 := m.NextID2(&r, id1, 0, p, 0, 1)
				if id2 >= id1 && id2 < id1+c {
					exist++
				}
			}
			got := float64(exist) / n
			want := p + (1-p)*float64(min(id1+c, m.cfg.MaxID1)-id1)/float64(m.cfg.MaxID1)
			if cfg.NeverChange {
				want = float64(c) / float64(id2Range(c, p))
			}
			if math.Abs(got-want) > 0.01 {
				t.Errorf("%s p=%v: %.4f of id2s exist, want %.4f", cfg.DegreeData, p, got, want)
			}
			t.Logf("%s, node of %d links, p=%v: %.4f of id2s exist, want %.4f", cfg.DegreeData, c, p, got, want)
		}
	}
	// A node with one link: the upstream range is [id1, id1+2) at p = 0.9, half of them new.
	cfg := UpstreamConfig()
	cfg.NLinksFunc, cfg.NLinksDefault, cfg.LinkTypeCount = NLinksConst, 1, 1
	m := model(t, cfg, 1001)
	r := gen.NewRand(6)
	for range 1000 {
		if id2 := m.NextID2(&r, 10, 0, PUpdateExist, 0, 1); id2 != 10 && id2 != 11 {
			t.Fatalf("id2 %d outside [10, 12)", id2)
		}
	}
}

// The upstream multiget's id2s are distinct; a small range gives id1, id1+1, ….
func TestMultigetID2s(t *testing.T) {
	m := model(t, UpstreamConfig(), 100001)
	r := gen.NewRand(7)
	dst := make([]int64, 20)
	heavy := m.HeavyNodes(100000)[0]
	got := m.NextID2s(&r, dst, heavy, 1, PGetExist, 0, 1)
	for i := range got {
		if contains(got[:i], got[i]) {
			t.Fatalf("repeated id2 %d in %v", got[i], got)
		}
	}
	cfg := UpstreamConfig()
	cfg.NLinksFunc, cfg.NLinksDefault = NLinksConst, 4
	m = model(t, cfg, 1001)
	got = m.NextID2s(&r, dst[:5], 100, 0, PGetExist, 0, 1) // 2 links of type 0+1: range 6 > 5
	if got = m.NextID2s(&r, dst[:8], 100, 0, PGetExist, 0, 1); got[0] != 100 || got[7] != 107 {
		t.Errorf("small range multiget %v, want 100..107", got)
	}
}

func TestID2GenConfig(t *testing.T) {
	cfg := UpstreamConfig()
	cfg.ID2GenConfig = 1
	m := model(t, cfg, 100001)
	r := gen.NewRand(8)
	for range 1000 {
		id1 := m.NextID1(&r, ClassLinkWrite)
		if id2 := m.NextID2(&r, id1, 0, PAddExist, 2, 5); id2%5 != 2 {
			t.Fatalf("id2 %d not congruent to requester 2 modulo 5", id2)
		}
	}
}

// Each operation is composed as the reference composes it.
func TestRequestFields(t *testing.T) {
	m := model(t, SmallDatumConfig(), 100001)
	q, _ := m.NewRequester(0, 1)
	r := gen.NewRand(9)
	var req Request
	seen := [NumOps]bool{}
	for range 20000 {
		q.Next(&r, &req)
		seen[req.Op] = true
		link := req.Op <= OpGetLinkList
		if link && (req.ID1 < 1 || req.ID1 > 100000 || req.LinkType < DefaultLinkType || req.LinkType > DefaultLinkType+1) {
			t.Fatalf("%v: id1 %d, link type %d", req.Op, req.ID1, req.LinkType)
		}
		switch req.Op {
		case OpAddLink, OpUpdateLink:
			if len(req.Data) >= MaxLinkData || req.Visibility != VisibilityDefault || req.Version != 0 {
				t.Fatalf("%v: %d bytes, visibility %d, version %d", req.Op, len(req.Data), req.Visibility, req.Version)
			}
		case OpMultigetLink:
			if len(req.ID2s) < 1 || len(req.ID2s) > 127 {
				t.Fatalf("multiget of %d id2s", len(req.ID2s))
			}
		case OpGetLinkList:
			if req.History || req.Offset != 0 || req.MaxTime != math.MaxInt64 || req.Limit != RangeLimit {
				t.Fatalf("get-links-list %+v", req)
			}
		case OpAddNode:
			if req.ID1 != 0 || req.Version != 1 || req.NodeType != DefaultNodeType {
				t.Fatalf("add node %+v", req)
			}
		case OpUpdateNode:
			if req.ID1 < 1 || req.Version != 2 || req.NodeType != DefaultNodeType {
				t.Fatalf("update node %+v", req)
			}
		case OpGetNode, OpDeleteNode:
			if req.ID1 < 1 || req.ID1 > 100000 || req.Data != nil && len(req.Data) != 0 {
				t.Fatalf("%v %+v", req.Op, req)
			}
		}
	}
	for op, s := range seen {
		if !s {
			t.Errorf("%v never drawn", Op(op))
		}
	}
}

// Full pages enter the history; history requests page back from it and drop exhausted entries.
func TestGetLinkListHistory(t *testing.T) {
	cfg := UpstreamConfig()
	cfg.Mix = Mix{GetLinkListHistory: 50}
	cfg.Mix.Percent[OpGetLinkList] = 100
	m := model(t, cfg, 100001)
	q, _ := m.NewRequester(0, 1)
	r := gen.NewRand(10)
	var req Request
	histories, most := 0, 0
	for i := range 20000 {
		most = max(most, q.HistoryLen())
		q.Next(&r, &req)
		if req.History {
			histories++
			if req.Offset != 1 || req.MaxTime > 1000000 {
				t.Fatalf("history request %+v", req)
			}
			// A full page again half the time.
			if i%2 == 0 {
				q.LinkListDone(&r, &req, RangeLimit, req.MaxTime-1)
			} else {
				q.LinkListDone(&r, &req, 5, 0)
			}
			continue
		}
		q.LinkListDone(&r, &req, RangeLimit, int64(i))
		checkHistory(t, &q.hist)
	}
	if most != HistoryLimit {
		t.Errorf("history held at most %d entries, want %d", most, HistoryLimit)
	}
	if f := float64(histories) / 20000; math.Abs(f-0.5) > 0.02 {
		t.Errorf("%.3f of get-links-lists from the history, want 0.5", f)
	}
	// No history without full pages.
	q2, _ := m.NewRequester(0, 1)
	for range 1000 {
		q2.Next(&r, &req)
		q2.LinkListDone(&r, &req, RangeLimit-1, 0)
		if req.History {
			t.Fatal("history request with an empty history")
		}
	}
}

func checkHistory(t *testing.T, h *history) {
	t.Helper()
	if len(h.index) != h.size {
		t.Fatalf("history index has %d keys for %d entries", len(h.index), h.size)
	}
	for k, pos := range h.index {
		if e := h.entries[pos]; pos >= h.size || e.id1 != k.id1 || e.linkType != k.linkType {
			t.Fatalf("history index %v -> %d holds %+v", k, pos, e)
		}
	}
}

// The same seed gives the same graph and requests; another seed other payloads.
func TestDeterminism(t *testing.T) {
	cfg := SmallDatumConfig()
	cfg.MaxID1 = 10001
	a, _ := NewModel(cfg, 42)
	b, _ := NewModel(cfg, 42)
	c, _ := NewModel(cfg, 43)
	var la, lb, lc Link
	ba, bb, bc := make([]byte, 300), make([]byte, 300), make([]byte, 300)
	differ := 0
	for id := int64(1); id < 200; id++ {
		for j := int64(0); j < a.LinkCount(id, 1); j++ {
			a.Link(&la, id, 1, j, 1e12, ba)
			b.Link(&lb, id, 1, j, 1e12, bb)
			c.Link(&lc, id, 1, j, 1e12, bc)
			if la.ID2 != lb.ID2 || la.Time != lb.Time || string(la.Data) != string(lb.Data) {
				t.Fatalf("link (%d, %d) differs between two models of one seed", id, j)
			}
			if string(la.Data) != string(lc.Data) || la.Time != lc.Time {
				differ++
			}
			if la.Time != a.LinkTime(id, 1, j, 1e12) || la.ID2 != id+j || la.Time >= 1e12 || la.Time < 1e12-1<<32 {
				t.Fatalf("link %+v", la)
			}
		}
	}
	if differ == 0 {
		t.Error("seeds 42 and 43 give the same links")
	}
	var na, nb Node
	a.Node(&na, 7, 1700000000, make([]byte, 10))
	b.Node(&nb, 7, 1700000000, nil)
	if string(na.Data) != string(nb.Data) || na.Version != 1 || na.Type != DefaultNodeType {
		t.Error("node 7 differs between two models of one seed")
	}
	qa, _ := a.NewRequester(0, 1)
	qb, _ := b.NewRequester(0, 1)
	ra, rb := gen.NewRand(5), gen.NewRand(5)
	var x, y Request
	for i := range 5000 {
		qa.Next(&ra, &x)
		qb.Next(&rb, &y)
		if x.Op != y.Op || x.ID1 != y.ID1 || x.ID2 != y.ID2 || x.LinkType != y.LinkType || string(x.Data) != string(y.Data) ||
			len(x.ID2s) != len(y.ID2s) {
			t.Fatalf("request %d differs: %+v vs %+v", i, x, y)
		}
	}
}

// No per-draw call allocates.
func TestNoAllocations(t *testing.T) {
	m := model(t, SmallDatumConfig(), 100001)
	q, _ := m.NewRequester(0, 2)
	r := gen.NewRand(1)
	var l Link
	var nd Node
	var req Request
	req.Data = make([]byte, 0, MaxNodeData)
	buf := make([]byte, MaxNodeData)
	ids := make([]int64, 128)
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"Link", func() { l2 := r.Intn(100000) + 1; m.Link(&l, l2, 1, 0, 1e12, buf) }},
		{"Node", func() { m.Node(&nd, r.Intn(100000)+1, 1, buf) }},
		{"Requester.Next", func() { q.Next(&r, &req); q.LinkListDone(&r, &req, RangeLimit, 5) }},
		{"NextOp", func() { m.NextOp(&r) }},
		{"NextID1", func() { m.NextID1(&r, ClassLinkRead); m.NextID1(&r, ClassNodeDelete) }},
		{"NextID2s", func() { m.NextID2s(&r, ids[:m.MultigetSize(&r)], 5, 0, PGetExist, 0, 1) }},
		{"Payload", func() { m.LinkPayload(&r, true, buf); m.NodePayload(&r, false, buf) }},
		{"OutDegree", func() { m.LinksOf(r.Intn(100000) + 1) }},
	} {
		if a := testing.AllocsPerRun(2000, c.f); a != 0 {
			t.Errorf("%s: %v allocations per call", c.name, a)
		}
	}
}

func BenchmarkLink(b *testing.B) {
	m := model(b, SmallDatumConfig(), 10000001)
	var l Link
	buf := make([]byte, MaxLinkData)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		m.Link(&l, int64(i%10000000)+1, i&1, int64(i), 1e12, buf)
	}
}

func BenchmarkRequest(b *testing.B) {
	for _, cfg := range []Config{UpstreamConfig(), SmallDatumConfig()} {
		b.Run(cfg.DegreeData, func(b *testing.B) {
			m := model(b, cfg, 10000001)
			q, _ := m.NewRequester(0, 1)
			r := gen.NewRand(1)
			var req Request
			req.Data = make([]byte, 0, MaxNodeData)
			b.ReportAllocs()
			for b.Loop() {
				q.Next(&r, &req)
			}
		})
	}
}

// A full history replaces entries without allocating.
func TestFullHistoryNoAllocations(t *testing.T) {
	h := newHistory()
	r := gen.NewRand(1)
	for i := range HistoryLimit {
		h.add(&r, histEntry{int64(i), DefaultLinkType, 1})
	}
	next := int64(HistoryLimit)
	a := testing.AllocsPerRun(100000, func() {
		h.add(&r, histEntry{next, DefaultLinkType, 1})
		next++
		if next%3 == 0 {
			h.remove(int(r.Intn(int64(h.size))), nil)
		}
	})
	if a != 0 {
		t.Errorf("%v allocations per replacement", a)
	}
	checkHistory(t, &h)
}

// The Zipf normalisation is the generalized harmonic number: exact to 1e-12 beyond the summed
// terms, where the reference's approximation is within about 0.2%.
func TestZeta(t *testing.T) {
	for _, s := range []float64{0.606, 0.625, 0.741, 0.8} {
		for _, n := range []int64{1, 2, 10000, 10001, 1000000, 3000000} {
			exact := 0.0
			for i := n; i >= 1; i-- {
				exact += math.Pow(float64(i), -s)
			}
			if got := zeta(n, s); math.Abs(got-exact) > 1e-12*exact {
				t.Errorf("zeta(%d, %v) = %.15g, want %.15g", n, s, got, exact)
			}
			if n >= 1000000 {
				approx := math.Pow(float64(n), 1-s)/(1-s) + 0.58 - 1/(1-s)
				t.Logf("zeta(%d, %v) = %.6f; the reference's approximation %.6f (%+.3f%%)", n, s, exact, approx, 100*(approx-exact)/exact)
			}
		}
	}
}

// One Model serves concurrent loaders and requesters (run with -race).
func TestConcurrentUse(t *testing.T) {
	m := model(t, UpstreamConfig(), 100001)
	done := make(chan [2]int64)
	for w := range 4 {
		go func() {
			r := gen.NewRand(uint64(w))
			q, _ := m.NewRequester(w, 4)
			var req Request
			var l Link
			buf := make([]byte, MaxLinkData)
			var sum, ids int64
			for i := range 5000 {
				q.Next(&r, &req)
				q.LinkListDone(&r, &req, RangeLimit, int64(i))
				m.Link(&l, int64(i%1000)+1, 0, 0, 1e12, buf)
				sum += l.Time
				ids += req.ID1
			}
			done <- [2]int64{sum, ids}
		}()
	}
	var first [2]int64
	for w := range 4 {
		got := <-done
		if w == 0 {
			first = got
		} else if got[0] != first[0] {
			t.Errorf("workers generated different links: %d vs %d", got[0], first[0])
		}
	}
}
