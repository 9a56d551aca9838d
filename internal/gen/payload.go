package gen

import "encoding/base64"

// PoolSize is the size in bytes of the random text a Payload draws from: the base64 encoding of
// 3 MiB of random bytes (4 MiB of text), as the insert benchmark's client builds it.
const PoolSize = 4 << 20

// Payload builds partly compressible byte strings: a run of 'a' followed by a random substring
// of a fixed pool of base64 text. It is immutable after NewPayload and safe for concurrent use.
type Payload struct {
	pool []byte
}

// NewPayload builds the pool from seed.
func NewPayload(seed uint64) *Payload {
	raw := make([]byte, PoolSize/4*3)
	r := NewRand(Mix(seed ^ 0x70617931))
	for i := 0; i < len(raw); i += 8 {
		v := r.Uint64()
		for j := 0; j < 8 && i+j < len(raw); j++ {
			raw[i+j] = byte(v >> (8 * j))
		}
	}
	pool := make([]byte, base64.StdEncoding.EncodedLen(len(raw)))
	base64.StdEncoding.Encode(pool, raw)
	return &Payload{pool: pool}
}

// Append appends a value of length n whose last randLen bytes are random text and whose first
// n−randLen bytes are 'a', drawing the random offset from r.
func (p *Payload) Append(dst []byte, r *Rand, n, randLen int) []byte {
	if randLen > n {
		randLen = n
	}
	for i := 0; i < n-randLen; i++ {
		dst = append(dst, 'a')
	}
	off := r.Intn(int64(len(p.pool) - randLen + 1))
	return append(dst, p.pool[off:off+int64(randLen)]...)
}
