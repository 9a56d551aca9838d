package script

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/workload"

	"github.com/rumbench/rumbench/internal/workload/script/pgscript"
)

func TestSplitWeightAndLabel(t *testing.T) {
	for in, want := range map[string]struct {
		name string
		w    int
	}{"a.sql": {"a.sql", 1}, "a.sql@3": {"a.sql", 3}, "dir@x/a.sql@0": {"dir@x/a.sql", 0}} {
		name, w, err := splitWeight("--script", in)
		if err != nil || name != want.name || w != want.w {
			t.Errorf("%q: %q %d %v, want %q %d", in, name, w, err, want.name, want.w)
		}
	}
	for _, bad := range []string{"a@", "@3", "a@-1", "a@1000001", ""} {
		if _, _, err := splitWeight("--script", bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	taken := map[string]bool{}
	for in, want := range map[string]string{"tpcb-like": "tpcb_like", "My Script!": "my_script", "9lives": "s_9lives"} {
		if got := label(in, taken); got != want {
			t.Errorf("label(%q) = %q, want %q", in, got, want)
		}
	}
	if got := label("tpcb_like", taken); got != "tpcb_like_2" {
		t.Errorf("a taken label: %q, want tpcb_like_2", got)
	}
}

// TestChooseWeights checks that scripts are chosen in proportion to their weights, and a
// weight of 0 never.
func TestChooseWeights(t *testing.T) {
	scripts := []Weighted{{Weight: 1}, {Weight: 0}, {Weight: 3}}
	r := pgscript.NewRand(1)
	var n [3]int
	for range 40000 {
		n[choose(r, scripts, 4)]++
	}
	if n[1] != 0 || n[0] < 9000 || n[0] > 11000 || n[2] < 29000 || n[2] > 31000 {
		t.Errorf("choices %v of 40000, want about 10000, 0, 30000", n)
	}
}

func TestDefines(t *testing.T) {
	w := build(t, "--builtin", "select-only", "--define", "aid=5", "--define", "unused=x")
	if len(w.Cfg.Sets) != 1 || w.names.Name(w.Cfg.Sets[0].Slot) != "aid" || w.Cfg.Sets[0].Value.I != 5 {
		t.Errorf("sets %+v", w.Cfg.Sets)
	}
	d := newDefinition()
	d.Flags().Parse([]string{"--define", "no-equals"})
	if _, err := d.Build(workload.Shared{Profile: "quick"}); err == nil || !strings.Contains(err.Error(), "want NAME=VALUE") {
		t.Errorf("--define no-equals: %v", err)
	}
}

// TestVariablesSetSomewhere: a variable read is set by a \set of any script, a --define or a
// \gset (any name then); else the script is refused before anything runs.
func TestVariablesSetSomewhere(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	reader := write("reader.sql", "SELECT :x;\n\\sleep :ms ms\n")
	setter := write("setter.sql", "\\set x 1\n\\set ms 0\nSELECT 1;\n")
	gset := write("gset.sql", "SELECT 1 AS x \\gset\nSELECT :anything;\n")
	build(t, "--script", reader, "--script", setter)
	build(t, "--script", reader, "--define", "x=1", "--define", "ms=2")
	build(t, "--script", gset)
	d := newDefinition()
	d.Flags().Parse([]string{"--script", reader, "--define", "x=1"})
	if _, err := d.Build(workload.Shared{Profile: "quick"}); err == nil || !strings.Contains(err.Error(), "script reader.sql line 2: variable :ms is never set") {
		t.Errorf("\\sleep :ms never set: %v", err)
	}
}
