package gen

// base64Alphabet is the standard base64 alphabet.
const base64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// AppendText appends a partly compressible value of length n to dst: n−randLen bytes of 'a'
// followed by randLen random base64 characters drawn from r (see FillText).
func AppendText(dst []byte, r *Rand, n, randLen int) []byte {
	off := len(dst)
	dst = append(dst, make([]byte, n)...) // no allocation when dst has room
	FillText(dst[off:], r, randLen)
	return dst
}

// FillText fills v with len(v)−randLen bytes of 'a' followed by randLen random base64 characters
// drawn from r (all of v is random when randLen > len(v)).
//
// The insert benchmark's client takes the random part as a substring, at a random offset, of the
// base64 encoding of 3 MiB of random bytes: random base64 characters. Drawing them straight from
// r gives the same distribution without the pool, whose random access cost a cache miss per
// value (generation went from 5.5M to over 12M rows/s on the null engine).
func FillText(v []byte, r *Rand, randLen int) {
	plain := max(len(v)-randLen, 0)
	for i := 0; i < plain; i += copy(v[i:plain], aRun) {
	}
	var bits uint64
	left := 0 // characters left in bits
	for i := plain; i < len(v); i++ {
		if left == 0 {
			bits, left = r.Uint64(), 10 // 10 characters of 6 bits each
		}
		v[i] = base64Alphabet[bits&63]
		bits >>= 6
		left--
	}
}

// aRun is the compressible filler.
const aRun = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
