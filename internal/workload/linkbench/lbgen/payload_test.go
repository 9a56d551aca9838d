package lbgen

import (
	"bytes"
	"compress/flate"
	"math"
	"slices"
	"testing"

	"github.com/rumbench/rumbench/internal/gen"
)

// Half of the log-normal sizes are at most the median, and the sizes stay in [Min, Max−1].
func TestLogNormalMedian(t *testing.T) {
	for _, c := range []struct {
		median   float64
		min, max int64
	}{{8, 0, MaxLinkData}, {23, 0, MaxLinkData}, {128, 0, MaxNodeData}, {168, 0, MaxNodeData}} {
		l := NewLogNormal(c.min, c.max, c.median, 1)
		r := gen.NewRand(7)
		const n = 100000
		sizes := make([]int64, n)
		for i := range sizes {
			sizes[i] = l.Next(&r)
			if sizes[i] < c.min || sizes[i] >= c.max {
				t.Fatalf("size %d outside [%d, %d)", sizes[i], c.min, c.max)
			}
		}
		slices.Sort(sizes)
		med := sizes[n/2]
		// The draws are exp(N(mu, 1)) rounded: the sample median is within 2% (and one byte).
		if math.Abs(float64(med)-c.median) > 0.02*c.median+1 {
			t.Errorf("median %v: sample median %d", c.median, med)
		}
		// The fraction at most the median·e (one sigma up) is Φ(1) = 0.8413.
		up := int64(math.Round(c.median * math.E))
		frac := float64(sort64(sizes, up)) / n
		if math.Abs(frac-0.8413) > 0.01 {
			t.Errorf("median %v: fraction <= %d is %.4f, want 0.8413", c.median, up, frac)
		}
		t.Logf("median %v: sample median %d, p84 %d, max %d", c.median, med, sizes[n*8413/10000], sizes[n-1])
	}
}

// sort64 returns how many of the sorted sizes are at most v.
func sort64(sizes []int64, v int64) int {
	i, _ := slices.BinarySearch(sizes, v+1)
	return i
}

// compressedRatio returns the flate (level 6) size over the raw size of n payloads of size
// bytes each, concatenated.
func compressedRatio(t *testing.T, d *DataGenerator, n, size int) float64 {
	r := gen.NewRand(3)
	raw := make([]byte, 0, n*size)
	buf := make([]byte, size)
	for range n {
		raw = append(raw, d.Fill(&r, buf)...)
	}
	var out bytes.Buffer
	w, err := flate.NewWriter(&out, flate.DefaultCompression)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(raw)
	w.Close()
	return float64(out.Len()) / float64(len(raw))
}

// The motif generator's uniqueness is the share of fresh random chunks: many payloads together
// compress to about uniqueness × (the compressed size of fresh bytes of the range) plus the
// cost of the copies. Measured with compress/flate over 4000 payloads of 128 bytes (one chunk
// each) and, for the record, of the reference's log-normal sizes.
func TestMotifCompressibility(t *testing.T) {
	for _, c := range []struct {
		name string
		g    DataGen
	}{
		{"link", DataGen{DataMotif, 32, 100, 0.225, 512}},
		{"node", DataGen{DataMotif, 50, 220, 0.63, 512}},
	} {
		fresh := compressedRatio(t, NewDataGenerator(DataGen{DataUniform, c.g.StartByte, c.g.EndByte, 0, 0}, 1), 4000, 128)
		allMotif := c.g
		allMotif.Uniqueness = 0
		copies := compressedRatio(t, NewDataGenerator(allMotif, 1), 4000, 128)
		got := compressedRatio(t, NewDataGenerator(c.g, 1), 4000, 128)
		want := c.g.Uniqueness*fresh + (1-c.g.Uniqueness)*copies
		t.Logf("%s: compressed/raw %.3f (fresh bytes %.3f, motif copies %.3f, uniqueness·fresh+(1−u)·copies %.3f)",
			c.name, got, fresh, copies, want)
		if math.Abs(got-want) > 0.05 {
			t.Errorf("%s: compressed/raw %.3f, want %.3f ± 0.05", c.name, got, want)
		}
		// Fresh bytes of a range of k values compress to about log2(k)/8.
		if bits := math.Log2(float64(c.g.EndByte-c.g.StartByte+1)) / 8; fresh < bits || fresh > bits+0.06 {
			t.Errorf("%s: fresh bytes compress to %.3f, entropy bound %.3f", c.name, fresh, bits)
		}
		if copies > 0.1 {
			t.Errorf("%s: motif copies compress to %.3f, want < 0.1", c.name, copies)
		}
	}
	// The reference's sizes (medians 8 and 23 for links, 128 and 168 for nodes).
	for _, cfg := range []Config{UpstreamConfig(), SmallDatumConfig()} {
		m, err := NewModel(cfg, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []struct {
			name string
			p    Payload
		}{{"link", m.linkAdd}, {"node", m.nodeAdd}} {
			r := gen.NewRand(5)
			var raw []byte
			buf := make([]byte, MaxNodeData)
			for len(raw) < 1<<20 {
				raw = append(raw, p.p.Next(&r, buf)...)
			}
			var out bytes.Buffer
			w, _ := flate.NewWriter(&out, flate.DefaultCompression)
			w.Write(raw)
			w.Close()
			t.Logf("%s %s payloads: compressed/raw %.3f over %d bytes", cfg.DegreeData, p.name, float64(out.Len())/float64(len(raw)), len(raw))
		}
	}
}

func TestDataGeneratorBytesAndSizes(t *testing.T) {
	d := NewDataGenerator(DataGen{DataMotif, 32, 100, 0.225, 512}, 9)
	r := gen.NewRand(1)
	seen := [256]bool{}
	for _, n := range []int{0, 1, 2, 127, 128, 129, 300, 1000} {
		b := d.Fill(&r, make([]byte, n))
		if len(b) != n {
			t.Fatalf("Fill returned %d bytes, want %d", len(b), n)
		}
		for _, c := range b {
			if c < 32 || c > 100 {
				t.Fatalf("byte %d outside [32, 100]", c)
			}
			seen[c] = true
		}
	}
	if !seen[32] || !seen[100] {
		t.Errorf("the range's ends never drawn")
	}
	// A motif buffer shorter than a chunk: chunks of its size.
	small := NewDataGenerator(DataGen{DataMotif, 0, 1, 0, 5}, 1)
	b := small.Fill(&r, make([]byte, 12))
	if !bytes.Equal(b[:5], small.motif) || !bytes.Equal(b[5:10], small.motif) || !bytes.Contains(small.motif, b[10:]) {
		t.Errorf("copies %v of motif %v", b, small.motif)
	}
}
