package lbgen

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Property is one setting read from a properties file: its value and the line it was on.
type Property struct {
	Value string
	Line  int
}

// Properties maps property keys to their settings, as read by ParseProperties.
type Properties map[string]Property

// ParseProperties reads a file in the reference's Java properties format: one key and value a
// line, separated by '=', ':' or white space (surrounding white space ignored); lines whose
// first non-blank character is '#' or '!' are comments; a line ending in an odd number of
// backslashes continues on the next. Backslash escapes inside keys and values are not
// interpreted. A key given twice keeps its last value, as in Java. The error names the line.
func ParseProperties(r io.Reader) (Properties, error) {
	p := Properties{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	lineNo, start := 0, 0
	var logical strings.Builder
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		if logical.Len() == 0 {
			line = strings.TrimLeft(line, " \t\f")
			if line == "" || line[0] == '#' || line[0] == '!' {
				continue
			}
			start = lineNo
		} else {
			line = strings.TrimLeft(line, " \t\f")
		}
		if n := len(line) - len(strings.TrimRight(line, `\`)); n%2 == 1 {
			logical.WriteString(line[:len(line)-1])
			continue
		}
		logical.WriteString(line)
		text := logical.String()
		logical.Reset()
		key, value := splitProperty(text)
		if key == "" {
			return nil, fmt.Errorf("lbgen: properties line %d: no key in %q", start, text)
		}
		p[key] = Property{Value: value, Line: start}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("lbgen: properties: %w", err)
	}
	if logical.Len() > 0 {
		key, value := splitProperty(logical.String())
		p[key] = Property{Value: value, Line: start}
	}
	return p, nil
}

// splitProperty splits a logical line into key and value: the key ends at the first '=', ':'
// or white space; white space and then one '=' or ':' follow it.
func splitProperty(s string) (key, value string) {
	i := strings.IndexAny(s, "=: \t\f")
	if i < 0 {
		return s, ""
	}
	rest := strings.TrimLeft(s[i:], " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = rest[1:]
	}
	return s[:i], strings.Trim(rest, " \t\f\r")
}

func (p Properties) errorf(source, key, format string, args ...any) error {
	return fmt.Errorf("lbgen: %s:%d: %s: %s", source, p[key].Line, key, fmt.Sprintf(format, args...))
}

func (p Properties) float(source, key string, dst *float64) error {
	pr, ok := p[key]
	if !ok {
		return nil
	}
	v, err := strconv.ParseFloat(pr.Value, 64)
	if err != nil {
		return p.errorf(source, key, "%q is not a number", pr.Value)
	}
	*dst = v
	return nil
}

func (p Properties) int64(source, key string, dst *int64) error {
	pr, ok := p[key]
	if !ok {
		return nil
	}
	v, err := strconv.ParseInt(pr.Value, 10, 64)
	if err != nil {
		return p.errorf(source, key, "%q is not an integer", pr.Value)
	}
	*dst = v
	return nil
}

func (p Properties) int(source, key string, dst *int) error {
	var v int64
	if _, ok := p[key]; !ok {
		return nil
	}
	if err := p.int64(source, key, &v); err != nil {
		return err
	}
	if int64(int(v)) != v {
		return p.errorf(source, key, "%d is out of range", v)
	}
	*dst = int(v)
	return nil
}

// accessFunction maps a reference class name, or the short name, to an Access function.
func accessFunction(v string) (string, bool) {
	switch strings.ToLower(v[strings.LastIndexByte(v, '.')+1:]) {
	case "zipfdistribution", AccessZipf:
		return AccessZipf, true
	case "uniformdistribution", AccessUniform:
		return AccessUniform, true
	}
	return "", false
}

// dataGenerator maps a reference class name, or the short name, to a DataGen generator.
func dataGenerator(v string) (string, bool) {
	switch strings.ToLower(v[strings.LastIndexByte(v, '.')+1:]) {
	case "motifdatagenerator", DataMotif:
		return DataMotif, true
	case "uniformdatagenerator", DataUniform:
		return DataUniform, true
	}
	return "", false
}

// Apply sets the fields of c named by the properties in p that the package knows (see the
// Config fields); source names the file in errors. Unknown keys, and the ones the reference
// clients ignore or that are embedded here (data_file, *_motif_length, write_uncorr_config),
// are ignored, as the reference ignores keys it does not read. It does not validate c: call
// c.Validate afterwards. The error names the property and its line.
func (p Properties) Apply(source string, c *Config) error {
	if v, ok := p["nlinks_func"]; ok {
		f := strings.ToLower(v.Value)
		if f != NLinksReal && f != NLinksConst && f != NLinksMultiples {
			return p.errorf(source, "nlinks_func", "%q unsupported (want %s, %s or %s)", v.Value, NLinksReal, NLinksConst, NLinksMultiples)
		}
		c.NLinksFunc = f
	}
	if v, ok := p["never_change"]; ok {
		b, err := strconv.ParseBool(v.Value)
		if err != nil {
			return p.errorf(source, "never_change", "%q is not true or false", v.Value)
		}
		c.NeverChange = b
	}
	for _, f := range []struct {
		key string
		dst *int64
	}{{"startid1", &c.StartID1}, {"maxid1", &c.MaxID1}, {"nlinks_config", &c.NLinksConfig},
		{"nlinks_default", &c.NLinksDefault}, {"randomid2max", &c.RandomID2Max},
		{"link_multiget_dist_min", &c.Multiget.Min}, {"link_multiget_dist_max", &c.Multiget.Max}} {
		if err := p.int64(source, f.key, f.dst); err != nil {
			return err
		}
	}
	for _, f := range []struct {
		key string
		dst *int
	}{{"link_type_count", &c.LinkTypeCount}, {"id2gen_config", &c.ID2GenConfig}} {
		if err := p.int(source, f.key, f.dst); err != nil {
			return err
		}
	}
	for _, f := range []struct {
		key string
		dst *float64
	}{{"link_datasize", &c.LinkDataSize}, {"node_datasize", &c.NodeDataSize},
		{"read_uncorr_blend", &c.ReadUncorrBlend}, {"write_uncorr_blend", &c.WriteUncorrBlend},
		{"link_multiget_dist_prob", &c.Multiget.P}} {
		if err := p.float(source, f.key, f.dst); err != nil {
			return err
		}
	}
	if v, ok := p["link_multiget_dist"]; ok && !strings.HasSuffix(strings.ToLower(v.Value), "geometricdistribution") &&
		!strings.EqualFold(v.Value, "geometric") {
		return p.errorf(source, "link_multiget_dist", "%q unsupported (want GeometricDistribution)", v.Value)
	}
	for _, g := range []struct {
		key string
		dst *DataGen
	}{{"link_add_datagen", &c.LinkAddData}, {"link_up_datagen", &c.LinkUpData},
		{"node_add_datagen", &c.NodeAddData}, {"node_up_datagen", &c.NodeUpData}} {
		if v, ok := p[g.key]; ok {
			gen, known := dataGenerator(v.Value)
			if !known {
				return p.errorf(source, g.key, "%q unsupported (want MotifDataGenerator or UniformDataGenerator)", v.Value)
			}
			g.dst.Generator = gen
		}
		if err := p.int(source, g.key+"_startbyte", &g.dst.StartByte); err != nil {
			return err
		}
		if err := p.int(source, g.key+"_endbyte", &g.dst.EndByte); err != nil {
			return err
		}
		if err := p.float(source, g.key+"_uniqueness", &g.dst.Uniqueness); err != nil {
			return err
		}
	}
	for _, a := range []struct {
		prefix string
		dst    *Access
	}{{"read_", &c.LinkRead}, {"read_uncorr_", &c.LinkReadUncorr}, {"write_", &c.LinkWrite},
		{"write_uncorr_", &c.LinkWriteUncorr}, {"node_read_", &c.NodeRead}, {"node_update_", &c.NodeUpdate},
		{"node_delete_", &c.NodeDelete}} {
		key := a.prefix + "function"
		if v, ok := p[key]; ok {
			f, known := accessFunction(v.Value)
			if !known {
				return p.errorf(source, key, "%q unsupported (want ZipfDistribution or UniformDistribution)", v.Value)
			}
			a.dst.Function = f
		}
		if err := p.float(source, a.prefix+"shape", &a.dst.Shape); err != nil {
			return err
		}
	}
	return p.applyMix(source, &c.Mix, false)
}

// applyMix sets the percentages found in p. With complete, the six link operations must all be
// present (the reference requires them) and the node operations and the history default to 0.
func (p Properties) applyMix(source string, m *Mix, complete bool) error {
	if complete {
		*m = Mix{}
		for op := OpAddLink; op <= OpGetLinkList; op++ {
			if _, ok := p[mixKeys[op]]; !ok {
				return fmt.Errorf("lbgen: %s: property %s is missing (a mix must set addlink, deletelink, updatelink, countlink, getlink and getlinklist)",
					source, mixKeys[op])
			}
		}
	}
	for op := range m.Percent {
		if err := p.float(source, mixKeys[op], &m.Percent[op]); err != nil {
			return err
		}
	}
	if err := p.float(source, "getlinklist_history", &m.GetLinkListHistory); err != nil {
		return err
	}
	if err := m.Validate(); err != nil {
		return fmt.Errorf("lbgen: %s: %s", source, strings.TrimPrefix(err.Error(), "lbgen: mix: "))
	}
	return nil
}

// ParseMix reads a mix file in the reference's properties format (for instance a workload file
// such as config/FBWorkload.properties; keys other than the mix's are ignored). The percentages
// addlink, deletelink, updatelink, countlink, getlink and getlinklist are required; addnode,
// updatenode, deletenode, getnode and getlinklist_history default to 0, as in the reference.
// The ten must add to 100 within MixTolerance. source names the file in errors, which name the
// property at fault.
func ParseMix(source string, r io.Reader) (Mix, error) {
	p, err := ParseProperties(r)
	if err != nil {
		return Mix{}, fmt.Errorf("lbgen: %s: %s", source, strings.TrimPrefix(err.Error(), "lbgen: "))
	}
	var m Mix
	if err := p.applyMix(source, &m, true); err != nil {
		return Mix{}, err
	}
	return m, nil
}

// LoadConfig applies a workload or configuration file in the reference's properties format to
// c (see Properties.Apply) and validates the result.
func LoadConfig(source string, r io.Reader, c *Config) error {
	p, err := ParseProperties(r)
	if err != nil {
		return fmt.Errorf("lbgen: %s: %s", source, strings.TrimPrefix(err.Error(), "lbgen: "))
	}
	if err := p.Apply(source, c); err != nil {
		return err
	}
	return c.Validate()
}
