package gen

import (
	"bytes"
	"strings"
	"testing"
)

func TestAppendTextShape(t *testing.T) {
	r := NewRand(11)
	for n := 0; n <= 64; n++ {
		for _, randLen := range []int{0, 1, n / 3, n * 375 / 1000, n - 1, n, n + 5} {
			if randLen < 0 {
				continue
			}
			dst := []byte("prefix")
			out := AppendText(dst, &r, n, randLen)
			if len(out) != len("prefix")+n || !bytes.HasPrefix(out, []byte("prefix")) {
				t.Fatalf("AppendText(prefix, n=%d, randLen=%d) = %q: want prefix kept and %d bytes added", n, randLen, out, n)
			}
			v := out[len("prefix"):]
			plain := n - min(randLen, n)
			if strings.Count(string(v[:plain]), "a") != plain {
				t.Fatalf("n=%d randLen=%d: first %d bytes %q are not all 'a'", n, randLen, plain, v[:plain])
			}
			for _, c := range v[plain:] {
				if !strings.ContainsRune(base64Alphabet, rune(c)) {
					t.Fatalf("n=%d randLen=%d: random part %q has %q, not in the base64 alphabet", n, randLen, v[plain:], c)
				}
			}
		}
	}
}

func TestAppendTextDeterministic(t *testing.T) {
	gen := func(seed uint64) []byte {
		r := NewRand(seed)
		var out []byte
		for i := 0; i < 1000; i++ {
			out = AppendText(out, &r, 10+i%11, (10+i%11)*3/8)
		}
		return out
	}
	a, b := gen(42), gen(42)
	if !bytes.Equal(a, b) {
		t.Fatalf("the same seed gave different text")
	}
	if bytes.Equal(a, gen(43)) {
		t.Fatalf("seeds 42 and 43 gave the same text")
	}
}

// TestAppendTextUniform checks that the random part uses the whole base64 alphabet evenly.
func TestAppendTextUniform(t *testing.T) {
	r := NewRand(12)
	counts := make([]int, 256)
	var buf []byte
	total := 0
	for i := 0; i < 20000; i++ {
		buf = AppendText(buf[:0], &r, 20, 13)
		for _, c := range buf[7:] {
			counts[c]++
			total++
		}
	}
	alpha := make([]int, 0, 64)
	for _, c := range []byte(base64Alphabet) {
		alpha = append(alpha, counts[c])
		counts[c] = 0
	}
	for c, n := range counts {
		if n != 0 {
			t.Fatalf("byte %q outside the alphabet drawn %d times", byte(c), n)
		}
	}
	if x2 := chiSquare(alpha, total); x2 > chiBound(63) {
		t.Errorf("random characters: chi-square %.1f over 64 symbols > %.1f", x2, chiBound(63))
	}
}

func TestAppendTextNoAlloc(t *testing.T) {
	r := NewRand(1)
	buf := make([]byte, 0, 64)
	if n := testing.AllocsPerRun(100, func() { buf = AppendText(buf[:0], &r, 20, 7) }); n != 0 {
		t.Errorf("AppendText into a buffer with room allocates %.0f times", n)
	}
}

func BenchmarkAppendText(b *testing.B) {
	r := NewRand(1)
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendText(buf[:0], &r, 20, 7)
	}
}
