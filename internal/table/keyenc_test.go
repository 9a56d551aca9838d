package table

import (
	"bytes"
	"cmp"
	"math"
	"math/rand/v2"
	"testing"
)

// Property tests for the order-preserving key encoding: bytes.Compare on encodings must agree with
// the comparison of the encoded values, field by field, and decoding must give back the values
// and the rest of the key. The random sources have fixed seeds, so a failure reproduces.

// edgeInts are the int64 values where a sign-flip or byte-order mistake would show.
var edgeInts = []int64{
	math.MinInt64, math.MinInt64 + 1, -1 << 32, -1<<31 - 1, -1 << 31, -65536, -256, -255, -2, -1,
	0, 1, 2, 255, 256, 65535, 1<<31 - 1, 1 << 31, 1 << 32, math.MaxInt64 - 1, math.MaxInt64,
}

// edgeBytes are byte strings around the escape and terminator bytes, and prefixes of each other.
var edgeBytes = [][]byte{
	nil, {}, {0}, {0, 0}, {0, 1}, {0, 0xFF}, {0, 0xFF, 0}, {1}, {1, 0}, {0xFE}, {0xFF}, {0xFF, 0},
	{0xFF, 0xFF}, {0xFF, 0xFF, 0xFF}, []byte("a"), []byte("a\x00"), []byte("a\x00\x00"),
	[]byte("a\x00\x01"), []byte("a\x00\xff"), []byte("a\x01"), []byte("a\xff"), []byte("ab"),
	[]byte("abc"), []byte("b"),
}

func sign(c int) int { return cmp.Compare(c, 0) }

// randInt returns values from the whole range, small values (so equal pairs occur) and edges.
func randInt(r *rand.Rand) int64 {
	switch r.IntN(4) {
	case 0:
		return int64(r.Uint64())
	case 1:
		return r.Int64N(7) - 3
	case 2:
		return edgeInts[r.IntN(len(edgeInts))]
	}
	return int64(r.Uint64()) >> r.IntN(64)
}

// randBytes draws from an alphabet dense in 0x00, 0x01 and 0xFF, with short lengths, so that
// prefixes, embedded zeros and equal strings are common.
func randBytes(r *rand.Rand) []byte {
	alphabet := []byte{0x00, 0x00, 0x01, 0x02, 'a', 0xFE, 0xFF, 0xFF}
	if r.IntN(8) == 0 {
		return nil
	}
	b := make([]byte, r.IntN(7))
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return b
}

func checkIntPair(t *testing.T, a, b int64) {
	t.Helper()
	ea, eb := AppendInt(nil, a), AppendInt(nil, b)
	if len(ea) != 8 || len(eb) != 8 {
		t.Fatalf("AppendInt lengths %d, %d; want 8", len(ea), len(eb))
	}
	if got, want := sign(bytes.Compare(ea, eb)), cmp.Compare(a, b); got != want {
		t.Fatalf("bytes.Compare(enc(%d), enc(%d)) = %d, want %d", a, b, got, want)
	}
}

func checkBytesPair(t *testing.T, a, b []byte) {
	t.Helper()
	ea, eb := AppendBytes(nil, a), AppendBytes(nil, b)
	if got, want := sign(bytes.Compare(ea, eb)), bytes.Compare(a, b); got != want {
		t.Fatalf("bytes.Compare(enc(%q), enc(%q)) = %d, want %d (encodings %x, %x)", a, b, got, want, ea, eb)
	}
}

