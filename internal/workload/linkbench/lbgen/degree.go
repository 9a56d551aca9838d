package lbgen

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// The out-degree data are the first section ("nlinks") of each reference's
// config/Distribution.dat, byte for byte (the file up to the line before "link_nreads"; the
// other sections describe access counts that neither reference configuration uses), gzipped
// (gzip -9n) to keep the package small:
//
//   - nlinks_upstream.dat.gz: facebookarchive/linkbench @ ac67d54, config/Distribution.dat,
//     19,952 lines, 346,015 bytes, SHA-256 eb20deee…7f8b2f7;
//   - nlinks_smalldatum.dat.gz: mdcallag/linkbench @ 9ef9cc8, config/Distribution.dat,
//     23,617 lines, 459,300 bytes, SHA-256 7819f83f…a97a177150.
//
// Both are Copyright 2012 Facebook, Inc., licensed under the Apache License, Version 2.0. Each
// line after the header is "<links> <percent of nodes with at most that many links>".
var (
	//go:embed nlinks_upstream.dat.gz
	nlinksUpstreamGz []byte
	//go:embed nlinks_smalldatum.dat.gz
	nlinksSmallDatumGz []byte
)

// DegreeTable is an empirical out-degree distribution: Values[i] links for the nodes whose
// percentile rank is up to CDF[i] (a probability in (0, 1], non-decreasing, the last 1).
type DegreeTable struct {
	Values []int64
	CDF    []float64
}

var (
	degreeOnce  [2]sync.Once
	degreeTable [2]*DegreeTable
	degreeErr   [2]error
)

// Degrees returns the embedded out-degree table named by data (DegreeUpstream or
// DegreeSmallDatum), decompressed and parsed once and shared; callers must not modify it.
func Degrees(data string) (*DegreeTable, error) {
	var i int
	var gz []byte
	switch data {
	case DegreeUpstream:
		i, gz = 0, nlinksUpstreamGz
	case DegreeSmallDatum:
		i, gz = 1, nlinksSmallDatumGz
	default:
		return nil, fmt.Errorf("lbgen: degree data %q unknown (want %s or %s)", data, DegreeUpstream, DegreeSmallDatum)
	}
	degreeOnce[i].Do(func() {
		raw, err := degreeData(gz)
		if err == nil {
			degreeTable[i], err = ParseDegreeTable(bytes.NewReader(raw))
		}
		degreeErr[i] = err
	})
	return degreeTable[i], degreeErr[i]
}

