package lbgen

import (
	"strings"
	"testing"
)

func TestNamedConfigsAreValid(t *testing.T) {
	for _, name := range []string{NameUpstream, NameSmallDatum} {
		c, err := NamedConfig(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		m, err := NamedMix(name)
		if err != nil || m != c.Mix {
			t.Errorf("%s: NamedMix %v, %v", name, m, err)
		}
	}
	if _, err := NamedConfig("x"); err == nil {
		t.Error("NamedConfig(x) did not fail")
	}
	if _, err := NamedMix("x"); err == nil {
		t.Error("NamedMix(x) did not fail")
	}
	if OpMultigetLink.String() != "MULTIGET_LINK" || OpMultigetLink.Property() != "getlink" || Op(10).String() != "Op(10)" {
		t.Error("Op names")
	}
}

// A workload file with the Small Datum values, in the reference's format (key = value, class
// names, comments), read over the upstream defaults, gives the Small Datum configuration.
const smallDatumFile = `# LinkBench workload
startid1 = 1
maxid1 = 10000001
link_type_count = 2
nlinks_func = real
data_file = config/Distribution.dat
link_datasize = 23
link_add_datagen = com.facebook.LinkBench.generators.MotifDataGenerator
link_add_datagen_startbyte = 32
link_add_datagen_endbyte = 100
link_add_datagen_uniqueness = 0.225
link_add_datagen_motif_length = 128
node_datasize: 168
  ! a comment
addlink = 5.35038
deletelink = 0.98401
updatelink = 4.75589
countlink = 4.27898
getlink = 12.14725
getlinklist = 22.57039
getnode = 43.9869
addnode = 2.61198
updatenode = 3.06256
deletenode \
   = 0.25166
getlinklist_history = 0.3
read_function = com.facebook.LinkBench.distributions.ZipfDistribution
read_shape = 0.8
write_uncorr_config = 1
node_delete_function = com.facebook.LinkBench.distributions.UniformDistribution
link_multiget_dist = com.facebook.LinkBench.distributions.GeometricDistribution
link_multiget_dist_prob = 0.382
never_change = false
`

func TestLoadConfigFile(t *testing.T) {
	c := UpstreamConfig()
	c.DegreeData = DegreeSmallDatum
	if err := LoadConfig("FBWorkload.properties", strings.NewReader(smallDatumFile), &c); err != nil {
		t.Fatal(err)
	}
	if want := SmallDatumConfig(); c != want {
		t.Errorf("loaded\n%+v\nwant\n%+v", c, want)
	}
	m, err := ParseMix("FBWorkload.properties", strings.NewReader(smallDatumFile))
	if err != nil || m != SmallDatumMix {
		t.Errorf("ParseMix: %v, %v", m, err)
	}
}

func TestParseProperties(t *testing.T) {
	p, err := ParseProperties(strings.NewReader("a=1\n b : 2\nc 3\nd=\ne = x = y\n# f=1\nf  =  \\\n  4\\\\\ng=5\\\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "1", "b": "2", "c": "3", "d": "", "e": "x = y", "f": `4\\`, "g": "5"}
	for k, v := range want {
		if p[k].Value != v {
			t.Errorf("%s = %q, want %q", k, p[k].Value, v)
		}
	}
	if len(p) != len(want) || p["f"].Line != 7 || p["e"].Line != 5 {
		t.Errorf("properties %v", p)
	}
}

// Each bad mix file gives one error naming the property at fault.
func TestParseMixErrors(t *testing.T) {
	full := "addlink = 10\ndeletelink = 10\nupdatelink = 10\ncountlink = 10\ngetlink = 10\ngetlinklist = 10\n" +
		"addnode = 10\nupdatenode = 10\ndeletenode = 10\ngetnode = 10\n"
	if m, err := ParseMix("mix", strings.NewReader(full)); err != nil || m.Percent[OpGetNode] != 10 || m.GetLinkListHistory != 0 {
		t.Fatalf("ParseMix: %v, %v", m, err)
	}
	for _, c := range []struct {
		file, want string
	}{
		{strings.Replace(full, "countlink = 10\n", "", 1), "mix: property countlink is missing"},
		{strings.Replace(full, "getnode = 10", "getnode = 9.9", 1), "lbgen: mix: the operation percentages add to 99.9, not 100"},
		{strings.Replace(full, "getlink = 10", "getlink = ten", 1), `mix:5: getlink: "ten" is not a number`},
		{strings.Replace(full, "addnode = 10\nupdatenode = 10", "addnode = 30\nupdatenode = -10", 1), "updatenode = -10 must be a percentage >= 0"},
		{full + "getlinklist_history = 101\n", "getlinklist_history = 101 must be a percentage in [0, 100]"},
		{strings.Replace(full, "getnode = 10", "getnode = 10.00002", 1), "add to 100.00002, not 100"},
	} {
		_, err := ParseMix("mix", strings.NewReader(c.file))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want it to contain %q", err, c.want)
		}
	}
	// Within the tolerance.
	if _, err := ParseMix("mix", strings.NewReader(strings.Replace(full, "getnode = 10", "getnode = 10.000004", 1))); err != nil {
		t.Error(err)
	}
}

func TestValidateNamesTheProperty(t *testing.T) {
	for _, c := range []struct {
		set  func(*Config)
		want string
	}{
		{func(c *Config) { c.StartID1 = 0 }, "startid1"},
		{func(c *Config) { c.MaxID1 = 1 }, "maxid1"},
		{func(c *Config) { c.LinkTypeCount = 0 }, "link_type_count"},
		{func(c *Config) { c.NLinksFunc = "reciprocal" }, "nlinks_func"},
		{func(c *Config) { c.DegreeData = "x" }, "degree data"},
		{func(c *Config) { c.LinkDataSize = 0 }, "link_datasize"},
		{func(c *Config) { c.NodeUpData.Uniqueness = 2 }, "node_up_datagen_uniqueness"},
		{func(c *Config) { c.LinkAddData.EndByte = 300 }, "link_add_datagen_startbyte"},
		{func(c *Config) { c.NodeRead.Shape = 1 }, "node_read_shape"},
		{func(c *Config) { c.LinkWrite.Function = "real" }, "write_function"},
		{func(c *Config) { c.ReadUncorrBlend = 101 }, "read_uncorr_blend"},
		{func(c *Config) { c.Multiget.P = 0 }, "link_multiget_dist_prob"},
		{func(c *Config) { c.ID2GenConfig = 2 }, "id2gen_config"},
		{func(c *Config) { c.Mix.Percent[OpAddLink] = 0 }, "add to"},
	} {
		cfg := SmallDatumConfig()
		c.set(&cfg)
		err := cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want it to name %q", err, c.want)
		}
		if _, err := NewModel(cfg, 1); err == nil {
			t.Errorf("NewModel accepted an invalid config (%s)", c.want)
		}
	}
	cfg := SmallDatumConfig()
	if err := LoadConfig("f", strings.NewReader("read_function = com.x.RealDistribution\n"), &cfg); err == nil ||
		!strings.Contains(err.Error(), "f:1: read_function") {
		t.Errorf("error %v", err)
	}
	if _, err := (&Model{}).NewRequester(2, 2); err == nil {
		t.Error("requester 2 of 2 accepted")
	}
}
