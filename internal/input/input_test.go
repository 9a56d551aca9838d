package input

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestShort(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"pebble", "pebble"},
		{strings.Repeat("a", 60), strings.Repeat("a", 60)},
		{strings.Repeat("a", 61), strings.Repeat("a", 60) + "…(61 bytes)"},
		{strings.Repeat("é", 100), strings.Repeat("é", 60) + "…(200 bytes)"},
	} {
		if got := Short(tc.in); got != tc.want {
			t.Errorf("Short(%d bytes) = %q, want %q", len(tc.in), got, tc.want)
		}
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.yaml")
	if err := os.WriteFile(small, []byte("repeat: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, make([]byte, 2048), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(small, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, want string // want: the error, "" for none
	}{
		{small, ""},
		{link, ""},
		{big, "is 2048 bytes: at most 1 KiB (1024 bytes)"},
		{dir, "not a regular file (a directory)"},
		{fifo, "not a regular file (a named pipe)"}, // refused without waiting for a writer
		{"/dev/zero", "not a regular file (a character device)"},
		{filepath.Join(dir, "missing"), "no such file or directory"},
	} {
		data, err := ReadFile(tc.path, 1024)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.path, err)
		case tc.want == "" && string(data) != "repeat: 2\n":
			t.Errorf("%s: read %q", tc.path, data)
		case tc.want != "" && (err == nil || err.Error() != tc.want):
			t.Errorf("%s: error %v, want %q", tc.path, err, tc.want)
		}
	}
}

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"insert", "a", "v1.2_rc-3", "A9", strings.Repeat("x", 64)} {
		if err := CheckName(ok); err != nil {
			t.Errorf("CheckName(%q): %v", ok, err)
		}
	}
	for in, want := range map[string]string{
		"":                      "empty: want " + NameRule,
		strings.Repeat("x", 65): "65 bytes long: want " + NameRule,
		".hidden":               `starts with '.': want ` + NameRule,
		"-f":                    `starts with '-': want ` + NameRule,
		"a/b":                   `character '/' at byte 1: want ` + NameRule,
		"a b":                   `character ' ' at byte 1: want ` + NameRule,
		"pg:x":                  `character ':' at byte 2: want ` + NameRule,
		"é":                     `character 'é' at byte 0: want ` + NameRule,
	} {
		if err := CheckName(in); err == nil || err.Error() != want {
			t.Errorf("CheckName(%q) = %v, want %q", in, err, want)
		}
	}
}

func TestCheckPath(t *testing.T) {
	long := strings.Repeat("p", 256)
	for in, want := range map[string]string{
		"/tmp/results":                   "",
		"/tmp/" + long[:255] + "/x":      "",
		"/tmp/" + long + "/x":            "a name in it is 256 bytes long (" + Short(long) + "): at most 255",
		"/" + strings.Repeat("a/", 2048): "4097 bytes long: at most 4095",
	} {
		err := CheckPath(in)
		if got := fmt.Sprint(err); (want == "" && err != nil) || (want != "" && got != want) {
			t.Errorf("CheckPath(%s) = %v, want %q", Short(in), err, want)
		}
	}
}

func TestSQLitePath(t *testing.T) {
	if got, want := SQLitePath("/a b/x?mode=memory#f%41.db"), "/a b/x%3fmode=memory%23f%2541.db"; got != want {
		t.Errorf("SQLitePath = %q, want %q", got, want)
	}
}

// TestPrintable: what can drive a terminal is escaped, and nothing else.
func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"postgres-16.4 (x)\tok\n":      "postgres-16.4 (x)\tok\n",
		"ghost\x1b[2J\x1b]0;title\x07": `ghost\x1b[2J\x1b]0;title\x07`,
		"a\rb\x7fc\x00":                `a\x0db\x7fc\x00`,
		"csi\u009b31m":                 `csi\u009b31m`,
		"evil\u202egnp.exe":            `evil\u202egnp.exe`,
		"bad \xff utf8":                `bad \xff utf8`,
		"héllo → ±4% µs":               "héllo → ±4% µs",
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLine: the first line, cut at most at max bytes on a UTF-8 boundary.
func TestLine(t *testing.T) {
	for _, c := range []struct {
		s    string
		max  int
		want string
	}{
		{"one\ntwo", 0, "one"},
		{"abcdef", 4, "abcd…"},
		{"ab€cd", 4, "ab…"}, // € is 3 bytes: the cut backs off to its start
		{"short", 10, "short"},
	} {
		if got := Line(c.s, c.max); got != c.want {
			t.Errorf("Line(%q, %d) = %q, want %q", c.s, c.max, got, c.want)
		}
	}
}
