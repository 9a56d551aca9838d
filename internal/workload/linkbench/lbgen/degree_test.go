package lbgen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// The embedded data are the reference files' nlinks sections, byte for byte.
func TestEmbeddedDegreeDataIsExact(t *testing.T) {
	for _, c := range []struct {
		gz           []byte
		sha          string
		lines, bytes int
		max          int64
	}{
		{nlinksUpstreamGz, "eb20deee6ca21294d1128fc856e111e509aff77cf341abc4c035191f7978b2f7", 19952, 346015, 961963},
		{nlinksSmallDatumGz, "7819f83f62705d9ff0a5b41c69bd3a7bc467b5eef95a1707da9856a97a177150", 23617, 459300, 4181357},
	} {
		raw, err := degreeData(c.gz)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(raw)
		if got := hex.EncodeToString(sum[:]); got != c.sha || len(raw) != c.bytes || bytes.Count(raw, []byte("\n")) != c.lines {
			t.Errorf("embedded data: sha256 %s, %d bytes, %d lines; want %s, %d, %d", got, len(raw),
				bytes.Count(raw, []byte("\n")), c.sha, c.bytes, c.lines)
		}
		tab, err := ParseDegreeTable(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if tab.Max() != c.max || len(tab.Values) != c.lines-1 {
			t.Errorf("table: max %d, %d entries; want %d, %d", tab.Max(), len(tab.Values), c.max, c.lines-1)
		}
	}
}

func TestParseDegreeTableErrors(t *testing.T) {
	for _, in := range []string{"", "nlinks\n", "links\n0 100\n", "nlinks\n0 x\n", "nlinks\n0 50\n", "nlinks\n3 50\n2 100\n",
		"nlinks\n0 60\n1 50\n2 100\n"} {
		if _, err := ParseDegreeTable(strings.NewReader(in)); err == nil {
			t.Errorf("ParseDegreeTable(%q) did not fail", in)
		}
	}
	tab, err := ParseDegreeTable(strings.NewReader("nlinks\n0 50\n3 100\nlink_nreads\n0 100\n"))
	if err != nil || len(tab.Values) != 2 || tab.AtRank(0, 4) != 3 || tab.AtRank(3, 4) != 0 || tab.AtRank(2, 4) != 0 || tab.AtRank(1, 4) != 3 {
		t.Errorf("table %+v, %v", tab, err)
	}
}

// The graph's totals at maxid1 = 100001 are those both reference clients loaded (their
// sysbench-and-peers run): the link and count rows follow from the degree data and each
// reference's split between link types.
func TestGraphTotalsMatchReferenceLoads(t *testing.T) {
	for _, c := range []struct {
		cfg          Config
		links, pairs int64
	}{
		{UpstreamConfig(), 1368899, 77207},
		{SmallDatumConfig(), 4597662, 200000},
	} {
		c.cfg.MaxID1 = 100001
		m, err := NewModel(c.cfg, 1)
		if err != nil {
			t.Fatal(err)
		}
		var links, pairs int64
		for id := c.cfg.StartID1; id < c.cfg.MaxID1; id++ {
			for ty := range c.cfg.LinkTypeCount {
				n := m.LinkCount(id, ty)
				links += n
				if n > 0 {
					pairs++
				}
			}
		}
		if links != c.links || pairs != c.pairs {
			t.Errorf("%s: %d links in %d (id1, type) pairs; the reference loads %d in %d", c.cfg.DegreeData, links, pairs, c.links, c.pairs)
		}
	}
}

// The out-degrees of the nodes follow the degree table's CDF: the fraction of nodes with at
// most v links is the CDF at v, to within one node in n (the nodes take the quantiles in turn).
func TestDegreeHistogramFollowsCDF(t *testing.T) {
	for _, data := range []string{DegreeUpstream, DegreeSmallDatum} {
		cfg := UpstreamConfig()
		cfg.DegreeData, cfg.MaxID1 = data, 200001
		m, err := NewModel(cfg, 1)
		if err != nil {
			t.Fatal(err)
		}
		tab, _ := Degrees(data)
		n := m.Nodes()
		counts := map[int64]int64{}
		var sum int64
		for id := cfg.StartID1; id < cfg.MaxID1; id++ {
			d := m.OutDegree(id)
			counts[d]++
			sum += d
		}
		for i, v := range tab.Values {
			if i > 40 && i%500 != 0 {
				continue
			}
			var atMost int64
			for d, c := range counts {
				if d <= v {
					atMost += c
				}
			}
			got := float64(atMost) / float64(n)
			if diff := got - tab.CDF[i]; diff > 1.0/float64(n)+1e-12 || diff < -1.0/float64(n)-1e-12 {
				t.Errorf("%s: fraction of nodes with <= %d links %.6f, CDF %.6f", data, v, got, tab.CDF[i])
			}
		}
		if counts[tab.Max()] != 1 {
			t.Errorf("%s: %d nodes with the largest degree %d, want 1", data, counts[tab.Max()], tab.Max())
		}
		t.Logf("%s: %d nodes, mean out-degree %.2f, max %d, %.1f%% without links", data, n, float64(sum)/float64(n), tab.Max(),
			100*float64(counts[0])/float64(n))
	}
}

// Java's Random and the reference's shuffler, checked against values printed by the reference
// classes (java.util.Random(42); InvertibleShuffler with the three seeds).
func TestShufflerMatchesReference(t *testing.T) {
	r := newJavaRandom(42)
	var got []int32
	for _, b := range []int32{10, 10, 10, 10, 10, 1000003, 1000003, 1000003, 1024, 1024} {
		got = append(got, r.nextInt(b))
	}
	want := []int32{0, 3, 8, 4, 0, 81456, 19720, 792361, 681, 93}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("java Random(42) draws %v, want %v", got, want)
		}
	}
	for _, c := range []struct {
		seed int64
		n    int64
		in   []int64
		perm []int64
		inv  []int64
	}{
		{NLinksShufflerSeed, 100000, []int64{0, 1, 2, 3, 50000, 99999},
			[]int64{14336, 59393, 43010, 35843, 848, 69279}, []int64{86016, 40961, 57346, 64515, 99152, 30367}},
		{UncorrShufflerSeed, 100000, []int64{0, 1, 2, 3, 50000, 99999},
			[]int64{86016, 22529, 19458, 20483, 76624, 61087}, []int64{14336, 77825, 80898, 79875, 23376, 38559}},
		{NodeShufflerSeed, 2000000, []int64{0, 1, 2, 3, 1000000, 1999999},
			[]int64{192512, 1245185, 1036290, 1800195, 557632, 1172607}, []int64{1808384, 755713, 964610, 200707, 1442368, 826495}},
		{NLinksShufflerSeed, 1025, []int64{0, 3, 512, 1024}, []int64{0, 3, 512, 1024}, []int64{0, 3, 512, 1024}},
	} {
		s := NewShuffler(c.seed, ShufflerGroups, c.n)
		for i, x := range c.in {
			if p, v := s.Permute(x), s.Invert(x); p != c.perm[i] || v != c.inv[i] {
				t.Errorf("shuffler %d/%d: %d -> %d, inverse %d; want %d, %d", c.seed, c.n, x, p, v, c.perm[i], c.inv[i])
			}
		}
	}
}

