package lbgen

import (
	"fmt"
	"math"
	"strings"
)

// Op is one of LinkBench's ten request operations. The constants are in the order in which the
// reference accumulates the mix's percentages (LinkBenchRequest), which is also the order of
// Mix.Percent.
type Op int

// The ten operations.
const (
	OpAddLink      Op = iota // ADD_LINK: insert a link, or make an existing one visible and rewrite it
	OpDeleteLink             // DELETE_LINK: hide (or expunge) a link, counttable decremented
	OpUpdateLink             // UPDATE_LINK: rewrite a link that most likely exists
	OpCountLink              // COUNT_LINK: read the count of (id1, link_type)
	OpMultigetLink           // MULTIGET_LINK: read the links (id1, link_type, id2 in ID2s)
	OpGetLinkList            // GET_LINKS_LIST: the newest visible links of (id1, link_type), or an older page
	OpAddNode                // ADD_NODE: insert a node with a new id
	OpUpdateNode             // UPDATE_NODE: rewrite a node
	OpDeleteNode             // DELETE_NODE: delete a node
	OpGetNode                // GET_NODE: read a node
)

// NumOps is the number of operations.
const NumOps = 10

var opNames = [NumOps]string{"ADD_LINK", "DELETE_LINK", "UPDATE_LINK", "COUNT_LINK", "MULTIGET_LINK",
	"GET_LINKS_LIST", "ADD_NODE", "UPDATE_NODE", "DELETE_NODE", "GET_NODE"}

// mixKeys are the properties of the operations' percentages in a workload file, in Op order.
var mixKeys = [NumOps]string{"addlink", "deletelink", "updatelink", "countlink", "getlink",
	"getlinklist", "addnode", "updatenode", "deletenode", "getnode"}