func TestIntOrder(t *testing.T) {
	for _, a := range edgeInts {
		for _, b := range edgeInts {
			checkIntPair(t, a, b)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 50000; i++ {
		checkIntPair(t, randInt(r), randInt(r))
	}
}

func TestBytesOrder(t *testing.T) {
	for _, a := range edgeBytes {
		for _, b := range edgeBytes {
			checkBytesPair(t, a, b)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 50000; i++ {
		a := randBytes(r)
		checkBytesPair(t, a, randBytes(r))
		// a prefix of a, and a with a suffix: the prefix must sort first.
		checkBytesPair(t, a, a[:r.IntN(len(a)+1)])
		checkBytesPair(t, a, append(append([]byte(nil), a...), randBytes(r)...))
	}
}

// tuple is a composite key (int, bytes, int), as an index entry (column, column, pk).
type tuple struct {
	a int64
	s []byte
	b int64
}

func (x tuple) enc() []byte {
	k := AppendInt(nil, x.a)
	k = AppendBytes(k, x.s)
	return AppendInt(k, x.b)
}

func compareTuples(x, y tuple) int {
	if c := cmp.Compare(x.a, y.a); c != 0 {
		return c
	}
	if c := bytes.Compare(x.s, y.s); c != 0 {
		return c
	}
	return cmp.Compare(x.b, y.b)
}

func randTuple(r *rand.Rand) tuple {
	return tuple{a: r.Int64N(3) - 1, s: randBytes(r), b: randInt(r)}
}

func TestCompositeOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 50000; i++ {
		x, y := randTuple(r), randTuple(r)
		if r.IntN(4) == 0 {
			y.a, y.s = x.a, x.s // equal leading fields: the last field decides
		}
		if got, want := sign(bytes.Compare(x.enc(), y.enc())), compareTuples(x, y); got != want {
			t.Fatalf("compare(enc(%v), enc(%v)) = %d, want %d", x, y, got, want)
		}
	}
}

func TestDecodeRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 20000; i++ {
		x := randTuple(r)
		tail := randBytes(r)
		k := append(x.enc(), tail...)
		a, rest, err := DecodeInt(k)
		if err != nil || a != x.a {
			t.Fatalf("DecodeInt(%x) = %d, %v; want %d", k, a, err, x.a)
		}
		prefix := []byte("dst")
		s, rest, err := DecodeBytes(prefix, rest)
		if err != nil || !bytes.Equal(s, append([]byte("dst"), x.s...)) {
			t.Fatalf("DecodeBytes of %v = %q, %v; want %q after the dst prefix", x, s, err, x.s)
		}
		b, rest, err := DecodeInt(rest)
		if err != nil || b != x.b {
			t.Fatalf("DecodeInt (last field) of %v = %d, %v", x, b, err)
		}
		if !bytes.Equal(rest, tail) {
			t.Fatalf("rest after %v = %x, want %x", x, rest, tail)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, b := range [][]byte{nil, {}, {1, 2, 3, 4, 5, 6, 7}} {
		if _, _, err := DecodeInt(b); err == nil {
			t.Errorf("DecodeInt(%x): no error for a short key", b)
		}
	}
	for _, b := range [][]byte{
		nil, {}, []byte("abc"), {'a', 0}, {'a', 0, 0xFF}, {0, 0xFF}, // truncated: no terminator
		{'a', 0, 2}, {0, 0}, {0, 0xFE, 0, 1}, // bad escape
	} {
		if s, rest, err := DecodeBytes(nil, b); err == nil {
			t.Errorf("DecodeBytes(%x) = %q, %x, nil; want an error", b, s, rest)
		}
	}
}

func TestAppendValue(t *testing.T) {
	v := Value{I: -42, B: []byte("x\x00y")}
	if got, want := AppendValue(nil, Int64, v), AppendInt(nil, -42); !bytes.Equal(got, want) {
		t.Errorf("AppendValue(Int64) = %x, want %x", got, want)
	}
	if got, want := AppendValue(nil, Timestamp, v), AppendInt(nil, -42); !bytes.Equal(got, want) {
		t.Errorf("AppendValue(Timestamp) = %x, want %x", got, want)
	}
	if got, want := AppendValue([]byte{9}, Bytes, v), AppendBytes([]byte{9}, v.B); !bytes.Equal(got, want) {
		t.Errorf("AppendValue(Bytes) = %x, want %x", got, want)
	}
}

func hasPrefix(k, p []byte) bool { return bytes.HasPrefix(k, p) }

func TestPrefixEnd(t *testing.T) {
	for _, p := range [][]byte{nil, {}, {0xFF}, {0xFF, 0xFF, 0xFF}} {
		if got := PrefixEnd([]byte("dst"), p); got != nil {
			t.Errorf("PrefixEnd(%x) = %x, want nil (no key is larger)", p, got)
		}
	}
	if got := PrefixEnd([]byte("dst"), []byte{1, 0xFF, 0xFF}); !bytes.Equal(got, []byte("dst\x02")) {
		t.Errorf("PrefixEnd(dst, 01ffff) = %q, want dst\\x02", got)
	}
	r := rand.New(rand.NewPCG(9, 10))
	for i := 0; i < 20000; i++ {
		p := randBytes(r)
		if r.IntN(3) == 0 {
			p = append(p, 0xFF, 0xFF) // carries
		}
		end := PrefixEnd(nil, p)
		allFF := bytes.Count(p, []byte{0xFF}) == len(p)
		if allFF {
			if end != nil {
				t.Fatalf("PrefixEnd(%x) = %x, want nil", p, end)
			}
			continue
		}
		if hasPrefix(end, p) {
			t.Fatalf("PrefixEnd(%x) = %x has the prefix itself", p, end)
		}
		for j := 0; j < 20; j++ {
			k := append(append([]byte(nil), p...), randBytes(r)...)
			if bytes.Compare(k, end) >= 0 {
				t.Fatalf("key %x with prefix %x is not below PrefixEnd %x", k, p, end)
			}
			// Keys near the prefix: a cut of p, or of end, with random bytes appended. A key
			// above the prefix's keys must not be below end (end is the least upper bound).
			base := p
			if r.IntN(2) == 0 {
				base = end
			}
			o := append(append([]byte(nil), base[:r.IntN(len(base)+1)]...), randBytes(r)...)
			if bytes.Compare(o, p) > 0 && !hasPrefix(o, p) && bytes.Compare(o, end) < 0 {
				t.Fatalf("PrefixEnd(%x) = %x is above %x, a key larger than the prefix's keys", p, end, o)
			}
		}
	}
}

// FuzzBytesRoundTrip checks that two byte strings encode in their order and decode back, with
// the bytes that follow an encoding returned as the rest.
func FuzzBytesRoundTrip(f *testing.F) {
	for i, a := range edgeBytes {
		f.Add(a, edgeBytes[(i*7+3)%len(edgeBytes)])
	}
	f.Add([]byte("payload\x00with\xffzeros"), []byte("payload\x00with"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		checkBytesPair(t, a, b)
		k := AppendBytes(AppendBytes(nil, a), b)
		got, rest, err := DecodeBytes(nil, k)
		if err != nil || !bytes.Equal(got, a) {
			t.Fatalf("DecodeBytes(enc(%q)) = %q, %v", a, got, err)
		}
		if !bytes.Equal(rest, AppendBytes(nil, b)) {
			t.Fatalf("rest after enc(%q) = %x, want enc(%q)", a, rest, b)
		}
		got, rest, err = DecodeBytes(got[:0], rest)
		if err != nil || !bytes.Equal(got, b) || len(rest) != 0 {
			t.Fatalf("second DecodeBytes = %q, %x, %v; want %q and no rest", got, rest, err, b)
		}
	})
}

// FuzzIntOrder checks the order and the round trip of two integers.
func FuzzIntOrder(f *testing.F) {
	for i, a := range edgeInts {
		f.Add(a, edgeInts[(i*5+2)%len(edgeInts)])
	}
	f.Fuzz(func(t *testing.T, a, b int64) {
		checkIntPair(t, a, b)
		k := AppendInt(AppendInt(nil, a), b)
		x, rest, err := DecodeInt(k)
		if err != nil || x != a {
			t.Fatalf("DecodeInt(enc(%d)) = %d, %v", a, x, err)
		}
		y, rest, err := DecodeInt(rest)
		if err != nil || y != b || len(rest) != 0 {
			t.Fatalf("DecodeInt(enc(%d)) = %d, %x, %v", b, y, rest, err)
		}
	})
}

func BenchmarkAppendInt(b *testing.B) {
	buf := make([]byte, 0, 64)
	b.SetBytes(8)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		buf = AppendInt(buf[:0], int64(i)*7919)
	}
}

func BenchmarkAppendBytes(b *testing.B) {
	for _, bc := range []struct {
		name string
		s    []byte
	}{
		{"16B", []byte("aaaaaaaaqwerty12")},
		{"16B-zeros", []byte("aa\x00aaaa\x00qwe\x00ty1\x00")},
		{"256B", bytes.Repeat([]byte("abcdefgh"), 32)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			buf := make([]byte, 0, 2*len(bc.s)+2)
			b.SetBytes(int64(len(bc.s)))
			b.ReportAllocs()
			for b.Loop() {
				buf = AppendBytes(buf[:0], bc.s)
			}
		})
	}
}
