package metric

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/metrics.md's glossary from the catalog")

const (
	docPath   = "../../docs/metrics.md"
	beginMark = "<!-- glossary: generated from internal/metric by `go test ./internal/metric -update`; do not edit -->\n"
	endMark   = "<!-- end of glossary -->\n"
)

// TestGlossaryInDocs fails when docs/metrics.md's glossary is not the catalog's (rewrite it
// with -update).
func TestGlossaryInDocs(t *testing.T) {
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	Markdown(&b)
	s := string(doc)
	i, j := strings.Index(s, beginMark), strings.Index(s, endMark)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the glossary markers %q ... %q", docPath, beginMark, endMark)
	}
	want := s[:i+len(beginMark)] + b.String() + s[j:]
	if *update {
		if err := os.WriteFile(docPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want != s {
		t.Errorf("%s's glossary differs from the catalog: run go test ./internal/metric -update", docPath)
	}
}

func TestLookup(t *testing.T) {
	for name, want := range map[string]string{"p99_ms": "p99", "max_us": "max", "p99.99_ms": "pN", "cpu_us/op": "cpu_us/op", "max_i_ms": "max_i"} {
		if m, ok := Lookup(name); !ok || m.Name != want {
			t.Errorf("Lookup(%q) = %v, %v; want %s", name, m, ok, want)
		}
	}
	for _, name := range []string{"nosuch", "secs_ms", "p_ms"} {
		if _, ok := Lookup(name); ok {
			t.Errorf("Lookup(%q) found a metric", name)
		}
	}
	var b bytes.Buffer
	if err := Glossary(&b, "wKB/i"); err != nil || !strings.Contains(b.String(), "field:   write_kb_per_insert") {
		t.Errorf("Glossary(wKB/i): %v\n%s", err, b.String())
	}
}