// degreeData returns the embedded file, decompressed.
func degreeData(gz []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// ParseDegreeTable reads the nlinks section of a Distribution.dat: the line "nlinks", then
// lines "<links> <percent>" with links increasing and percent non-decreasing up to 100; it
// stops at the next section's name or the end. It fails on a malformed line.
func ParseDegreeTable(r io.Reader) (*DegreeTable, error) {
	sc := bufio.NewScanner(r)
	t := &DegreeTable{}
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if line == 1 {
			if len(f) != 1 || f[0] != "nlinks" {
				return nil, fmt.Errorf("lbgen: degree data: line 1 is %q, want \"nlinks\"", sc.Text())
			}
			continue
		}
		if len(f) == 1 { // the next section
			break
		}
		v, err1 := strconv.ParseInt(f[0], 10, 64)
		p, err2 := strconv.ParseFloat(f[1], 64)
		if len(f) != 2 || err1 != nil || err2 != nil || v < 0 || !(p >= 0 && p <= 100) {
			return nil, fmt.Errorf("lbgen: degree data: line %d: %q is not \"<links> <percent>\"", line, sc.Text())
		}
		p /= 100
		if n := len(t.Values); n > 0 && (v <= t.Values[n-1] || p < t.CDF[n-1]) {
			return nil, fmt.Errorf("lbgen: degree data: line %d: links or percent decrease", line)
		}
		t.Values = append(t.Values, v)
		t.CDF = append(t.CDF, p)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(t.Values) == 0 || t.CDF[len(t.CDF)-1] != 1 {
		return nil, fmt.Errorf("lbgen: degree data: the percentages must end at 100")
	}
	return t, nil
}

// AtRank returns the out-degree of the node of popularity rank k (0 the node with the most
// links) among n, as the reference's real link distribution evaluates it
// (PiecewiseLinearDistribution.expectedCount): the value of the first table entry whose
// cumulative probability is at least u = 1 − k/n. It is deterministic: the n nodes take the
// table's quantiles in turn, so rank 0 always has the table's largest value (961,963 links
// upstream, 4,181,357 in the fork) whatever n is. k must be in [0, n).
func (t *DegreeTable) AtRank(k, n int64) int64 {
	u := 1.0 - float64(k)/float64(n)
	i := sort.SearchFloat64s(t.CDF, u)
	if i == len(t.CDF) {
		i--
	}
	return t.Values[i]
}

// Max returns the largest out-degree of the table.
func (t *DegreeTable) Max() int64 { return t.Values[len(t.Values)-1] }

// ranksAbove returns how many of n ranks have an out-degree of at least d (the out-degree does
// not increase with the rank).
func (t *DegreeTable) ranksAbove(d, n int64) int64 {
	return int64(sort.Search(int(n), func(k int) bool { return t.AtRank(int64(k), n) < d }))
}

// javaRandom is java.util.Random, the 48-bit linear congruential generator, used only where the
// reference derives fixed structures from fixed seeds (the shufflers), so that the same ids are
// hot and the same nodes have many links as in the reference.
type javaRandom struct{ seed uint64 }

const javaMultiplier, javaMask = 0x5DEECE66D, 1<<48 - 1

func newJavaRandom(seed int64) javaRandom {
	return javaRandom{seed: (uint64(seed) ^ javaMultiplier) & javaMask}
}

func (j *javaRandom) next(bits uint) int32 {
	j.seed = (j.seed*javaMultiplier + 0xB) & javaMask
	return int32(j.seed >> (48 - bits))
}

// nextInt returns a uniform integer in [0, bound), bound > 0, as Random.nextInt(int).
func (j *javaRandom) nextInt(bound int32) int32 {
	r := j.next(31)
	m := bound - 1
	if bound&m == 0 {
		return int32((int64(bound) * int64(r)) >> 31)
	}
	for u := r; ; u = j.next(31) {
		r = u % bound
		if u-r+m >= 0 { // int32 overflow makes this negative
			return r
		}
	}
}

// Shuffler is the reference's InvertibleShuffler: a permutation of [0, n) that splits the
// items into groups by their remainder modulo the number of groups and rotates each group by
// an amount drawn from java.util.Random(seed). Permute and Invert are inverses of each other
// and cost O(1).
type Shuffler struct {
	params                  []int64
	groups                  int64
	n, nRoundedUp, nRounded int64
	minGroupSize            int64
}

// Shuffler seeds and group counts of the reference (RealDistribution): the out-degree and the
// correlated link accesses share one permutation, the uncorrelated link accesses use another
// and the node accesses a third.
const (
	NLinksShufflerSeed = 20343988438726021
	UncorrShufflerSeed = 53238253823453
	NodeShufflerSeed   = 4766565305853767165
	ShufflerGroups     = 1024
)

// NewShuffler returns the permutation of [0, n) for seed and groups (more groups than items
// are reduced to n), 1 <= n <= MaxInt32.
func NewShuffler(seed int64, groups int, n int64) *Shuffler {
	g := int64(groups)
	if g > n {
		g = n
	}
	s := &Shuffler{groups: g, n: n, params: make([]int64, g), minGroupSize: n / g}
	rng := newJavaRandom(seed)
	for i := range s.params {
		s.params[i] = int64(rng.nextInt(int32(s.minGroupSize)))
	}
	s.nRounded = (n / g) * g
	s.nRoundedUp = s.nRounded
	if n != s.nRounded {
		s.nRoundedUp += g
	}
	return s
}

// Permute returns the image of i, 0 <= i < n.
func (s *Shuffler) Permute(i int64) int64 { return s.permute(i, false) }

// Invert returns the i whose image is j, 0 <= j < n.
func (s *Shuffler) Invert(j int64) int64 { return s.permute(j, true) }

func (s *Shuffler) permute(i int64, inverse bool) int64 {
	group := i % s.groups
	big := group < s.n%s.groups
	rotate := s.params[group]
	if inverse {
		if big {
			rotate = s.minGroupSize + 1 - rotate
		} else {
			rotate = s.minGroupSize - rotate
		}
	}
	j := i + s.groups*rotate
	if j < s.n {
		return j
	}
	var res int64
	if big {
		res = j % s.nRoundedUp
	} else {
		res = j % s.nRounded
	}
	if res >= s.n {
		res = group
	}
	return res
}
