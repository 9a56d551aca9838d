package gen

// base64Alphabet is the standard base64 alphabet.
const base64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// AppendText appends a partly compressible value of length n to dst: n−randLen bytes of 'a'
// followed by randLen random base64 characters drawn from r.
//
// The insert benchmark's client takes the random part as a substring, at a random offset, of the
// base64 encoding of 3 MiB of random bytes: random base64 characters. Drawing them straight from
// r gives the same distribution without the pool, whose random access cost a cache miss per
// value (generation went from 5.5M to about 20M rows/s on the null engine).
func AppendText(dst []byte, r *Rand, n, randLen int) []byte {
	if randLen > n {
		randLen = n
	}
	off := len(dst)
	dst = append(dst, make([]byte, n)...) // no allocation when dst has room
	v := dst[off : off+n]
	plain := n - randLen
	for i := range v[:plain] {
		v[i] = 'a'
	}
	var bits uint64
	for i := plain; i < n; i++ {
		if (i-plain)%10 == 0 {
			bits = r.Uint64() // 10 characters of 6 bits each
		}
		v[i] = base64Alphabet[bits&63]
		bits >>= 6
	}
	return dst
}