func TestShufflerIsABijection(t *testing.T) {
	for _, n := range []int64{1, 7, 1024, 2048, 2049, 3000, 100000, 123457} {
		s := NewShuffler(NLinksShufflerSeed, ShufflerGroups, n)
		seen := make([]bool, n)
		for i := int64(0); i < n; i++ {
			p := s.Permute(i)
			if p < 0 || p >= n || seen[p] {
				t.Fatalf("n=%d: %d -> %d repeats or leaves the range", n, i, p)
			}
			seen[p] = true
			if s.Invert(p) != i {
				t.Fatalf("n=%d: Invert(Permute(%d)) = %d", n, i, s.Invert(p))
			}
		}
	}
}

// One node has the table's largest degree whatever maxid1 is, and the load plan slices it.
func TestHeavyNodesAndLoadPlan(t *testing.T) {
	for _, c := range []struct {
		cfg   Config
		maxid int64
		top   int64
	}{{SmallDatumConfig(), 11, 4181356}, {SmallDatumConfig(), 100001, 4181356}, {UpstreamConfig(), 100001, 961964}} {
		c.cfg.MaxID1 = c.maxid
		m, err := NewModel(c.cfg, 1)
		if err != nil {
			t.Fatal(err)
		}
		heavy := m.HeavyNodes(900000)
		if len(heavy) != 1 || m.LinksOf(heavy[0]) != c.top {
			t.Fatalf("%s maxid1 %d: heavy nodes %v, want one with %d links", c.cfg.DegreeData, c.maxid, heavy, c.top)
		}
		if c.maxid > 20000 {
			continue
		}
		// Every link is in exactly one task.
		plan := m.LoadPlan(3, 100000)
		var total, want int64
		for id := c.cfg.StartID1; id < c.cfg.MaxID1; id++ {
			want += m.LinksOf(id)
		}
		for _, task := range plan.Tasks {
			if task.Slice {
				total += task.To - task.From
				continue
			}
			for id := task.Lo; id < task.Hi; id++ {
				if !plan.Sliced(id) {
					total += m.LinksOf(id)
				}
			}
		}
		if total != want || len(plan.Tasks) != 4+2*21 {
			t.Errorf("plan covers %d links in %d tasks, want %d in %d", total, len(plan.Tasks), want, 4+2*21)
		}
	}
}