// String returns the reference's name of the operation (LinkBenchOp), e.g. "GET_LINKS_LIST".
func (o Op) String() string {
	if o >= 0 && int(o) < NumOps {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// Property returns the workload-file property holding the operation's percentage, e.g.
// "getlink" for OpMultigetLink.
func (o Op) Property() string {
	if o >= 0 && int(o) < NumOps {
		return mixKeys[o]
	}
	return ""
}

// Constants of the reference's stores (LinkStore, NodeStore).
const (
	DefaultLinkType   = 123456789 // link_type of the first link type; type i is DefaultLinkType+i
	DefaultNodeType   = 2048      // type of every node
	VisibilityHidden  = 0         // visibility of a hidden (deleted) link
	VisibilityDefault = 1         // visibility of a visible link
	MaxLinkData       = 255       // link payload sizes are below this (bytes)
	MaxNodeData       = 1 << 20   // node payload sizes are below this (bytes)
	RangeLimit        = 10000     // rows a get-links-list returns at most
	HistoryLimit      = 2048      // entries of a requester's get-links-list history
)

// MixTolerance is how far from 100 the ten percentages of a mix may add up (the reference's
// check in LinkBenchRequest).
const MixTolerance = 1e-5

// Mix is an operation mix: Percent[op] is the percentage of requests that are op, and
// GetLinkListHistory the percentage of get-links-list requests that fetch an older page from
// the history instead (property getlinklist_history).
type Mix struct {
	Percent            [NumOps]float64
	GetLinkListHistory float64
}

// UpstreamMix is facebookarchive/linkbench config/FBWorkload.properties.
var UpstreamMix = Mix{
	Percent: [NumOps]float64{8.9886601, 2.9907664, 8.0122125, 4.8863567, 0.5261142, 50.7119145,
		2.5732789, 7.366437, 1.0115914, 12.9326683},
	GetLinkListHistory: 0.3,
}

// SmallDatumMix is the mix of the Small Datum reports: mdcallag/linkbench
// config/FBWorkload.properties, which the fork's bench/run_linkbench scripts use.
var SmallDatumMix = Mix{
	Percent: [NumOps]float64{5.35038, 0.98401, 4.75589, 4.27898, 12.14725, 22.57039,
		2.61198, 3.06256, 0.25166, 43.9869},
	GetLinkListHistory: 0.3,
}

// Validate returns an error naming the first property that is negative or not finite, or
// reporting the sum when the percentages do not add to 100 within MixTolerance.
func (m Mix) Validate() error {
	sum := 0.0
	for op, p := range m.Percent {
		if !(p >= 0) || math.IsInf(p, 0) {
			return fmt.Errorf("lbgen: mix: %s = %v must be a percentage >= 0", mixKeys[op], p)
		}
		sum += p
	}
	if math.Abs(sum-100) > MixTolerance {
		var b strings.Builder
		for op, p := range m.Percent {
			if op > 0 {
				b.WriteString(" + ")
			}
			fmt.Fprintf(&b, "%s %v", mixKeys[op], p)
		}
		return fmt.Errorf("lbgen: mix: the operation percentages add to %.10g, not 100 (±%g): %s", sum, MixTolerance, b.String())
	}
	if h := m.GetLinkListHistory; !(h >= 0 && h <= 100) {
		return fmt.Errorf("lbgen: mix: getlinklist_history = %v must be a percentage in [0, 100]", h)
	}
	return nil
}

// Access is an id access distribution (properties <prefix>function and <prefix>shape).
type Access struct {
	// Function is AccessZipf or AccessUniform (the reference's ZipfDistribution and
	// UniformDistribution; its other access functions are not provided).
	Function string
	// Shape is the Zipf exponent, in (0, 1); unused by AccessUniform.
	Shape float64
}

// Access functions.
const (
	AccessZipf    = "zipf"
	AccessUniform = "uniform"
)

// DataGen configures a payload generator (properties <prefix>, <prefix>_startbyte, _endbyte,
// _uniqueness).
type DataGen struct {
	// Generator is DataMotif (MotifDataGenerator) or DataUniform (UniformDataGenerator).
	Generator string
	// StartByte and EndByte bound the bytes of the payload, both included, 0 <= StartByte <
	// EndByte <= 255.
	StartByte, EndByte int
	// Uniqueness, for DataMotif, is the probability in [0, 1] that a chunk of the payload is
	// fresh random bytes rather than a copy out of the motif buffer.
	Uniqueness float64
	// MotifBytes, for DataMotif, is the size of the motif buffer, >= 1. Both reference clients
	// use 512 whatever the file says: they look the motif_length property up among the values
	// rather than the keys (Properties.contains), so motif_length = 128 is never applied. The
	// properties parser therefore ignores motif_length; set this field to use another size.
	MotifBytes int
}

// Data generators.
const (
	DataMotif   = "motif"
	DataUniform = "uniform"
)

// Degree data sets: the nlinks section of a reference's config/Distribution.dat.
const (
	DegreeUpstream   = "upstream"   // facebookarchive/linkbench: 0..961,963 links per node, 45% of nodes without
	DegreeSmallDatum = "smalldatum" // mdcallag/linkbench: 1..4,181,357 links per node
)

// Out-degree functions (nlinks_func).
const (
	NLinksReal      = "real"      // the empirical distribution of DegreeData (the default)
	NLinksConst     = "const"     // nlinks_default links per node
	NLinksMultiples = "multiples" // nlinks_default, plus nlinks_config when id1 is a multiple of nlinks_config
)

// Geometric configures the multiget size distribution (link_multiget_dist_min, _max, _prob).
type Geometric struct {
	Min, Max int64   // draws are in [Min, Max−1] (Max is excluded, as in the reference)
	P        float64 // success probability in (0, 1)
}

// Config holds LinkBench's workload settings. Each field names its property; the defaults are
// those of UpstreamConfig or SmallDatumConfig. Fields not set by a property (sigmas, MotifBytes,
// DegreeData, WriteUncorrFromReadKeys) are what the reference hard-codes.
type Config struct {
	// StartID1 and MaxID1 bound the node ids loaded: [StartID1, MaxID1) (startid1 = 1, maxid1 =
	// 10000001 in both references). StartID1 >= 1, MaxID1−StartID1 <= MaxInt32.
	StartID1, MaxID1 int64
	// LinkTypeCount is the number of link types, DefaultLinkType+0 .. +LinkTypeCount−1
	// (link_type_count = 2).
	LinkTypeCount int
	// NLinksFunc is the out-degree function (nlinks_func = real), NLinksConfig and
	// NLinksDefault its parameters for the arithmetic functions (nlinks_config, nlinks_default).
	NLinksFunc                  string
	NLinksConfig, NLinksDefault int64
	// MaxDegree, when > 0, caps every node's out-degree (not a reference setting: it keeps a
	// small test graph small, since the real distribution gives one node 961,963 or 4,181,357
	// links whatever MaxID1 is).
	MaxDegree int64
	// DegreeData selects the reference's Distribution.dat the real out-degree follows
	// (property data_file, which the properties parser ignores since the data are embedded).
	DegreeData string
	// RandomID2Max, when > 0, makes id2s uniform in [0, RandomID2Max) instead of id1+offset
	// (randomid2max = 0).
	RandomID2Max int64
	// ID2GenConfig = 1 moves each request's id2 to the nearest value congruent to the
	// requester's number modulo the number of requesters (id2gen_config = 0).
	ID2GenConfig int
	// NeverChange selects the upstream link counting and id2 choice (true), or the fork's
	// (false, its default for never_change): each link type gets at least one link at load and
	// the types split a node's links evenly, and request id2s are existing with the operation's
	// probability and otherwise uniform in [0, MaxID1).
	NeverChange bool
	// LinkDataSize and NodeDataSize are the medians in bytes of the log-normal payload sizes
	// (link_datasize, node_datasize); LinkDataSigma and NodeDataSigma the standard deviations
	// of their logarithms (hard-coded 1.0).
	LinkDataSize, LinkDataSigma float64
	NodeDataSize, NodeDataSigma float64
	// Payload generators of loaded and added links, updated links, loaded and added nodes, and
	// updated nodes (link_add_datagen*, link_up_datagen*, node_add_datagen*, node_up_datagen*).
	LinkAddData, LinkUpData, NodeAddData, NodeUpData DataGen
	// Access distributions of id1 for link reads (read_*), the uncorrelated link reads blended
	// in (read_uncorr_*), link writes (write_*), the uncorrelated link writes (write_uncorr_*),
	// node reads (node_read_*), node updates (node_update_*) and node deletes (node_delete_*).
	LinkRead, LinkReadUncorr, LinkWrite, LinkWriteUncorr Access
	NodeRead, NodeUpdate, NodeDelete                     Access
	// ReadUncorrBlend and WriteUncorrBlend are the percentages of link reads and writes whose
	// id1 comes from the uncorrelated distribution (read_uncorr_blend, write_uncorr_blend).
	ReadUncorrBlend, WriteUncorrBlend float64
	// WriteUncorrFromReadKeys reproduces both reference clients, whose write_uncorr_ prefix is
	// "read_uncorr_": link writes blend with ReadUncorrBlend and draw their uncorrelated id1
	// from LinkReadUncorr; write_uncorr_blend and write_uncorr_shape are never read. False uses
	// WriteUncorrBlend and LinkWriteUncorr as the workload file means them.
	WriteUncorrFromReadKeys bool
	// Multiget is the distribution of the number of id2s of a multiget (link_multiget_dist_*).
	Multiget Geometric
	// Mix is the operation mix.
	Mix Mix
}

func baseConfig() Config {
	motif := func(start, end int, u float64) DataGen {
		return DataGen{Generator: DataMotif, StartByte: start, EndByte: end, Uniqueness: u, MotifBytes: 512}
	}
	return Config{
		StartID1: 1, MaxID1: 10000001, LinkTypeCount: 2, NLinksFunc: NLinksReal,
		LinkDataSigma: 1, NodeDataSigma: 1,
		LinkAddData: motif(32, 100, 0.225), LinkUpData: motif(32, 100, 0.225),
		NodeAddData: motif(50, 220, 0.63), NodeUpData: motif(50, 220, 0.63),
		LinkRead:       Access{AccessZipf, 0.8},
		LinkReadUncorr: Access{AccessZipf, 0.8},
		LinkWrite:      Access{AccessZipf, 0.741},
		// write_uncorr_function is not in the files; the reference reads read_uncorr_function.
		LinkWriteUncorr: Access{AccessZipf, 0.741},
		NodeRead:        Access{AccessZipf, 0.625},
		NodeUpdate:      Access{AccessZipf, 0.606},
		NodeDelete:      Access{AccessUniform, 0},
		ReadUncorrBlend: 99.5, WriteUncorrBlend: 95, WriteUncorrFromReadKeys: true,
		Multiget: Geometric{Min: 1, Max: 128, P: 0.382},
	}
}

// UpstreamConfig returns the settings of facebookarchive/linkbench: config/FBWorkload.properties
// and LinkConfigMysql.properties, its Distribution.dat, and its link counting and id2 choice.
func UpstreamConfig() Config {
	c := baseConfig()
	c.DegreeData = DegreeUpstream
	c.NeverChange = true
	c.LinkDataSize, c.NodeDataSize = 8, 128
	c.Mix = UpstreamMix
	return c
}

// SmallDatumConfig returns the settings of mdcallag/linkbench, the client of the Small Datum
// reports: its config/FBWorkload.properties (mix, link_datasize 23, node_datasize 168), its
// Distribution.dat, and never_change = false.
func SmallDatumConfig() Config {
	c := baseConfig()
	c.DegreeData = DegreeSmallDatum
	c.NeverChange = false
	c.LinkDataSize, c.NodeDataSize = 23, 168
	c.Mix = SmallDatumMix
	return c
}

// Names of the two reference configurations, for NamedConfig.
const (
	NameUpstream   = "upstream"
	NameSmallDatum = "smalldatum"
)

// NamedConfig returns UpstreamConfig for "upstream" and SmallDatumConfig for "smalldatum".
func NamedConfig(name string) (Config, error) {
	switch name {
	case NameUpstream:
		return UpstreamConfig(), nil
	case NameSmallDatum:
		return SmallDatumConfig(), nil
	}
	return Config{}, fmt.Errorf("lbgen: unknown configuration %q (want %s or %s)", name, NameUpstream, NameSmallDatum)
}

// NamedMix returns UpstreamMix for "upstream" and SmallDatumMix for "smalldatum".
func NamedMix(name string) (Mix, error) {
	switch name {
	case NameUpstream:
		return UpstreamMix, nil
	case NameSmallDatum:
		return SmallDatumMix, nil
	}
	return Mix{}, fmt.Errorf("lbgen: unknown mix %q (want %s or %s)", name, NameUpstream, NameSmallDatum)
}

// Validate returns an error naming the first setting (by its property) that is out of range.
func (c *Config) Validate() error {
	switch {
	case c.StartID1 < 1:
		return fmt.Errorf("lbgen: startid1 = %d must be >= 1", c.StartID1)
	case c.MaxDegree < 0:
		return fmt.Errorf("lbgen: the out-degree cap %d must be >= 0 (0: none)", c.MaxDegree)
	case c.MaxID1 <= c.StartID1:
		return fmt.Errorf("lbgen: maxid1 = %d must be > startid1 = %d", c.MaxID1, c.StartID1)
	case c.MaxID1-c.StartID1 > math.MaxInt32:
		return fmt.Errorf("lbgen: maxid1 − startid1 = %d exceeds %d ids", c.MaxID1-c.StartID1, math.MaxInt32)
	case c.LinkTypeCount < 1 || c.LinkTypeCount > 1<<20:
		return fmt.Errorf("lbgen: link_type_count = %d must be in [1, %d]", c.LinkTypeCount, 1<<20)
	case c.RandomID2Max < 0 || c.RandomID2Max > math.MaxInt32:
		return fmt.Errorf("lbgen: randomid2max = %d must be in [0, %d]", c.RandomID2Max, math.MaxInt32)
	case c.ID2GenConfig != 0 && c.ID2GenConfig != 1:
		return fmt.Errorf("lbgen: id2gen_config = %d must be 0 or 1", c.ID2GenConfig)
	}
	switch c.NLinksFunc {
	case NLinksReal:
		if c.DegreeData != DegreeUpstream && c.DegreeData != DegreeSmallDatum {
			return fmt.Errorf("lbgen: degree data %q unknown (want %s or %s)", c.DegreeData, DegreeUpstream, DegreeSmallDatum)
		}
	case NLinksConst:
		if c.NLinksDefault < 0 {
			return fmt.Errorf("lbgen: nlinks_default = %d must be >= 0", c.NLinksDefault)
		}
	case NLinksMultiples:
		if c.NLinksDefault < 0 || c.NLinksConfig < 1 {
			return fmt.Errorf("lbgen: nlinks_func = multiples needs nlinks_default >= 0 and nlinks_config >= 1 (got %d, %d)",
				c.NLinksDefault, c.NLinksConfig)
		}
	default:
		return fmt.Errorf("lbgen: nlinks_func = %q unsupported (want %s, %s or %s)", c.NLinksFunc, NLinksReal, NLinksConst, NLinksMultiples)
	}
	for _, s := range []struct {
		key           string
		median, sigma float64
	}{{"link_datasize", c.LinkDataSize, c.LinkDataSigma}, {"node_datasize", c.NodeDataSize, c.NodeDataSigma}} {
		if !(s.median > 0) || math.IsInf(s.median, 0) || !(s.sigma >= 0) || math.IsInf(s.sigma, 0) {
			return fmt.Errorf("lbgen: %s = %v must be > 0 (sigma %v >= 0)", s.key, s.median, s.sigma)
		}
	}
	for _, d := range []struct {
		key string
		g   DataGen
	}{{"link_add_datagen", c.LinkAddData}, {"link_up_datagen", c.LinkUpData},
		{"node_add_datagen", c.NodeAddData}, {"node_up_datagen", c.NodeUpData}} {
		if err := d.g.validate(d.key); err != nil {
			return err
		}
	}
	for _, a := range []struct {
		key string
		a   Access
	}{{"read_", c.LinkRead}, {"read_uncorr_", c.LinkReadUncorr}, {"write_", c.LinkWrite},
		{"write_uncorr_", c.LinkWriteUncorr}, {"node_read_", c.NodeRead}, {"node_update_", c.NodeUpdate},
		{"node_delete_", c.NodeDelete}} {
		switch a.a.Function {
		case AccessUniform:
		case AccessZipf:
			if !(a.a.Shape > 0 && a.a.Shape < 1) {
				return fmt.Errorf("lbgen: %sshape = %v must be in (0, 1) for a zipf access distribution", a.key, a.a.Shape)
			}
		default:
			return fmt.Errorf("lbgen: %sfunction = %q unsupported (want %s or %s)", a.key, a.a.Function, AccessZipf, AccessUniform)
		}
	}
	for _, b := range []struct {
		key string
		v   float64
	}{{"read_uncorr_blend", c.ReadUncorrBlend}, {"write_uncorr_blend", c.WriteUncorrBlend}} {
		if !(b.v >= 0 && b.v <= 100) {
			return fmt.Errorf("lbgen: %s = %v must be a percentage in [0, 100]", b.key, b.v)
		}
	}
	if g := c.Multiget; g.Min < 0 || g.Max <= g.Min || g.Max > MaxMultiget+1 {
		return fmt.Errorf("lbgen: link_multiget_dist_min = %d, link_multiget_dist_max = %d: want 0 <= min < max <= %d",
			g.Min, g.Max, MaxMultiget+1)
	}
	if p := c.Multiget.P; !(p > 0 && p < 1) {
		return fmt.Errorf("lbgen: link_multiget_dist_prob = %v must be in (0, 1)", p)
	}
	return c.Mix.Validate()
}

// MaxMultiget is the largest number of id2s a multiget may ask for (link_multiget_dist_max − 1
// at most).
const MaxMultiget = 1024

func (g DataGen) validate(key string) error {
	switch g.Generator {
	case DataMotif:
		if !(g.Uniqueness >= 0 && g.Uniqueness <= 1) {
			return fmt.Errorf("lbgen: %s_uniqueness = %v must be in [0, 1]", key, g.Uniqueness)
		}
		if g.MotifBytes < 1 || g.MotifBytes > 1<<20 {
			return fmt.Errorf("lbgen: %s motif buffer of %d bytes must be in [1, %d]", key, g.MotifBytes, 1<<20)
		}
	case DataUniform:
	default:
		return fmt.Errorf("lbgen: %s = %q unsupported (want %s or %s)", key, g.Generator, DataMotif, DataUniform)
	}
	if g.StartByte < 0 || g.EndByte > 255 || g.StartByte >= g.EndByte {
		return fmt.Errorf("lbgen: %s_startbyte = %d, _endbyte = %d: want 0 <= startbyte < endbyte <= 255", key, g.StartByte, g.EndByte)
	}
	return nil
}
