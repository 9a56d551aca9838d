package lbgen

import (
	"math"

	"github.com/rumbench/rumbench/internal/gen"
)

// LogNormal draws payload sizes in bytes as the reference's LogNormalDistribution.choose:
// round(exp(mu + sigma·Z)) for Z standard normal and mu = ln(median), clamped to [Min, Max−1].
// Half of the draws are at most the median.
type LogNormal struct {
	Min, Max  int64
	mu, sigma float64
}

// NewLogNormal returns sizes in [min, max−1] with the given median (> 0) and sigma (>= 0), the
// standard deviation of the size's natural logarithm; min < max.
func NewLogNormal(min, max int64, median, sigma float64) LogNormal {
	return LogNormal{Min: min, Max: max, mu: math.Log(median), sigma: sigma}
}

// Next returns one size in [Min, Max−1].
func (l LogNormal) Next(r *gen.Rand) int64 {
	x := math.Round(math.Exp(l.mu + l.sigma*normal(r)))
	switch {
	case x < float64(l.Min):
		return l.Min
	case x >= float64(l.Max):
		return l.Max - 1
	}
	return int64(x)
}

// normal returns a standard normal deviate (Box–Muller, one of the pair).
func normal(r *gen.Rand) float64 {
	u1 := 1 - r.Float64() // (0, 1]
	u2 := r.Float64()
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}

// maxChunk is the reference's MotifDataGenerator.MAX_CHUNK_SIZE.
const maxChunk = 128

// DataGenerator fills payloads as the reference's data generators. The motif generator
// (MotifDataGenerator) fills a payload in chunks of min(128, MotifBytes) bytes, each with
// probability Uniqueness fresh bytes drawn uniformly from [StartByte, EndByte] and otherwise a
// copy of as many bytes from a random offset of its motif buffer, MotifBytes bytes drawn once
// from the same range; a single payload is thus barely compressible but many together
// compress to about Uniqueness times the size of random bytes of that range. The uniform
// generator (UniformDataGenerator) draws every byte uniformly from the range. The motif buffer
// is drawn from a seed at construction (in the reference from the first payload's random
// source, one buffer per loader and requester thread), so that payloads do not depend on which
// worker generates them. A DataGenerator is immutable and safe for concurrent use.
type DataGenerator struct {
	start, span int64 // bytes in [start, start+span)
	uniqueness  float64
	chunk       int
	motif       []byte // nil for the uniform generator
}

// NewDataGenerator returns the generator that g describes, its motif buffer drawn from seed.
// g must be valid (Config.Validate checks it).
func NewDataGenerator(g DataGen, seed uint64) *DataGenerator {
	d := &DataGenerator{start: int64(g.StartByte), span: int64(g.EndByte - g.StartByte + 1), uniqueness: 1}
	if g.Generator == DataMotif {
		d.uniqueness = g.Uniqueness
		d.motif = make([]byte, g.MotifBytes)
		d.chunk = min(maxChunk, g.MotifBytes)
		r := gen.NewRand(seed)
		d.random(&r, d.motif)
	}
	return d
}

// random fills b with bytes uniform in [start, start+span), two bytes per 64 random bits.
func (d *DataGenerator) random(r *gen.Rand, b []byte) {
	i := 0
	for ; i+1 < len(b); i += 2 {
		x := r.Uint64()
		b[i] = byte(d.start + gen.Scale32(uint32(x), d.span))
		b[i+1] = byte(d.start + gen.Scale32(uint32(x>>32), d.span))
	}
	if i < len(b) {
		b[i] = byte(d.start + gen.Scale32(uint32(r.Uint64()), d.span))
	}
}

// Fill fills all of b (any length) with a payload drawn from r and returns b.
func (d *DataGenerator) Fill(r *gen.Rand, b []byte) []byte {
	if d.motif == nil {
		d.random(r, b)
		return b
	}
	for i := 0; i < len(b); i += d.chunk {
		n := min(d.chunk, len(b)-i)
		if r.Float64() < d.uniqueness {
			d.random(r, b[i:i+n])
		} else {
			k := r.Intn(int64(len(d.motif) - n + 1))
			copy(b[i:i+n], d.motif[k:])
		}
	}
	return b
}

// Payload is a size distribution and a generator: what the reference uses for the payloads of
// links or of nodes.
type Payload struct {
	Size LogNormal
	Gen  *DataGenerator
}

// Next draws a size and fills that many bytes at the start of buf, which it returns resliced.
// When buf's capacity is short it is replaced by a larger slice (an allocation): give it
// Size.Max−1 bytes of capacity to never allocate.
func (p Payload) Next(r *gen.Rand, buf []byte) []byte {
	n := p.Size.Next(r)
	if int64(cap(buf)) < n {
		buf = make([]byte, n, max(n, 2*int64(cap(buf))))
	}
	return p.Gen.Fill(r, buf[:n])
}
