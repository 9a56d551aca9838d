package textwrap

import (
	"strings"
	"testing"
)

func TestLines(t *testing.T) {
	for _, c := range []struct {
		text  string
		width int
		want  []string
	}{
		{"", 10, nil},
		{"   ", 10, nil},
		{"one two three", 7, []string{"one two", "three"}},
		{"one  two\nthree", 13, []string{"one two three"}},
		{"a verylongwordindeed b", 5, []string{"a", "verylongwordindeed", "b"}},
		{"µs µs µs", 5, []string{"µs µs", "µs"}}, // columns are characters, not bytes
	} {
		if got := Lines(c.text, c.width); strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
			t.Errorf("Lines(%q, %d) = %q, want %q", c.text, c.width, got, c.want)
		}
	}
}

func TestHang(t *testing.T) {
	got := Hang("name  unit  ", "the meaning of the figure in a few words", 30)
	want := "name  unit  the meaning of the\n            figure in a few\n            words"
	if got != want {
		t.Errorf("Hang:\n%s\nwant\n%s", got, want)
	}
	if got := Hang("op  ", "", 30); got != "op" {
		t.Errorf("Hang of no text = %q", got)
	}
}

func TestFill(t *testing.T) {
	got := Fill("a b c\nd e\n\nf g", 5)
	if want := "a b c\nd e\n\nf g"; got != want {
		t.Errorf("Fill = %q, want %q", got, want)
	}
}

func TestIndented(t *testing.T) {
	got := Indented("workload: insert clients=1 rows=200000 writes=50000", 20, 2)
	if want := "workload: insert\n  clients=1\n  rows=200000\n  writes=50000"; got != want {
		t.Errorf("Indented = %q, want %q", got, want)
	}
}