// Out-degrees of particular nodes, as printed by the reference's classes
// (PiecewiseLinearDistribution.expectedCount of InvertibleShuffler.invertPermute(id1 − 1), with
// each reference's data, startid1 = 1).
func TestOutDegreeMatchesReference(t *testing.T) {
	ids := []int64{1, 2, 3, 4, 5, 1000, 12345, 14337, 50000}
	for _, c := range []struct {
		data   string
		maxid1 int64
		want   []int64
	}{
		{DegreeUpstream, 100001, []int64{0, 1, 0, 0, 1, 2, 1, 961963, 0}},
		{DegreeUpstream, 2000001, []int64{0, 3, 3, 0, 1, 0, 1, 0, 0}},
		{DegreeUpstream, 10000001, []int64{0, 1, 0, 1, 3, 1, 0, 0, 0}},
		{DegreeSmallDatum, 100001, []int64{1, 1, 1, 1, 1, 2, 1, 4181357, 1}},
		{DegreeSmallDatum, 2000001, []int64{1, 2, 2, 1, 1, 1, 1, 1, 1}},
		{DegreeSmallDatum, 10000001, []int64{1, 1, 1, 1, 2, 1, 1, 1, 1}},
	} {
		cfg := UpstreamConfig()
		cfg.DegreeData, cfg.MaxID1 = c.data, c.maxid1
		m, err := NewModel(cfg, 1)
		if err != nil {
			t.Fatal(err)
		}
		for i, id := range ids {
			if got := m.OutDegree(id); got != c.want[i] {
				t.Errorf("%s maxid1 %d: node %d has out-degree %d, the reference %d", c.data, c.maxid1, id, got, c.want[i])
			}
		}
	}
}

// TestMaxDegree checks that the cap bounds every node's links, the heavy nodes included, and
// leaves smaller degrees alone.
func TestMaxDegree(t *testing.T) {
	cfg := SmallDatumConfig()
	cfg.MaxID1 = 2001
	free, err := NewModel(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxDegree = 1000
	capped, err := NewModel(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	var over int
	for id := cfg.StartID1; id < cfg.MaxID1; id++ {
		d, c := free.OutDegree(id), capped.OutDegree(id)
		if c != min(d, 1000) {
			t.Fatalf("node %d: degree %d capped to %d, want %d", id, d, c, min(d, 1000))
		}
		if d > 1000 {
			over++
		}
	}
	if over == 0 || len(capped.HeavyNodes(1001)) != 0 || len(free.HeavyNodes(1001)) != over {
		t.Errorf("%d nodes above the cap; heavy nodes capped %d, free %d", over, len(capped.HeavyNodes(1001)), len(free.HeavyNodes(1001)))
	}
}
